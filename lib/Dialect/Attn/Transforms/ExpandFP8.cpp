//===- ExpandFP8.cpp - --attn-expand-fp8 -----------------------------------===//
//
// arith.extf from the 8-bit floats and arith.truncf to them as integer and
// f16/f32 arithmetic, which the LLVM and NVVM conversions lower (LLVM has no
// 8-bit float types). The pass description in Passes.td derives the bit
// manipulation.
//
//===----------------------------------------------------------------------===//
#include "attn/Dialect/Attn/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>
#include <limits>

namespace mlir {
namespace attn {
#define GEN_PASS_DEF_ATTNEXPANDFP8PASS
#include "attn/Dialect/Attn/Transforms/Passes.h.inc"
} // namespace attn
} // namespace mlir

using namespace mlir;
using namespace mlir::attn;

namespace {

/// `like`'s shape (a vector's or a tensor's; none for a scalar) with
/// element type `elt`.
Type withElementType(Type like, Type elt) {
  if (auto shaped = dyn_cast<ShapedType>(like))
    return shaped.clone(elt);
  return elt;
}

/// A constant of `type` (scalar, or vector or tensor splat) holding `value`.
Value splat(OpBuilder &b, Location loc, Type type, TypedAttr value) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(shaped, value));
  return arith::ConstantOp::create(b, loc, value);
}

bool isFP8(Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(getElementTypeOrSelf(t)); }

/// An arith op on 8-bit float scalars or vectors that no pattern here
/// expands (arithmetic on them, arith.truncf from f64): LLVM cannot lower
/// it, and left in place it would pass through the pipeline unlowered.
/// Tensors and memrefs of them are fine (constants, buffers: bytes).
/// Floats narrower than 16 bits other than f8E4M3FN and f8E5M2 (the FNUZ
/// variants, f8E8M0FNU, the 6- and 4-bit floats) have no expansion at all.
bool needsUnsupportedFP8Arith(Operation *op) {
  if (!isa<arith::ArithDialect>(op->getDialect()) ||
      isa<arith::BitcastOp, arith::ConstantOp, arith::SelectOp>(op) ||
      (isa<arith::ExtFOp>(op) && isFP8(op->getOperand(0).getType())))
    return false;
  auto scalarOrVector = [](Type t) {
    auto f = dyn_cast<FloatType>(getElementTypeOrSelf(t));
    return f && f.getWidth() < 16 && !isa<TensorType, BaseMemRefType>(t);
  };
  return llvm::any_of(op->getOperandTypes(), scalarOrVector) ||
         llvm::any_of(op->getResultTypes(), scalarOrVector);
}

struct ExpandFP8ExtF : public OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::ExtFOp op, PatternRewriter &b) const override {
    Type srcElt = getElementTypeOrSelf(op.getIn().getType());
    bool e4m3 = isa<Float8E4M3FNType>(srcElt);
    if (!e4m3 && !isa<Float8E5M2Type>(srcElt))
      return b.notifyMatchFailure(op, "not an 8-bit float");
    Location loc = op.getLoc();
    Type like = op.getIn().getType();
    Type i8 = withElementType(like, b.getI8Type()), i16 = withElementType(like, b.getI16Type());
    Type f16 = withElementType(like, b.getF16Type()), f32 = withElementType(like, b.getF32Type());
    auto i16Const = [&](int64_t v) { return splat(b, loc, i16, b.getI16IntegerAttr(v)); };
    Value bits = arith::ExtUIOp::create(b, loc, i16,
                                        arith::BitcastOp::create(b, loc, i8, op.getIn()));
    Value wide;
    if (!e4m3) {
      // E5M2 is an f16 without its low byte.
      Value half = arith::BitcastOp::create(
          b, loc, f16, arith::ShLIOp::create(b, loc, bits, i16Const(8)));
      wide = arith::ExtFOp::create(b, loc, f32, half);
    } else {
      Value magnitude = arith::AndIOp::create(b, loc, bits, i16Const(0x7F));
      Value sign = arith::ShLIOp::create(
          b, loc, arith::AndIOp::create(b, loc, bits, i16Const(0x80)), i16Const(8));
      Value half = arith::BitcastOp::create(
          b, loc, f16,
          arith::OrIOp::create(b, loc, sign,
                               arith::ShLIOp::create(b, loc, magnitude, i16Const(7))));
      Value value = arith::MulFOp::create(b, loc, arith::ExtFOp::create(b, loc, f32, half),
                                          splat(b, loc, f32, b.getF32FloatAttr(256.0f)));
      Value isNaN =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, magnitude, i16Const(0x7F));
      Value nan = splat(b, loc, f32,
                        b.getF32FloatAttr(std::numeric_limits<float>::quiet_NaN()));
      wide = arith::SelectOp::create(b, loc, isNaN, nan, value);
    }
    // Exact in every direction: the 8-bit values are f16, bf16 and f32 values.
    Type dstElt = getElementTypeOrSelf(op.getType());
    if (dstElt.isF32())
      b.replaceOp(op, wide);
    else if (cast<FloatType>(dstElt).getWidth() > 32)
      b.replaceOpWithNewOp<arith::ExtFOp>(op, op.getType(), wide);
    else
      b.replaceOpWithNewOp<arith::TruncFOp>(op, op.getType(), wide);
    return success();
  }
};

/// arith.truncf to an 8-bit float, from f32 (or f16/bf16, extended to f32
/// first: exact, so there is one rounding), as integer arithmetic on the f32
/// bits, rounding to nearest even as arith.truncf does (APFloat's
/// conversion): normal results by re-biasing the exponent in place and
/// rounding the dropped mantissa bits (a carry runs into the exponent);
/// results below the smallest normal by scaling |x| to units of the
/// smallest subnormal and rounding with the f32 adder (+2^23 − 2^23); past
/// the largest finite value inf for E5M2 and NaN for E4M3FN, which has no
/// inf; NaN stays NaN; the sign is copied (−0 stays −0). f64 sources are
/// not expanded (f64 → f32 → 8 bits would round twice).
struct ExpandFP8TruncF : public OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::TruncFOp op, PatternRewriter &b) const override {
    Type dstElt = getElementTypeOrSelf(op.getType());
    bool e4m3 = isa<Float8E4M3FNType>(dstElt);
    if (!e4m3 && !isa<Float8E5M2Type>(dstElt))
      return b.notifyMatchFailure(op, "not to an 8-bit float");
    Type srcElt = getElementTypeOrSelf(op.getIn().getType());
    if (!srcElt.isF32() && !srcElt.isF16() && !srcElt.isBF16())
      return b.notifyMatchFailure(op, "f64 would round twice through f32");
    // Only the default rounding; another mode is left for the pass's error.
    if (std::optional<arith::RoundingMode> mode = op.getRoundingmode();
        mode && *mode != arith::RoundingMode::to_nearest_even)
      return b.notifyMatchFailure(op, "a rounding mode other than to-nearest-even");
    Location loc = op.getLoc();
    Type like = op.getIn().getType();
    Type i32 = withElementType(like, b.getI32Type()), f32 = withElementType(like, b.getF32Type());
    auto c32 = [&](int64_t v) { return splat(b, loc, i32, b.getI32IntegerAttr(int32_t(v))); };
    Value x = op.getIn();
    if (!srcElt.isF32())
      x = arith::ExtFOp::create(b, loc, f32, x);
    // Exponent bias and mantissa bits of the destination.
    const int64_t bias = e4m3 ? 7 : 15, mant = e4m3 ? 3 : 2, drop = 23 - mant;
    Value bits = arith::BitcastOp::create(b, loc, i32, x);
    Value sign = arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, bits, c32(24)),
                                       c32(0x80));
    Value mag = arith::AndIOp::create(b, loc, bits, c32(0x7FFFFFFF));
    // Normal: the exponent re-biased in place, then round to nearest even.
    Value rebiased = arith::SubIOp::create(b, loc, mag, c32((127 - bias) << 23));
    Value lsb = arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, rebiased, c32(drop)),
                                      c32(1));
    Value rounded = arith::AddIOp::create(
        b, loc, rebiased, arith::AddIOp::create(b, loc, c32((1 << (drop - 1)) - 1), lsb));
    Value normal = arith::ShRUIOp::create(b, loc, rounded, c32(drop));
    // Below the smallest normal: |x| in units of the smallest subnormal
    // (exact: a power of two), rounded to an integer by the f32 adder.
    Value units = arith::MulFOp::create(
        b, loc, arith::BitcastOp::create(b, loc, f32, mag),
        splat(b, loc, f32, b.getF32FloatAttr(std::ldexp(1.0f, int(bias + mant - 1)))));
    Value magic = splat(b, loc, f32, b.getF32FloatAttr(8388608.0f));
    Value subnormal = arith::FPToUIOp::create(
        b, loc, i32,
        arith::SubFOp::create(b, loc, arith::AddFOp::create(b, loc, units, magic), magic));
    using P = arith::CmpIPredicate;
    Value isSubnormal = arith::CmpIOp::create(b, loc, P::ult, mag, c32((127 - bias + 1) << 23));
    Value code = arith::SelectOp::create(b, loc, isSubnormal, subnormal, normal);
    // Past the largest finite value; NaN in.
    int64_t maxFinite = e4m3 ? 0x7E : 0x7B, overflow = e4m3 ? 0x7F : 0x7C;
    code = arith::SelectOp::create(
        b, loc, arith::CmpIOp::create(b, loc, P::ugt, code, c32(maxFinite)), c32(overflow), code);
    Value isNaN = arith::CmpIOp::create(b, loc, P::ugt, mag, c32(0x7F800000));
    code = arith::SelectOp::create(b, loc, isNaN, c32(e4m3 ? 0x7F : 0x7E), code);
    code = arith::OrIOp::create(b, loc, code, sign);
    Value byte = arith::TruncIOp::create(b, loc, withElementType(like, b.getI8Type()), code);
    b.replaceOpWithNewOp<arith::BitcastOp>(op, op.getType(), byte);
    return success();
  }
};

struct AttnExpandFP8Pass : public attn::impl::AttnExpandFP8PassBase<AttnExpandFP8Pass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateAttnExpandFP8Patterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    WalkResult unsupported = getOperation()->walk([](Operation *op) {
      if (!needsUnsupportedFP8Arith(op))
        return WalkResult::advance();
      op->emitError("attn-expand-fp8: ")
          << op->getName()
          << " on 8-bit floats has no lowering (LLVM has no 8-bit float types; only "
             "arith.extf from f8E4M3FN and f8E5M2 and arith.truncf to them from f32, f16 "
             "and bf16, rounding to nearest even, are expanded)";
      return WalkResult::interrupt();
    });
    if (unsupported.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace

void mlir::attn::populateAttnExpandFP8Patterns(RewritePatternSet &patterns) {
  patterns.add<ExpandFP8ExtF, ExpandFP8TruncF>(patterns.getContext());
}

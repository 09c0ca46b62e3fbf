//===- ExpandFP8.cpp - --attn-expand-fp8 -----------------------------------===//
//
// arith.extf from the 8-bit floats as integer and f16 arithmetic, which the
// LLVM and NVVM conversions lower (LLVM has no 8-bit float types). The pass
// description in Passes.td derives the bit manipulation.
//
//===----------------------------------------------------------------------===//
#include "attn/Dialect/Attn/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

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
/// expands (arith.truncf to them, arithmetic on them): LLVM cannot lower
/// it, and left in place it would pass through the pipeline unlowered.
/// Tensors and memrefs of them are fine (constants, buffers: bytes).
bool needsUnsupportedFP8Arith(Operation *op) {
  if (!isa<arith::ArithDialect>(op->getDialect()) ||
      isa<arith::ExtFOp, arith::BitcastOp, arith::ConstantOp>(op))
    return false;
  auto scalarOrVector = [](Type t) { return isFP8(t) && !isa<TensorType, BaseMemRefType>(t); };
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
             "arith.extf from them is expanded)";
      return WalkResult::interrupt();
    });
    if (unsupported.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace

void mlir::attn::populateAttnExpandFP8Patterns(RewritePatternSet &patterns) {
  patterns.add<ExpandFP8ExtF>(patterns.getContext());
}

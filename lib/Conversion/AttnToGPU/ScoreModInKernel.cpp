//===- ScoreModInKernel.cpp - attn.attention's score_mod in the kernel ----===//
//
// A score_mod region in a kernel (ScoreModCopier, shared by the tensor-core
// and the generic kernels), and FlashAttentionEmitter::modifyScore:
//
//   copy          the region copied per score, with its (b, h, i, j)
//   loadElement   its reads of tensors from above, as loads from kernel
//                 parameters
//   expandMath    its math ops as arithmetic and single PTX instructions
//                 (no libdevice)
//
//===----------------------------------------------------------------------===//
#include "ScoreModInKernel.h"
#include "FlashAttentionEmitter.h"
#include "attn/Dialect/Attn/IR/ScoreMod.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

using namespace mlir;
using namespace mlir::attn;

namespace {
/// A math op with a native PTX instruction, as pure inline PTX: the
/// GPU-to-NVVM lowering would call libdevice (__nv_fabsf, __nv_floorf, ...)
/// and marks the LLVM intrinsics illegal. `asmText` names the operands $1..
/// in the op's operand order.
template <typename MathOp>
struct MathToPTX : OpRewritePattern<MathOp> {
  MathToPTX(MLIRContext *ctx, StringRef asmText) : OpRewritePattern<MathOp>(ctx), asmText(asmText) {}
  LogicalResult matchAndRewrite(MathOp op, PatternRewriter &rewriter) const override {
    if (!op.getType().isF32())
      return failure();
    std::string constraints = "=f";
    for (unsigned i = 0; i < op->getNumOperands(); ++i)
      constraints += ",f";
    // Pure (no side-effect unit attribute), so LLVM may move and CSE it.
    rewriter.replaceOpWithNewOp<LLVM::InlineAsmOp>(
        op, op.getType(), op->getOperands(), rewriter.getStringAttr(asmText),
        rewriter.getStringAttr(constraints), UnitAttr(), UnitAttr(), LLVM::TailCallKindAttr(),
        LLVM::AsmDialectAttr(), ArrayAttr());
    return success();
  }
  std::string asmText;
};
/// f32 inline PTX of one instruction, pure (LLVM may move and CSE it).
Value ptx(PatternRewriter &rewriter, Location loc, StringRef text, Value x) {
  return LLVM::InlineAsmOp::create(rewriter, loc, x.getType(), ValueRange{x},
                                   rewriter.getStringAttr(text), rewriter.getStringAttr("=f,f"),
                                   UnitAttr(), UnitAttr(), LLVM::TailCallKindAttr(),
                                   LLVM::AsmDialectAttr(), ArrayAttr())
      .getResult(0);
}

/// tanh(x) = 1 − 2 / (e^{2x} + 1) with the SFU's ex2.approx and
/// rcp.approx, as FlashAttention's own exp is: ~10 instructions where the
/// rational polynomial (with an IEEE divide) took ~40 and v20's libdevice
/// tanhf ~25. Absolute error ≈ 1e-7 (near 0 the relative error grows,
/// but the score's absolute error is what the softmax sees); ±1 beyond
/// |x| ≈ 9, as e^{2x} overflows to inf or underflows to 0.
struct TanhBySFU : OpRewritePattern<math::TanhOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::TanhOp op, PatternRewriter &rewriter) const override {
    if (!op.getType().isF32())
      return failure();
    Location loc = op.getLoc();
    auto cst = [&](double v) {
      return arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(v));
    };
    Value twoXLog2e = arith::MulFOp::create(rewriter, loc, op.getOperand(), cst(2.0 * M_LOG2E));
    Value e2x = ptx(rewriter, loc, "ex2.approx.ftz.f32 $0, $1;", twoXLog2e);
    Value inv = ptx(rewriter, loc, "rcp.approx.ftz.f32 $0, $1;",
                    arith::AddFOp::create(rewriter, loc, e2x, cst(1.0)));
    Value twice = arith::MulFOp::create(rewriter, loc, inv, cst(2.0));
    rewriter.replaceOpWithNewOp<arith::SubFOp>(op, cst(1.0), twice);
    return success();
  }
};

/// x / c for a constant c as x · (1/c): within an ulp of the IEEE divide
/// (PTX's div.rn.f32 is a ~10-instruction sequence with a slow path).
struct DivByConstantAsMul : OpRewritePattern<arith::DivFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::DivFOp op, PatternRewriter &rewriter) const override {
    FloatAttr c;
    if (!op.getType().isF32() || !matchPattern(op.getRhs(), m_Constant(&c)) ||
        c.getValue().isZero() || !c.getValue().isFinite())
      return failure();
    Value inv = arith::ConstantOp::create(rewriter, op.getLoc(),
                                          rewriter.getF32FloatAttr(1.0 / c.getValueAsDouble()));
    rewriter.replaceOpWithNewOp<arith::MulFOp>(op, op.getLhs(), inv);
    return success();
  }
};
} // namespace

Value FlashAttentionEmitter::modifyScore(Value score, int64_t mi, int r, Value key,
                                         Value modResult) {
  // The region's indices: [b, h, i, j], without the batch at rank 3 and
  // without the head at rank 2.
  SmallVector<Value, 4> indices{v.batch, v.modRowHead[mi][r], v.modRow[mi][r], key};
  return scoreMods.copy(score, ArrayRef<Value>(indices).take_back(s.scoreModRank), modResult);
}

Value ScoreModCopier::copy(Value score, ValueRange indices, Value modResult) {
  // From above, whyNoGPUScoreMod admits constants, cloned into the kernel
  // (it is isolated from the host), and tensors read element by element,
  // which are kernel parameters: bound as tensors here, their reads become
  // loads below.
  Region &region = *s.scoreMod;
  IRMapping map;
  for (auto [t, buffer] : llvm::zip_equal(s.scoreModTensors, buffers))
    map.map(t, bufferization::ToTensorOp::create(
                   b, loc, t.getType(), buffer, /*restrict=*/true, /*writable=*/false)
                   .getResult());
  region.walk([&](Operation *op) {
    for (Value operand : op->getOperands())
      if (!map.contains(operand) && !region.isAncestor(operand.getParentRegion()))
        map.map(operand, b.clone(*operand.getDefiningOp())->getResult(0));
  });
  applyScoreMod(b, region, score, indices, map, modResult);
  region.walk([&](tensor::ExtractOp extract) {
    if (Value copied = map.lookupOrNull(extract.getResult()))
      map.map(extract.getResult(), loadElement(copied.getDefiningOp<tensor::ExtractOp>()));
  });
  for (Value t : s.scoreModTensors)
    if (Operation *view = map.lookup(t).getDefiningOp(); view->use_empty())
      view->erase();
  for (Operation &op : region.front().without_terminator()) {
    Value copied = op.getNumResults() == 1 ? map.lookupOrNull(op.getResult(0)) : Value();
    Operation *copy = copied ? copied.getDefiningOp() : nullptr;
    if (copy && (isa<math::MathDialect>(copy->getDialect()) || isa<arith::DivFOp>(copy)))
      copiedOps.push_back(copy);
  }
  return map.lookup(modResult);
}

Value ScoreModCopier::loadElement(tensor::ExtractOp extract) {
  // An element of a kernel parameter. tensor.extract out of bounds is
  // undefined; the kernel clamps each index (unsigned, so a negative one
  // reads the last element) and so never reads past the buffer.
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(extract);
  auto view = extract.getTensor().getDefiningOp<bufferization::ToTensorOp>();
  auto shape = extract.getTensor().getType().getShape();
  SmallVector<Value> indices;
  for (auto [index, size] : llvm::zip_equal(extract.getIndices(), shape))
    indices.push_back(arith::MinUIOp::create(
        b, loc, index, arith::ConstantIndexOp::create(b, loc, size - 1)));
  Value element = memref::LoadOp::create(b, loc, view.getBuffer(), indices);
  extract.replaceAllUsesWith(element);
  extract.erase();
  return element;
}

void ScoreModCopier::expandMath() {
  // The GPU-to-NVVM lowering turns math.tanh, math.exp2, ... into libdevice
  // calls, which resolve only where the CUDA toolkit is found at compile
  // time (CUDA_HOME); elsewhere the PTX has unresolved externs. The copied
  // score_mod's math ops (the kernel's own exp2 is inline PTX) are
  // therefore rewritten into arithmetic: expansions (tanh via exp, exp2 via
  // exp) and upstream's f32 polynomial approximations (a few ulps).
  if (copiedOps.empty())
    return;
  MLIRContext *ctx = b.getContext();
  RewritePatternSet patterns(ctx);
  patterns.add<TanhBySFU>(ctx, /*benefit=*/2); // before upstream's tanh
  populateMathPolynomialApproximationPatterns(patterns);
  math::populateExpansionPatterns(patterns);
  // The leaves the approximations and expansions are built from.
  patterns.add<MathToPTX<math::AbsFOp>>(ctx, "abs.f32 $0, $1;");
  patterns.add<MathToPTX<math::FloorOp>>(ctx, "cvt.rmi.f32.f32 $0, $1;");
  patterns.add<MathToPTX<math::CeilOp>>(ctx, "cvt.rpi.f32.f32 $0, $1;");
  patterns.add<MathToPTX<math::TruncOp>>(ctx, "cvt.rzi.f32.f32 $0, $1;");
  patterns.add<MathToPTX<math::RoundEvenOp>>(ctx, "cvt.rni.f32.f32 $0, $1;");
  patterns.add<MathToPTX<math::SqrtOp>>(ctx, "sqrt.rn.f32 $0, $1;");
  patterns.add<MathToPTX<math::FmaOp>>(ctx, "fma.rn.f32 $0, $1, $2, $3;");
  // math.copysign(x, y): x's magnitude, y's sign; PTX's copysign d, a, b
  // takes a's sign and b's magnitude.
  patterns.add<MathToPTX<math::CopySignOp>>(ctx, "copysign.f32 $0, $2, $1;");
  patterns.add<DivByConstantAsMul>(ctx);
  (void)applyOpPatternsGreedily(copiedOps, std::move(patterns));
  copiedOps.clear();
}

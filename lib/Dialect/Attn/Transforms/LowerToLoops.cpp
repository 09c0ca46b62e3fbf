//===- LowerToLoops.cpp - --attn-lower-to-loops ---------------------------===//
//
// attn ops -> linalg on tensors (DecomposeToLinalg.cpp), then upstream
// one-shot bufferization, linalg -> scf loops and buffer deallocation. The
// upstream half runs as a dynamic pipeline so that this pass alone yields
// loops over memrefs, as its name promises.
//
//===----------------------------------------------------------------------===//
#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/Dialect/Attn/Transforms/Passes.h"

#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace attn {
#define GEN_PASS_DEF_ATTNLOWERTOLOOPSPASS
#include "attn/Dialect/Attn/Transforms/Passes.h.inc"
} // namespace attn
} // namespace mlir

using namespace mlir;
using namespace mlir::attn;

namespace {

/// The upstream half: one-shot bufferization, linalg -> scf loops, buffer
/// hoisting and deallocation. It is built from the passes' create functions,
/// not parsed from a pipeline string: a compiler that links our passes need
/// not have registered upstream passes by name (the fuzz target found this).
void buildBufferizeToLoops(OpPassManager &pm) {
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  // Identity layouts at function boundaries keep signatures plain memrefs, so
  // that mlir-runner's entry points and C callers see what they expect.
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  // A loop that carries a tensor (an attention applied in an scf.for with
  // iter_args) may yield a fresh buffer each iteration.
  bufferize.allowReturnAllocsFromLoops = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  pm.addPass(createCanonicalizerPass());
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  fpm.addPass(createConvertLinalgToLoopsPass());
  fpm.addPass(bufferization::createBufferHoistingPass());
  fpm.addPass(bufferization::createBufferLoopHoistingPass());
  bufferization::buildBufferDeallocationPipeline(pm);
  // The deallocation pipeline copies a buffer it cannot prove unaliased
  // (bufferization.clone: a matmul into a function argument, returned);
  // no LLVM lowering takes clones, memref's alloc + copy do.
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addPass(createCanonicalizerPass());
}

/// linalg.softmax has no loop lowering upstream; its AggregatedOpInterface
/// spells it as max/sub/exp/sum/div generics.
struct DecomposeLinalgSoftmax : public OpRewritePattern<linalg::SoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::SoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<SmallVector<Value>> parts = op.decomposeOperation(rewriter);
    if (failed(parts))
      return failure();
    rewriter.replaceOp(op, *parts);
    return success();
  }
};

struct AttnLowerToLoopsPass
    : public attn::impl::AttnLowerToLoopsPassBase<AttnLowerToLoopsPass> {
  using AttnLowerToLoopsPassBase::AttnLowerToLoopsPassBase;

  void getDependentDialects(DialectRegistry &registry) const override {
    AttnLowerToLoopsPassBase::getDependentDialects(registry);
    OpPassManager pm(ModuleOp::getOperationName());
    buildBufferizeToLoops(pm);
    pm.getDependentDialects(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();

    // Say why an op cannot be lowered before the conversion would only
    // report it as "failed to legalize".
    WalkResult unsupported = module.walk([&](AttentionOp op) {
      auto q = cast<RankedTensorType>(op.getQuery().getType());
      auto k = cast<RankedTensorType>(op.getKey().getType());
      int64_t r = q.getRank();
      if (op.hasHeadDim() && (q.isDynamicDim(r - 3) || k.isDynamicDim(r - 3))) {
        op.emitError("attn-lower-to-loops: the head counts must be static (GQA "
                     "reads K/V head h / (Hq / Hkv)), got ")
            << q << " and " << k;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (unsupported.wasInterrupted())
      return signalPassFailure();
    // Likewise the attentions a varlen batch unpacks into.
    WalkResult dynamicHeads = module.walk([&](VarlenAttentionOp op) {
      if (!op.getQuery().getType().isDynamicDim(1) && !op.getKey().getType().isDynamicDim(1))
        return WalkResult::advance();
      op.emitError("attn-lower-to-loops: the head counts must be static (GQA reads K/V head "
                   "h / (Hq / Hkv)), got ")
          << op.getQuery().getType() << " and " << op.getKey().getType();
      return WalkResult::interrupt();
    });
    if (dynamicHeads.wasInterrupted())
      return signalPassFailure();
    WalkResult dynamicPages = module.walk([&](PagedAttentionOp op) {
      if (succeeded(op.getCostShape()))
        return WalkResult::advance();
      op.emitError("attn-lower-to-loops: the page gathers need static shapes");
      return WalkResult::interrupt();
    });
    if (dynamicPages.wasInterrupted())
      return signalPassFailure();

    RewritePatternSet patterns(ctx);
    populateAttnDecomposeToLinalgPatterns(patterns);
    // A paged attention not gathered yet: gathered, then decomposed as the
    // attention it becomes.
    populateAttnGatherPagedKVPatterns(patterns, /*checkBounds=*/false);
    // Likewise a packed variable-length batch, one attention per sequence.
    populateAttnUnpackVarlenPatterns(patterns, /*checkBounds=*/false);
    patterns.add<DecomposeLinalgSoftmax>(ctx);
    // Each attn op must go: a partial conversion reports any that remain.
    ConversionTarget target(*ctx);
    target.addIllegalDialect<AttnDialect>();
    target.addIllegalOp<linalg::SoftmaxOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    if (decomposeOnly)
      return;

    OpPassManager pm(ModuleOp::getOperationName());
    buildBufferizeToLoops(pm);
    if (failed(runPipeline(pm, module)))
      return signalPassFailure();
  }
};
} // namespace

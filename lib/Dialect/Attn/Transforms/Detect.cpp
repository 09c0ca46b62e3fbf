//===- Detect.cpp - --attn-detect: raise attention to attn.attention ------===//
//
// Three layers, kept apart on purpose, each in its own file:
//
//  1. Normalization (DetectNormalize.{h,cpp}, `classify`): any op of the
//     attn, linalg or tosa dialects that can sit in an attention chain is
//     read as one abstract `Node`: a matmul with its operand layout, an
//     elementwise op with each operand's broadcast, a row reduction, a
//     softmax, a cast, a transpose. Spelling differences (named op vs
//     generic, maps vs explicit transposes, keepdim reductions, scalars in
//     the payload vs splat constants) end here.
//  2. Matching (DetectMatch.{h,cpp}, DetectMatchHeads.cpp): one canonical
//     chain, walked backwards from each P·V candidate, on Nodes only.
//  3. Rewriting (DetectRewrite.cpp, `populateAttnDetectPatterns`): a pattern
//     that plans the attention from a match, checks it with the op's own
//     shape check, and replaces P·V through the rewriter.
//
// This file is the pass: it hands the candidates to the greedy driver, then
// explains the near misses that remain.
//
//===----------------------------------------------------------------------===//
#include "DetectRewrite.h"
#include "attn/Dialect/Attn/Transforms/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace attn {
#define GEN_PASS_DEF_ATTNDETECTPASS
#include "attn/Dialect/Attn/Transforms/Passes.h.inc"
} // namespace attn
} // namespace mlir

using namespace mlir;
using namespace mlir::attn;

/// The P·V candidates: every matmul, in program order.
static SmallVector<Operation *> collectMatmuls(func::FuncOp func) {
  SmallVector<Operation *> matmuls;
  func.walk([&](Operation *op) {
    if (op->getNumResults() == 1 &&
        detect::classify(op->getResult(0)).kind == detect::NodeKind::MatMul)
      matmuls.push_back(op);
  });
  return matmuls;
}

namespace {
struct AttnDetectPass : public attn::impl::AttnDetectPassBase<AttnDetectPass> {
  using AttnDetectPassBase::AttnDetectPassBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    RewritePatternSet patterns(&getContext());
    populateAttnDetectPatterns(patterns);
    // The driver's worklist is a stack, so it visits the candidates latest
    // first: a chain's ops are still in place when its P·V is rewritten. It
    // drops the candidates a raised chain erased, and erases what a raised
    // chain leaves dead. A matmul nobody reads stays as it is: the driver
    // would erase it before trying the pattern.
    SmallVector<Operation *> candidates = collectMatmuls(func);
    llvm::erase_if(candidates, [](Operation *op) { return op->use_empty(); });
    // Nothing else: no folding or CSE of the ops around the chains.
    GreedyRewriteConfig config;
    config.setScope(&func.getBody())
        .enableFolding(false)
        .enableConstantCSE(false)
        .setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    (void)applyOpPatternsGreedily(candidates, std::move(patterns), config);
    if (!explain)
      return;
    // Near misses are explained once, on the IR as the driver left it: a
    // pattern must not emit diagnostics, since the driver revisits users of
    // a replaced P·V.
    SmallVector<Operation *> remaining = collectMatmuls(func);
    for (Operation *op : llvm::reverse(remaining)) {
      std::string why = detect::whyNotRaised(op);
      if (!why.empty())
        op->emitRemark("attn-detect: not raised: ") << why;
    }
  }
};
} // namespace

//===- DetectNormalizeReductions.cpp - --attn-detect: reductions, matmuls --===//
//
// Part of layer 1 (DetectNormalize.h): the linalg ops with reduction loops,
// read as Nodes. A row reduction is a max or a sum whose output keeps the
// input's other dims in order, from its combiner's identity; a contraction
// is a matmul read positionally: [b.., m, k] times a rhs holding the batch
// dims in order or broadcast along some (MQA as an einsum), its result
// written in any order of [b.., m, n].
//
//===----------------------------------------------------------------------===//
#include "DetectNormalize.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"

#include <cmath>

namespace mlir {
namespace attn {
namespace detect {

/// Whether a reduction's output map keeps the input's dims in their order,
/// each reduced one dropped or read at constant 0 (a keepdim size-1 dim), so
/// that the result's dims are the input's other dims in order. Anything else
/// (a transposed or diagonal output) is not a row statistic.
static bool keepsInputOrder(AffineMap in, AffineMap out, ArrayRef<bool> reducedLoop) {
  unsigned next = 0;
  for (AffineExpr e : in.getResults()) {
    bool reduced = reducedLoop[cast<AffineDimExpr>(e).getPosition()];
    if (next < out.getNumResults()) {
      AffineExpr o = out.getResult(next);
      auto c = dyn_cast<AffineConstantExpr>(o);
      if (reduced && c && c.getValue() == 0) {
        ++next;
        continue;
      }
      if (!reduced && o == e) {
        ++next;
        continue;
      }
    }
    if (!reduced)
      return false;
  }
  return next == out.getNumResults();
}

/// Whether a reduction's combiner takes the larger (`larger`) or the smaller
/// of its two operands: arith's max/min ops, or a select on their
/// comparison, select(t > f, t, f) or select(f < t, t, f), strict or not,
/// ordered or not. (On NaN they differ; a shift is only exact on finite
/// scores anyway.)
static bool takesExtreme(Operation *def, bool larger) {
  if (larger ? isa<arith::MaximumFOp, arith::MaxNumFOp>(def)
             : isa<arith::MinimumFOp, arith::MinNumFOp>(def))
    return true;
  auto sel = dyn_cast<arith::SelectOp>(def);
  auto cmp = sel ? sel.getCondition().getDefiningOp<arith::CmpFOp>() : nullptr;
  if (!cmp)
    return false;
  using Pred = arith::CmpFPredicate;
  Pred pred = cmp.getPredicate();
  bool greater = llvm::is_contained({Pred::OGT, Pred::OGE, Pred::UGT, Pred::UGE}, pred);
  bool less = llvm::is_contained({Pred::OLT, Pred::OLE, Pred::ULT, Pred::ULE}, pred);
  Value t = sel.getTrueValue(), f = sel.getFalseValue();
  if (cmp.getLhs() == t && cmp.getRhs() == f)
    return larger ? greater : less;
  if (cmp.getLhs() == f && cmp.getRhs() == t)
    return larger ? less : greater;
  return false;
}
static bool isMaxCombiner(Operation *def) { return takesExtreme(def, /*larger=*/true); }

bool reductionStartsFinite(Operation *op) {
  auto g = dyn_cast<linalg::LinalgOp>(op);
  if (!g || g.getNumReductionLoops() == 0 || !g.getBlock())
    return true;
  for (auto [init, yielded] :
       llvm::zip(g.getDpsInits(), g.getBlock()->getTerminator()->getOperands())) {
    std::optional<double> start = scalarConstant(init);
    if (!start || std::isfinite(*start))
      continue; // a run-time value, or finite
    Operation *combiner = yielded.getDefiningOp();
    bool identity = combiner && !std::isnan(*start) && takesExtreme(combiner, *start < 0);
    if (!identity)
      return false;
  }
  return true;
}

/// Row reduction (linalg.generic or linalg.reduce): one input read through a
/// permutation, max or sum payload. One reduced dim gives `axis`; a max over
/// several (a global max, used only as a softmax shift) has axis -1.
Node classifyReduction(linalg::LinalgOp g) {
  Node n;
  n.op = g;
  // Extra results are allowed if nothing reads them: torch's max.dim also
  // computes the argmax, which softmax never uses.
  if (g.getNumDpsInputs() != 1 || g.getNumDpsInits() < 1 || g.getNumReductionLoops() < 1 ||
      !g.getBlock())
    return n;
  for (OpResult r : g->getResults().drop_front())
    if (!r.use_empty())
      return n;
  Block *body = g.getBlock();
  Operation *def = body->getTerminator()->getOperand(0).getDefiningOp();
  if (!def)
    return n;
  // The payload combines the input element (casts allowed) and the accumulator.
  SmallVector<Value, 2> combined(def->getOperands());
  if (auto sel = dyn_cast<arith::SelectOp>(def))
    combined = {sel.getTrueValue(), sel.getFalseValue()};
  if (combined.size() != 2)
    return n;
  bool usesIn = false, usesAcc = false;
  for (Value v : combined) {
    while (v.getDefiningOp() && isValueCast(v.getDefiningOp()))
      v = v.getDefiningOp()->getOperand(0);
    if (auto arg = dyn_cast<BlockArgument>(v); arg && arg.getOwner() == body) {
      usesIn |= arg.getArgNumber() == 0;
      usesAcc |= arg.getArgNumber() == 1;
    }
  }
  if (!usesIn || !usesAcc)
    return n;
  SmallVector<bool> reduced;
  for (utils::IteratorType it : g.getIteratorTypesArray())
    reduced.push_back(it == utils::IteratorType::reduction);
  SmallVector<AffineMap> maps = g.getIndexingMapsArray();
  AffineMap inMap = maps[0];
  if (!inMap.isPermutation() || !keepsInputOrder(inMap, maps[1], reduced))
    return n;
  // The accumulator's initial value must be neutral: -inf/lowest or 0.
  std::optional<double> init = scalarConstant(g.getDpsInits()[0]);
  if (isMaxCombiner(def)) {
    // Any init <= the row max keeps the result a per-row constant; -inf and
    // the lowest finite value are what frontends emit.
    if (!init || !(*init <= -3.0e38)) // NaN too: a max from NaN stays NaN
      return n;
    n.kind = NodeKind::MaxReduce;
  } else if (isa<arith::AddFOp>(def) && g.getNumReductionLoops() == 1) {
    if (!init || *init != 0.0)
      return n;
    n.kind = NodeKind::SumReduce;
  } else {
    return n;
  }
  for (auto [i, e] : llvm::enumerate(inMap.getResults()))
    if (reduced[cast<AffineDimExpr>(e).getPosition()])
      n.axis = g.getNumReductionLoops() == 1 ? static_cast<int64_t>(i) : -1;
  NodeOperand o;
  o.value = g.getDpsInputs()[0];
  o.varies = SmallVector<bool>(rankOf(o.value), true);
  n.operands = {o};
  return n;
}

/// Matmul from any contraction: lhs [b.., m, k], rhs [b.., k, n] or [b.., n, k].
Node classifyContraction(linalg::LinalgOp op) {
  Node n;
  n.op = op;
  if (op.getNumDpsInputs() != 2 || !linalg::isaContractionOpInterface(op))
    return n;
  // A contraction computes init + Σ lhs·rhs: it is the product only when
  // the init is all zeros (either sign). An accumulator filled with 1 (or
  // anything else) is not a matmul (found by the fuzzer's semantic oracle).
  std::optional<double> init = scalarConstant(op.getDpsInits()[0]);
  if (!init || *init != 0.0)
    return n;
  FailureOr<linalg::ContractionDimensions> dims = linalg::inferContractionDims(op);
  if (failed(dims) || dims->n.size() != 1 || dims->k.size() != 1)
    return n;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap lhs = maps[0], rhs = maps[1], out = maps[2];
  MLIRContext *ctx = op->getContext();
  auto pos = [&](AffineMap m, unsigned d) {
    return m.getResultPosition(getAffineDimExpr(d, ctx));
  };
  unsigned r = out.getNumResults();
  if (r < 2 || lhs.getNumResults() != r || op.getNumLoops() != r + 1)
    return n;
  // The lhs is [b.., m, k]; the rhs reads the batch dims in order, or not
  // all of them: a rhs without some is broadcast along them (MQA as the
  // einsum "bqd,kd->bqk"), and then inferContractionDims counts them as m
  // dims. The output holds [b.., m, n] in any order.
  SmallVector<unsigned> canonical; // [b.., m, n] as loop dims
  unsigned rhsPos = 0;
  for (unsigned i = 0; i + 2 < r; ++i) {
    auto d = dyn_cast<AffineDimExpr>(lhs.getResult(i));
    if (!d)
      return n;
    canonical.push_back(d.getPosition());
    std::optional<unsigned> inRhs = pos(rhs, d.getPosition());
    if (inRhs && *inRhs != rhsPos++)
      return n;
    if (!inRhs)
      n.rhsBroadcastDims.push_back(i);
  }
  if (rhs.getNumResults() != rhsPos + 2)
    return n;
  auto mExpr = dyn_cast<AffineDimExpr>(lhs.getResult(r - 2));
  if (!mExpr || !llvm::is_contained(dims->m, mExpr.getPosition()))
    return n;
  unsigned m = mExpr.getPosition(), nDim = dims->n[0], k = dims->k[0];
  canonical.append({m, nDim});
  for (unsigned i = 0; i < r; ++i) {
    auto d = dyn_cast<AffineDimExpr>(out.getResult(i));
    auto at = d ? llvm::find(canonical, d.getPosition()) : canonical.end();
    if (at == canonical.end())
      return n;
    n.outPerm.push_back(at - canonical.begin());
  }
  if (!isPermutationVector(n.outPerm))
    return n;
  if (llvm::equal(n.outPerm, llvm::seq<int64_t>(0, r)))
    n.outPerm.clear();
  if (pos(lhs, k) != r - 1)
    return n;
  if (pos(rhs, k) == rhsPos && pos(rhs, nDim) == rhsPos + 1)
    n.rhsTransposed = false;
  else if (pos(rhs, nDim) == rhsPos && pos(rhs, k) == rhsPos + 1)
    n.rhsTransposed = true;
  else
    return n;
  n.kind = NodeKind::MatMul;
  for (Value v : op.getDpsInputs()) {
    NodeOperand o;
    o.value = v;
    n.operands.push_back(o);
  }
  return n;
}

} // namespace detect
} // namespace attn
} // namespace mlir

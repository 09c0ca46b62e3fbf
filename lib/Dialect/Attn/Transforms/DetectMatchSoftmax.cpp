//===- DetectMatchSoftmax.cpp - --attn-detect: the softmax, any spelling ---===//
//
// Part of the matcher (DetectMatcher.h): P = softmax_lastdim(X) in every
// spelling classify() reads (one op; exp / Σ exp with a division or a
// reciprocal; PyTorch's safe-softmax guard; the exp of a log-softmax; the
// normalization deferred past P·V), and the shift before the exp, which is
// dropped only as the max of the very values it shifts.
//
//===----------------------------------------------------------------------===//
#include "DetectMatcher.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

#include <cmath>

using namespace mlir;
using namespace mlir::attn;
using namespace mlir::attn::detect;

/// P = exp(y − log Σ_j exp(y)) (a log_softmax, then exp), or
/// exp(y − (c + log Σ_j exp(y − c))) (a logsumexp written with its shift
/// c outside the log): softmax(y) either way, for c per row. The rest
/// matches from the inner exp, as for exp / Σ exp. False, with no
/// remark, when P is no such exp.
bool detect::AttentionMatcher::matchExpOfLogSoftmax(Value p, int64_t rank, AttentionMatch &m,
                                                    Value &x) {
  Node outer = classify(p);
  if (outer.kind != NodeKind::Exp || !readsElementwise(outer.operands[0]))
    return false;
  Node sub = classify(strip(outer.operands[0].value));
  if (sub.kind != NodeKind::Sub || !sub.operands[0].value || sub.operands[0].scalar ||
      !sub.operands[1].value)
    return false;
  const NodeOperand &yRead = sub.operands[0], &lseRead = sub.operands[1];
  if (!yRead.map || !readsElementwise(yRead) || !isPerRow(lseRead, rank))
    return false;
  Value y = strip(yRead.value);
  // lse = log(S), or log(S) + c in either order: a tensor of its own,
  // whose ops read their operands element for element, or computed in
  // the exp's own payload, whose reads must then be of y's rows.
  bool inPayload = !isa<ShapedType>(lseRead.value.getType());
  if (!inPayload && !sameRows(yRead, lseRead, rank - 1))
    return false;
  // In the payload, only reads of tensors, whose row is checked (a cast
  // computed there could read another row's value); the Log itself is the
  // one payload value allowed, its operand checked below.
  auto readsRow = [&](const NodeOperand &o) {
    if (!inPayload)
      return readsElementwise(o);
    return o.map && isPerRow(o, rank) && sameRows(yRead, o, rank - 1);
  };
  AttentionMatch probe; // keepdim reshapes passed, joined to m on success
  Node lse = classify(stripUnitReshapes(strip(lseRead.value), probe));
  Node log = lse;
  std::optional<NodeOperand> shift;
  if (lse.kind == NodeKind::Add) {
    for (unsigned side : {0u, 1u}) {
      const NodeOperand &l = lse.operands[side], &c = lse.operands[1 - side];
      if (!l.value || !c.value || c.scalar || (!inPayload && !readsRow(l)) || !readsRow(c))
        continue;
      if (Node n = classify(strip(l.value)); n.kind == NodeKind::Log) {
        log = n;
        shift = c;
        break;
      }
    }
  }
  if (log.kind != NodeKind::Log || !log.operands[0].value || !readsRow(log.operands[0]))
    return false;
  Node sum = classify(stripUnitReshapes(strip(log.operands[0].value), probe));
  if (sum.kind != NodeKind::SumReduce || sum.axis != rank - 1)
    return false;
  Value inner = strip(sum.operands[0].value);
  Node innerExp = classify(inner);
  if (innerExp.kind != NodeKind::Exp || !readsElementwise(innerExp.operands[0]))
    return false;
  Value innerArg = strip(innerExp.operands[0].value);
  if (!shift) {
    if (innerArg != y)
      return false;
  } else {
    AttentionMatch scratch;
    if (!maxAxisOf(shift->value, y, rank, scratch))
      return false;
    // The inner exp reads y − c: the same y, the same c for the same row.
    Node innerSub = classify(innerArg);
    if (innerSub.kind != NodeKind::Sub || !innerSub.operands[0].value ||
        !innerSub.operands[1].value || strip(innerSub.operands[0].value) != y ||
        !readsElementwise(innerSub.operands[0]) || !isPerRow(innerSub.operands[1], rank) ||
        !sameRows(innerSub.operands[0], innerSub.operands[1], rank - 1) ||
        strip(innerSub.operands[1].value) != strip(shift->value))
      return false;
  }
  for (Operation *op : {outer.op, sub.op, lse.op, log.op, sum.op})
    m.chain.insert(op);
  m.chain.insert(probe.chain.begin(), probe.chain.end());
  // c + log Σ rounds to c where c is a finite fill (finfo.min): a fully
  // masked row is then 1 per key, no average. The generator's oracle
  // found it; such a shift is refused under finite fills like any other.
  if (shift) {
    m.rowShifts.push_back(shift->value);
    m.logSumExpShift = true;
  }
  return matchShiftedExp(inner, rank, m, x);
}

/// O = (E·V) / rowsum(E), or (E·V) · (1 / rowsum(E)), E = exp(...):
/// FlashAttention's own order written out, the normalization deferred
/// past P·V. The normalized O is what the attention replaces.
bool detect::AttentionMatcher::matchDeferredNormalization(const Node &pv, Value e, int64_t rank,
                                                          AttentionMatch &m, Value &x) {
  StringRef notSoftmax = "P is exp(S) without normalization, not a softmax";
  Value o = pv.op->getResult(0);
  // Unnormalized, E·V grows with Lk·max|V|: in a type of less range than
  // f32 (f16) it overflows where the attention does not.
  auto oType = dyn_cast<FloatType>(getElementTypeOrSelf(o.getType()));
  if (!oType || llvm::APFloat::semanticsMaxExponent(oType.getFloatSemantics()) <
                    llvm::APFloat::semanticsMaxExponent(llvm::APFloat::IEEEsingle()))
    return failB("the normalization is deferred past a P·V of less range than f32, "
                 "where E·V may overflow");
  if (!pv.outPerm.empty())
    return failB(notSoftmax);
  // Forward through what strip() looks through backwards (casts, batch
  // reshapes: a [B·H, L, dv] product expanded to [B, H, L, dv]).
  Operation *user = nullptr;
  for (Value cur = o;;) {
    if (!cur.hasOneUse())
      return failB(notSoftmax);
    user = *cur.getUsers().begin();
    if (user->getNumResults() != 1)
      return failB(notSoftmax);
    if (strip(user->getResult(0)) != o)
      break;
    m.chain.insert(user);
    cur = user->getResult(0);
  }
  if (rankOf(user->getResult(0)) != rank)
    return failB(notSoftmax);
  Node n = classify(user->getResult(0));
  if (n.kind != NodeKind::Div && n.kind != NodeKind::Mul)
    return failB(notSoftmax);
  NodeOperand numer, denom;
  if (!matchNormalizer(n, rank, m, numer, denom))
    return false;
  if (strip(numer.value) != o || !readsElementwise(numer))
    return failB(notSoftmax);
  m.chain.insert(n.op);
  m.root = n.op;
  Value eStripped = strip(e, &m.chain);
  Node sum = classify(stripUnitReshapes(strip(denom.value, &m.chain), m));
  if (sum.kind != NodeKind::SumReduce || sum.axis != rank - 1 ||
      strip(sum.operands[0].value, &m.chain) != eStripped)
    return failB("O is divided by something else than the row sums of the exp P·V reads");
  m.chain.insert(sum.op);
  // The sums, read for O's rows: O's last dim is dv, which the sums do
  // not vary along (isPerRow), and its others are the rows of E.
  if (!sameRows(numer, denom, rank - 1))
    return failB("the row sums are read for other rows than the ones they divide");
  return matchShiftedExp(eStripped, rank, m, x);
}

/// P = softmax over the last dim of X, in any spelling.
/// PyTorch's `_safe_softmax` (what SDPA decomposes to): where every score
/// of a row is -inf, P is 0 instead of NaN. That is attn.attention's own
/// definition for fully masked rows, so the select is absorbed. Returns the
/// softmax branch, and in `scores` the value the -inf test reads.
Value detect::AttentionMatcher::peelSafeSoftmax(Value p, int64_t rank, AttentionMatch &m,
                                                Value &scores) {
  Node sel = classify(p);
  if (sel.kind != NodeKind::Select || sel.operands[0].causalOffset ||
      !sel.operands[0].value || !isPerRow(sel.operands[0], rank))
    return p;
  const NodeOperand &t = sel.operands[1], &f = sel.operands[2];
  if (!(t.scalar && *t.scalar == 0.0 && f.value))
    return p;
  // cond = all(x == -inf) over the key axis, as linalg generics or tosa.
  Value condV = stripUnitReshapes(sel.operands[0].value, m);
  auto isNegInf = [](Value c) {
    std::optional<double> v = scalarConstant(c);
    return v && std::isinf(*v) && *v < 0;
  };
  if (auto all = condV.getDefiningOp<tosa::ReduceAllOp>()) {
    auto eq = all->getOperand(0).getDefiningOp<tosa::EqualOp>();
    if (!eq || all.getAxis() != rank - 1)
      return p;
    Value a = eq->getOperand(0), c = eq->getOperand(1);
    if (isNegInf(a))
      std::swap(a, c);
    if (!isNegInf(c))
      return p;
    scores = strip(a, &m.chain);
    m.chain.insert(sel.op);
    m.chain.insert(all);
    m.chain.insert(eq);
    return strip(f.value, &m.chain);
  }
  auto all = condV.getDefiningOp<linalg::GenericOp>();
  if (!all || all.getNumDpsInputs() != 1 || all.getNumReductionLoops() != 1 ||
      !isa_and_nonnull<arith::AndIOp>(
          all.getBody()->getTerminator()->getOperand(0).getDefiningOp()))
    return p;
  auto eq = all.getDpsInputs()[0].getDefiningOp<linalg::GenericOp>();
  if (!eq || eq.getNumDpsInputs() != 1)
    return p;
  auto cmp = dyn_cast_or_null<arith::CmpFOp>(
      eq.getBody()->getTerminator()->getOperand(0).getDefiningOp());
  if (!cmp || cmp.getPredicate() != arith::CmpFPredicate::OEQ || !isNegInf(cmp.getRhs()))
    return p;
  scores = strip(eq.getDpsInputs()[0]);
  m.chain.insert(sel.op);
  m.chain.insert(all);
  m.chain.insert(eq);
  return strip(f.value, &m.chain);
}

bool detect::AttentionMatcher::matchSoftmax(Value p, int64_t rank, AttentionMatch &m, Value &x) {
  Value safeScores;
  p = peelSafeSoftmax(p, rank, m, safeScores);
  if (!matchSoftmaxCore(p, rank, m, x))
    return false;
  if (safeScores && safeScores != x)
    return failB("a fully-masked-row guard tests other scores than the softmax reads");
  return true;
}

/// Whether the normalizer, as a division reads it, holds the row of the
/// numerator it divides: its non-unit dims are read by the numerator's
/// loop exprs with the reduced axis left out. A per-row value read for
/// another row (a transposed statistic) is not a softmax.
bool detect::AttentionMatcher::sameRows(const NodeOperand &numer, const NodeOperand &denom,
                                        int64_t axis) {
  auto et = dyn_cast<RankedTensorType>(numer.value.getType());
  if (!et || !numer.map || !denom.map || numer.map.getNumResults() != et.getRank())
    return false;
  SmallVector<AffineExpr> rows;
  for (auto [i, e] : llvm::enumerate(numer.map.getResults()))
    if (static_cast<int64_t>(i) != axis && et.getDimSize(i) != 1)
      rows.push_back(e);
  return nonUnitReads(denom) == rows;
}

/// P = e / n or e · (1 / n): the numerator and the normalizer as P reads them.
bool detect::AttentionMatcher::matchNormalizer(const Node &n, int64_t rank, AttentionMatch &m,
                                               NodeOperand &numer, NodeOperand &denom) {
  if (n.kind == NodeKind::Div && n.operands[0].value && n.operands[1].value) {
    if (!isPerRow(n.operands[1], rank))
      return failB("the normalizer varies along the key axis; not a softmax");
    numer = n.operands[0];
    denom = n.operands[1];
    return true;
  }
  if (n.kind != NodeKind::Mul || !n.operands[0].value || !n.operands[1].value)
    return failB("P is not a softmax");
  for (int side = 0; side < 2; ++side) {
    const NodeOperand &o = n.operands[1 - side];
    Node r = classify(strip(o.value));
    if (r.kind != NodeKind::Reciprocal)
      continue;
    if (!isPerRow(o, rank))
      return failB("the normalizer varies along the key axis: the softmax "
                   "is over another dim than the one P·V contracts");
    m.chain.insert(r.op);
    numer = n.operands[side];
    // A reciprocal fused into P's payload reads the sum itself; a separate
    // one must read it element for element.
    denom = o.map ? o : r.operands[0];
    if (o.map && !readsElementwise(r.operands[0]))
      return failB("the reciprocal reads the row sum through a broadcast or transpose");
    denom.value = o.map ? r.operands[0].value : denom.value;
    return true;
  }
  return failB("not a softmax: no row-sum normalizer");
}

bool detect::AttentionMatcher::matchSoftmaxCore(Value p, int64_t rank, AttentionMatch &m,
                                                Value &x) {
  Node n = classify(p);
  m.chain.insert(n.op);
  if (n.kind == NodeKind::Softmax) {
    if (n.axis != rank - 1)
      return failB("softmax reduces over dim " + Twine(n.axis) +
                   " but P·V contracts dim " + Twine(rank - 1));
    x = strip(n.operands[0].value, &m.chain);
    m.rowMaxShift = true;
    return true;
  }
  NodeOperand numer, denom;
  if (!matchNormalizer(n, rank, m, numer, denom))
    return false;
  if (!readsElementwise(numer))
    return failB("P reads the exp through a broadcast or transpose");
  Value eStripped = strip(numer.value, &m.chain);
  Node sum = classify(stripUnitReshapes(strip(denom.value, &m.chain), m));
  if (sum.kind != NodeKind::SumReduce)
    return failB("the normalizer is not a row sum");
  m.chain.insert(sum.op);
  if (sum.axis != rank - 1)
    return failB("softmax reduces over dim " + Twine(sum.axis) +
                 " but P·V contracts dim " + Twine(rank - 1));
  if (strip(sum.operands[0].value, &m.chain) != eStripped)
    return failB("the normalizer is not the sum of the same exp");
  if (!sameRows(numer, denom, sum.axis))
    return failB("the row sums are read for other rows than the ones they divide");
  return matchShiftedExp(eStripped, rank, m, x);
}

/// e = exp(((x - c)·k)) or exp2 of it, for c the max (per row or global)
/// of x, or no shift, and constants k > 0 under a shift, which join the
/// scale (exp2's ln 2 too).
bool detect::AttentionMatcher::matchShiftedExp(Value e, int64_t rank, AttentionMatch &m, Value &x) {
  Node ex = classify(e);
  if (ex.kind != NodeKind::Exp && ex.kind != NodeKind::Exp2)
    return failB("the normalized value is not an exp (sigmoid or another "
                 "activation is not softmax)");
  if (!readsElementwise(ex.operands[0]))
    return failB("the exp reads the scores through a broadcast or transpose");
  m.chain.insert(ex.op);
  if (ex.kind == NodeKind::Exp2) {
    m.scale *= std::log(2.0);
    m.scaleOutsideMasks *= std::log(2.0);
  }
  Value y = peelConstantFactors(strip(ex.operands[0].value, &m.chain), m);
  Node sub = classify(y);
  NodeOperand minuend, shiftRead;
  Value c; // the shift, when it is a tensor
  if (sub.kind == NodeKind::Sub && sub.operands[0].value && !sub.operands[0].scalar &&
      !isPerRow(sub.operands[1], rank))
    return failB("the value subtracted before exp varies along the key axis "
                 "(a per-column max is not a softmax shift)");
  if (readAsSubtraction(sub, rank, m, minuend, c, shiftRead)) {
    if (!readsElementwise(minuend))
      return failB("the shift is applied to the scores read through a broadcast or transpose");
    m.chain.insert(sub.op);
    Value shifted = strip(minuend.value, &m.chain);
    std::optional<int64_t> axis = maxAxisOf(c, shifted, rank, m);
    if (!axis || !readsOwnRow(minuend, shiftRead, *axis, rank))
      return failB(kNotAMaxShift);
    // Under a factor k < 0, exp(k·(x − max)) overflows where the softmax
    // of k·x does not (an adversarial review found it raised).
    if (!(m.scale > 0.0))
      return failB("a max shift under a non-positive factor: exp may then overflow "
                   "where the softmax does not");
    // Only the row max makes a row of equal (finite-filled) scores a
    // uniform average; under a global max, exp(fill − max) is 0 and a
    // fully masked row 0/0, which the raised op's 0 stands for.
    m.rowMaxShift = *axis == rank - 1;
    y = shifted;
  }
  x = y;
  return true;
}

/// x − c, or x + (−c) with the negation in the payload or an op of its
/// own, for c per row (a Sub's c is checked by the caller): the minuend,
/// c (null when a constant), and how the subtraction reads c (for a
/// negation of its own, which must read c element for element, how it
/// reads the negation).
bool detect::AttentionMatcher::readAsSubtraction(const Node &n, int64_t rank, AttentionMatch &m,
                                                 NodeOperand &minuend, Value &c,
                                                 NodeOperand &cRead) {
  if (n.kind == NodeKind::Sub && n.operands[0].value && !n.operands[0].scalar) {
    minuend = n.operands[0];
    c = n.operands[1].value;
    cRead = n.operands[1];
    return true;
  }
  if (n.kind != NodeKind::Add)
    return false;
  for (unsigned side : {1u, 0u}) {
    const NodeOperand &o = n.operands[side], &x = n.operands[1 - side];
    if (!o.value || o.scalar || !x.value || x.scalar || !isPerRow(o, rank) || isPerRow(x, rank))
      continue;
    Node neg = classify(strip(o.value));
    if (neg.kind != NodeKind::Neg || !neg.operands[0].value)
      continue;
    bool ownOp = neg.op != n.op;
    if (ownOp && !readsElementwise(neg.operands[0]))
      continue;
    if (ownOp)
      m.chain.insert(neg.op);
    minuend = x;
    c = neg.operands[0].value;
    cRead = ownOp ? o : neg.operands[0];
    return true;
  }
  return false;
}

/// Whether a row max is read for the row it was taken over: a max of
/// another row cancels in real arithmetic but not in floating point. A
/// global max is one value wherever it is read.
bool detect::AttentionMatcher::readsOwnRow(const NodeOperand &minuend, const NodeOperand &cRead,
                                           int64_t axis, int64_t rank) {
  if (axis != rank - 1)
    return true;
  return cRead.map && sameRows(minuend, cRead, rank - 1);
}

/// The axis of `c` as a max of `shifted` (the key axis, or -1 for a max
/// over all dims); none when `c` is anything else. Softmax cancels any
/// row constant in real arithmetic, but only the max of the very values
/// it shifts keeps exp from overflowing (no shifted value is above 0) and
/// the row sum from underflowing (one term is 1) wherever the softmax
/// is finite: an argument, a constant, a min, max(0, ·) or the max of
/// other values can turn the program's result into NaN where the raised
/// op's is not (an adversarial helper's round of spellings showed each).
std::optional<int64_t> detect::AttentionMatcher::maxAxisOf(Value c, Value shifted, int64_t rank,
                                                           AttentionMatch &m) {
  if (!c)
    return std::nullopt;
  Node mx = classify(stripUnitReshapes(strip(c, &m.chain), m));
  if (mx.kind != NodeKind::MaxReduce || (mx.axis != rank - 1 && mx.axis != -1) ||
      strip(mx.operands[0].value) != shifted)
    return std::nullopt;
  m.chain.insert(mx.op);
  return mx.axis;
}

/// The operand of S − c, S + c or c + S that is the row max of S, or
/// its negation (a max subtracted below a mask, s + negate(max) in a
/// generic of its own): softmax cancels it as it does the outermost
/// shift. A per-row tensor from elsewhere stays a mask: a row of -inf is
/// a fully masked row, not a shift.
std::optional<unsigned> detect::AttentionMatcher::rowShiftOperand(const Node &n, int64_t rank) {
  for (unsigned side : {1u, 0u}) {
    if (side == 0 && n.kind == NodeKind::Sub)
      continue; // c − S negates the scores
    const NodeOperand &c = n.operands[side], &s = n.operands[1 - side];
    if (!c.value || c.scalar || !s.value || s.scalar || !isPerRow(c, rank) ||
        isPerRow(s, rank) || !readsElementwise(s))
      continue;
    // S − max(S), or S + (−max(S)) with the negation anywhere.
    Value max = c.value;
    NodeOperand maxRead = c;
    if (n.kind == NodeKind::Add) {
      Node neg = classify(strip(c.value));
      bool ownOp = neg.op != n.op;
      if (neg.kind != NodeKind::Neg || !neg.operands[0].value ||
          (ownOp && !readsElementwise(neg.operands[0])))
        continue;
      max = neg.operands[0].value;
      maxRead = ownOp ? c : neg.operands[0];
    }
    AttentionMatch scratch; // do not grow the chain for a non-shift
    if (maxAxisOf(max, strip(s.value), rank, scratch) == rank - 1 &&
        readsOwnRow(s, maxRead, rank - 1, rank))
      return side;
  }
  return std::nullopt;
}

//===- DetectMatch.cpp - --attn-detect, layer 2: the canonical chain ------===//
//
// The matcher walks one canonical chain backwards from each P·V candidate,
// on Nodes only: softmax (in any spelling classify() reads), then the scores
// with their scale and masks in any order, then Q·Kᵀ. It records the ops it
// passes (`AttentionMatch::chain`) and leaves the IR as it is.
//
// A new frontend spelling usually needs a new case in `classify`
// (DetectNormalize.cpp), never a new pattern here.
//
// ~710 lines: one matcher class whose steps (softmax, shift, scores, masks,
// score modifications, Q·Kᵀ) share its AttentionMatch state; head-repeat
// folding is already in DetectMatchHeads.cpp, and what a score
// modification holds is read and copied by DetectScoreMod.cpp.
//
//===----------------------------------------------------------------------===//
#include "DetectMatch.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace mlir::attn;
using namespace mlir::attn::detect;

namespace {

class AttentionMatcher {
public:
  /// `finiteFillsAreMods`: selects with a finite fill go into the score_mod
  /// region instead of becoming masks (see matchAttention).
  AttentionMatcher(std::string &why, bool finiteFillsAreMods)
      : why(why), finiteFillsAreMods(finiteFillsAreMods) {}

  /// Matches the chain that ends in the P·V product `pv`.
  std::optional<AttentionMatch> match(Operation *pvOp) {
    Node pv = classify(pvOp->getResult(0));
    if (pv.kind != NodeKind::MatMul)
      return std::nullopt;
    AttentionMatch m;
    m.chain.insert(pvOp);
    m.root = pvOp;
    Value p = strip(pv.operands[0].value, &m.chain);
    // Rank of the scores (payload scalars have the rank of their loops);
    // batch reshapes may make it differ from P·V's.
    int64_t rank = rankOf(p);
    if (!isa<ShapedType>(p.getType()))
      if (linalg::LinalgOp g = enclosingElementwise(p))
        rank = g.getNumLoops();
    // Cheap exit for ordinary matmuls: the lhs must look like a softmax.
    Node pn = classify(p);
    Value x;
    if (pn.kind == NodeKind::Exp || pn.kind == NodeKind::Exp2) {
      if (!matchExpOfLogSoftmax(p, rank, m, x) && !matchDeferredNormalization(pv, p, rank, m, x))
        return fail();
      return matchRest(pv, x, rank, m);
    }
    // A product or quotient by a constant is a scaled Q (this matmul is
    // Q·Kᵀ, not P·V): not a candidate, and not worth a remark.
    bool scaledByConstant = (pn.kind == NodeKind::Mul || pn.kind == NodeKind::Div) &&
                            llvm::any_of(pn.operands, [](const NodeOperand &o) {
                              return o.scalar.has_value();
                            });
    if (scaledByConstant)
      return std::nullopt;
    if (!isSoftmaxLike(pn.kind)) {
      // Worth a remark only when an exp feeds P: sigmoid, log_softmax.
      if (reachesKind(p, NodeKind::Exp) || reachesKind(p, NodeKind::Exp2))
        return fail("P is computed from an exp but is not a softmax "
                    "(sigmoid or log_softmax attention?)");
      return std::nullopt;
    }
    if (!matchSoftmax(p, rank, m, x))
      return fail();
    return matchRest(pv, x, rank, m);
  }

private:
  /// From the softmax's input x down: the scores, Q, K, and V.
  std::optional<AttentionMatch> matchRest(const Node &pv, Value x, int64_t rank,
                                          AttentionMatch &m) {
    if (!matchScores(x, rank, m))
      return fail();
    if (!m.rowShifts.empty() && sawFiniteFill)
      return fail("a select with a finite fill under a softmax shift other than the "
                  "row max of the masked scores: what a fully masked row gives "
                  "depends on that shift");
    // V: [b.., Lk, dv], or [b.., dv, Lk] when P·V's rhs is transposed.
    // Q, K and V stop at roundings (strip): the op reads what the program
    // rounded them to.
    m.v = foldHeadRepeat(strip(pv.operands[1].value, nullptr, true, /*throughRoundings=*/false));
    m.vAtMatmul = strip(pv.operands[1].value, nullptr, /*throughReshapes=*/false,
                        /*throughRoundings=*/false);
    // Vᵀ and O written permuted: the rewrite transposes them, as it does a
    // stored Kᵀ.
    m.vIsTransposed = pv.rhsTransposed;
    m.vBroadcastDims = pv.rhsBroadcastDims;
    m.outPerm = pv.outPerm;
    return m;
  }

  /// P = exp(y − log Σ_j exp(y)) (a log_softmax, then exp), or
  /// exp(y − (c + log Σ_j exp(y − c))) (a logsumexp written with its shift
  /// c outside the log): softmax(y) either way, for c per row. The rest
  /// matches from the inner exp, as for exp / Σ exp. False, with no
  /// remark, when P is no such exp.
  bool matchExpOfLogSoftmax(Value p, int64_t rank, AttentionMatch &m, Value &x) {
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
    auto readsRow = [&](const NodeOperand &o) {
      if (!inPayload)
        return readsElementwise(o);
      return o.map ? isPerRow(o, rank) && sameRows(yRead, o, rank - 1)
                   : !isa<ShapedType>(o.value.getType()); // a payload value
    };
    AttentionMatch probe; // keepdim reshapes passed, joined to m on success
    Node lse = classify(stripUnitReshapes(strip(lseRead.value), probe));
    Node log = lse;
    std::optional<NodeOperand> shift;
    if (lse.kind == NodeKind::Add) {
      for (unsigned side : {0u, 1u}) {
        const NodeOperand &l = lse.operands[side], &c = lse.operands[1 - side];
        if (!l.value || !c.value || c.scalar || !readsRow(l) || !readsRow(c))
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
    if (shift)
      m.rowShifts.push_back(shift->value);
    return matchShiftedExp(inner, rank, m, x);
  }

  /// O = (E·V) / rowsum(E), or (E·V) · (1 / rowsum(E)), E = exp(...):
  /// FlashAttention's own order written out, the normalization deferred
  /// past P·V. The normalized O is what the attention replaces.
  bool matchDeferredNormalization(const Node &pv, Value e, int64_t rank, AttentionMatch &m,
                                  Value &x) {
    StringRef notSoftmax = "P is exp(S) without normalization, not a softmax";
    Value o = pv.op->getResult(0);
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
  static bool isSoftmaxLike(NodeKind k) {
    return k == NodeKind::Softmax || k == NodeKind::Div || k == NodeKind::Mul ||
           k == NodeKind::Select; // the fully-masked-row guard of safe softmax
  }

  std::optional<AttentionMatch> fail(StringRef reason = "") {
    if (!reason.empty())
      why = reason.str();
    return std::nullopt;
  }
  bool failB(const Twine &reason) {
    why = reason.str();
    return false;
  }

  /// Row statistics come with keepdim reshapes ([.., L] <-> [.., L, 1]).
  static Value stripUnitReshapes(Value v, AttentionMatch &m) {
    while (Operation *def = v.getDefiningOp()) {
      if (!isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp, tosa::ReshapeOp>(def) ||
          !reshapeOnlyUnitDims(def->getOperand(0), v))
        break;
      m.chain.insert(def);
      v = strip(def->getOperand(0), &m.chain);
    }
    return v;
  }

  /// Per-row broadcast: varies along every dim but the softmax axis.
  static bool isPerRow(const NodeOperand &o, int64_t rank) {
    if (o.scalar)
      return true;
    if (o.varies.size() != static_cast<size_t>(rank))
      return false;
    return !o.varies[rank - 1];
  }

  /// P = softmax over the last dim of X, in any spelling.
  /// PyTorch's `_safe_softmax` (what SDPA decomposes to): where every score
  /// of a row is -inf, P is 0 instead of NaN. That is attn.attention's own
  /// definition for fully masked rows, so the select is absorbed. Returns the
  /// softmax branch, and in `scores` the value the -inf test reads.
  Value peelSafeSoftmax(Value p, int64_t rank, AttentionMatch &m, Value &scores) {
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

  bool matchSoftmax(Value p, int64_t rank, AttentionMatch &m, Value &x) {
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
  static bool sameRows(const NodeOperand &numer, const NodeOperand &denom, int64_t axis) {
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
  bool matchNormalizer(const Node &n, int64_t rank, AttentionMatch &m,
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

  bool matchSoftmaxCore(Value p, int64_t rank, AttentionMatch &m, Value &x) {
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

  /// e = exp(((x - c)·k)) or exp2 of it, for any per-row shift c (softmax
  /// is invariant to it: the row max, the global max, none) and constants
  /// k, which join the scale (exp2's ln 2 too).
  bool matchShiftedExp(Value e, int64_t rank, AttentionMatch &m, Value &x) {
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
    NodeOperand minuend;
    Value c; // the shift, when it is a tensor
    if (sub.kind == NodeKind::Sub && sub.operands[0].value && !sub.operands[0].scalar &&
        !isPerRow(sub.operands[1], rank))
      return failB("the value subtracted before exp varies along the key axis "
                   "(a per-column max is not a softmax shift)");
    if (readAsSubtraction(sub, rank, m, minuend, c)) {
      if (!readsElementwise(minuend))
        return failB("the shift is applied to the scores read through a broadcast or transpose");
      m.chain.insert(sub.op);
      Value shifted = strip(minuend.value, &m.chain);
      std::optional<int64_t> axis = maxAxisOf(c, shifted, rank, m);
      if (!axis)
        return failB(kNotAMaxShift);
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
  /// own, for c per row (a Sub's c is checked by the caller): the minuend
  /// and c (null when a constant).
  bool readAsSubtraction(const Node &n, int64_t rank, AttentionMatch &m, NodeOperand &minuend,
                         Value &c) {
    if (n.kind == NodeKind::Sub && n.operands[0].value && !n.operands[0].scalar) {
      minuend = n.operands[0];
      c = n.operands[1].value;
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
      if (neg.op != n.op)
        m.chain.insert(neg.op); // a negation of its own
      minuend = x;
      c = neg.operands[0].value;
      return true;
    }
    return false;
  }

  /// Why a shift other than a max of what it shifts is not dropped.
  static constexpr StringLiteral kNotAMaxShift =
      "the value subtracted before exp is not the max of the values it shifts: exp "
      "may then overflow or underflow where the softmax does not";

  /// The axis of `c` as a max of `shifted` (the key axis, or -1 for a max
  /// over all dims); none when `c` is anything else. Softmax cancels any
  /// row constant in real arithmetic, but only the max of the very values
  /// it shifts keeps exp from overflowing (no shifted value is above 0) and
  /// the row sum from underflowing (one term is 1) wherever the softmax
  /// is finite: an argument, a constant, a min, max(0, ·) or the max of
  /// other values can turn the program's result into NaN where the raised
  /// op's is not (an adversarial helper's round of spellings showed each).
  std::optional<int64_t> maxAxisOf(Value c, Value shifted, int64_t rank, AttentionMatch &m) {
    if (!c)
      return std::nullopt;
    Node mx = classify(stripUnitReshapes(strip(c, &m.chain), m));
    if (mx.kind != NodeKind::MaxReduce || (mx.axis != rank - 1 && mx.axis != -1) ||
        strip(mx.operands[0].value) != shifted)
      return std::nullopt;
    m.chain.insert(mx.op);
    return mx.axis;
  }

  /// The operand of S + c, c + S or S − c that is a row constant computed
  /// from the scores (s + negate(max), a max subtracted below a mask, in a
  /// generic of its own): softmax cancels it as it does the outermost
  /// shift. A per-row tensor from elsewhere stays a mask: a row of -inf is
  /// a fully masked row, not a shift.
  std::optional<unsigned> rowShiftOperand(const Node &n, int64_t rank, AttentionMatch &m) {
    for (unsigned side : {1u, 0u}) {
      if (side == 0 && n.kind == NodeKind::Sub)
        continue; // c − S negates the scores
      const NodeOperand &c = n.operands[side], &s = n.operands[1 - side];
      if (!c.value || c.scalar || !s.value || s.scalar || !isPerRow(c, rank) ||
          isPerRow(s, rank) || !readsElementwise(s))
        continue;
      // S − max(S), or S + (−max(S)) with the negation anywhere.
      Value max = c.value;
      if (n.kind == NodeKind::Add) {
        Node neg = classify(strip(c.value));
        if (neg.kind != NodeKind::Neg || !neg.operands[0].value)
          continue;
        max = neg.operands[0].value;
      }
      AttentionMatch scratch; // do not grow the chain for a non-shift
      if (maxAxisOf(max, strip(s.value), rank, scratch) == rank - 1)
        return side;
    }
    return std::nullopt;
  }

  /// A mask under a factor k of the softmax's argument, exp(k·(S + M)), is
  /// scaled by k; the raised op adds M unscaled (S·s + M). That is exact
  /// only for k = 1 when M is additive, and for k > 0 when M is -inf/0
  /// (causal, keep; k·-inf stays -inf); k within 1e-6 of 1 counts as 1
  /// (the same rounding as the folded scale itself). Found by the fuzzer's semantic
  /// oracle: exp2(S + M) had been raised with scale(ln 2) and M unscaled.
  bool checkMaskScale(bool additive, const AttentionMatch &m) {
    // exp2(x·log2 e) spells exp(x) with an f32 log2 e: k = 1 to rounding.
    if (additive && std::fabs(m.scaleOutsideMasks - 1.0) > 1e-6)
      return failB("an additive mask is scaled with the scores by " +
                   llvm::formatv("{0}", m.scaleOutsideMasks).str() +
                   " (exp2 or a factor outside the mask); the raised op would "
                   "add it unscaled");
    if (!(m.scaleOutsideMasks > 0.0))
      return failB("a mask is scaled by a non-positive factor");
    return true;
  }

  /// y·k or y/k by constants, as many as there are: their product joins the
  /// scale (exp2((x - c)·log2 e) is exp(x - c)).
  Value peelConstantFactors(Value y, AttentionMatch &m) {
    for (int depth = 0; depth < 4; ++depth) {
      Node n = classify(y);
      if (n.kind != NodeKind::Mul && n.kind != NodeKind::Div)
        return y;
      int side = n.operands[0].scalar ? 1 : 0;
      const NodeOperand &c = n.operands[1 - side];
      if (!c.scalar || !n.operands[side].value || n.operands[side].scalar ||
          (n.kind == NodeKind::Div && side == 1) || !readsElementwise(n.operands[side]))
        return y;
      double factor = n.kind == NodeKind::Mul ? *c.scalar : 1.0 / *c.scalar;
      m.scale *= factor;
      m.scaleOutsideMasks *= factor;
      m.chain.insert(n.op);
      y = strip(n.operands[side].value, &m.chain);
    }
    return y;
  }

  /// X = S·s (+ masks), S = Q·Kᵀ; peels scale and masks in any order.
  bool matchScores(Value x, int64_t rank, AttentionMatch &m) {
    bool insideMask = false; // a mask has been peeled: factors below are S's
    for (int depth = 0; depth < 16; ++depth) {
      Node n = classify(x);
      switch (n.kind) {
      case NodeKind::MatMul:
        m.chain.insert(n.op);
        return matchQK(n, m);
      case NodeKind::Mul:
      case NodeKind::Div: {
        int chainSide = n.operands[0].scalar ? 1 : 0;
        const NodeOperand &other = n.operands[1 - chainSide];
        // By a tensor (or a constant divided by the scores): not a scale.
        if (!other.scalar || (n.kind == NodeKind::Div && chainSide == 1))
          return matchScoreMod(x, rank, m);
        if (!readsElementwise(n.operands[chainSide]))
          return failB("the scores are read through a broadcast or transpose");
        double factor = n.kind == NodeKind::Mul ? *other.scalar : 1.0 / *other.scalar;
        m.scale *= factor;
        if (!insideMask)
          m.scaleOutsideMasks *= factor;
        m.chain.insert(n.op);
        x = strip(n.operands[chainSide].value, &m.chain);
        continue;
      }
      case NodeKind::CausalMask:
        if (!checkMaskScale(/*additive=*/false, m))
          return false;
        insideMask = true;
        if (m.causal || m.causalOffset)
          return failB("two causal masks");
        m.causal = n.causal;
        m.chain.insert(n.op);
        x = strip(n.operands[0].value, &m.chain);
        continue;
      case NodeKind::Sub:
      case NodeKind::Add: {
        if (std::optional<unsigned> shift = rowShiftOperand(n, rank, m)) {
          m.rowShifts.push_back(n.operands[*shift].value);
          m.chain.insert(n.op);
          x = strip(n.operands[1 - *shift].value, &m.chain);
          continue;
        }
        if (n.kind == NodeKind::Sub)
          return matchScoreMod(x, rank, m);
        int chainSide = reachesMatmul(n.operands[0].value) ? 0 : 1;
        const NodeOperand &mask = n.operands[1 - chainSide];
        // S + c with c != 0, or S + f(S): a modification, not a mask. (A
        // bias that is another product, S + X·W, stays a mask.)
        if ((mask.scalar && *mask.scalar != 0.0) ||
            (chainSide == 0 && reachesMatmul(mask.value) && isScoreMod(x, rank)))
          return matchScoreMod(x, rank, m);
        if (!readsElementwise(n.operands[chainSide]))
          return failB("the scores are read through a broadcast or transpose");
        // S + 0 is S: torch-mlir's baddbmm(zeros, Q, Kᵀ) adds a zero tensor.
        if (mask.scalar && *mask.scalar == 0.0) {
          m.chain.insert(n.op);
          x = strip(n.operands[chainSide].value, &m.chain);
          continue;
        }
        if (!mask.value)
          return failB("a constant added to the scores is not a mask");
        // A bias computed in the payload (ALiBi from indices): a modification.
        if (!isa<ShapedType>(mask.value.getType()))
          return matchScoreMod(x, rank, m);
        m.chain.insert(n.op);
        if (auto off = readsLastTwoInOrder(mask, rank) ? causalConstant(strip(mask.value))
                                                       : std::nullopt) {
          if (!checkMaskScale(/*additive=*/false, m) || !setCausal(*off, m))
            return false;
        } else if (m.mask) {
          // A second mask tensor (BLOOM's ALiBi bias under a causal fill):
          // it and what lies below go into the region.
          return matchScoreMod(x, rank, m);
        } else if (!checkMaskScale(/*additive=*/true, m) ||
                   !setMask(mask, false, false, m)) {
          return false;
        }
        insideMask = true;
        x = strip(n.operands[chainSide].value, &m.chain);
        continue;
      }
      case NodeKind::Select: {
        // select(cond, x, -big) keeps x where cond; select(cond, -big, x) drops.
        const NodeOperand &t = n.operands[1], &f = n.operands[2];
        bool keepWhereTrue;
        const NodeOperand *chainOp;
        if (isMaskValue(f) && t.value) {
          keepWhereTrue = true;
          chainOp = &t;
        } else if (isMaskValue(t) && f.value) {
          keepWhereTrue = false;
          chainOp = &f;
        } else {
          // select(c, S, 0), say: a modification, not a mask.
          return matchScoreMod(x, rank, m);
        }
        // A fill the scores can outgrow (-1e4) replaces them by a value that
        // neither a mask nor the causal diagonal stands for (a row whose kept
        // scores are below it puts its weight on the filled keys): kept as
        // written, in the region.
        if (!absorbsScores(*(keepWhereTrue ? f : t).scalar,
                           getElementTypeOrSelf(chainOp->value.getType())))
          return matchScoreMod(x, rank, m);
        if (!readsElementwise(*chainOp))
          return failB("the scores are read through a broadcast or transpose");
        if (!std::isinf(*(keepWhereTrue ? f : t).scalar)) {
          sawFiniteFill = true;
          if (finiteFillsAreMods)
            return matchScoreMod(x, rank, m);
        }
        // A finite fill is raised as an additive mask (below).
        if (!checkMaskScale(!std::isinf(*(keepWhereTrue ? f : t).scalar), m))
          return false;
        insideMask = true;
        m.chain.insert(n.op);
        const NodeOperand &cond = n.operands[0];
        // A condition computed in the payload that is not causal (a sliding
        // window, say): a modification that sets scores to the fill.
        if (!cond.causalOffset && cond.value && !isa<ShapedType>(cond.value.getType()))
          return matchScoreMod(x, rank, m);
        bool condInOrder = cond.value && readsLastTwoInOrder(cond, rank);
        if (cond.causalOffset) {
          // Not the causal diagonal itself (a window: keep j > i − w), or a
          // second one: a modification that sets scores to the fill.
          if (!keepWhereTrue || !setCausal(*cond.causalOffset, m))
            return matchScoreMod(x, rank, m);
        } else if (auto off = condInOrder ? causalConstant(strip(cond.value)) : std::nullopt) {
          if (!keepWhereTrue || !setCausal(*off, m))
            return failB("unsupported constant mask");
        } else if (auto off = condInOrder ? droppedWhereZero(cond.value) : std::nullopt;
                   off && !keepWhereTrue) {
          if (!setCausal(*off, m))
            return false;
        } else if (m.mask && cond.value && isa<ShapedType>(cond.value.getType())) {
          return matchScoreMod(x, rank, m); // a second mask tensor, as above
        } else if (!setMask(cond, true, !keepWhereTrue, m)) {
          return false;
        } else if (double fill = *(keepWhereTrue ? f : t).scalar; !std::isinf(fill)) {
          // A finite fill keeps a fully masked row a uniform average, where
          // a keep mask (fill -inf) gives 0: the mask is raised as the
          // additive mask fill·[dropped] instead. s + fill rounds to fill
          // for the finfo.min that frontends use.
          m.finiteFill = fill;
        }
        x = strip(chainOp->value, &m.chain);
        continue;
      }
      default:
        return matchScoreMod(x, rank, m);
      }
    }
    return failB("the scores chain is too long");
  }

  /// The rest of the scores, down to Q·Kᵀ, is elementwise code that is
  /// neither scale nor mask: captured for a score_mod region. The factors
  /// peeled so far apply after it, so the region applies them.
  static bool isScoreMod(Value x, int64_t rank) {
    if (!x)
      return false;
    std::string ignored;
    SmallPtrSet<Operation *, 16> scratch;
    return succeeded(captureScoreMod(x, rank, scratch, ignored));
  }

  bool matchScoreMod(Value x, int64_t rank, AttentionMatch &m) {
    // No value: the chain was followed onto a constant (S + c with S not a
    // product); nothing to capture.
    if (!x)
      return failB("the softmax input is not a scaled, masked Q·Kᵀ");
    std::string reason;
    FailureOr<ScoreModCapture> capture = captureScoreMod(x, rank, m.chain, reason);
    if (failed(capture))
      return failB("the softmax input is not a scaled, masked Q·Kᵀ, and not a "
                   "modification of each score either: " + reason);
    capture->factorAbove = m.scale;
    capture->fillsDropKeys = !m.rowMaxShift;
    m.scale = 1.0;
    m.scaleOutsideMasks = 1.0;
    Node qk = classify(capture->scores);
    m.scoreMod = *capture;
    m.chain.insert(qk.op);
    return matchQK(qk, m);
  }

  /// `C == 0` of a constant 0/1 tril buffer (tosa's spelling of GPT-2's
  /// mask): dropping where it holds keeps where C != 0.
  static std::optional<int64_t> droppedWhereZero(Value cond) {
    auto eq = cond.getDefiningOp<tosa::EqualOp>();
    if (!eq)
      return std::nullopt;
    Value a = eq->getOperand(0), b = eq->getOperand(1);
    if (scalarConstant(a) == 0.0)
      return causalConstant(b, /*nonZeroKeeps=*/true);
    if (scalarConstant(b) == 0.0)
      return causalConstant(a, /*nonZeroKeeps=*/true);
    return std::nullopt;
  }

  /// Whether a mask's dims are read in the scores' order: each map result
  /// is a loop dim, in increasing order, or 0 on a unit dim. The mask then
  /// only broadcasts, which canonicalMask reproduces with unit dims.
  static bool readsInOrder(const NodeOperand &o) {
    if (!o.map)
      return true;
    auto t = cast<RankedTensorType>(o.value.getType());
    int64_t last = -1;
    for (auto [i, e] : llvm::enumerate(o.map.getResults())) {
      if (auto c = dyn_cast<AffineConstantExpr>(e)) {
        if (c.getValue() != 0 || t.getDimSize(i) != 1)
          return false;
        continue;
      }
      auto d = dyn_cast<AffineDimExpr>(e);
      if (!d || static_cast<int64_t>(d.getPosition()) <= last)
        return false;
      last = d.getPosition();
    }
    return true;
  }

  /// In order, and the mask's last two dims are the query and key axes: what
  /// the causal test of a constant mask assumes.
  static bool readsLastTwoInOrder(const NodeOperand &o, int64_t rank) {
    if (!readsInOrder(o))
      return false;
    if (!o.map)
      return true;
    unsigned r = o.map.getNumResults();
    return r >= 2 && o.map.getResult(r - 2) == getAffineDimExpr(rank - 2, o.map.getContext()) &&
           o.map.getResult(r - 1) == getAffineDimExpr(rank - 1, o.map.getContext());
  }

  static bool isMaskValue(const NodeOperand &o) {
    return o.scalar && *o.scalar <= -1e4;
  }

  bool reachesKind(Value v, NodeKind kind, int depth = 0) {
    if (!v || depth > 6)
      return false;
    Node n = classify(strip(v));
    if (n.kind == kind)
      return true;
    for (const NodeOperand &o : n.operands)
      if (o.value && reachesKind(o.value, kind, depth + 1))
        return true;
    return false;
  }

  bool reachesMatmul(Value v, int depth = 0) {
    if (!v || depth > 12)
      return false;
    Node n = classify(strip(v));
    if (n.kind == NodeKind::MatMul)
      return true;
    if (n.kind == NodeKind::Unknown)
      return llvm::any_of(inputsOf(strip(v)),
                          [&](Value in) { return reachesMatmul(in, depth + 1); });
    for (const NodeOperand &o : n.operands)
      if (o.value && reachesMatmul(o.value, depth + 1))
        return true;
    return false;
  }

  /// What an op classify() does not know (tanh, a score modification) reads:
  /// a payload value's operands (a block argument: the generic's tensor), a
  /// tensor's defining op's inputs.
  static SmallVector<Value> inputsOf(Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      auto g = dyn_cast<linalg::LinalgOp>(arg.getOwner()->getParentOp());
      if (!g || g.getBlock() != arg.getOwner())
        return {};
      return {g.getMatchingOpOperand(arg)->get()};
    }
    Operation *def = v.getDefiningOp();
    if (!def)
      return {};
    if (auto g = dyn_cast<linalg::LinalgOp>(def))
      return SmallVector<Value>(g.getDpsInputs());
    return SmallVector<Value>(def->getOperands());
  }

  bool setCausal(int64_t offset, AttentionMatch &m) {
    if (m.causal || m.causalOffset)
      return failB("two causal masks");
    m.causalOffset = offset;
    return true;
  }

  bool setMask(const NodeOperand &mask, bool isBool, bool invert, AttentionMatch &m) {
    if (m.mask)
      return failB("more than one mask tensor; only one is supported");
    // A condition computed in the select's own payload (from the scores
    // themselves, e.g. a top-k threshold) is no mask tensor.
    auto t = dyn_cast<RankedTensorType>(mask.value.getType());
    if (!t)
      return failB("the mask is computed per element inside the scores' own op, not an input tensor");
    if (isBool != t.getElementType().isInteger(1))
      return failB(isBool ? "a select mask must be i1" : "an additive mask must be a float tensor");
    if (!readsInOrder(mask))
      return failB("the mask is read transposed or diagonally; only broadcasts are supported");
    m.mask = mask.value;
    m.invertMask = invert;
    m.maskVaries = mask.varies;
    return true;
  }

  bool matchQK(const Node &s, AttentionMatch &m) {
    if (!s.outPerm.empty())
      return failB("Q·Kᵀ is written permuted: the softmax's rows would be other rows");
    // Q = lhs; K = rhs ([b.., Lk, d] when transposed, else [b.., d, Lk]).
    m.q = peelScale(s.operands[0].value, m);
    m.qAtMatmul = strip(s.operands[0].value, nullptr, /*throughReshapes=*/false,
                        /*throughRoundings=*/false);
    m.kAtMatmul = strip(s.operands[1].value, nullptr, /*throughReshapes=*/false,
                        /*throughRoundings=*/false);
    m.qkRhsTransposed = s.rhsTransposed;
    m.kBroadcastDims = s.rhsBroadcastDims;
    Value rhs = strip(s.operands[1].value, nullptr, true, /*throughRoundings=*/false);
    if (s.rhsTransposed) {
      m.k = foldHeadRepeat(peelScale(rhs, m));
      return true;
    }
    // Kᵀ materialized by a transpose of the last two dims: look through it.
    Node t = classify(rhs);
    int64_t r = rankOf(rhs);
    if (t.kind == NodeKind::Transpose) {
      bool swapsLastTwo = t.perm.size() == static_cast<size_t>(r);
      for (int64_t i = 0; i < r && swapsLastTwo; ++i)
        swapsLastTwo = t.perm[i] == (i == r - 2 ? r - 1 : i == r - 1 ? r - 2 : i);
      if (swapsLastTwo) {
        m.k = foldHeadRepeat(peelScale(t.operands[0].value, m));
        return true;
      }
    }
    // K stored pre-transposed: the rewrite transposes it back.
    m.k = peelScale(rhs, m);
    m.kIsTransposed = true;
    return true;
  }

  /// Q·c or Q/c: the constant joins the scale (also splits like √s on Q and K).
  Value peelScale(Value v, AttentionMatch &m) {
    for (int depth = 0; depth < 4; ++depth) {
      v = strip(v, nullptr, true, /*throughRoundings=*/false);
      Node n = classify(v);
      if (n.kind != NodeKind::Mul && n.kind != NodeKind::Div)
        return v;
      int side = n.operands[0].scalar ? 1 : 0;
      const NodeOperand &c = n.operands[1 - side];
      if (!c.scalar || !n.operands[side].value || (n.kind == NodeKind::Div && side == 1))
        return v;
      m.qkScale = n.kind == NodeKind::Mul ? m.qkScale * *c.scalar : m.qkScale / *c.scalar;
      v = n.operands[side].value;
    }
    return v;
  }

  std::string &why;
  bool finiteFillsAreMods;

public:
  /// Whether a select with a finite fill was peeled as a mask.
  bool sawFiniteFill = false;
};
} // namespace

std::optional<AttentionMatch> detect::matchAttention(Operation *pv,
                                                     std::string &why) {
  // Under a softmax that subtracts the row max, a select with a finite fill
  // (finfo.min) is raised as a mask (additive fill·[dropped], or causal),
  // exact because s + fill rounds to fill for every ordinary score, and a
  // row of fills is a uniform average either way. Scores a score_mod
  // changed may be as low as the fill themselves (a window filled with
  // finfo.min), where fill + fill is -inf and -inf is not the fill; so
  // with a score_mod the finite-fill selects go into its region, as
  // written. (Without the max, exp(fill) is 0 as exp(-inf) is: the masks
  // are exact.)
  AttentionMatcher first(why, /*finiteFillsAreMods=*/false);
  std::optional<AttentionMatch> m = first.match(pv);
  if (m && m->scoreMod && m->rowMaxShift && first.sawFiniteFill)
    return AttentionMatcher(why, /*finiteFillsAreMods=*/true).match(pv);
  return m;
}

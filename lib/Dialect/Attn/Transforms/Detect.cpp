//===- Detect.cpp - --attn-detect: raise attention to attn.attention ------===//
//
// Two layers, kept apart on purpose:
//
//  1. Normalization (`classify`): any op of the attn, linalg or tosa dialects
//     that can sit in an attention chain is read as one abstract `Node`:
//     a matmul with its operand layout, an elementwise op with each operand's
//     broadcast, a row reduction, a softmax, a cast, a transpose. Spelling
//     differences (named op vs generic, maps vs explicit transposes, keepdim
//     reductions, scalars in the payload vs splat constants) end here.
//  2. Matching (`AttentionMatcher`): one canonical chain, walked backwards
//     from each P·V candidate, on Nodes only.
//
// Layer 1 lives in DetectNormalize.{h,cpp}; this file holds layer 2 and the
// rewrite. A new frontend spelling usually needs a new case in `classify`,
// never a new pattern.
//
//===----------------------------------------------------------------------===//
#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/Dialect/Attn/Transforms/Passes.h"
#include "DetectNormalize.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <cmath>
#include <limits>

namespace mlir {
namespace attn {
#define GEN_PASS_DEF_ATTNDETECTPASS
#include "attn/Dialect/Attn/Transforms/Passes.h.inc"
} // namespace attn
} // namespace mlir

using namespace mlir;
using namespace mlir::attn;
using namespace mlir::attn::detect;

namespace {

//===----------------------------------------------------------------------===//
// Layer 2: the canonical chain
//===----------------------------------------------------------------------===//

struct AttentionMatch {
  Value q, k, v;
  bool kIsTransposed = false; // k given as [.., d, Lk]
  Value mask;                 // additive (float) or keep (i1)
  bool invertMask = false;    // keep mask given as "drop where true"
  /// A select's fill when finite (finfo.min): see AttentionMatcher::matchScores.
  std::optional<double> finiteFill;
  /// The softmax subtracts the row max: a fully masked row with a finite
  /// fill is then a uniform average; without it, exp underflows to 0/0.
  bool rowMaxShift = false;
  SmallVector<bool> maskVaries;
  double scale = 1.0;        // factors on S (and exp2's ln 2)
  /// The part of `scale` applied outside every mask, e.g. exp(k·(S + M)) or
  /// exp2's ln 2: it multiplies the mask too, which the raised op (S·s + M)
  /// does not. See AttentionMatcher::checkMaskScale.
  double scaleOutsideMasks = 1.0;
  double qkScale = 1.0;      // factors peeled off Q and K
  std::optional<int64_t> causalOffset;
  std::optional<CausalAlignment> causal;
  SmallPtrSet<Operation *, 16> chain; // ops that the attention replaces
  /// Q, K, V as the two matmuls see them (casts looked through, reshapes
  /// not): the fallback when the reshape-stripped values disagree in rank.
  Value qAtMatmul, kAtMatmul, vAtMatmul;
  bool qkRhsTransposed = false;
};

class AttentionMatcher {
public:
  explicit AttentionMatcher(std::string &why) : why(why) {}

  /// Matches the chain that ends in the P·V product `pv`.
  std::optional<AttentionMatch> match(Operation *pvOp) {
    Node pv = classify(pvOp->getResult(0));
    if (pv.kind != NodeKind::MatMul)
      return std::nullopt;
    AttentionMatch m;
    m.chain.insert(pvOp);
    Value p = strip(pv.operands[0].value, &m.chain);
    // Rank of the scores (payload scalars have the rank of their loops);
    // batch reshapes may make it differ from P·V's.
    int64_t rank = rankOf(p);
    if (!isa<ShapedType>(p.getType()))
      if (linalg::LinalgOp g = enclosingElementwise(p))
        rank = g.getNumLoops();
    // Cheap exit for ordinary matmuls: the lhs must look like a softmax.
    Node pn = classify(p);
    if (pn.kind == NodeKind::Exp || pn.kind == NodeKind::Exp2)
      return fail("P is exp(S) without normalization, not a softmax");
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
    Value x;
    if (!matchSoftmax(p, rank, m, x))
      return fail();
    if (!matchScores(x, rank, m))
      return fail();
    // V: [b.., Lk, dv], or [b.., dv, Lk] when P·V's rhs is transposed.
    m.v = foldHeadRepeat(strip(pv.operands[1].value));
    m.vAtMatmul = strip(pv.operands[1].value, nullptr, /*throughReshapes=*/false);
    if (pv.rhsTransposed)
      return fail("P·V's V operand is stored transposed; not supported yet");
    return m;
  }

private:
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
    return failB("P is not a softmax (no row-sum normalizer)");
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
    if (sub.kind == NodeKind::Sub && sub.operands[0].value && !sub.operands[0].scalar) {
      if (!isPerRow(sub.operands[1], rank))
        return failB("the value subtracted before exp varies along the key axis "
                     "(a per-column max is not a softmax shift)");
      if (!readsElementwise(sub.operands[0]))
        return failB("the shift is applied to the scores read through a broadcast or transpose");
      m.chain.insert(sub.op);
      if (Value c = sub.operands[1].value) {
        Node mx = classify(stripUnitReshapes(strip(c, &m.chain), m));
        if (mx.kind == NodeKind::MaxReduce) {
          // A max over several dims (-1) is constant along the key axis
          // when it is read per row, which isPerRow checked.
          if (mx.axis >= 0 && mx.axis != rank - 1)
            return failB("the max is taken over dim " + Twine(mx.axis) +
                         ", not the key axis " + Twine(rank - 1));
          m.chain.insert(mx.op);
          m.rowMaxShift = mx.axis == rank - 1;
        }
      }
      y = strip(sub.operands[0].value, &m.chain);
    }
    x = y;
    return true;
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
        if (!other.scalar || (n.kind == NodeKind::Div && chainSide == 1))
          return failB("the scores are multiplied by a tensor, not a constant scale");
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
      case NodeKind::Add: {
        int chainSide = reachesMatmul(n.operands[0].value) ? 0 : 1;
        const NodeOperand &mask = n.operands[1 - chainSide];
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
        m.chain.insert(n.op);
        if (auto off = readsLastTwoInOrder(mask, rank) ? causalConstant(strip(mask.value))
                                                       : std::nullopt) {
          if (!checkMaskScale(/*additive=*/false, m) || !setCausal(*off, m))
            return false;
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
          return failB("a select on the scores does not fill with -inf or a large negative value");
        }
        if (!readsElementwise(*chainOp))
          return failB("the scores are read through a broadcast or transpose");
        // A finite fill is raised as an additive mask (below).
        if (!checkMaskScale(!std::isinf(*(keepWhereTrue ? f : t).scalar), m))
          return false;
        insideMask = true;
        m.chain.insert(n.op);
        const NodeOperand &cond = n.operands[0];
        bool condInOrder = cond.value && readsLastTwoInOrder(cond, rank);
        if (cond.causalOffset) {
          if (!keepWhereTrue || !setCausal(*cond.causalOffset, m))
            return failB("unsupported index-comparison mask");
        } else if (auto off = condInOrder ? causalConstant(strip(cond.value)) : std::nullopt) {
          if (!keepWhereTrue || !setCausal(*off, m))
            return failB("unsupported constant mask");
        } else if (auto off = condInOrder ? droppedWhereZero(cond.value) : std::nullopt;
                   off && !keepWhereTrue) {
          if (!setCausal(*off, m))
            return false;
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
        return failB("the softmax input is not a scaled, masked Q·Kᵀ");
      }
    }
    return failB("the scores chain is too long");
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
    for (const NodeOperand &o : n.operands)
      if (o.value && reachesMatmul(o.value, depth + 1))
        return true;
    return false;
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
    // Q = lhs; K = rhs ([b.., Lk, d] when transposed, else [b.., d, Lk]).
    m.q = peelScale(s.operands[0].value, m);
    m.qAtMatmul = strip(s.operands[0].value, nullptr, /*throughReshapes=*/false);
    m.kAtMatmul = strip(s.operands[1].value, nullptr, /*throughReshapes=*/false);
    m.qkRhsTransposed = s.rhsTransposed;
    Value rhs = strip(s.operands[1].value);
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

  /// GQA written as a repeat: K/V [B, Hkv, L, d] broadcast to
  /// [B, Hkv, G, L, d] (then merged to Hkv·G heads, which strip() looked
  /// through). attn.attention reads head h from K/V head h / G natively, so
  /// the repeat is dropped instead of copying K/V G times.
  static Value foldHeadRepeat(Value v) {
    int64_t r = rankOf(v);
    if (r == 4)
      if (Value one = foldSingleHeadExpand(v))
        return one;
    if (r < 5)
      return v;
    if (auto bc = v.getDefiningOp<linalg::BroadcastOp>()) {
      ArrayRef<int64_t> dims = bc.getDimensions();
      return dims.size() == 1 && dims[0] == r - 3 ? bc.getInput() : v;
    }
    // tosa spells the repeat as reshape [B, Hkv, 1, L, d] then tile by G
    // along that unit dim.
    if (auto tile = v.getDefiningOp<tosa::TileOp>()) {
      SmallVector<int64_t> multiples;
      if (failed(tile.getConstantMultiples(multiples)))
        return v;
      auto in = dyn_cast<RankedTensorType>(tile.getInput1().getType());
      for (int64_t d = 0; d < r; ++d)
        if (d != r - 3 && multiples[d] != 1)
          return v;
      if (!in || in.getDimSize(r - 3) != 1)
        return v;
      auto reshape = tile.getInput1().getDefiningOp<tosa::ReshapeOp>();
      if (!reshape)
        return v;
      auto src = dyn_cast<RankedTensorType>(reshape.getInput1().getType());
      SmallVector<int64_t> dropped(in.getShape());
      dropped.erase(dropped.begin() + (r - 3));
      return src && src.getShape() == ArrayRef<int64_t>(dropped) ? reshape.getInput1() : v;
    }
    // The same broadcast as a generic: the input map drops loop r-3.
    auto g = v.getDefiningOp<linalg::GenericOp>();
    if (!g || g.getNumDpsInputs() != 1 || g.getNumReductionLoops() != 0 ||
        g.getBody()->getTerminator()->getOperand(0) != g.getBody()->getArgument(0))
      return v;
    SmallVector<AffineExpr> expected;
    for (int64_t d = 0; d < r; ++d)
      if (d != r - 3)
        expected.push_back(getAffineDimExpr(d, v.getContext()));
    AffineMap in = g.getIndexingMapsArray()[0];
    if (llvm::to_vector(in.getResults()) != expected)
      return v;
    return g.getDpsInputs()[0];
  }

  /// MQA written as torch's expand: K/V [B, 1, L, d] broadcast to
  /// [B, H, L, d] by a map that reads the head dim at 0, or a tosa tile of
  /// that unit dim. attn.attention broadcasts one K/V head natively.
  static Value foldSingleHeadExpand(Value v) {
    int64_t r = rankOf(v);
    Value in;
    if (AffineMap b = broadcastMap(v)) {
      // Every dim but the head dim, which is read at 0 or dropped.
      SmallVector<AffineExpr> kept;
      for (AffineExpr e : b.getResults())
        if (e != getAffineConstantExpr(0, v.getContext()))
          kept.push_back(e);
      for (int64_t d = 0, i = 0; d < r; ++d)
        if (d != r - 3 && (i >= static_cast<int64_t>(kept.size()) ||
                           kept[i++] != getAffineDimExpr(d, v.getContext())))
          return {};
      if (static_cast<int64_t>(kept.size()) != r - 1)
        return {};
      in = v.getDefiningOp<linalg::LinalgOp>().getDpsInputs()[0];
      // torch-mlir drops the unit head dim by a collapse first.
      if (auto c = in.getDefiningOp<tensor::CollapseShapeOp>();
          c && rankOf(in) == r - 1 && reshapeOnlyUnitDims(c.getSrc(), in))
        in = c.getSrc();
    } else if (auto tile = v.getDefiningOp<tosa::TileOp>()) {
      SmallVector<int64_t> multiples;
      if (failed(tile.getConstantMultiples(multiples)))
        return {};
      for (int64_t d = 0; d < r; ++d)
        if (d != r - 3 && multiples[d] != 1)
          return {};
      in = tile.getInput1();
    } else {
      return {};
    }
    auto t = cast<RankedTensorType>(in.getType());
    return t.getRank() == r && t.getDimSize(r - 3) == 1 ? in : Value();
  }

  /// Q·c or Q/c: the constant joins the scale (also splits like √s on Q and K).
  Value peelScale(Value v, AttentionMatch &m) {
    for (int depth = 0; depth < 4; ++depth) {
      v = strip(v);
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
};

//===----------------------------------------------------------------------===//
// The rewrite
//===----------------------------------------------------------------------===//

/// One elementwise linalg.generic over `v`, producing `elt` elements.
Value mapElementwise(OpBuilder &b, Location loc, Value v, Type elt,
                     function_ref<Value(OpBuilder &, Location, Value)> fn) {
  auto t = cast<RankedTensorType>(v.getType());
  Value init = tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, v), elt);
  AffineMap id = b.getMultiDimIdentityMap(t.getRank());
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{v}, ValueRange{init},
             ArrayRef<AffineMap>{id, id},
             SmallVector<utils::IteratorType>(t.getRank(), utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location nl, ValueRange a) {
               linalg::YieldOp::create(nb, nl, fn(nb, nl, a[0]));
             })
      .getResult(0);
}

/// Elementwise float cast of a tensor.
Value castTensor(OpBuilder &b, Location loc, Value v, Type elt) {
  if (cast<RankedTensorType>(v.getType()).getElementType() == elt)
    return v;
  return mapElementwise(b, loc, v, elt, [&](OpBuilder &nb, Location nl, Value x) -> Value {
    if (cast<FloatType>(x.getType()).getWidth() < cast<FloatType>(elt).getWidth())
      return arith::ExtFOp::create(nb, nl, elt, x);
    return arith::TruncFOp::create(nb, nl, elt, x);
  });
}

/// Logical not of an i1 tensor: a "drop where true" mask becomes a keep mask.
Value invertBoolTensor(OpBuilder &b, Location loc, Value v) {
  return mapElementwise(b, loc, v, b.getI1Type(),
                        [](OpBuilder &nb, Location nl, Value x) -> Value {
                          Value one = arith::ConstantOp::create(nb, nl, nb.getBoolAttr(true));
                          return arith::XOrIOp::create(nb, nl, x, one);
                        });
}

/// keep ? 0 : fill, as an additive mask of element type `elt`.
Value additiveFromKeep(OpBuilder &b, Location loc, Value keep, Type elt, double fill) {
  return mapElementwise(b, loc, keep, elt, [&](OpBuilder &nb, Location nl, Value x) -> Value {
    Value zero = arith::ConstantOp::create(nb, nl, nb.getFloatAttr(elt, 0.0));
    Value f = arith::ConstantOp::create(nb, nl, nb.getFloatAttr(elt, fill));
    return arith::SelectOp::create(nb, nl, x, zero, f);
  });
}

/// Swaps the last two dims.
Value transposeLastTwo(OpBuilder &b, Location loc, Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  int64_t r = t.getRank();
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, r));
  std::swap(perm[r - 1], perm[r - 2]);
  // Kᵀ that the frontend computed by transposing K: take K itself rather
  // than transposing it back.
  if (auto tr = v.getDefiningOp<linalg::TransposeOp>();
      tr && llvm::equal(tr.getPermutation(), perm))
    return tr.getInput();
  if (auto tr = v.getDefiningOp<tosa::TransposeOp>();
      tr && llvm::equal(tr.getPerms(), perm))
    return tr.getInput1();
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, v);
  std::swap(sizes[r - 1], sizes[r - 2]);
  Value init = tensor::EmptyOp::create(b, loc, sizes, t.getElementType());
  return linalg::TransposeOp::create(b, loc, v, init, perm).getResult()[0];
}

/// Brings a mask to the scores' rank, with size-1 dims where it broadcasts.
FailureOr<Value> canonicalMask(OpBuilder &b, Location loc, Value mask,
                               ArrayRef<bool> varies, int64_t rank) {
  auto t = cast<RankedTensorType>(mask.getType());
  if (t.getRank() == rank)
    return mask;
  if (varies.size() != static_cast<size_t>(rank))
    return failure();
  // The mask's dims are the varying dims of the scores, in order.
  SmallVector<int64_t> shape;
  SmallVector<ReassociationIndices> reassoc;
  int64_t src = 0;
  for (int64_t i = 0; i < rank; ++i) {
    if (varies[i]) {
      if (src >= t.getRank())
        return failure();
      shape.push_back(t.getDimSize(src));
      reassoc.push_back({});
      ++src;
    } else {
      shape.push_back(1);
    }
  }
  if (src != t.getRank())
    return failure();
  // Group each unit dim with the next source dim (or the last group).
  reassoc.assign(t.getRank(), {});
  int64_t group = 0;
  for (int64_t i = 0; i < rank; ++i) {
    reassoc[std::min<int64_t>(group, t.getRank() - 1)].push_back(i);
    if (varies[i])
      ++group;
  }
  if (t.getRank() == 0)
    return failure();
  auto resultType = RankedTensorType::get(shape, t.getElementType());
  return tensor::ExpandShapeOp::create(b, loc, resultType, mask, reassoc).getResult();
}

struct AttnDetectPass : public attn::impl::AttnDetectPassBase<AttnDetectPass> {
  using AttnDetectPassBase::AttnDetectPassBase;

  /// Ops this run has erased (candidates may be among them).
  llvm::DenseSet<Operation *> erased;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    erased.clear();
    // Candidates: every matmul, latest first, so that a chain's ops are
    // still in place when its P·V is rewritten.
    SmallVector<Operation *> candidates;
    func.walk([&](Operation *op) {
      if (op->getNumResults() == 1 && classify(op->getResult(0)).kind == NodeKind::MatMul)
        candidates.push_back(op);
    });
    for (Operation *pv : llvm::reverse(candidates)) {
      // Erased with an earlier chain: the pointer is dangling, so test the
      // record of erased ops, never the op itself (ASan caught that).
      if (erased.contains(pv))
        continue;
      std::string why;
      AttentionMatcher matcher(why);
      std::optional<AttentionMatch> m = matcher.match(pv);
      if (!m) {
        if (explain && !why.empty())
          pv->emitRemark("attn-detect: not raised: ") << why;
        continue;
      }
      if (failed(rewrite(pv, *m, why))) {
        if (explain)
          pv->emitRemark("attn-detect: not raised: ") << why;
      }
    }
  }

  /// Broadcasts that classify() read through (row statistics spread by
  /// linalg.broadcast) belong to the chain when only the chain reads them.
  static void addLookedThroughBroadcasts(SmallPtrSetImpl<Operation *> &chain) {
    SmallVector<Operation *> work(chain.begin(), chain.end());
    while (!work.empty()) {
      Operation *op = work.pop_back_val();
      for (Value operand : op->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (!def || chain.contains(def) || !broadcastMap(operand) ||
            !llvm::all_of(def->getUsers(), [&](Operation *u) { return chain.contains(u); }))
          continue;
        chain.insert(def);
        work.push_back(def);
      }
    }
  }

  LogicalResult rewrite(Operation *pv, AttentionMatch &m, std::string &why) {
    addLookedThroughBroadcasts(m.chain);
    // Never drop a value someone reads: every chain op but P·V must be used
    // only inside the chain.
    for (Operation *op : m.chain) {
      if (op == pv)
        continue;
      for (Operation *user : op->getUsers())
        if (!m.chain.contains(user)) {
          why = "an intermediate of the chain ('" + op->getName().getStringRef().str() +
                "') is also used outside it, e.g. attention weights returned to the caller";
          return failure();
        }
    }
    OpBuilder b(pv);
    Location loc = pv->getLoc();
    // Reshape round trips may have been stripped to different depths on Q,
    // K and V (nn.MultiheadAttention splits heads differently for each).
    // Then take them as the two matmuls see them: those values still carry
    // any scale applied to Q and K, so only the scores' factors remain.
    double scale = m.scale * m.qkScale;
    if ((rankOf(m.q) != rankOf(m.k) || rankOf(m.q) != rankOf(m.v)) && m.qAtMatmul &&
        rankOf(m.qAtMatmul) == rankOf(m.kAtMatmul) &&
        rankOf(m.qAtMatmul) == rankOf(m.vAtMatmul)) {
      Value kAt = m.kAtMatmul;
      // A transposed-rhs matmul sees K as [.., Lk, d]; otherwise it sees Kᵀ.
      m.kIsTransposed = !m.qkRhsTransposed;
      m.q = m.qAtMatmul;
      m.k = kAt;
      m.v = m.vAtMatmul;
      scale = m.scale;
    }
    Value q = m.q, k = m.k, v = m.v;
    auto qt = cast<RankedTensorType>(q.getType());
    int64_t rank = qt.getRank();
    if (rankOf(k) != rank || rankOf(v) != rank) {
      why = "Q, K and V have different ranks";
      return failure();
    }
    // One element type for Q, K, V and the result: the widest of the three
    // and of P·V's result. An f32 chain over f16 inputs that returns f32
    // then stays f32 (extending f16 is exact); computing in f16 and
    // extending the result would round what the original never rounded.
    auto pvType = cast<RankedTensorType>(pv->getResult(0).getType());
    Type elt = pvType.getElementType();
    for (Value x : {q, k, v}) {
      Type e = cast<RankedTensorType>(x.getType()).getElementType();
      if (cast<FloatType>(e).getWidth() > cast<FloatType>(elt).getWidth())
        elt = e;
    }
    auto kShape = cast<RankedTensorType>(k.getType()).getShape();
    auto vShape = cast<RankedTensorType>(v.getType()).getShape();
    int64_t lk = m.kIsTransposed ? kShape[rank - 1] : kShape[rank - 2];
    if (!ShapedType::isDynamic(lk) && !ShapedType::isDynamic(vShape[rank - 2]) &&
        lk != vShape[rank - 2]) {
      why = "V has " + std::to_string(vShape[rank - 2]) + " rows but K has " +
            std::to_string(lk) + " keys: V does not pair with K";
      return failure();
    }
    // The head dim (rank - 3) may differ: GQA, checked by the op verifier.
    for (int64_t i = 0; i < rank - 3; ++i)
      if (qt.getDimSize(i) != kShape[i] || qt.getDimSize(i) != vShape[i]) {
        why = "batch dim " + std::to_string(i) + " differs between Q·Kᵀ and P·V";
        return failure();
      }
    int64_t lq = qt.getDimSize(rank - 2);
    std::optional<CausalAlignment> causal = m.causal;
    if (m.causalOffset) {
      if (*m.causalOffset == 0)
        causal = CausalAlignment::top_left;
      else if (!ShapedType::isDynamic(lq) && !ShapedType::isDynamic(lk) &&
               *m.causalOffset == lk - lq)
        causal = CausalAlignment::bottom_right;
      else {
        why = "a banded mask (keys j <= i + " + std::to_string(*m.causalOffset) +
              ") is neither causal alignment";
        return failure();
      }
    }
    Value mask;
    if (m.mask) {
      FailureOr<Value> cm = canonicalMask(b, loc, m.mask, m.maskVaries, rank);
      if (failed(cm)) {
        why = "the mask does not broadcast to the scores";
        return failure();
      }
      mask = *cm;
      if (m.invertMask)
        mask = invertBoolTensor(b, loc, mask);
      // f32 at least: finfo.min must stay finite (an additive mask may be
      // wider than Q).
      if (m.finiteFill && m.rowMaxShift)
        mask = additiveFromKeep(b, loc, mask,
                                cast<FloatType>(elt).getWidth() >= 32 ? elt : b.getF32Type(),
                                *m.finiteFill);
    }
    q = castTensor(b, loc, q, elt);
    k = castTensor(b, loc, k, elt);
    v = castTensor(b, loc, v, elt);
    if (m.kIsTransposed)
      k = transposeLastTwo(b, loc, k);
    SmallVector<int64_t> outShape(qt.getShape());
    outShape[rank - 1] = vShape[rank - 1];
    auto outType = RankedTensorType::get(outShape, elt);
    CausalAlignmentAttr causalAttr;
    if (causal)
      causalAttr = CausalAlignmentAttr::get(b.getContext(), *causal);
    auto attn = AttentionOp::create(b, loc, outType, q, k, v, mask,
                                    b.getF64FloatAttr(scale), causalAttr);
    // The verifier's message is a near-miss reason here, not an error in
    // the input program: capture it instead of reporting it.
    std::string verifierMessage;
    LogicalResult valid = [&] {
      ScopedDiagnosticHandler capture(b.getContext(), [&](Diagnostic &d) {
        if (verifierMessage.empty())
          verifierMessage = d.str();
        return success();
      });
      return attn.verify();
    }();
    if (failed(valid)) {
      why = "the matched shapes do not form a valid attention: " +
            verifierMessage;
      attn.erase();
      return failure();
    }
    Value result = castTensor(b, loc, attn.getResult(), pvType.getElementType());
    // The chain ran at another batch rank ([B·H, L, d] round trip): reshape
    // the result to P·V's shape.
    if (pvType.getRank() != rank) {
      auto rt = cast<RankedTensorType>(result.getType());
      if (pvType.getRank() < rank) {
        SmallVector<ReassociationIndices> groups(pvType.getRank());
        int64_t extra = rank - pvType.getRank();
        for (int64_t i = 0; i < rank; ++i)
          groups[std::max<int64_t>(0, i - extra)].push_back(i);
        result = tensor::CollapseShapeOp::create(
            b, loc, RankedTensorType::get(pvType.getShape(), rt.getElementType()),
            result, groups);
      } else {
        SmallVector<ReassociationIndices> groups(rank);
        int64_t extra = pvType.getRank() - rank;
        for (int64_t i = 0; i < pvType.getRank(); ++i)
          groups[std::max<int64_t>(0, i - extra)].push_back(i);
        result = tensor::ExpandShapeOp::create(
            b, loc, RankedTensorType::get(pvType.getShape(), rt.getElementType()),
            result, groups);
      }
    }
    pv->getResult(0).replaceAllUsesWith(result);
    // Erase the chain, then whatever only fed it (fills, empties,
    // transposes, constants), users before producers.
    std::vector<Operation *> worklist(m.chain.begin(), m.chain.end());
    llvm::DenseSet<Operation *> seen(m.chain.begin(), m.chain.end());
    auto addProducers = [&](Operation *op) {
      op->walk([&](Operation *nested) {
        for (Value operand : nested->getOperands())
          if (Operation *def = operand.getDefiningOp())
            if (!op->isAncestor(def) && seen.insert(def).second)
              worklist.push_back(def);
      });
    };
    for (Operation *op : m.chain)
      addProducers(op);
    bool progress = true;
    while (progress) {
      progress = false;
      for (size_t i = 0; i < worklist.size(); ++i) {
        Operation *op = worklist[i];
        if (!op || !isOpTriviallyDead(op))
          continue;
        addProducers(op);
        worklist[i] = nullptr;
        erased.insert(op);
        op->erase();
        progress = true;
      }
    }
    return success();
  }
};
} // namespace

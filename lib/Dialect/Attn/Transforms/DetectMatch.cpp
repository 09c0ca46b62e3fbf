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
// The matcher class is declared in DetectMatcher.h; this file holds its
// entry and its steps from the softmax's input down (scores, scale, masks,
// score modifications, Q·Kᵀ); DetectMatchSoftmax.cpp the softmax itself.
// Head-repeat folding is in DetectMatchHeads.cpp, and what a score
// modification holds is read and copied by DetectScoreMod.cpp.
//
//===----------------------------------------------------------------------===//
#include "DetectMatcher.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace mlir::attn;
using namespace mlir::attn::detect;

/// Matches the chain that ends in the P·V product `pv`.
std::optional<AttentionMatch> detect::AttentionMatcher::match(Operation *pvOp) {
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

/// From the softmax's input x down: the scores, Q, K, and V.
std::optional<AttentionMatch> detect::AttentionMatcher::matchRest(const Node &pv, Value x,
                                                                  int64_t rank, AttentionMatch &m) {
  if (!matchScores(x, rank, m))
    return fail();
  if (!m.rowShifts.empty() && sawFiniteFill)
    return fail("a select with a finite fill under a softmax shift other than the "
                "row max of the masked scores: what a fully masked row gives "
                "depends on that shift");
  // The same for an additive mask tensor, whose values may be such fills
  // (HuggingFace's finfo.min padding masks): at c = fill, c + log Σ rounds
  // to c, and the program weighs a fully masked row's keys 1 each (their
  // sum, not their average).
  bool additiveMaskTensor =
      m.mask && !cast<ShapedType>(m.mask.getType()).getElementType().isInteger(1);
  if (m.logSumExpShift && additiveMaskTensor)
    return fail("an additive mask tensor under a log-sum-exp shift: where the mask "
                "holds large finite fills (finfo.min), c + log(sum) rounds to c and a "
                "fully masked row sums V instead of averaging it");
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

/// A mask under a factor k of the softmax's argument, exp(k·(S + M)), is
/// scaled by k; the raised op adds M unscaled (S·s + M). That is exact
/// only for k = 1 when M is additive, and for k > 0 when M is -inf/0
/// (causal, keep; k·-inf stays -inf). Found by the fuzzer's semantic
/// oracle: exp2(S + M) had been raised with scale(ln 2) and M unscaled.
/// The one k ≠ 1 that counts as 1 is exp2(x·log2 e) with log2 e rounded to
/// f32, the spelling of exp(x) that frontends emit: its k = log2e_f32 · ln 2
/// is 1 − 1.3e-8, under half an f32 ulp of 1 (2^-24), the rounding of the
/// constant itself. A factor a program writes, however close to 1
/// (1.00000095 is 1 + 8 ulps), changes the result by (k − 1)·M, which grows
/// with M: it is refused (an adversarial helper found the earlier 1e-6
/// tolerance raising exp(1.00000095·(S + M)) with M = 1e6 to a different
/// answer).
bool detect::AttentionMatcher::checkMaskScale(bool additive, const AttentionMatch &m) {
  constexpr double kF32HalfUlpOfOne = 0x1p-24;
  double k = m.scaleOutsideMasks;
  if (additive && std::fabs(k - 1.0) > kF32HalfUlpOfOne) {
    std::string factor = std::fabs(k - 1.0) < 5e-3 ? llvm::formatv("1 {0} {1:e2}", k < 1.0 ? "-" : "+",
                                                                     std::fabs(k - 1.0)).str()
                                                     : llvm::formatv("{0}", k).str();
    return failB("an additive mask is scaled with the scores by " + factor +
                 " (exp2 or a factor outside the mask); the raised op would "
                 "add it unscaled");
  }
  if (!(k > 0.0))
    return failB("a mask is scaled by a non-positive factor");
  return true;
}

/// y·k or y/k by constants, as many as there are: their product joins the
/// scale (exp2((x - c)·log2 e) is exp(x - c)).
Value detect::AttentionMatcher::peelConstantFactors(Value y, AttentionMatch &m) {
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
bool detect::AttentionMatcher::matchScores(Value x, int64_t rank, AttentionMatch &m) {
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
      if (std::optional<unsigned> shift = rowShiftOperand(n, rank)) {
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
      bool finiteFill = false;
      if (auto off = readsLastTwoInOrder(mask, rank)
                         ? causalConstant(strip(mask.value), false, &finiteFill)
                         : std::nullopt) {
        // A finite fill (finfo.min): the causal mask only where
        // matchAttention finds every row keeping a key, as for selects.
        if (finiteFill) {
          sawFiniteFill = true;
          if (finiteFillsAreMods)
            return matchScoreMod(x, rank, m);
        }
        if (!checkMaskScale(/*additive=*/finiteFill, m) || !setCausal(*off, m))
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
        // (A keep-mask tensor with a finite fill is exact as a keep mask
        // only without a row max: matchAttention.)
        return false;
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
bool detect::AttentionMatcher::isScoreMod(Value x, int64_t rank) {
  if (!x)
    return false;
  std::string ignored;
  SmallPtrSet<Operation *, 16> scratch;
  return succeeded(captureScoreMod(x, rank, scratch, ignored));
}

bool detect::AttentionMatcher::matchScoreMod(Value x, int64_t rank, AttentionMatch &m) {
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
std::optional<int64_t> detect::AttentionMatcher::droppedWhereZero(Value cond) {
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
bool detect::AttentionMatcher::readsInOrder(const NodeOperand &o) {
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
bool detect::AttentionMatcher::readsLastTwoInOrder(const NodeOperand &o, int64_t rank) {
  if (!readsInOrder(o))
    return false;
  if (!o.map)
    return true;
  unsigned r = o.map.getNumResults();
  return r >= 2 && o.map.getResult(r - 2) == getAffineDimExpr(rank - 2, o.map.getContext()) &&
         o.map.getResult(r - 1) == getAffineDimExpr(rank - 1, o.map.getContext());
}

bool detect::AttentionMatcher::reachesKind(Value v, NodeKind kind, int depth) {
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

bool detect::AttentionMatcher::reachesMatmul(Value v, int depth) {
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
SmallVector<Value> detect::AttentionMatcher::inputsOf(Value v) {
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

bool detect::AttentionMatcher::setCausal(int64_t offset, AttentionMatch &m) {
  if (m.causal || m.causalOffset)
    return failB("two causal masks");
  m.causalOffset = offset;
  return true;
}

bool detect::AttentionMatcher::setMask(const NodeOperand &mask, bool isBool, bool invert,
                                       AttentionMatch &m) {
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

bool detect::AttentionMatcher::matchQK(const Node &s, AttentionMatch &m) {
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
Value detect::AttentionMatcher::peelScale(Value v, AttentionMatch &m) {
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

std::optional<AttentionMatch> detect::matchAttention(Operation *pv,
                                                     std::string &why) {
  // Under a softmax that subtracts the row max, a mask with a finite fill
  // (finfo.min, by a select or an added causal pattern) writes the fill
  // itself as the dropped keys' logit, so a row that keeps no key averages
  // V over its fills (uniformly, or over the keys that only one mask drops
  // where two fills overflow to -inf), where a -inf mask gives 0 or the
  // survivors of another mask. It is the -inf mask exactly only where every
  // row provably keeps a key (exp(fill − max) is 0 unless the kept scores
  // reach the fill itself): a causal diagonal alone, with j <= i + offset,
  // offset >= 0. Anything else that can drop the kept keys (a mask tensor,
  // a score_mod such as a window filled with finfo.min, a diagonal starting
  // below row 0: bottom-right with Lq > Lk) puts the finite fills into the
  // score_mod region, as written: the exact logits. (A keep-mask tensor
  // with a finite fill is such a case itself: as an additive fill·[dropped]
  // its s + fill is not the fill in f16/bf16 programs.) Adversarial helpers
  // found each case: GPT-2's finfo.min causal select beside a left-padding
  // mask raised as causal + mask gave padded rows V[0], not the program's
  // average. (Without the max, exp(fill) is 0 as exp(-inf) is: the masks
  // are exact.)
  AttentionMatcher first(why, /*finiteFillsAreMods=*/false);
  std::optional<AttentionMatch> m = first.match(pv);
  if (!m || !m->rowMaxShift || !first.sawFiniteFill)
    return m;
  bool rowsMayKeepNoKey =
      m->scoreMod || m->mask || (m->causalOffset && *m->causalOffset < 0);
  if (rowsMayKeepNoKey)
    return AttentionMatcher(why, /*finiteFillsAreMods=*/true).match(pv);
  return m;
}

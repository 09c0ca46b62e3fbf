//===- DetectRewrite.cpp - --attn-detect: replace a chain by attn.attention ===//
//
// The rewrite layer, as one pattern on P·V candidates: match the chain
// (DetectMatch.h), plan the attention from it and check the plan with
// AttentionOp::verifyShapes, all before the IR changes; then build the
// attention and replace P·V through the rewriter. The chain's ops, and
// whatever only fed them, are left dead for the driver to erase.
//
// The pattern reports near misses only through notifyMatchFailure;
// `whyNotRaised` gives the same reason to the pass for its remarks.
//
// Why one file of ~610 lines: the Planner's steps (closing the chain,
// operands and their layouts, roundings, causal, mask, score_mod, verify)
// all fill one AttentionPlan that buildAttention then reads field by field;
// split, the plan's invariants would be checked in one file and relied on
// in another.
//
//===----------------------------------------------------------------------===//
#include "DetectRewrite.h"
#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/Dialect/Attn/Transforms/Passes.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::attn;
using namespace mlir::attn::detect;

//===----------------------------------------------------------------------===//
// Building blocks
//===----------------------------------------------------------------------===//

/// One elementwise linalg.generic over `v`, producing `elt` elements.
static Value mapElementwise(OpBuilder &b, Location loc, Value v, Type elt,
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
static Value castTensor(OpBuilder &b, Location loc, Value v, Type elt) {
  if (cast<RankedTensorType>(v.getType()).getElementType() == elt)
    return v;
  return mapElementwise(b, loc, v, elt, [&](OpBuilder &nb, Location nl, Value x) -> Value {
    if (cast<FloatType>(x.getType()).getWidth() < cast<FloatType>(elt).getWidth())
      return arith::ExtFOp::create(nb, nl, elt, x);
    return arith::TruncFOp::create(nb, nl, elt, x);
  });
}

/// Logical not of an i1 tensor: a "drop where true" mask becomes a keep mask.
static Value invertBoolTensor(OpBuilder &b, Location loc, Value v) {
  return mapElementwise(b, loc, v, b.getI1Type(),
                        [](OpBuilder &nb, Location nl, Value x) -> Value {
                          Value one = arith::ConstantOp::create(nb, nl, nb.getBoolAttr(true));
                          return arith::XOrIOp::create(nb, nl, x, one);
                        });
}

/// K itself when `v` is Kᵀ that the frontend computed by transposing K
/// (swapping the last two dims); null otherwise.
static Value transposedSource(Value v) {
  int64_t r = cast<RankedTensorType>(v.getType()).getRank();
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, r));
  std::swap(perm[r - 1], perm[r - 2]);
  if (auto tr = v.getDefiningOp<linalg::TransposeOp>();
      tr && llvm::equal(tr.getPermutation(), perm))
    return tr.getInput();
  if (auto tr = v.getDefiningOp<tosa::TransposeOp>();
      tr && llvm::equal(tr.getPerms(), perm))
    return tr.getInput1();
  return {};
}

/// Swaps the last two dims; takes K itself for a transposed K rather than
/// transposing it back.
static Value transposeLastTwo(OpBuilder &b, Location loc, Value v) {
  if (Value source = transposedSource(v))
    return source;
  auto t = cast<RankedTensorType>(v.getType());
  int64_t r = t.getRank();
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, r));
  std::swap(perm[r - 1], perm[r - 2]);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, v);
  std::swap(sizes[r - 1], sizes[r - 2]);
  Value init = tensor::EmptyOp::create(b, loc, sizes, t.getElementType());
  return linalg::TransposeOp::create(b, loc, v, init, perm).getResult()[0];
}

namespace {
/// How a mask (or a K/V broadcast along batch dims) reaches the scores'
/// rank: its type there, with size-1 dims where it broadcasts, and the
/// expand_shape groups (none: already there).
struct MaskExpansion {
  RankedTensorType type;
  SmallVector<ReassociationIndices> groups;
};
} // namespace

/// The mask's dims are the varying dims of the scores, in order.
static FailureOr<MaskExpansion> expandMaskToRank(RankedTensorType t,
                                                 ArrayRef<bool> varies,
                                                 int64_t rank) {
  if (t.getRank() == rank)
    return MaskExpansion{t, {}};
  if (varies.size() != static_cast<size_t>(rank) || t.getRank() == 0)
    return failure();
  SmallVector<int64_t> shape;
  int64_t src = 0;
  for (int64_t i = 0; i < rank; ++i) {
    if (varies[i]) {
      if (src >= t.getRank())
        return failure();
      shape.push_back(t.getDimSize(src));
      ++src;
    } else {
      shape.push_back(1);
    }
  }
  if (src != t.getRank())
    return failure();
  // Group each unit dim with the next source dim (or the last group).
  MaskExpansion e{RankedTensorType::get(shape, t.getElementType()), {}};
  e.groups.assign(t.getRank(), {});
  int64_t group = 0;
  for (int64_t i = 0; i < rank; ++i) {
    e.groups[std::min<int64_t>(group, t.getRank() - 1)].push_back(i);
    if (varies[i])
      ++group;
  }
  return e;
}

/// Reshapes the attention's result ([B·H, L, d] round trip) to P·V's shape.
static Value reshapeToRank(OpBuilder &b, Location loc, Value result,
                           RankedTensorType pvType) {
  auto rt = cast<RankedTensorType>(result.getType());
  int64_t rank = rt.getRank(), pvRank = pvType.getRank();
  if (pvRank == rank)
    return result;
  auto type = RankedTensorType::get(pvType.getShape(), rt.getElementType());
  // Leading dims merge into the first group of the lower-rank side.
  int64_t high = std::max(rank, pvRank), low = std::min(rank, pvRank);
  SmallVector<ReassociationIndices> groups(low);
  for (int64_t i = 0; i < high; ++i)
    groups[std::max<int64_t>(0, i - (high - low))].push_back(i);
  if (pvRank < rank)
    return tensor::CollapseShapeOp::create(b, loc, type, result, groups);
  return tensor::ExpandShapeOp::create(b, loc, type, result, groups);
}

//===----------------------------------------------------------------------===//
// The plan: everything the attention needs, checked before the IR changes
//===----------------------------------------------------------------------===//

namespace {
struct AttentionPlan {
  Value q, k, v;          // as matched, before casts
  bool kIsTransposed;     // k given as [.., d, Lk]
  bool vIsTransposed;     // v given as [.., dv, Lk]
  SmallVector<int64_t> outPerm; // P·V's result permuted (DetectMatch.h)
  /// K and V broadcast along batch dims they lack: unit dims inserted.
  std::optional<MaskExpansion> kExpansion, vExpansion;
  double scale;
  Type elt;               // of Q, K, V and the result
  RankedTensorType resultType;
  std::optional<CausalAlignment> causal;
  Value mask;             // as matched
  MaskExpansion maskExpansion;
  bool invertMask;
  std::optional<ScoreModCapture> scoreMod;
  Operation *root;        // the op whose result the attention replaces
};

/// Plans the attention for a match, before the IR changes; each refusal
/// says why.
class Planner {
public:
  Planner(Operation *pv, AttentionMatch &m, std::string &why)
      : pv(pv), m(m), why(why) {}

  FailureOr<AttentionPlan> plan() {
    AttentionPlan p;
    if (failed(checkChainIsClosed()) || failed(planOperands(p)) || failed(checkRoundings(p)) ||
        failed(planCausal(p)) || failed(planMask(p)) || failed(planScoreMod(p)) ||
        failed(verify(p)))
      return failure();
    return p;
  }

private:
  LogicalResult fail(const Twine &reason) {
    why = reason.str();
    return failure();
  }

  /// Broadcasts that classify() read through (row statistics spread by
  /// linalg.broadcast) belong to the chain when only the chain reads them.
  void addLookedThroughBroadcasts() {
    SmallVector<Operation *> work(m.chain.begin(), m.chain.end());
    while (!work.empty()) {
      Operation *op = work.pop_back_val();
      for (Value operand : op->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (!def || m.chain.contains(def) || !broadcastMap(operand) ||
            !llvm::all_of(def->getUsers(),
                          [&](Operation *u) { return m.chain.contains(u); }))
          continue;
        m.chain.insert(def);
        work.push_back(def);
      }
    }
  }

  /// The ops that compute a dropped shift (the max below a mask, its
  /// negation in a generic of its own, keepdim reshapes) read the scores:
  /// they go with the chain when only the chain reads them and they have no
  /// side effects. An op is revisited whenever one of its users joins, so
  /// the order of the walk does not matter. The matcher drops only maxes of
  /// the values shifted (maxAxisOf in DetectMatchSoftmax.cpp), which start from
  /// their identity; the reduction check guards that contract here, where
  /// the ops are taken: a reduction from another infinity (a min from -inf)
  /// is infinite for every input, and the program NaN.
  LogicalResult addShiftComputations() {
    SmallVector<Operation *> work;
    auto pushProducers = [&](ValueRange values) {
      for (Value v : values)
        for (Value t : detect::tensorsBehind(v))
          if (Operation *def = t.getDefiningOp())
            work.push_back(def);
    };
    for (Value c : m.rowShifts)
      pushProducers(c);
    while (!work.empty()) {
      Operation *op = work.pop_back_val();
      if (m.chain.contains(op) || !isMemoryEffectFree(op) ||
          !llvm::all_of(op->getUsers(), [&](Operation *u) { return m.chain.contains(u); }))
        continue;
      if (!detect::reductionStartsFinite(op))
        return fail("a row shift before the softmax is computed by a reduction "
                    "that starts from an infinity other than its identity: it is "
                    "infinite, and the program's result NaN, for every input");
      m.chain.insert(op);
      pushProducers(op->getOperands());
    }
    return success();
  }

  /// Never drop a value someone reads: every chain op but the root (P·V, or
  /// its deferred normalization) must be used only inside the chain.
  LogicalResult checkChainIsClosed() {
    addLookedThroughBroadcasts();
    if (failed(addShiftComputations()))
      return failure();
    for (Operation *op : m.chain) {
      if (op == m.root)
        continue;
      for (Operation *user : op->getUsers())
        if (!m.chain.contains(user))
          return fail("an intermediate of the chain ('" +
                      op->getName().getStringRef() +
                      "') is also used outside it, e.g. attention weights "
                      "returned to the caller");
    }
    return success();
  }

  /// The raised op accumulates in f32 (f64) and rounds only its result: a
  /// rounding inside the chain to a type narrower than one of Q, K and V
  /// (an f32 program's scores or weights rounded to bf16 and back) is one
  /// it would drop, so it is refused. A rounding to the inputs' own type is
  /// a bf16/f16 program's storage precision (P stored as bf16 for P·V, as
  /// FlashAttention does), which the raised op's kernels keep or exceed
  /// (README: "The raised op computes in the widest of ..."); roundings
  /// that a score_mod region copies are kept there.
  LogicalResult checkRoundings(const AttentionPlan &p) {
    SmallPtrSet<Operation *, 16> inRegion;
    std::string ignored;
    if (m.scoreMod)
      (void)captureScoreMod(m.scoreMod->top, m.scoreMod->rank, inRegion, ignored);
    unsigned width = 0;
    for (Value x : {p.q, p.k, p.v})
      width = std::max(width, cast<RankedTensorType>(x.getType()).getElementTypeBitWidth());
    for (Operation *op : m.chain) {
      if (inRegion.contains(op))
        continue;
      WalkResult walk = op->walk([&](Operation *inner) {
        if (!isRoundingCast(inner))
          return WalkResult::advance();
        auto to = cast<FloatType>(getElementTypeOrSelf(inner->getResult(0).getType()));
        return to.getWidth() < width ? WalkResult::interrupt() : WalkResult::advance();
      });
      if (walk.wasInterrupted())
        return fail("the chain rounds an intermediate to a type narrower than Q, K or V; "
                    "the raised op would not round it");
    }
    return success();
  }

  /// K's or V's type as the attention reads it (unit dims inserted where
  /// it is broadcast), before any transpose.
  static RankedTensorType readType(Value x, const std::optional<MaskExpansion> &e) {
    return e ? e->type : cast<RankedTensorType>(x.getType());
  }

  /// K or V read at their matmul without some batch dims: unit dims there,
  /// which the op broadcasts only as the head dim (MQA); other batch dims
  /// must then be 1 in Q as well (the verifier checks).
  LogicalResult planBroadcast(Value x, ArrayRef<int64_t> missing, int64_t rank,
                              std::optional<MaskExpansion> &expansion) {
    if (missing.empty())
      return success();
    SmallVector<bool> present(rank, true);
    for (int64_t d : missing)
      present[d] = false;
    FailureOr<MaskExpansion> e =
        expandMaskToRank(cast<RankedTensorType>(x.getType()), present, rank);
    if (failed(e))
      return fail("K or V lacks batch dims in a way that is not a broadcast");
    expansion = *e;
    return success();
  }

  /// Q, K, V, their element type and the result's type; the pairings the
  /// verifier does not check (V's rows with K's keys, batch dims).
  LogicalResult planOperands(AttentionPlan &p) {
    // Reshape round trips may have been stripped to different depths on Q,
    // K and V (nn.MultiheadAttention splits heads differently for each).
    // Then take them as the two matmuls see them: those values still carry
    // any scale applied to Q and K, so only the scores' factors remain.
    p.scale = m.scale * m.qkScale;
    p.q = m.q;
    p.k = m.k;
    p.v = m.v;
    p.kIsTransposed = m.kIsTransposed;
    p.vIsTransposed = m.vIsTransposed;
    p.outPerm = m.outPerm;
    bool broadcasts = !m.kBroadcastDims.empty() || !m.vBroadcastDims.empty();
    if (broadcasts ||
        ((rankOf(m.q) != rankOf(m.k) || rankOf(m.q) != rankOf(m.v)) && m.qAtMatmul &&
         rankOf(m.qAtMatmul) == rankOf(m.kAtMatmul) &&
         rankOf(m.qAtMatmul) == rankOf(m.vAtMatmul))) {
      // A transposed-rhs matmul sees K as [.., Lk, d]; otherwise it sees Kᵀ.
      p.kIsTransposed = !m.qkRhsTransposed;
      p.q = m.qAtMatmul;
      p.k = m.kAtMatmul;
      p.v = m.vAtMatmul;
      p.scale = m.scale;
    }
    auto qt = cast<RankedTensorType>(p.q.getType());
    int64_t rank = qt.getRank();
    if (failed(planBroadcast(p.k, m.kBroadcastDims, rank, p.kExpansion)) ||
        failed(planBroadcast(p.v, m.vBroadcastDims, rank, p.vExpansion)))
      return failure();
    RankedTensorType kRead = readType(p.k, p.kExpansion), vRead = readType(p.v, p.vExpansion);
    if (kRead.getRank() != rank || vRead.getRank() != rank)
      return fail("Q, K and V have different ranks");
    // One element type for Q, K, V and the result: the widest of the three
    // and of P·V's result. An f32 chain over f16 inputs that returns f32
    // then stays f32 (extending f16 is exact); computing in f16 and
    // extending the result would round what the original never rounded.
    p.root = m.root;
    for (Value x : {p.q, p.k, p.v, Value(m.root->getResult(0))})
      if (!isa<FloatType>(cast<RankedTensorType>(x.getType()).getElementType()))
        return fail("Q, K, V and P·V must be floats (an integer product is no softmax "
                    "attention's)");
    p.elt = cast<RankedTensorType>(m.root->getResult(0).getType()).getElementType();
    for (Value x : {p.q, p.k, p.v}) {
      Type e = cast<RankedTensorType>(x.getType()).getElementType();
      if (cast<FloatType>(e).getWidth() > cast<FloatType>(p.elt).getWidth())
        p.elt = e;
    }
    ArrayRef<int64_t> kShape = kRead.getShape();
    SmallVector<int64_t> vShape(vRead.getShape());
    if (p.vIsTransposed)
      std::swap(vShape[rank - 1], vShape[rank - 2]);
    int64_t lk = p.kIsTransposed ? kShape[rank - 1] : kShape[rank - 2];
    if (!ShapedType::isDynamic(lk) && !ShapedType::isDynamic(vShape[rank - 2]) &&
        lk != vShape[rank - 2])
      return fail("V has " + Twine(vShape[rank - 2]) + " rows but K has " +
                  Twine(lk) + " keys: V does not pair with K");
    // The head dim (rank - 3) may differ: GQA, checked by the op verifier.
    for (int64_t i = 0; i < rank - 3; ++i)
      if (qt.getDimSize(i) != kShape[i] || qt.getDimSize(i) != vShape[i])
        return fail("batch dim " + Twine(i) + " differs between Q·Kᵀ and P·V");
    SmallVector<int64_t> outShape(qt.getShape());
    outShape[rank - 1] = vShape[rank - 1];
    p.resultType = RankedTensorType::get(outShape, p.elt);
    return success();
  }

  /// A banded mask j <= i + offset is causal when the offset is one of the
  /// two alignments.
  LogicalResult planCausal(AttentionPlan &p) {
    p.causal = m.causal;
    if (!m.causalOffset)
      return success();
    int64_t rank = p.resultType.getRank();
    int64_t lq = p.resultType.getDimSize(rank - 2);
    ArrayRef<int64_t> kShape = readType(p.k, p.kExpansion).getShape();
    int64_t lk = p.kIsTransposed ? kShape[rank - 1] : kShape[rank - 2];
    if (*m.causalOffset == 0)
      p.causal = CausalAlignment::top_left;
    else if (!ShapedType::isDynamic(lq) && !ShapedType::isDynamic(lk) &&
             *m.causalOffset == lk - lq)
      p.causal = CausalAlignment::bottom_right;
    else
      return fail("a banded mask (keys j <= i + " + Twine(*m.causalOffset) +
                  ") is neither causal alignment");
    return success();
  }

  LogicalResult planMask(AttentionPlan &p) {
    p.mask = m.mask;
    p.invertMask = m.invertMask;
    if (!m.mask)
      return success();
    FailureOr<MaskExpansion> e =
        expandMaskToRank(cast<RankedTensorType>(m.mask.getType()), m.maskVaries,
                         p.resultType.getRank());
    if (failed(e))
      return fail("the mask does not broadcast to the scores");
    p.maskExpansion = *e;
    return success();
  }

  /// A score modification that reads indices or tensors is written over
  /// the chain's index space, which must then be the raised op's
  /// [b…, h, i, j]; a pure function of the score fits any rank.
  LogicalResult planScoreMod(AttentionPlan &p) {
    p.scoreMod = m.scoreMod;
    if (!p.scoreMod || !p.scoreMod->readsIndexSpace ||
        p.scoreMod->rank == p.resultType.getRank())
      return success();
    return fail("the score modification reads indices or tensors over scores of rank " +
                Twine(p.scoreMod->rank) + ", but the attention is raised at rank " +
                Twine(p.resultType.getRank()));
  }

  /// The op verifier's checks, on the types the build will give each
  /// operand, so that no op is created only to be erased again.
  LogicalResult verify(const AttentionPlan &p) {
    auto withElt = [&](Value x) {
      return RankedTensorType::get(cast<RankedTensorType>(x.getType()).getShape(),
                                   p.elt);
    };
    // As castTensor and then transposeLastTwo will give K and V.
    auto asRead = [&](Value x, bool transposed, const std::optional<MaskExpansion> &e) {
      RankedTensorType type = RankedTensorType::get(readType(x, e).getShape(), p.elt);
      if (!transposed)
        return type;
      bool needsCast = cast<RankedTensorType>(x.getType()).getElementType() != p.elt;
      Value source = needsCast || e ? Value() : transposedSource(x);
      SmallVector<int64_t> shape(type.getShape());
      std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
      return source ? cast<RankedTensorType>(source.getType())
                    : RankedTensorType::get(shape, p.elt);
    };
    RankedTensorType kType = asRead(p.k, p.kIsTransposed, p.kExpansion);
    RankedTensorType vType = asRead(p.v, p.vIsTransposed, p.vExpansion);
    RankedTensorType maskType;
    if (p.mask)
      maskType = p.maskExpansion.type;
    std::string message;
    if (succeeded(AttentionOp::verifyShapes(
            withElt(p.q), kType, vType, maskType, p.resultType, p.scale,
            [&](StringRef error) { message = error.str(); })))
      return success();
    return fail("the matched shapes do not form a valid attention: '" +
                AttentionOp::getOperationName() + "' op " + message);
  }

  Operation *pv;
  AttentionMatch &m;
  std::string &why;
};
} // namespace

//===----------------------------------------------------------------------===//
// The pattern
//===----------------------------------------------------------------------===//

/// Creates the attention the plan describes, at the rewriter's insertion
/// point, and returns its result as the replaced op's type.
static Value buildAttention(RewriterBase &b, Location loc, const AttentionPlan &p,
                            RankedTensorType pvType) {
  Value mask = p.mask;
  if (mask) {
    if (!p.maskExpansion.groups.empty())
      mask = tensor::ExpandShapeOp::create(b, loc, p.maskExpansion.type, mask,
                                           p.maskExpansion.groups);
    if (p.invertMask)
      mask = invertBoolTensor(b, loc, mask);
  }
  Value q = castTensor(b, loc, p.q, p.elt);
  Value k = castTensor(b, loc, p.k, p.elt);
  Value v = castTensor(b, loc, p.v, p.elt);
  auto broadcast = [&](Value x, const std::optional<MaskExpansion> &e) -> Value {
    if (!e || e->groups.empty())
      return x;
    auto type = RankedTensorType::get(e->type.getShape(),
                                      cast<RankedTensorType>(x.getType()).getElementType());
    return tensor::ExpandShapeOp::create(b, loc, type, x, e->groups);
  };
  k = broadcast(k, p.kExpansion);
  v = broadcast(v, p.vExpansion);
  if (p.kIsTransposed)
    k = transposeLastTwo(b, loc, k);
  if (p.vIsTransposed)
    v = transposeLastTwo(b, loc, v);
  CausalAlignmentAttr causalAttr;
  if (p.causal)
    causalAttr = CausalAlignmentAttr::get(b.getContext(), *p.causal);
  auto attn = AttentionOp::create(b, loc, p.resultType, q, k, v, mask,
                                  /*descale=*/ValueRange(), b.getF64FloatAttr(p.scale),
                                  causalAttr);
  if (p.scoreMod) {
    double scale = buildScoreModRegion(b, loc, attn.getScoreMod(), *p.scoreMod,
                                       getAccumulatorType(p.elt), p.resultType.getRank(),
                                       p.scale);
    attn.setScaleAttr(b.getF64FloatAttr(scale));
  }
  Value result = castTensor(b, loc, attn.getResult(), pvType.getElementType());
  // The chain ran at another batch rank ([B·H, L, d] round trip).
  if (p.outPerm.empty())
    return reshapeToRank(b, loc, result, pvType);
  // P·V writes its result permuted: reshape to its rank in [.., Lq, dv]
  // order, then permute as it does.
  SmallVector<int64_t> inOrder(pvType.getRank());
  for (auto [i, d] : llvm::enumerate(p.outPerm))
    inOrder[d] = pvType.getDimSize(i);
  result = reshapeToRank(b, loc, result, RankedTensorType::get(inOrder, pvType.getElementType()));
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, result);
  Value init = tensor::EmptyOp::create(b, loc, applyPermutation(sizes, p.outPerm),
                                       pvType.getElementType());
  return linalg::TransposeOp::create(b, loc, result, init, p.outPerm).getResult()[0];
}

/// Matches and plans the chain that ends in `pv`; `why` says what refused a
/// near miss (empty for an ordinary matmul).
static FailureOr<AttentionPlan> matchAndPlan(Operation *pv, std::string &why) {
  if (pv->getNumResults() != 1 ||
      classify(pv->getResult(0)).kind != NodeKind::MatMul)
    return failure();
  std::optional<AttentionMatch> m = matchAttention(pv, why);
  if (!m)
    return failure();
  return Planner(pv, *m, why).plan();
}

std::string detect::whyNotRaised(Operation *pv) {
  std::string why;
  if (succeeded(matchAndPlan(pv, why)))
    return {};
  return why;
}

namespace {
/// Raises the chain that ends in a P·V candidate to one attn.attention.
/// Emits no diagnostic: a greedy driver may try it on an op more than once.
struct RaiseAttention : RewritePattern {
  explicit RaiseAttention(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *pv,
                                PatternRewriter &rewriter) const override {
    std::string why;
    FailureOr<AttentionPlan> plan = matchAndPlan(pv, why);
    if (failed(plan))
      return rewriter.notifyMatchFailure(
          pv, why.empty() ? "not the P·V of an attention" : why);
    Operation *root = plan->root;
    rewriter.setInsertionPoint(root);
    auto rootType = cast<RankedTensorType>(root->getResult(0).getType());
    rewriter.replaceOp(root, buildAttention(rewriter, root->getLoc(), *plan, rootType));
    return success();
  }
};
} // namespace

void mlir::attn::populateAttnDetectPatterns(RewritePatternSet &patterns) {
  patterns.add<RaiseAttention>(patterns.getContext());
}

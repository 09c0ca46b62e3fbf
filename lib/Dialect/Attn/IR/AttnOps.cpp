//===- AttnOps.cpp - attn dialect operations and verifiers ----------------===//
//
// Every verifier names the offending operand and the dimensions it compared,
// since shape errors in attention graphs are almost always a swapped L and d,
// a forgotten transpose, or a head count that does not divide.
//
//===----------------------------------------------------------------------===//
#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "VerifierHelpers.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::attn;

namespace {
/// A verifier message, printed as a diagnostic prints its arguments (types
/// quoted). AttentionOp::verifyShapes hands it to its caller, which emits it
/// as an op error (the verifier) or reads it as a reason (--attn-detect).
class Message {
public:
  Message &operator<<(Type t) {
    os << '\'' << t << '\'';
    return *this;
  }
  template <typename T> Message &operator<<(const T &v) {
    os << v;
    return *this;
  }
  StringRef str() const { return text; }

private:
  std::string text;
  llvm::raw_string_ostream os{text};
};
} // namespace

/// Why `mask` does not broadcast to `target` (same rank, each mask extent 1
/// or agreeing with the target's), if it does not.
static std::optional<std::string> maskBroadcastError(RankedTensorType mask,
                                                     ArrayRef<int64_t> target) {
  if (mask.getRank() != static_cast<int64_t>(target.size()))
    return (Message() << "mask must have rank " << target.size()
                      << " to broadcast against the scores, got rank "
                      << mask.getRank())
        .str()
        .str();
  for (auto [i, m, t] : llvm::enumerate(mask.getShape(), target)) {
    if (m == 1 || extentsAgree(m, t))
      continue;
    return (Message() << "mask dim " << i << " is " << m << " but must be 1 or "
                      << fmtExtent(t))
        .str()
        .str();
  }
  return std::nullopt;
}

/// The score_mod region's contract (see attn.attention): one block taking
/// the score, in the accumulator type of `elt`, then `numIndices` indices;
/// ending in attn.yield of a score of that type; no side effects inside, so
/// that the lowerings may apply it to any score, once, in any order.
static LogicalResult verifyScoreMod(Operation *op, Region &region, Type elt,
                                    int64_t numIndices) {
  if (region.empty())
    return success();
  if (!region.hasOneBlock())
    return op->emitOpError("score_mod must have one block");
  Block &block = region.front();
  Type score = getAccumulatorType(elt);
  if (block.getNumArguments() != unsigned(numIndices + 1) ||
      block.getArgument(0).getType() != score ||
      !llvm::all_of(block.getArguments().drop_front(),
                    [](BlockArgument a) { return a.getType().isIndex(); }))
    return op->emitOpError("score_mod must take the score (")
           << score << ") and " << numIndices << " indices, one per dim of the scores";
  auto yield = block.empty() ? nullptr : dyn_cast<YieldOp>(block.back());
  if (!yield)
    return op->emitOpError("score_mod must end in attn.yield");
  if (yield.getScore().getType() != score)
    return op->emitOpError("score_mod must yield ") << score << ", got "
                                                    << yield.getScore().getType();
  WalkResult effects = region.walk([&](Operation *inner) {
    // It computes one score from scalars: tensors from above are read an
    // element at a time (tensor.extract), never computed inside (a whole
    // attention or linalg op per score is no modification of it, and the
    // lowerings would bufferize it inside the loop).
    if (!isMemoryEffectFree(inner)) {
      op->emitOpError("score_mod must be free of side effects, got '")
          << inner->getName() << "'";
      return WalkResult::interrupt();
    }
    if (llvm::any_of(inner->getResultTypes(), llvm::IsaPred<ShapedType>)) {
      op->emitOpError("score_mod must compute scalars, got '")
          << inner->getName() << "' yielding a " << inner->getResult(0).getType();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(effects.wasInterrupted());
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::verify() {
  auto lhs = getLhs().getType(), rhs = getRhs().getType();
  auto res = getResult().getType();
  int64_t rank = lhs.getRank();
  if (rank < 2)
    return emitOpError("operands must have rank >= 2, got ") << rank;
  if (rhs.getRank() != rank || res.getRank() != rank)
    return emitOpError("lhs, rhs and result must have the same rank, got ")
           << rank << ", " << rhs.getRank() << " and " << res.getRank();
  if (lhs.getElementType() != rhs.getElementType())
    return emitOpError("lhs and rhs element types differ: ")
           << lhs.getElementType() << " vs " << rhs.getElementType();
  Type resElt = res.getElementType();
  if (resElt != lhs.getElementType() && !resElt.isF32())
    return emitOpError("result element type must be the operand type or f32, got ")
           << resElt;
  for (int64_t i = 0; i < rank - 2; ++i)
    if (!extentsAgree(lhs.getDimSize(i), rhs.getDimSize(i)) ||
        !extentsAgree(lhs.getDimSize(i), res.getDimSize(i)))
      return emitOpError("batch dim ") << i << " differs between operands";
  int64_t m = lhs.getDimSize(rank - 2), k = lhs.getDimSize(rank - 1);
  bool transposed = getTransposeRhs();
  int64_t rk = rhs.getDimSize(transposed ? rank - 1 : rank - 2);
  int64_t n = rhs.getDimSize(transposed ? rank - 2 : rank - 1);
  if (!extentsAgree(k, rk))
    return emitOpError("contraction dims differ: lhs has ")
           << fmtExtent(k) << ", rhs has " << fmtExtent(rk)
           << (transposed ? " (rhs is transposed)" : "");
  if (!extentsAgree(res.getDimSize(rank - 2), m) ||
      !extentsAgree(res.getDimSize(rank - 1), n))
    return emitOpError("result must be ")
           << fmtExtent(m) << "x" << fmtExtent(n) << " in its last two dims";
  return success();
}

//===----------------------------------------------------------------------===//
// MaskOp
//===----------------------------------------------------------------------===//

LogicalResult MaskOp::verify() {
  auto input = getInput().getType();
  if (input.getRank() < 2)
    return emitOpError("scores must have rank >= 2, got ") << input.getRank();
  if (getAlign() && getKind() != MaskKind::causal)
    return emitOpError("`align` only applies to causal masks");
  if (getKind() == MaskKind::causal) {
    if (getMask())
      return emitOpError("a causal mask takes no mask tensor");
    return success();
  }
  if (!getMask())
    return emitOpError("a ") << stringifyMaskKind(getKind())
                             << " mask needs a mask tensor";
  auto mask = cast<RankedTensorType>(getMask().getType());
  if (getKind() == MaskKind::keep && !mask.getElementType().isInteger(1))
    return emitOpError("a keep mask must have i1 elements, got ")
           << mask.getElementType();
  if (getKind() == MaskKind::additive &&
      mask.getElementType() != input.getElementType())
    return emitOpError("an additive mask must have the scores' element type ")
           << input.getElementType() << ", got " << mask.getElementType();
  if (std::optional<std::string> error = maskBroadcastError(mask, input.getShape()))
    return emitOpError(*error);
  return success();
}

//===----------------------------------------------------------------------===//
// SoftmaxOp
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::verify() {
  int64_t rank = getInput().getType().getRank();
  int64_t dim = getDim();
  if (dim < 0 || dim >= rank)
    return emitOpError("dim ") << dim << " is out of range for rank " << rank;
  return success();
}

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

int64_t AttentionOp::getGroupSize() {
  if (!hasHeadDim())
    return 1;
  int64_t r = getRank();
  int64_t hq = getQuery().getType().getDimSize(r - 3);
  int64_t hkv = getKey().getType().getDimSize(r - 3);
  if (ShapedType::isDynamic(hq) || ShapedType::isDynamic(hkv) || hkv == 0)
    return 1;
  return hq / hkv;
}

LogicalResult AttentionOp::verify() {
  RankedTensorType mask;
  if (getMask())
    mask = cast<RankedTensorType>(getMask().getType());
  if (failed(verifyShapes(getQuery().getType(), getKey().getType(),
                          getValue().getType(), mask, getResult().getType(),
                          getScale().convertToDouble(),
                          [&](StringRef message) { emitOpError(message); })))
    return failure();
  if (!getDescale().empty()) {
    if (getDescale().size() != 3)
      return emitOpError("descale takes three factors (query, key, value), got ")
             << getDescale().size();
    if (!hasFP8Inputs())
      return emitOpError("descale factors apply to 8-bit float inputs only, got ")
             << getQuery().getType().getElementType() << " inputs";
  }
  return verifyScoreMod(*this, getScoreMod(), getQuery().getType().getElementType(), getRank());
}

bool AttentionOp::hasFP8Inputs() { return isFP8Type(getQuery().getType().getElementType()); }

LogicalResult
AttentionOp::verifyShapes(RankedTensorType q, RankedTensorType k,
                          RankedTensorType v, RankedTensorType mask,
                          RankedTensorType o, double scale,
                          function_ref<void(StringRef)> reportError) {
  auto fail = [&](const Message &message) {
    reportError(message.str());
    return failure();
  };
  int64_t r = q.getRank();
  if (r < 2)
    return fail(Message() << "query must have rank >= 2 ([..., L, d]), got " << r);
  if (k.getRank() != r || v.getRank() != r || o.getRank() != r)
    return fail(Message() << "query, key, value and result must have the same rank");
  Type elt = q.getElementType();
  if (k.getElementType() != elt || v.getElementType() != elt)
    return fail(Message() << "query, key and value must share an element type");
  if (isFP8Type(elt)) {
    Type oElt = o.getElementType();
    if (!oElt.isF16() && !oElt.isBF16() && !oElt.isF32())
      return fail(Message() << "result element type must be f16, bf16 or f32 for " << elt
                            << " inputs, got " << oElt);
  } else if (o.getElementType() != elt) {
    return fail(Message() << "result element type must be " << elt);
  }
  for (auto [name, t] : {std::pair<StringRef, RankedTensorType>{"query", q},
                         {"key", k}, {"value", v}})
    if (std::optional<std::string> error = emptyDimError(name, t))
      return fail(Message() << *error);

  int64_t d = q.getDimSize(r - 1);
  int64_t lk = k.getDimSize(r - 2), dv = v.getDimSize(r - 1);
  if (!extentsAgree(k.getDimSize(r - 1), d))
    return fail(Message() << "key head dim " << fmtExtent(k.getDimSize(r - 1))
                          << " differs from query head dim " << fmtExtent(d));
  if (!extentsAgree(v.getDimSize(r - 2), lk))
    return fail(Message() << "value sequence length "
                          << fmtExtent(v.getDimSize(r - 2))
                          << " differs from key length " << fmtExtent(lk));
  // As getNumBatchDims() and hasHeadDim() read them, from the rank alone.
  int64_t numBatch = r > 2 ? r - 3 : 0;
  for (int64_t i = 0; i < numBatch; ++i)
    if (!extentsAgree(q.getDimSize(i), k.getDimSize(i)) ||
        !extentsAgree(q.getDimSize(i), v.getDimSize(i)))
      return fail(Message() << "batch dim " << i
                            << " differs between query, key and value");
  if (r >= 3) {
    int64_t hq = q.getDimSize(r - 3);
    int64_t hk = k.getDimSize(r - 3), hv = v.getDimSize(r - 3);
    if (!extentsAgree(hk, hv))
      return fail(Message() << "key and value head counts differ: "
                            << fmtExtent(hk) << " vs " << fmtExtent(hv));
    if (!ShapedType::isDynamic(hq) && !ShapedType::isDynamic(hk) && hq % hk != 0)
      return fail(Message() << "query heads (" << hq
                            << ") must be a multiple of key/value heads (" << hk
                            << ")");
  }
  SmallVector<int64_t> expected(q.getShape());
  expected[r - 1] = dv;
  for (int64_t i = 0; i < r; ++i)
    if (!extentsAgree(o.getDimSize(i), expected[i]))
      return fail(Message() << "result dim " << i << " must be "
                            << fmtExtent(expected[i]) << ", got "
                            << fmtExtent(o.getDimSize(i)));
  if (mask) {
    // An additive mask may be wider than Q (an f32 bias with bf16 inputs is
    // common); the ODS type constraint already limits it to float or i1.
    SmallVector<int64_t> scores(q.getShape());
    scores[r - 1] = lk;
    if (std::optional<std::string> error = maskBroadcastError(mask, scores))
      return fail(Message() << *error);
  }
  if (!std::isfinite(scale))
    return fail(Message() << "scale must be finite");
  return success();
}

FailureOr<AttentionShape> AttentionOp::getCostShape() {
  auto q = getQuery().getType(), k = getKey().getType(), v = getValue().getType();
  if (!q.hasStaticShape() || !k.hasStaticShape() || !v.hasStaticShape())
    return failure();
  int64_t r = getRank();
  AttentionShape s;
  // (A product past int64 saturates; checkCountableShape refuses it.)
  for (int64_t i = 0; i < getNumBatchDims(); ++i)
    if (llvm::MulOverflow(s.batch, q.getDimSize(i), s.batch))
      s.batch = std::numeric_limits<int64_t>::max();
  if (hasHeadDim()) {
    s.headsQ = q.getDimSize(r - 3);
    s.headsKV = k.getDimSize(r - 3);
  }
  s.seqQ = q.getDimSize(r - 2);
  s.headDim = q.getDimSize(r - 1);
  s.seqKV = k.getDimSize(r - 2);
  s.headDimV = v.getDimSize(r - 1);
  std::optional<DType> dtype = getCostDType(q.getElementType());
  if (!dtype)
    return failure();
  s.dtype = *dtype;
  if (getResult().getType().getElementType() != q.getElementType())
    s.outputDType = getCostDType(getResult().getType().getElementType());
  s.causal = isCausal();
  s.causalBottomRight = getCausal() == CausalAlignment::bottom_right;
  if (hasScoreMod()) {
    ScoreModKeyBounds keys = getScoreModKeyBounds(getScoreMod());
    s.lowestKeyOffset = keys.lowest;
    s.highestKeyOffset = keys.highest;
  }
  return s;
}

//===----------------------------------------------------------------------===//
// OnlineAttentionOp
//===----------------------------------------------------------------------===//

LogicalResult OnlineAttentionOp::verify() {
  auto q = getQuery().getType(), k = getKey().getType(), v = getValue().getType();
  if (q.getRank() != 2 || k.getRank() != 2 || v.getRank() != 2)
    return emitOpError("query, key and value tiles must be rank 2");
  if (k.getElementType() != q.getElementType() ||
      v.getElementType() != q.getElementType())
    return emitOpError("query, key and value tiles must share an element type");
  int64_t bq = q.getDimSize(0), bkv = k.getDimSize(0);
  if (!extentsAgree(q.getDimSize(1), k.getDimSize(1)))
    return emitOpError("query and key tiles have different head dims");
  if (!extentsAgree(v.getDimSize(0), bkv))
    return emitOpError("key and value tiles have different lengths");
  auto acc = getAcc().getType(), mx = getMax().getType(), sm = getSum().getType();
  Type accElt = getAccumulatorType(q.getElementType());
  for (auto t : {acc, mx, sm})
    if (t.getElementType() != accElt)
      return emitOpError("acc, max and sum must be ")
             << accElt << " for " << q.getElementType() << " tiles";
  if (acc.getRank() != 2 || !extentsAgree(acc.getDimSize(0), bq) ||
      !extentsAgree(acc.getDimSize(1), v.getDimSize(1)))
    return emitOpError("acc must be ") << fmtExtent(bq) << "x"
                                       << fmtExtent(v.getDimSize(1));
  for (auto t : {mx, sm})
    if (t.getRank() != 1 || !extentsAgree(t.getDimSize(0), bq))
      return emitOpError("max and sum must be rank-1 with ") << fmtExtent(bq)
                                                             << " rows";
  if (getMask()) {
    auto mask = cast<RankedTensorType>(getMask().getType());
    if (mask.getRank() != 2 || !extentsAgree(mask.getDimSize(0), bq) ||
        !extentsAgree(mask.getDimSize(1), bkv))
      return emitOpError("mask tile must be ")
             << fmtExtent(bq) << "x" << fmtExtent(bkv);
  }
  // The tile's place in the scores: (b…, h, i0, j0).
  if (getScoreMod().empty() != getScoreOrigin().empty() ||
      (!getScoreOrigin().empty() && getScoreOrigin().size() < 2))
    return emitOpError("score_mod needs the tile's origin (batch and head "
                       "indices, first query, first key), and the origin a score_mod");
  return verifyScoreMod(*this, getScoreMod(), q.getElementType(),
                        int64_t(getScoreOrigin().size()));
}

LogicalResult
KernelConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         StringAttr family, int64_t blockQ, int64_t blockKV,
                         int64_t rowsPerWarp, int64_t kvStages, bool swizzle,
                         int64_t kvSplits, bool packKVGroups, int64_t kvWarps,
                         bool tmaLoads, bool producerWarpgroup, bool overlapPV,
                         bool persistent) {
  if (!family || !parseTensorCoreFamily(family.getValue()))
    return emitError() << "kernel_config family must be \"mma.sync\" or "
                          "\"wgmma\", got "
                       << family;
  if (blockQ <= 0 || blockKV <= 0 || rowsPerWarp <= 0 || kvStages <= 0 ||
      kvSplits <= 0 || kvWarps <= 0)
    return emitError() << "kernel_config tiles, rows per warp, stages, "
                          "splits and key warps must be positive";
  return success();
}

MaskReads mlir::attn::getMaskReads(AttentionOp op) {
  // A score_mod region is per-score work too, with its temporaries live
  // beside S: for the registers it counts as a mask read per score (mma.sync
  // kernels with soft-capping or ALiBi spilled 24-68 bytes otherwise).
  // Unless all it does is bound the keys (a sliding window): the kernels
  // skip it on the K/V tiles inside the bounds and, on the few that
  // straddle one, it compares indices as the causal mask does (with the
  // rows unclamped over a partial query tile: bench/NOTES.md v46). Beside
  // a mask tensor, not measured: it counts as the mask does.
  Value mask = op.getMask();
  if (op.hasScoreMod()) {
    return scoreModOnlyBoundsKeys(op.getScoreMod()) && !mask
               ? MaskReads::KeyBounds
               : MaskReads::PerScore;
  }
  if (!mask)
    return MaskReads::None;
  auto type = cast<RankedTensorType>(mask.getType());
  return type.getDimSize(type.getRank() - 2) == 1 ? MaskReads::PerKey
                                                  : MaskReads::PerScore;
}

KernelConfigAttr mlir::attn::getKernelConfigAttr(MLIRContext *ctx,
                                                 const KernelConfig &c) {
  return KernelConfigAttr::get(
      ctx, StringAttr::get(ctx, stringifyTensorCoreFamily(c.family)), c.blockQ,
      c.blockKV, c.rowsPerWarp, c.kvStages, c.swizzle, c.kvSplits,
      c.packKVGroups, c.kvWarps, c.tmaLoads, c.producerWarpgroup, c.overlapPV,
      c.persistent);
}

KernelConfig mlir::attn::getKernelConfig(KernelConfigAttr attr) {
  KernelConfig c;
  c.family = *parseTensorCoreFamily(attr.getFamily().getValue());
  c.blockQ = attr.getBlockQ();
  c.blockKV = attr.getBlockKv();
  c.rowsPerWarp = attr.getRowsPerWarp();
  c.kvStages = attr.getKvStages();
  c.swizzle = attr.getSwizzle();
  c.kvSplits = attr.getKvSplits();
  c.packKVGroups = attr.getPackKvGroups();
  c.kvWarps = attr.getKvWarps();
  c.tmaLoads = attr.getTmaLoads();
  c.producerWarpgroup = attr.getProducerWarpgroup();
  c.overlapPV = attr.getOverlapPv();
  c.persistent = attr.getPersistent();
  return c;
}

bool mlir::attn::isFP8Type(Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(t); }

std::optional<DType> mlir::attn::getCostDType(Type elementType) {
  if (elementType.isF16())
    return DType::F16;
  if (elementType.isBF16())
    return DType::BF16;
  if (elementType.isF32())
    return DType::F32;
  if (elementType.isF64())
    return DType::F64;
  if (isFP8Type(elementType))
    return DType::F8;
  return std::nullopt;
}

FloatType mlir::attn::getAccumulatorType(Type elementType) {
  if (elementType.isF64())
    return Float64Type::get(elementType.getContext());
  return Float32Type::get(elementType.getContext());
}

#define GET_OP_CLASSES
#include "attn/Dialect/Attn/IR/AttnOps.cpp.inc"

//===- DetectMatch.h - --attn-detect, layer 2: the canonical chain -*- C++ -*-===//
//
// One canonical chain, P·V <- softmax_lastdim(S·s + mask) <- Q·Kᵀ, walked
// backwards from a P·V candidate on Nodes only (DetectNormalize.h). The
// matcher reads; it never changes the IR (DetectRewrite.cpp does).
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_DIALECT_ATTN_TRANSFORMS_DETECTMATCH_H
#define ATTN_DIALECT_ATTN_TRANSFORMS_DETECTMATCH_H

#include "DetectNormalize.h"
#include "DetectScoreMod.h"

#include "llvm/ADT/SmallPtrSet.h"

#include <optional>
#include <string>

namespace mlir {
namespace attn {
namespace detect {

/// A chain that ends in a P·V product, as the matcher read it.
struct AttentionMatch {
  Value q, k, v;
  bool kIsTransposed = false; // k given as [.., d, Lk]
  bool vIsTransposed = false; // v given as [.., dv, Lk]
  /// P·V written permuted ([.., dv, Lq], [B, Lq, H, dv]): result dim i is
  /// dim outPerm[i] of the attention's [.., Lq, dv]. Empty: as is.
  SmallVector<int64_t> outPerm;
  /// Batch dims (of the scores / of O) that K / V lack at their matmul,
  /// along which they are broadcast (MQA as an einsum).
  SmallVector<int64_t> kBroadcastDims, vBroadcastDims;
  Value mask;                 // additive (float) or keep (i1)
  bool invertMask = false;    // keep mask given as "drop where true"
  /// The softmax subtracts the row max: a fully masked row with a finite
  /// fill is then a uniform average; without it, exp underflows to 0/0.
  bool rowMaxShift = false;
  /// Row maxes dropped other than the one subtracted last (a max subtracted
  /// below a mask, s + negate(max) there, the shift of a logsumexp): dropped
  /// with the ops that compute them (DetectRewrite.cpp). With a finite mask
  /// fill, a fully masked row's result would depend on them, so the matcher
  /// then refuses.
  SmallVector<Value> rowShifts;
  /// One of them is a log-sum-exp's (c + log Σ exp(s − c)).
  bool logSumExpShift = false;
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
  /// The op whose result the attention replaces: P·V, or the division of
  /// P·V by the row sums when the normalization is deferred.
  Operation *root = nullptr;
  /// Q, K, V as the two matmuls see them (casts looked through, reshapes
  /// not): the fallback when the reshape-stripped values disagree in rank.
  Value qAtMatmul, kAtMatmul, vAtMatmul;
  bool qkRhsTransposed = false;
  /// Elementwise code on the scores that is neither scale nor mask, for the
  /// op's score_mod region (DetectScoreMod.h).
  std::optional<ScoreModCapture> scoreMod;
};

/// Matches the chain that ends in the P·V product `pv`. On a near miss worth
/// a remark, `why` says what differs; it stays empty for ordinary matmuls.
std::optional<AttentionMatch> matchAttention(Operation *pv, std::string &why);

/// GQA written as a repeat of K/V heads, or MQA as an expand of one K/V
/// head: the K/V before it, which attn.attention reads natively (each group
/// of query heads reads one K/V head, no copy). `v` itself when it is neither.
Value foldHeadRepeat(Value v);

} // namespace detect
} // namespace attn
} // namespace mlir

#endif // ATTN_DIALECT_ATTN_TRANSFORMS_DETECTMATCH_H

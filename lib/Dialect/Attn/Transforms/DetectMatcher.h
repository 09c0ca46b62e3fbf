//===- DetectMatcher.h - --attn-detect, layer 2: the matcher -*- C++ -*-===//
//
// The class that walks one canonical chain backwards from a P·V candidate
// (DetectMatch.h says what it yields). Its steps share one AttentionMatch
// and live in two files: the softmax and its normalizations, shifts and
// log-softmax forms in DetectMatchSoftmax.cpp; the scores, masks, score
// modifications and Q·Kᵀ in DetectMatch.cpp. Internal to the pass.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_DIALECT_ATTN_TRANSFORMS_DETECTMATCHER_H
#define ATTN_DIALECT_ATTN_TRANSFORMS_DETECTMATCHER_H

#include "DetectMatch.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"

#include <optional>
#include <string>

namespace mlir {
namespace attn {
namespace detect {

class AttentionMatcher {
public:
  /// `finiteFillsAreMods`: masks with a finite fill (selects, added causal
  /// patterns) go into the score_mod region instead of becoming masks (see
  /// matchAttention).
  AttentionMatcher(std::string &why, bool finiteFillsAreMods)
      : why(why), finiteFillsAreMods(finiteFillsAreMods) {}

  /// Matches the chain that ends in the P·V product `pv`.
  std::optional<AttentionMatch> match(Operation *pvOp);

private:
  /// From the softmax's input x down: the scores, Q, K, and V.
  std::optional<AttentionMatch> matchRest(const Node &pv, Value x, int64_t rank,
                                          AttentionMatch &m);

  /// P = exp(y − log Σ_j exp(y)) (a log_softmax, then exp), or
  /// exp(y − (c + log Σ_j exp(y − c))) (a logsumexp written with its shift
  /// c outside the log): softmax(y) either way, for c per row. The rest
  /// matches from the inner exp, as for exp / Σ exp. False, with no
  /// remark, when P is no such exp.
  bool matchExpOfLogSoftmax(Value p, int64_t rank, AttentionMatch &m, Value &x);

  /// O = (E·V) / rowsum(E), or (E·V) · (1 / rowsum(E)), E = exp(...):
  /// FlashAttention's own order written out, the normalization deferred
  /// past P·V. The normalized O is what the attention replaces.
  bool matchDeferredNormalization(const Node &pv, Value e, int64_t rank, AttentionMatch &m,
                                  Value &x);

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
  Value peelSafeSoftmax(Value p, int64_t rank, AttentionMatch &m, Value &scores);

  bool matchSoftmax(Value p, int64_t rank, AttentionMatch &m, Value &x);

  /// Whether the normalizer, as a division reads it, holds the row of the
  /// numerator it divides: its non-unit dims are read by the numerator's
  /// loop exprs with the reduced axis left out. A per-row value read for
  /// another row (a transposed statistic) is not a softmax.
  static bool sameRows(const NodeOperand &numer, const NodeOperand &denom, int64_t axis);

  /// P = e / n or e · (1 / n): the numerator and the normalizer as P reads them.
  bool matchNormalizer(const Node &n, int64_t rank, AttentionMatch &m,
                       NodeOperand &numer, NodeOperand &denom);

  bool matchSoftmaxCore(Value p, int64_t rank, AttentionMatch &m, Value &x);

  /// e = exp(((x - c)·k)) or exp2 of it, for c the max (per row or global)
  /// of x, or no shift, and constants k > 0 under a shift, which join the
  /// scale (exp2's ln 2 too).
  bool matchShiftedExp(Value e, int64_t rank, AttentionMatch &m, Value &x);

  /// x − c, or x + (−c) with the negation in the payload or an op of its
  /// own, for c per row (a Sub's c is checked by the caller): the minuend
  /// and c (null when a constant).
  bool readAsSubtraction(const Node &n, int64_t rank, AttentionMatch &m, NodeOperand &minuend,
                         Value &c, NodeOperand &cRead);

  /// Whether a row max is read for the row it was taken over (a global max
  /// is one value wherever it is read).
  static bool readsOwnRow(const NodeOperand &minuend, const NodeOperand &cRead, int64_t axis,
                          int64_t rank);

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
  std::optional<int64_t> maxAxisOf(Value c, Value shifted, int64_t rank, AttentionMatch &m);

  /// The operand of S − c, S + c or c + S that is the row max of S, or
  /// its negation (a max subtracted below a mask, s + negate(max) in a
  /// generic of its own): softmax cancels it as it does the outermost
  /// shift. A per-row tensor from elsewhere stays a mask: a row of -inf is
  /// a fully masked row, not a shift.
  std::optional<unsigned> rowShiftOperand(const Node &n, int64_t rank);

  /// A mask under a factor k of the softmax's argument, exp(k·(S + M)), is
  /// scaled by k; the raised op adds M unscaled (S·s + M). That is exact
  /// only for k = 1 when M is additive, and for k > 0 when M is -inf/0
  /// (causal, keep; k·-inf stays -inf); k within 1e-6 of 1 counts as 1
  /// (the same rounding as the folded scale itself). Found by the fuzzer's semantic
  /// oracle: exp2(S + M) had been raised with scale(ln 2) and M unscaled.
  bool checkMaskScale(bool additive, const AttentionMatch &m);

  /// y·k or y/k by constants, as many as there are: their product joins the
  /// scale (exp2((x - c)·log2 e) is exp(x - c)).
  Value peelConstantFactors(Value y, AttentionMatch &m);

  /// X = S·s (+ masks), S = Q·Kᵀ; peels scale and masks in any order.
  bool matchScores(Value x, int64_t rank, AttentionMatch &m);

  /// The rest of the scores, down to Q·Kᵀ, is elementwise code that is
  /// neither scale nor mask: captured for a score_mod region. The factors
  /// peeled so far apply after it, so the region applies them.
  static bool isScoreMod(Value x, int64_t rank);

  bool matchScoreMod(Value x, int64_t rank, AttentionMatch &m);

  /// `C == 0` of a constant 0/1 tril buffer (tosa's spelling of GPT-2's
  /// mask): dropping where it holds keeps where C != 0.
  static std::optional<int64_t> droppedWhereZero(Value cond);

  /// Whether a mask's dims are read in the scores' order: each map result
  /// is a loop dim, in increasing order, or 0 on a unit dim. The mask then
  /// only broadcasts, which canonicalMask reproduces with unit dims.
  static bool readsInOrder(const NodeOperand &o);

  /// In order, and the mask's last two dims are the query and key axes: what
  /// the causal test of a constant mask assumes.
  static bool readsLastTwoInOrder(const NodeOperand &o, int64_t rank);

  static bool isMaskValue(const NodeOperand &o) {
    return o.scalar && *o.scalar <= -1e4;
  }

  bool reachesKind(Value v, NodeKind kind, int depth = 0);

  bool reachesMatmul(Value v, int depth = 0);

  /// What an op classify() does not know (tanh, a score modification) reads:
  /// a payload value's operands (a block argument: the generic's tensor), a
  /// tensor's defining op's inputs.
  static SmallVector<Value> inputsOf(Value v);

  bool setCausal(int64_t offset, AttentionMatch &m);

  bool setMask(const NodeOperand &mask, bool isBool, bool invert, AttentionMatch &m);

  bool matchQK(const Node &s, AttentionMatch &m);

  /// Q·c or Q/c: the constant joins the scale (also splits like √s on Q and K).
  Value peelScale(Value v, AttentionMatch &m);

  std::string &why;
  bool finiteFillsAreMods;

public:
  /// Whether a mask with a finite fill (a select, an added causal pattern)
  /// was peeled as a mask.
  bool sawFiniteFill = false;
};

} // namespace detect
} // namespace attn
} // namespace mlir

#endif // ATTN_DIALECT_ATTN_TRANSFORMS_DETECTMATCHER_H

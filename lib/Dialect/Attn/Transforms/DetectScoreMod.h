//===- DetectScoreMod.h - --attn-detect: score modifications ----*- C++ -*-===//
//
// The elementwise code a model puts between Q·Kᵀ and the softmax that is
// neither a scale nor a mask (Gemma 2's soft-capping c·tanh(s/c), ALiBi's
// s + slope_h·(j − i) computed from indices, a bias combined nonlinearly),
// moved into attn.attention's `score_mod` region instead of refusing the
// attention.
//
// Two steps, like the rest of --attn-detect: `captureScoreMod` only reads
// the IR (the matcher calls it and records what it found), and
// `buildScoreModRegion` writes the region when the rewrite happens.
//
// What is captured is exactly what the IR computes on one score: every op
// on the path from Q·Kᵀ to the chain is elementwise and reads the scores
// element for element. Anything else it reads (constants, indices, bias
// tensors through their indexing maps) must not depend on the scores, so a
// modification that looks at other scores (a row statistic, a transpose of
// S, a top-k threshold) is refused: it is not a function of one score.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_DIALECT_ATTN_TRANSFORMS_DETECTSCOREMOD_H
#define ATTN_DIALECT_ATTN_TRANSFORMS_DETECTSCOREMOD_H

#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <string>

namespace mlir {
namespace attn {
namespace detect {

/// What the matcher found between Q·Kᵀ and the rest of the chain.
struct ScoreModCapture {
  /// The modified scores as the chain reads them: a tensor of the scores'
  /// shape, or a scalar in the payload of an elementwise generic over it.
  Value top;
  /// Q·Kᵀ (casts and batch reshapes looked through): the region's score.
  Value scores;
  /// Constant factors the matcher peeled above `top`: they apply after the
  /// modification, so the region applies them, not the op's scale.
  double factorAbove = 1.0;
  /// Loops of the chain's elementwise ops: one index per dim of the scores.
  int64_t rank = 0;
  /// Whether the code reads indices or tensors, which pins it to the
  /// chain's index space (it must then be the raised op's).
  bool readsIndexSpace = false;
  /// The softmax does not subtract the row max: a select's finfo.min fill
  /// then drops its key exactly as -inf does (exp gives 0 for both), and
  /// the region writes -inf, so that a row of fills gives the op's 0 for
  /// fully masked rows instead of the original's 0/0.
  bool fillsDropKeys = false;
};

/// Captures the code that computes `top` from one Q·Kᵀ product. Records the
/// ops it replaces in `chain`. On failure `why` says what refused it.
FailureOr<ScoreModCapture> captureScoreMod(Value top, int64_t rank,
                                           SmallPtrSetImpl<Operation *> &chain,
                                           std::string &why);

/// Fills the empty `region` with the captured code: a block taking the score
/// (`scoreType`) and `numIndices` indices (the raised op's rank; the
/// capture's own when it reads the index space), ending in attn.yield.
/// Constant factors applied first to the raw score are folded out of the
/// region into the op's `scale`; returns the scale with them.
double buildScoreModRegion(RewriterBase &b, Location loc, Region &region,
                           const ScoreModCapture &capture, Type scoreType,
                           int64_t numIndices, double scale);

} // namespace detect
} // namespace attn
} // namespace mlir

#endif // ATTN_DIALECT_ATTN_TRANSFORMS_DETECTSCOREMOD_H

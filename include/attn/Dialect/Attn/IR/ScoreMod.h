//===- ScoreMod.h - Applying attn.attention's score_mod region --*- C++ -*-===//
//
// Apart from AttnOps.h so that the GPU kernel emitter, whose own names
// collide with KernelConfig.h's, can apply a region too.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_DIALECT_ATTN_IR_SCOREMOD_H
#define ATTN_DIALECT_ATTN_IR_SCOREMOD_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir {
namespace attn {

/// `score` through a score_mod region (none: `score` itself), its ops
/// cloned at the builder with the block arguments bound to the score and
/// `indices` (one per dim of the scores, as attn.attention defines them).
/// `map` may bind more beforehand (values from above, for a kernel isolated
/// from them) and holds every clone afterwards. The one way the lowerings
/// (CPU loops, linalg, GPU kernels) apply a region. `result` (default: the
/// yielded value) picks another value of the region to compute; only the
/// ops it depends on are cloned.
Value applyScoreMod(OpBuilder &b, Region &scoreMod, Value score, ValueRange indices,
                    IRMapping &map, Value result = {});
inline Value applyScoreMod(OpBuilder &b, Region &scoreMod, Value score, ValueRange indices) {
  IRMapping map;
  return applyScoreMod(b, scoreMod, score, indices, map);
}

} // namespace attn
} // namespace mlir

#endif // ATTN_DIALECT_ATTN_IR_SCOREMOD_H

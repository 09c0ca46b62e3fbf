//===- DetectRewrite.h - --attn-detect, layer 3: the rewrite ----*- C++ -*-===//
//
// The rewrite itself is a pattern (populateAttnDetectPatterns in Passes.h);
// this header gives the pass the pattern's reason for a near miss.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_DIALECT_ATTN_TRANSFORMS_DETECTREWRITE_H
#define ATTN_DIALECT_ATTN_TRANSFORMS_DETECTREWRITE_H

#include "DetectMatch.h"

#include <string>

namespace mlir {
namespace attn {
namespace detect {

/// Why the pattern does not raise the chain that ends in `pv`: what the
/// matcher or the plan refused. Empty when it would raise it, and for an
/// ordinary matmul, which is no near miss.
std::string whyNotRaised(Operation *pv);

} // namespace detect
} // namespace attn
} // namespace mlir

#endif // ATTN_DIALECT_ATTN_TRANSFORMS_DETECTREWRITE_H

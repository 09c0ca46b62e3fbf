//===- RuntimeShapeChecks.h - run-time checks of dynamic shapes -*- C++ -*-===//
//
// attn.attention's verifier checks its shape relations (equal head dims,
// equal K/V lengths, Hkv dividing Hq, broadcastable masks, non-empty
// extents) where the extents are static. With dynamic extents it cannot,
// and a lowering that trusted them would divide by zero (Hq / Hkv with
// Hkv > Hq) or read out of bounds (V shorter than K). The lowerings call
// this first: every relation that involves a dynamic extent becomes a
// `cf.assert` with the verifier's message.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_LIB_TRANSFORMS_RUNTIMESHAPECHECKS_H
#define ATTN_LIB_TRANSFORMS_RUNTIMESHAPECHECKS_H

#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace attn {

/// Inserts, at the builder's insertion point, a `cf.assert` for every shape
/// relation of `op` that involves a dynamic extent. Nothing for static
/// shapes (the verifier has checked them).
void emitRuntimeShapeChecks(OpBuilder &b, AttentionOp op);

} // namespace attn
} // namespace mlir

#endif // ATTN_LIB_TRANSFORMS_RUNTIMESHAPECHECKS_H

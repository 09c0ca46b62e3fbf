//===- Passes.h - attn dialect passes ---------------------------*- C++ -*-===//
#ifndef ATTN_DIALECT_ATTN_TRANSFORMS_PASSES_H
#define ATTN_DIALECT_ATTN_TRANSFORMS_PASSES_H

#include "attn/Analysis/KernelConfig.h"
#include "attn/Dialect/Attn/IR/AttnDialect.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
namespace attn {

#define GEN_PASS_DECL
#include "attn/Dialect/Attn/Transforms/Passes.h.inc"

/// attn.attention -> scf loops over attn.online_attention tiles. Tile sizes
/// of 0 mean "from the op's io_cost attribute, else the default".
void populateAttnFusePatterns(RewritePatternSet &patterns, int64_t blockQ,
                              int64_t blockKV);

/// attn ops (online_attention, attention, primitives) -> linalg on tensors.
void populateAttnDecomposeToLinalgPatterns(RewritePatternSet &patterns);

/// arith.extf from f8E4M3FN / f8E5M2 as integer and f16 arithmetic
/// (--attn-expand-fp8).
void populateAttnExpandFP8Patterns(RewritePatternSet &patterns);

/// attn.paged_attention -> page gathers, a keep mask and attn.attention;
/// `checkBounds` adds run-time asserts of the caller's contract.
void populateAttnGatherPagedKVPatterns(RewritePatternSet &patterns, bool checkBounds);

/// attn.varlen_attention -> a loop over the sequences of per-sequence
/// attn.attention on dynamic slices; `checkBounds` adds run-time asserts of
/// the caller's contract.
void populateAttnUnpackVarlenPatterns(RewritePatternSet &patterns, bool checkBounds);

/// softmax(Q·Kᵀ·s + M)·V in attn, linalg or tosa -> attn.attention, rooted
/// at the P·V product. Expects P·V candidates visited latest first (as a
/// greedy driver's worklist does), and leaves the raised chain's ops dead for
/// the driver to erase.
void populateAttnDetectPatterns(RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "attn/Dialect/Attn/Transforms/Passes.h.inc"

} // namespace attn
} // namespace mlir

#endif // ATTN_DIALECT_ATTN_TRANSFORMS_PASSES_H

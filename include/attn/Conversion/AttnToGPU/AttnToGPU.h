//===- AttnToGPU.h - attn.attention -> GPU kernels --------------*- C++ -*-===//
#ifndef ATTN_CONVERSION_ATTNTOGPU_ATTNTOGPU_H
#define ATTN_CONVERSION_ATTNTOGPU_ATTNTOGPU_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include <string>

namespace mlir {
namespace gpu {
class GPUFuncOp;
class GPUModuleOp;
} // namespace gpu
namespace attn {

/// What a kernel generator needs to know about one attention.
struct FlashKernelSpec {
  std::string name;
  int64_t batch = 1, headsQ = 1, headsKV = 1, seqQ = 0, seqKV = 0;
  int64_t headDim = 0, headDimV = 0;
  Type elementType;          // f16 or bf16
  double scale = 1.0;
  bool causal = false;
  bool causalBottomRight = false;
  int64_t blockQ = 64;       // 16 rows per warp
  int64_t blockKV = 64;
  /// Two K/V stages filled by cp.async (nvgpu.device_async_copy): the copy of
  /// tile j+1 overlaps the math on tile j.
  bool doubleBuffer = true;
  /// Place the K/V stages in dynamic shared memory (sized at launch) rather
  /// than static workgroup buffers, which are capped at 48 KB per CTA.
  bool dynamicSharedMemory = false;
  int64_t stages() const { return doubleBuffer ? 2 : 1; }
  /// Shared memory for the K and V stages, in bytes (2-byte elements).
  int64_t sharedMemoryBytes() const {
    return 2 * stages() * blockKV * (smemPitch(headDim) + smemPitch(headDimV));
  }
  int64_t numWarps() const { return blockQ / 16; }
  /// Row pitch of a K/V tile in shared memory, in elements: +8 halves shifts
  /// successive rows by 4 banks, so the 32-bit fragment loads of a warp's 8
  /// rows x 4 columns hit 32 distinct banks.
  int64_t smemPitch(int64_t cols) const { return cols + 8; }
};

/// The mma.sync (m16n8k16) FlashAttention-2 forward kernel, one CTA per
/// (batch·head, query tile of blockQ rows), 16 query rows per warp:
/// Q fragments in registers, K/V tiles staged in shared memory, S and P in
/// registers (P is reused as the A operand of P·V), online softmax in exp2
/// with the scale folded in, causal tiles above the diagonal skipped.
/// Parameters: Q, K, V, O as [B, H, L, d] memrefs (bare pointers).
gpu::GPUFuncOp buildFlashAttentionMmaSyncKernel(OpBuilder &b, Location loc,
                                                gpu::GPUModuleOp module,
                                                const FlashKernelSpec &spec);

} // namespace attn
} // namespace mlir

#endif // ATTN_CONVERSION_ATTNTOGPU_ATTNTOGPU_H

//===- KernelSpecs.h - Each op form's kernel spec -----------------*- C++ -*-===//
//
// From an attention op and the pass options to the FlashKernelSpec the
// emitters build: the kernel configuration (the recorded one or the
// chooser's), the problem's extents, the scores (scale, mask, score_mod),
// paging and packing, and CUDA's grid limits. Internal to the pass.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_LIB_CONVERSION_ATTNTOGPU_KERNELSPECS_H
#define ATTN_LIB_CONVERSION_ATTNTOGPU_KERNELSPECS_H

#include "attn/Analysis/KernelConfig.h"
#include "attn/Conversion/AttnToGPU/AttnToGPU.h"
#include "attn/Dialect/Attn/IR/AttnOps.h"

#include <optional>
#include <string>

namespace mlir::attn {

/// The kernel the pass options ask for: a family (nullopt: the one the
/// op's recorded kernel_config names, else mma.sync) and explicit fields.
struct KernelOptions {
  std::optional<TensorCoreFamily> family;
  KernelConfigRequest request;
  bool explicitFields() const {
    return request.blockQ || request.blockKV || request.rowsPerWarp ||
           request.kvStages || request.swizzle || request.kvSplits || request.kvWarps ||
           request.tmaLoads || request.producerWarpgroup || request.overlapPV ||
           request.persistent;
  }
};

/// Why the tensor-core kernel does not run an op, and whether that is the
/// pass options' doing (an error: they ask for a kernel that cannot run an
/// op another kernel could) or the op's (it stays unfused, with a warning,
/// unless strict=true).
struct Refusal {
  std::string why;
  bool byRequest = false;
};

/// The tensor-core kernel's spec of each op form; failure with `refusal`
/// set when that kernel does not run the op.
FailureOr<FlashKernelSpec> specFor(AttentionOp op, const KernelOptions &options,
                                   Refusal &refusal);
FailureOr<FlashKernelSpec> specFor(PagedAttentionOp op, const KernelOptions &options,
                                   Refusal &refusal);
FailureOr<FlashKernelSpec> specFor(VarlenAttentionOp op, const KernelOptions &options,
                                   Refusal &refusal);

/// The generic CUDA-core kernel's spec (buildGenericAttentionKernel), for an
/// attention the tensor-core kernels do not take.
FailureOr<FlashKernelSpec> genericSpecFor(AttentionOp op, Refusal &refusal);

} // namespace mlir::attn

#endif // ATTN_LIB_CONVERSION_ATTNTOGPU_KERNELSPECS_H

//===- ScoreModInKernel.h - a score_mod region copied into a kernel -------===//
//
// Internal to lib/Conversion/AttnToGPU: what the tensor-core kernels
// (FlashAttentionEmitter) and the generic kernel (GenericKernel.cpp) share
// to apply attn.attention's score_mod region inside a gpu.func.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_LIB_CONVERSION_ATTNTOGPU_SCOREMODINKERNEL_H
#define ATTN_LIB_CONVERSION_ATTNTOGPU_SCOREMODINKERNEL_H

#include "attn/Conversion/AttnToGPU/AttnToGPU.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir {
namespace attn {

/// Copies the spec's score_mod region into a kernel, one score at a time:
/// constants from above cloned in, the tensors it reads as loads from the
/// kernel's parameters `buffers` (FlashKernelSpec::scoreModTensors, in
/// order) at clamped indices. After the kernel is built, expandMath
/// rewrites the copies' math ops into arithmetic and single PTX
/// instructions, so that the kernel needs no libdevice.
class ScoreModCopier {
public:
  ScoreModCopier(OpBuilder &b, Location loc, const FlashKernelSpec &s) : b(b), loc(loc), s(s) {}
  /// The kernel's parameters for the region's tensors.
  SmallVector<Value> buffers;
  /// The region's value `modResult` (its yielded value, or the one inside
  /// its key bounds) for `score` at `indices` (as the region's block takes
  /// them), built at the builder.
  Value copy(Value score, ValueRange indices, Value modResult);
  /// The copied math ops as arithmetic and PTX (no libdevice calls).
  void expandMath();

private:
  /// A copied tensor.extract of a region tensor replaced by a load from
  /// its kernel parameter at clamped indices (returned).
  Value loadElement(tensor::ExtractOp extract);

  OpBuilder &b;
  Location loc;
  const FlashKernelSpec &s;
  /// The copies' math ops and divides, for expandMath.
  SmallVector<Operation *> copiedOps;
};

} // namespace attn
} // namespace mlir

#endif // ATTN_LIB_CONVERSION_ATTNTOGPU_SCOREMODINKERNEL_H

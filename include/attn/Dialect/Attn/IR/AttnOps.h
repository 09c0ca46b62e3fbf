//===- AttnOps.h - attn dialect operations ----------------------*- C++ -*-===//
#ifndef ATTN_DIALECT_ATTN_IR_ATTNOPS_H
#define ATTN_DIALECT_ATTN_IR_ATTNOPS_H

#include "attn/Analysis/IOCost.h"
#include "attn/Analysis/KernelConfig.h"
#include "attn/Dialect/Attn/IR/AttnDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "attn/Dialect/Attn/IR/ScoreMod.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "mlir/IR/RegionKindInterface.h"

#include "attn/Dialect/Attn/IR/AttnEnums.h.inc"

namespace mlir {
namespace attn {
/// Verifies that an attn op sits in a region with SSA dominance (see
/// Attn_InSSACFGRegion in AttnBase.td).
template <typename ConcreteType>
class InSSACFGRegion : public OpTrait::TraitBase<ConcreteType, InSSACFGRegion> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    Region *region = op->getParentRegion();
    if (region && !mayHaveSSADominance(*region))
      return op->emitOpError("must be in a region with SSA dominance (a "
                             "function or loop body), not a graph region");
    return success();
  }
};
} // namespace attn
} // namespace mlir

#define GET_ATTRDEF_CLASSES
#include "attn/Dialect/Attn/IR/AttnAttrs.h.inc"

#define GET_OP_CLASSES
#include "attn/Dialect/Attn/IR/AttnOps.h.inc"

namespace mlir {
namespace attn {
/// Names of the discardable attributes the passes put on attn.attention:
/// the cost model's verdict (#attn.io_cost) and the GPU kernel it costed
/// (#attn.kernel_config). Defined once; every pass reads them by these.
inline constexpr llvm::StringLiteral kIOCostAttrName = "io_cost";
inline constexpr llvm::StringLiteral kKernelConfigAttrName = "kernel_config";

/// How the GPU kernel would read `op`'s mask: not at all, once per key (a
/// mask broadcast along the queries) or once per score.
MaskReads getMaskReads(AttentionOp op);

/// The attribute form of a kernel configuration, and back.
KernelConfigAttr getKernelConfigAttr(MLIRContext *ctx, const KernelConfig &config);
KernelConfig getKernelConfig(KernelConfigAttr attr);

/// The type attention accumulates scores, row statistics and the output in
/// for inputs of `elementType`: f64 for f64, f32 for every narrower float
/// (f16/bf16/f32, the 8-bit floats). The one place this decision is made.
FloatType getAccumulatorType(Type elementType);

/// Whether `t` is one of the 8-bit floats attention reads (f8E4M3FN,
/// f8E5M2), whose real values carry a descale factor.
bool isFP8Type(Type t);

/// The cost model's name (DType) for an element type, if it has one: the
/// one mapping the verifiers' cost checks and --attn-io-cost's chain
/// counts share.
std::optional<DType> getCostDType(Type elementType);

/// Why no GPU kernel takes `op` in any configuration (operand forms the
/// kernels are not built for: a score_mod region that reads tensors, dynamic shapes, ranks
/// other than 3 and 4, an additive mask wider than the inputs), or nullopt.
/// Shared by --attn-io-cost, which then records no kernel and so never
/// refuses explicit tile options on the op's account, and by
/// --attn-lower-to-gpu, which leaves such ops unfused. Element types, head
/// dims and tiles are the kernel chooser's (KernelConfig.h).
std::optional<std::string> whyNoGPUKernelForm(Operation *op);
/// Why the generic (CUDA-core) kernel does not take `op`: what no kernel
/// takes (dynamic shapes, a rank above 4, a score_mod the kernels cannot
/// copy, an empty packed batch), and a packed variable-length batch, which
/// only the tensor-core kernels run. What whyNoGPUKernelForm adds for the
/// tensor-core kernels (an additive mask wider than the inputs) the
/// generic one takes.
std::optional<std::string> whyNoGenericGPUKernelForm(Operation *op);
/// The keys a score_mod region can keep, as offsets j − i from the query:
/// none below i + `lowest` and none above i + `highest` (nullopt: no bound
/// found). Read from the region's final selects to -inf, whose conditions
/// are affine comparisons of i and j (a sliding window j > i − W, a causal
/// j ≤ i + k); anything else gives no bound, which is always safe. The GPU
/// kernels skip the K/V tiles outside these bounds.
///
/// `insideBounds` is the region's value (for the terminator's: its
/// operand) wherever lowest <= j − i <= highest: the yielded value with the
/// outer selects whose conditions are exactly these bounds removed. Where
/// it is the score argument itself, a K/V tile wholly inside the bounds
/// needs no modification at all.
struct ScoreModKeyBounds {
  std::optional<int64_t> lowest, highest;
  Value insideBounds;
};
ScoreModKeyBounds getScoreModKeyBounds(Region &scoreMod);
/// Whether all `scoreMod` does is bound the keys (a sliding window, a band
/// around the diagonal): its value inside getScoreModKeyBounds's bounds is
/// the score argument itself, so the K/V tiles wholly inside them need no
/// modification and those that straddle a bound only compare indices.
bool scoreModOnlyBoundsKeys(Region &scoreMod);

/// Why the GPU kernels cannot copy a score_mod region (it reads
/// non-constant scalars from above, tensors other than element by element,
/// ...), or nullopt.
std::optional<std::string> whyNoGPUScoreMod(Region &scoreMod);
/// The tensors from above that a score_mod reads elements of, in the order
/// of first use: the GPU kernel takes each as a parameter after its own.
SmallVector<Value> getScoreModTensorOperands(Region &scoreMod);
} // namespace attn
} // namespace mlir

#endif // ATTN_DIALECT_ATTN_IR_ATTNOPS_H

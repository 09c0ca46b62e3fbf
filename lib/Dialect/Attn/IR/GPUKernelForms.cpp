//===- GPUKernelForms.cpp - Which attention forms a GPU kernel takes ------===//
//
// One predicate for --attn-io-cost and --attn-lower-to-gpu (AttnOps.h): the
// operand forms no GPU kernel is built for, whatever its configuration.
//
//===----------------------------------------------------------------------===//
#include "attn/Dialect/Attn/IR/AttnOps.h"

using namespace mlir;
using namespace mlir::attn;

/// The kernel copies a score_mod region op for op into the kernel, which
/// is isolated from the host: what the region reads from above must be a
/// constant (cloned into the kernel), and a tensor has no kernel parameter
/// to come in by yet.
std::optional<std::string> mlir::attn::whyNoGPUScoreMod(Region &scoreMod) {
  std::optional<std::string> why;
  scoreMod.walk([&](Operation *inner) {
    for (Value operand : inner->getOperands()) {
      if (isa<ShapedType>(operand.getType())) {
        why = "a score_mod that reads tensors ('" + inner->getName().getStringRef().str() +
              "') has no GPU kernel yet";
        return WalkResult::interrupt();
      }
      Operation *def = operand.getDefiningOp();
      bool fromAbove = !scoreMod.isAncestor(operand.getParentRegion());
      if (fromAbove && !(def && def->hasTrait<OpTrait::ConstantLike>() &&
                         def->getNumOperands() == 0)) {
        why = std::string("a score_mod that reads a non-constant value from above has no "
                          "GPU kernel");
        return WalkResult::interrupt();
      }
    }
    if (inner->getNumRegions() != 0) {
      why = "a score_mod with nested regions ('" + inner->getName().getStringRef().str() +
            "') has no GPU kernel yet";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return why;
}

std::optional<std::string> mlir::attn::whyNoGPUKernelForm(Operation *op) {
  if (isa<VarlenAttentionOp>(op))
    return std::string("packed variable-length batches have no GPU kernel yet");
  if (!llvm::all_of(op->getOperandTypes(), [](Type t) {
        return cast<RankedTensorType>(t).hasStaticShape();
      }))
    return std::string("the GPU kernel needs static shapes");
  auto attention = dyn_cast<AttentionOp>(op);
  if (!attention)
    return std::nullopt;
  if (attention.hasScoreMod()) {
    if (std::optional<std::string> why = whyNoGPUScoreMod(attention.getScoreMod()))
      return why;
  }
  int64_t r = attention.getRank();
  if (r > 4)
    return "the GPU kernel takes [L, d], [H, L, d] or [B, H, L, d], got rank " +
           std::to_string(r);
  // The kernel reads an additive mask in the inputs' element type; a wider
  // bias would have to be rounded, which changes the result.
  if (Value mask = attention.getMask()) {
    Type maskElt = cast<RankedTensorType>(mask.getType()).getElementType();
    if (!maskElt.isInteger(1) && maskElt != attention.getQuery().getType().getElementType())
      return std::string("the GPU kernel reads an additive mask in the inputs' element type; "
                         "cast the mask to it (rounding the bias) or run on the CPU");
  }
  return std::nullopt;
}


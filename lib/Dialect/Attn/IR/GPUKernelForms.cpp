//===- GPUKernelForms.cpp - Which attention forms a GPU kernel takes ------===//
//
// One predicate for --attn-io-cost and --attn-lower-to-gpu (AttnOps.h): the
// operand forms no GPU kernel is built for, whatever its configuration.
//
//===----------------------------------------------------------------------===//
#include "attn/Dialect/Attn/IR/AttnOps.h"

using namespace mlir;
using namespace mlir::attn;

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
  if (attention.hasScoreMod())
    return std::string("score_mod regions have no GPU kernel yet");
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


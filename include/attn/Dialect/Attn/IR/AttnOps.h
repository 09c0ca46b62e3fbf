//===- AttnOps.h - attn dialect operations ----------------------*- C++ -*-===//
#ifndef ATTN_DIALECT_ATTN_IR_ATTNOPS_H
#define ATTN_DIALECT_ATTN_IR_ATTNOPS_H

#include "attn/Analysis/IOCost.h"
#include "attn/Dialect/Attn/IR/AttnDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "attn/Dialect/Attn/IR/AttnEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "attn/Dialect/Attn/IR/AttnAttrs.h.inc"

#define GET_OP_CLASSES
#include "attn/Dialect/Attn/IR/AttnOps.h.inc"

namespace mlir {
namespace attn {
/// The type attention accumulates scores, row statistics and the output in
/// for inputs of `elementType`: f64 for f64, f32 for every narrower float
/// (f16/bf16/f32). The one place this decision is made.
FloatType getAccumulatorType(Type elementType);
} // namespace attn
} // namespace mlir

#endif // ATTN_DIALECT_ATTN_IR_ATTNOPS_H

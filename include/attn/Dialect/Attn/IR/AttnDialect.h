//===- AttnDialect.h - attn dialect -----------------------------*- C++ -*-===//
#ifndef ATTN_DIALECT_ATTN_IR_ATTNDIALECT_H
#define ATTN_DIALECT_ATTN_IR_ATTNDIALECT_H

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dialect.h"

#include "attn/Dialect/Attn/IR/AttnOpsDialect.h.inc"

#endif // ATTN_DIALECT_ATTN_IR_ATTNDIALECT_H

//===- Passes.h - attn conversion passes ------------------------*- C++ -*-===//
//
// The passes that lower attn to the GPU (include/attn/Conversion/Passes.td).
// Only code that builds or reads GPU/NVVM IR includes this header.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_CONVERSION_PASSES_H
#define ATTN_CONVERSION_PASSES_H

#include "attn/Analysis/KernelConfig.h"
#include "attn/Dialect/Attn/IR/AttnDialect.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace attn {

#define GEN_PASS_DECL
#include "attn/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "attn/Conversion/Passes.h.inc"

} // namespace attn
} // namespace mlir

#endif // ATTN_CONVERSION_PASSES_H

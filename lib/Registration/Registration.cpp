//===- Registration.cpp - public registration API -------------------------===//
#include "attn/InitAttn.h"

#include "attn/Conversion/Passes.h"
#include "attn/Dialect/Attn/IR/AttnDialect.h"
#include "attn/Dialect/Attn/Transforms/Passes.h"
#include "attn/Pipelines/Pipelines.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"

#include <mutex>

void mlir::attn::registerAttnDialect(DialectRegistry &registry) {
  registry.insert<AttnDialect, arith::ArithDialect, func::FuncDialect,
                  linalg::LinalgDialect, math::MathDialect,
                  memref::MemRefDialect, scf::SCFDialect,
                  tensor::TensorDialect>();
}

void mlir::attn::registerAttnPasses() {
  // The global pass registry asserts on duplicate names, and both a host
  // compiler and our Python module may call this.
  static std::once_flag once;
  std::call_once(once, [] {
    registerAttnTransformsPasses();
    registerAttnConversionPasses();
    registerAttnPipelines();
  });
}

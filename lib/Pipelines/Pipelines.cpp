//===- Pipelines.cpp - attn-opt end-to-end pipelines ----------------------===//
#include "attn/Pipelines/Pipelines.h"

#include "attn/Dialect/Attn/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::attn;

void mlir::attn::buildAttnCpuPipeline(OpPassManager &pm,
                                      const CpuPipelineOptions &options) {
  // Detection reads attn, linalg and tosa as the frontend wrote them.
  if (options.detect)
    pm.addNestedPass<func::FuncOp>(createAttnDetectPass());
  // Frameworks' tosa becomes linalg on tensors. tosa-to-linalg leaves
  // tosa.const/reshape/const_shape behind; tosa-to-tensor/arith take them.
  pm.addNestedPass<func::FuncOp>(tosa::createTosaToLinalgNamed());
  pm.addNestedPass<func::FuncOp>(tosa::createTosaToLinalg());
  {
    OpPassManager &fpm = pm.nest<func::FuncOp>();
    fpm.addPass(createTosaToTensorPass());
    fpm.addPass(createTosaToArithPass());
    fpm.addPass(createCanonicalizerPass());
  }
  AttnIOCostPassOptions costOptions;
  costOptions.target = options.target;
  pm.addPass(createAttnIOCostPass(costOptions));
  if (options.fuse) {
    AttnFusePassOptions fuseOptions;
    fuseOptions.blockQ = options.blockQ;
    fuseOptions.blockKV = options.blockKV;
    pm.addNestedPass<func::FuncOp>(createAttnFusePass(fuseOptions));
    pm.addPass(createCanonicalizerPass());
  }
  pm.addPass(createAttnLowerToLoopsPass());
  // Loops over memrefs -> LLVM.
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::attn::registerAttnPipelines() {
  PassPipelineRegistration<CpuPipelineOptions>(
      "attn-cpu-pipeline",
      "Detect, cost, fuse and lower attention (and the surrounding "
      "linalg/tosa/tensor code) to the LLVM dialect for mlir-runner",
      buildAttnCpuPipeline);
}

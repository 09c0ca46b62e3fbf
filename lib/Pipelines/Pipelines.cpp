//===- Pipelines.cpp - attn-opt end-to-end pipelines ----------------------===//
#include "attn/Pipelines/Pipelines.h"

#include "attn/Dialect/Attn/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
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

void mlir::attn::buildAttnGpuPipeline(OpPassManager &pm,
                                      const GpuPipelineOptions &options) {
  pm.addNestedPass<func::FuncOp>(createAttnDetectPass());
  AttnLowerToGPUPassOptions lowering;
  lowering.blockQ = options.blockQ;
  lowering.rowsPerWarp = options.rowsPerWarp;
  lowering.blockKV = options.blockKV;
  lowering.swizzle = options.swizzle;
  // wgmma exists only on the arch-specific sm_90a target: asking for it
  // selects that target, and targeting sm_90a selects it.
  std::string chip = options.chip;
  std::string mma = options.mma;
  if (mma == "auto")
    mma = chip == "sm_90a" ? "wgmma" : "mma.sync";
  if (mma == "wgmma" && chip == "sm_90")
    chip = "sm_90a";
  lowering.mma = mma;
  lowering.kvStages = options.kvStages;
  pm.addPass(createAttnLowerToGPUPass(lowering));
  // The host function keeps tensors around the launch; bufferize it (and
  // anything else it computes) before the host goes to LLVM.
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  gpu::GPUToNVVMPipelineOptions nvvm;
  nvvm.cubinChip = chip;
  // Without +ptx80 the NVPTX backend defaults to PTX 6.0, which has no sm_90.
  nvvm.cubinFeatures = "+ptx80";
  nvvm.cubinFormat = "isa";
  // One pointer per memref parameter: what the launch manifest promises.
  nvvm.kernelUseBarePtrCallConv = true;
  gpu::buildLowerToNVVMPassPipeline(pm, nvvm);
  if (!options.dumpDir.empty()) {
    AttnDumpGPUKernelsPassOptions dump;
    dump.dumpDir = options.dumpDir;
    pm.addPass(createAttnDumpGPUKernelsPass(dump));
  }
}

void mlir::attn::registerAttnPipelines() {
  PassPipelineRegistration<GpuPipelineOptions>(
      "attn-gpu-pipeline",
      "Detect attention and compile it to tensor-core PTX (gpu.binary), "
      "optionally dumping each kernel's PTX and launch manifest",
      buildAttnGpuPipeline);
  PassPipelineRegistration<CpuPipelineOptions>(
      "attn-cpu-pipeline",
      "Detect, cost, fuse and lower attention (and the surrounding "
      "linalg/tosa/tensor code) to the LLVM dialect for mlir-runner",
      buildAttnCpuPipeline);
}

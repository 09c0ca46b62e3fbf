//===- Pipelines.cpp - attn-opt end-to-end pipelines ----------------------===//
#include "attn/Pipelines/Pipelines.h"

#include "attn/Analysis/IOCost.h"
#include "attn/Conversion/Passes.h"
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

/// What the frontends write around the attention (tosa, elementwise arith
/// on tensors), as linalg on tensors that bufferizes: both pipelines must
/// lower the whole program they are given, not only its attention.
/// tosa-to-linalg leaves tosa.const/reshape/const_shape behind;
/// tosa-to-tensor/arith take them.
static void addFrontendToLinalg(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(tosa::createTosaToLinalgNamed());
  pm.addNestedPass<func::FuncOp>(tosa::createTosaToLinalg());
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  fpm.addPass(createTosaToTensorPass());
  fpm.addPass(createTosaToArithPass());
  fpm.addPass(createConvertElementwiseToLinalgPass());
  fpm.addPass(createCanonicalizerPass());
}

void mlir::attn::buildAttnCpuPipeline(OpPassManager &pm,
                                      const CpuPipelineOptions &options) {
  // Detection reads attn, linalg and tosa as the frontend wrote them.
  if (options.detect)
    pm.addNestedPass<func::FuncOp>(createAttnDetectPass());
  addFrontendToLinalg(pm);
  // Paged KV caches run as gathered, masked attentions on the CPU.
  pm.addNestedPass<func::FuncOp>(createAttnGatherPagedKVPass());
  AttnIOCostPassOptions costOptions;
  costOptions.target = options.target;
  pm.addPass(createAttnIOCostPass(costOptions));
  // Packed variable-length batches as one attention per sequence, after
  // the cost model: their lengths are run-time values, which it cannot
  // cost (it would warn about every per-sequence attention).
  pm.addNestedPass<func::FuncOp>(createAttnUnpackVarlenPass());
  if (options.fuse) {
    AttnFusePassOptions fuseOptions;
    fuseOptions.blockQ = options.blockQ;
    fuseOptions.blockKV = options.blockKV;
    pm.addNestedPass<func::FuncOp>(createAttnFusePass(fuseOptions));
    pm.addPass(createCanonicalizerPass());
  }
  pm.addPass(createAttnLowerToLoopsPass());
  // Loops over memrefs -> LLVM, which has no 8-bit floats.
  pm.addPass(createAttnExpandFP8Pass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

namespace {
/// The chips the kernels are built for, with the PTX ISA version each needs
/// (the NVPTX backend refuses a chip newer than its PTX version, and PTX
/// 8.0 is what the kernels were measured with on sm_80..sm_90a). mma.sync
/// runs on every one of them; wgmma only on sm_90a.
/// `costTarget` is the cost-model preset the kernel is chosen and costed
/// for: the chip's own (a100, a10, l40s, h200, rtx5090), or where there is
/// none, one whose SMs have the same shared memory, which bounds the tiles
/// and stages (sm_87, Orin: a100's 164 KB; sm_90: h200; sm_100: h200's
/// 228 KB).
struct ChipSupport {
  llvm::StringLiteral chip, ptxFeatures;
  bool wgmma;
  llvm::StringLiteral costTarget;
};
constexpr ChipSupport kSupportedChips[] = {
    {"sm_80", "+ptx80", false, "a100"},  {"sm_86", "+ptx80", false, "a10"},
    {"sm_87", "+ptx80", false, "a100"},  {"sm_89", "+ptx80", false, "l40s"},
    {"sm_90", "+ptx80", false, "h200"},  {"sm_90a", "+ptx80", true, "h200"},
    {"sm_100", "+ptx86", false, "h200"}, {"sm_120", "+ptx87", false, "rtx5090"},
};

std::string supportedChipList() {
  std::string list;
  for (const ChipSupport &c : kSupportedChips)
    list += (list.empty() ? "" : ", ") + c.chip.str();
  return list;
}

/// Whether the kernels of `support`'s chip may be chosen for `preset`: it
/// is the chip's own, or a GPU of the same architecture (sm_90 and sm_90a
/// are one: the "a" only unlocks instructions), whose SMs have the same
/// shared memory and instructions, so any kernel chosen for it fits.
bool presetFitsChip(const ChipSupport &support, StringRef preset) {
  if (preset == support.costTarget)
    return true;
  std::optional<TargetSpec> spec = getTargetPreset(preset);
  return spec && StringRef(spec->chip).rtrim('a') == support.chip.rtrim('a');
}

/// `target=`: auto is the chip's own preset; any other value must be a
/// preset that fits the chip. The error lists the values that do.
FailureOr<std::string>
resolveCostTarget(const ChipSupport &support, StringRef requested,
                  function_ref<void(const Twine &)> emitError) {
  if (requested == "auto")
    return support.costTarget.str();
  if (presetFitsChip(support, requested))
    return requested.str();
  std::string accepted = "auto";
  for (const std::string &name : getTargetPresetNames())
    if (presetFitsChip(support, name))
      accepted += ", " + name;
  std::optional<TargetSpec> other = getTargetPreset(requested);
  std::string why = other ? "is an " + other->chip + " GPU" : "is no io-cost preset";
  emitError("attn-gpu-pipeline: target '" + requested + "' " + why +
            "; accepted for chip " + support.chip + ": " + accepted);
  return failure();
}
} // namespace

FailureOr<GpuTarget>
mlir::attn::resolveGpuTarget(const GpuPipelineOptions &options,
                             function_ref<void(const Twine &)> emitError) {
  // The option parser has already rejected mma values other than auto,
  // mma.sync and wgmma.
  std::string chip = options.chip;
  std::optional<TensorCoreFamily> mma = getTensorCoreFamily(options.mma);
  // wgmma exists only on the arch-specific sm_90a target: asking for it
  // selects that target, and targeting sm_90a selects it.
  if (mma == TensorCoreFamily::Wgmma && chip == "sm_90")
    chip = "sm_90a";
  const ChipSupport *support = llvm::find_if(
      kSupportedChips, [&](const ChipSupport &c) { return c.chip == chip; });
  if (support == std::end(kSupportedChips)) {
    emitError("attn-gpu-pipeline: chip '" + chip +
              "' is not one the kernels are built for; accepted: " +
              supportedChipList() +
              " (mma.sync needs sm_80 or newer, wgmma needs sm_90a)");
    return failure();
  }
  // Without wgmma the chip leaves one family; with it, the chooser picks
  // per attention (wgmma for prefill, mma.sync for decode's few rows).
  if (!mma && !support->wgmma)
    mma = TensorCoreFamily::MmaSync;
  if (mma == TensorCoreFamily::Wgmma && !support->wgmma) {
    emitError("attn-gpu-pipeline: mma=wgmma needs chip=sm_90a (or sm_90), got '" +
              chip + "'");
    return failure();
  }
  FailureOr<std::string> costTarget =
      resolveCostTarget(*support, options.target, emitError);
  if (failed(costTarget))
    return failure();
  return GpuTarget{chip, support->ptxFeatures.str(), mma, *costTarget};
}

LogicalResult
mlir::attn::buildAttnGpuPipeline(OpPassManager &pm,
                                 const GpuPipelineOptions &options,
                                 function_ref<void(const Twine &)> emitError) {
  FailureOr<GpuTarget> target = resolveGpuTarget(options, emitError);
  if (failed(target))
    return failure();
  pm.addNestedPass<func::FuncOp>(createAttnDetectPass());
  // The cost model chooses and costs each attention's kernel and records it
  // (#attn.kernel_config); the lowering builds exactly that one. The tile
  // options are requests to the one chooser, checked there.
  AttnIOCostPassOptions cost;
  cost.target = target->costTarget;
  cost.mma = target->mma ? getTensorCoreFamilyOption(*target->mma)
                         : TensorCoreFamilyOption::Auto;
  cost.blockQ = options.blockQ;
  cost.blockKV = options.blockKV;
  cost.rowsPerWarp = options.rowsPerWarp;
  cost.kvStages = options.kvStages;
  cost.swizzle = options.swizzle;
  cost.kvSplits = options.kvSplits;
  cost.kvWarps = options.kvWarps;
  cost.kvLoads = options.kvLoads;
  cost.overlapPV = options.overlapPV;
  cost.persistent = options.persistent;
  cost.fp8Mma = options.fp8Mma;
  pm.addPass(createAttnIOCostPass(cost));
  AttnLowerToGPUPassOptions lowering;
  // The chip's family when it has one (what the cost model chose in), else
  // auto: the family of the config the cost model recorded. Never a family
  // the chip lacks, also for an op the cost model recorded no kernel for.
  lowering.mma = cost.mma;
  lowering.strict = options.strict;
  lowering.genericKernel = options.genericKernel;
  lowering.fp8Mma = options.fp8Mma;
  pm.addPass(createAttnLowerToGPUPass(lowering));
  // What the kernels refused runs on the host, fused as on the CPU (the
  // fused path also takes dynamic head counts, which the naive one cannot).
  pm.addNestedPass<func::FuncOp>(createAttnGatherPagedKVPass());
  pm.addNestedPass<func::FuncOp>(createAttnUnpackVarlenPass());
  pm.addNestedPass<func::FuncOp>(createAttnFusePass());
  // The host functions only: the kernels' IR is the emitter's, as measured.
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  // The host keeps tensors around the launch, and whatever was not raised
  // (attn primitives, linalg, tosa, elementwise arith) runs on the host, as
  // linalg. Then bufferize it all; no buffer deallocation pipeline here: it
  // does not know gpu.launch_func's memory effects.
  addFrontendToLinalg(pm);
  AttnLowerToLoopsPassOptions decompose;
  decompose.decomposeOnly = true;
  pm.addPass(createAttnLowerToLoopsPass(decompose));
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  bufferize.allowReturnAllocsFromLoops = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  // Host and kernels: LLVM and NVVM have no 8-bit floats.
  pm.addPass(createAttnExpandFP8Pass());
  gpu::GPUToNVVMPipelineOptions nvvm;
  nvvm.cubinChip = target->chip;
  // Without a PTX version the NVPTX backend defaults to PTX 6.0, which has
  // no sm_90; each chip gets the version it needs.
  nvvm.cubinFeatures = target->ptxFeatures;
  nvvm.cubinFormat = "isa";
  // One pointer per memref parameter: what the launch manifest promises.
  nvvm.kernelUseBarePtrCallConv = true;
  gpu::buildLowerToNVVMPassPipeline(pm, nvvm);
  if (!options.dumpDir.empty()) {
    AttnDumpGPUKernelsPassOptions dump;
    dump.dumpDir = options.dumpDir;
    pm.addPass(createAttnDumpGPUKernelsPass(dump));
  }
  return success();
}

/// Parses a pipeline's option string; the parser's own message becomes the
/// error handler's diagnostic.
static LogicalResult
parsePipelineOptions(detail::PassOptions &options, StringRef pipeline,
                     StringRef optionsText,
                     function_ref<LogicalResult(const Twine &)> errorHandler) {
  std::string message;
  llvm::raw_string_ostream os(message);
  if (succeeded(options.parseFromString(optionsText, os)))
    return success();
  StringRef why = StringRef(message).trim();
  why.consume_front("<Pass-Options-Parser>: ");
  return errorHandler(pipeline + ": invalid options '" + optionsText +
                      "': " + why);
}

void mlir::attn::registerAttnPipelines() {
  // Registered by hand rather than through PassPipelineRegistration, whose
  // builder cannot fail and whose option parser prints its errors without
  // an `error:`: option values no kernel supports, unknown options and
  // malformed option strings must all be diagnostics.
  registerPassPipeline(
      "attn-gpu-pipeline",
      "Detect attention and compile it to tensor-core PTX (gpu.binary), "
      "optionally dumping each kernel's PTX and launch manifest",
      [](OpPassManager &pm, StringRef optionsText,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        GpuPipelineOptions options;
        if (failed(parsePipelineOptions(options, "attn-gpu-pipeline",
                                        optionsText, errorHandler)))
          return failure();
        return buildAttnGpuPipeline(pm, options, [&](const Twine &message) {
          (void)errorHandler(message);
        });
      },
      [](function_ref<void(const detail::PassOptions &)> optionHandler) {
        optionHandler(GpuPipelineOptions());
      });
  registerPassPipeline(
      "attn-cpu-pipeline",
      "Detect, cost, fuse and lower attention (and the surrounding "
      "linalg/tosa/tensor code) to the LLVM dialect for mlir-runner",
      [](OpPassManager &pm, StringRef optionsText,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        CpuPipelineOptions options;
        if (failed(parsePipelineOptions(options, "attn-cpu-pipeline",
                                        optionsText, errorHandler)))
          return failure();
        buildAttnCpuPipeline(pm, options);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> optionHandler) {
        optionHandler(CpuPipelineOptions());
      });
}

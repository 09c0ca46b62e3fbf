//===- Pipelines.h - attn-opt end-to-end pipelines --------------*- C++ -*-===//
#ifndef ATTN_PIPELINES_PIPELINES_H
#define ATTN_PIPELINES_PIPELINES_H

#include "attn/Analysis/KernelConfig.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir {
namespace attn {

/// Options of `--attn-cpu-pipeline`.
struct CpuPipelineOptions : public PassPipelineOptions<CpuPipelineOptions> {
  PassOptions::Option<std::string> target{
      *this, "target", llvm::cl::desc("io-cost target preset"),
      llvm::cl::init("h200")};
  PassOptions::Option<int64_t> blockQ{
      *this, "block-q", llvm::cl::desc("Query tile rows (0: from io-cost)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> blockKV{
      *this, "block-kv", llvm::cl::desc("K/V tile length (0: from io-cost)"),
      llvm::cl::init(0)};
  PassOptions::Option<bool> detect{
      *this, "detect",
      llvm::cl::desc("Raise attention chains first (false: run them as written)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> fuse{
      *this, "fuse",
      llvm::cl::desc("Fuse attention (false: run the naive reference)"),
      llvm::cl::init(true)};
};

/// Any IR that --attn-detect accepts -> LLVM dialect, runnable by
/// mlir-runner: (tosa -> linalg), io-cost, fuse, lower-to-loops, then the
/// upstream conversions of scf/memref/arith/math/func to LLVM.
void buildAttnCpuPipeline(OpPassManager &pm, const CpuPipelineOptions &options);

/// Options of `--attn-gpu-pipeline`.
struct GpuPipelineOptions : public PassPipelineOptions<GpuPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("GPU architecture: sm_90a (Hopper, the default: wgmma), sm_90, sm_80, ... (mma.sync)"),
      llvm::cl::init("sm_90a")};
  PassOptions::Option<std::string> target{
      *this, "target",
      llvm::cl::desc("The GPU the kernels are chosen for (the --attn-io-cost "
                     "preset): auto (the chip's: h200 on sm_90/sm_90a), or a "
                     "preset of the chip's architecture (h100 or h200 on "
                     "sm_90/sm_90a); its SM count and bandwidths decide "
                     "split-KV and tiles"),
      llvm::cl::init("auto")};
  PassOptions::Option<int64_t> blockQ{
      *this, "block-q", llvm::cl::desc("Query rows per CTA of the kernel (16, 32, 64, 128; 0: auto)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> rowsPerWarp{
      *this, "rows-per-warp", llvm::cl::desc("Query rows per warp (16, 32; 0: auto)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> blockKV{
      *this, "block-kv", llvm::cl::desc("Keys per staged K/V tile: 32, 48, 64, 80, 96, 112, "
                                       "128 (48, 80, 96 and 112 on wgmma with 2-byte "
                                       "inputs only), or 0 to choose"),
      llvm::cl::init(0)};
  PassOptions::Option<bool> swizzle{
      *this, "swizzle",
      llvm::cl::desc("XOR-swizzled shared-memory tiles instead of padded rows"),
      llvm::cl::init(false)};
  PassOptions::Option<int64_t> kvStages{
      *this, "kv-stages",
      llvm::cl::desc("Shared-memory K/V stages (2 to 4 with mma.sync, 2 or 3 with wgmma; 0: auto)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> kvSplits{
      *this, "kv-splits",
      llvm::cl::desc("Split-KV key ranges per query tile, combined by a second "
                     "kernel, up to 65535 (zero: chosen by the wave model; one: no split)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> kvWarps{
      *this, "kv-warps",
      llvm::cl::desc("mma.sync: warps that divide each K/V tile's keys, combined in "
                     "shared memory (1, 2, 4, 8; 0: chosen)"),
      llvm::cl::init(0)};
  PassOptions::Option<std::string> kvLoads{
      *this, "kv-loads",
      llvm::cl::desc("Who fills the K/V stages: auto (chosen), cp.async, tma "
                     "(wgmma: cp.async.bulk.tensor through tensor maps), or "
                     "tma-producer (issued by a producer warpgroup)"),
      llvm::cl::init("auto")};
  PassOptions::Option<std::string> overlapPV{
      *this, "overlap-pv",
      llvm::cl::desc("With a producer warpgroup: issue each tile's P·V behind the next "
                     "tile's Q·Kᵀ, waited for after that tile's softmax: auto "
                     "(chosen), on or off"),
      llvm::cl::init("auto")};
  PassOptions::Option<std::string> persistent{
      *this, "persistent",
      llvm::cl::desc("With a producer warpgroup: one CTA per SM looping over the work "
                     "items, the K/V stage ring running on across them: auto "
                     "(chosen), on or off"),
      llvm::cl::init("auto")};
  PassOptions::Option<std::string> fp8Mma{
      *this, "fp8-mma",
      llvm::cl::desc("8-bit float inputs: on (the FP8 tensor-core kernel, sm_90a), off "
                     "(the generic CUDA-core kernel), or auto (on: 1.03-1.27x the bf16 "
                     "kernel, bench/NOTES.md v43h)"),
      llvm::cl::init("auto")};
  PassOptions::Option<TensorCoreFamilyOption> mma{
      *this, "mma",
      llvm::cl::desc("Tensor-core instructions: auto (on sm_90a wgmma, or mma.sync "
                     "where an attention has few query rows per K/V head; "
                     "elsewhere mma.sync), mma.sync, or wgmma (implies sm_90a)"),
      llvm::cl::init(TensorCoreFamilyOption::Auto),
      tensorCoreFamilyOptionValues()};
  PassOptions::Option<bool> strict{
      *this, "strict",
      llvm::cl::desc("Make an attention the tensor-core kernel cannot run an "
                     "error instead of a warning (that runs it with the "
                     "generic kernel, or leaves it unfused on the host)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> genericKernel{
      *this, "generic-kernel",
      llvm::cl::desc("Run attentions the tensor-core kernels refuse (f32, "
                     "head dims that are no multiple of 8, a wider additive "
                     "mask) with the generic CUDA-core kernel; false leaves "
                     "them unfused on the host"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> dumpDir{
      *this, "dump-dir",
      llvm::cl::desc("Write <kernel>.ptx and <kernel>.json (launch manifest) here"),
      llvm::cl::init("")};
};

/// Where the GPU pipeline's kernels go: the chip, the PTX ISA version the
/// NVPTX backend must emit for it, and the tensor-core family.
struct GpuTarget {
  std::string chip;
  std::string ptxFeatures; // e.g. "+ptx80"
  /// The family every kernel uses: asked for, or the chip's only one;
  /// nullopt on sm_90a with mma=auto, where the chooser picks per attention.
  std::optional<TensorCoreFamily> mma;
  /// The --attn-io-cost preset the kernels are chosen and costed for:
  /// target=, or the chip's own ("a100", "h200", ...).
  std::string costTarget;
};

/// Resolves and checks `chip=`, `mma=` and `target=`: the chip must be one
/// the kernels are built for (mma.sync: sm_80, sm_86, sm_87, sm_89, sm_90,
/// sm_90a, sm_100, sm_120; wgmma: sm_90a, which mma=wgmma on sm_90 selects),
/// and gets the PTX version it needs; the target must be a preset of that
/// chip's architecture. The errors list the accepted values.
FailureOr<GpuTarget>
resolveGpuTarget(const GpuPipelineOptions &options,
                 function_ref<void(const Twine &)> emitError);

/// Any IR that --attn-detect accepts -> a module whose attention kernels are
/// gpu.binary ops holding PTX (gpu-module-to-binary, isa format), with the
/// host code lowered to LLVM and GPU runtime calls. Fails (through
/// `emitError`) on option values no kernel supports, before adding passes.
LogicalResult buildAttnGpuPipeline(OpPassManager &pm,
                                   const GpuPipelineOptions &options,
                                   function_ref<void(const Twine &)> emitError);

/// Registers `attn-cpu-pipeline` and `attn-gpu-pipeline`.
void registerAttnPipelines();

} // namespace attn
} // namespace mlir

#endif // ATTN_PIPELINES_PIPELINES_H

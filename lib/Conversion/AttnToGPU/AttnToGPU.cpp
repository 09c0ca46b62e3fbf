//===- AttnToGPU.cpp - --attn-lower-to-gpu --------------------------------===//
//
// The pass fills a kernel spec per op (tiles, tensor-core family: mma.sync or
// Hopper wgmma), builds the kernel (FlashAttentionEmitter.cpp) and replaces
// the op by a launch of it; each kernel's launch manifest comes from
// LaunchManifest.cpp.
//
// Over 600 lines (the pass, the spec of each op form and the host-side
// launch): the generic kernel's spec (genericSpecFor) is the part to move
// next, its head-dim limit into whyNoGenericGPUKernelForm with the other
// forms that kernel refuses; not moved in the session that added the limit.
//
//===----------------------------------------------------------------------===//
#include "attn/Conversion/AttnToGPU/AttnToGPU.h"
#include "LaunchManifest.h"
#include "attn/Conversion/Passes.h"
#include "attn/Dialect/Attn/IR/AttnOps.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir {
namespace attn {
#define GEN_PASS_DEF_ATTNLOWERTOGPUPASS
#include "attn/Conversion/Passes.h.inc"
} // namespace attn
} // namespace mlir

using namespace mlir;
using namespace mlir::attn;

namespace {

/// The kernel the pass options ask for: a family (nullopt: the one the
/// op's recorded kernel_config names, else mma.sync) and explicit fields.
struct KernelOptions {
  std::optional<TensorCoreFamily> family;
  KernelConfigRequest request;
  bool explicitFields() const {
    return request.blockQ || request.blockKV || request.rowsPerWarp ||
           request.kvStages || request.swizzle || request.kvSplits || request.kvWarps ||
           request.tmaLoads || request.producerWarpgroup || request.overlapPV ||
           request.persistent;
  }
};

/// A TMA tensor map over the [B, Hkv, L, d] buffer `kv` whose boxes are
/// one 64-column atom of a `blockKV`-key tile, 128-byte swizzled, zero
/// filled out of bounds: nvgpu's descriptor, built on the host by the CUDA
/// runtime wrappers (cuTensorMapEncodeTiled, the map copied to device
/// memory), passed to the kernel as the generic pointer it lowers to.
Value createTensorMap(OpBuilder &b, Location loc, Value kv, int64_t blockKV) {
  auto type = cast<MemRefType>(kv.getType());
  auto box = MemRefType::get({1, 1, blockKV, 64}, type.getElementType(), MemRefLayoutAttrInterface(),
                             gpu::AddressSpaceAttr::get(b.getContext(),
                                                        gpu::AddressSpace::Workgroup));
  auto descType = nvgpu::TensorMapDescriptorType::get(
      b.getContext(), box, nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
      nvgpu::TensorMapL2PromoKind::L2PROMO_256B, nvgpu::TensorMapOOBKind::OOB_ZERO,
      nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
  Value unranked = memref::CastOp::create(
      b, loc, UnrankedMemRefType::get(type.getElementType(), type.getMemorySpace()), kv);
  SmallVector<Value> boxDims;
  for (int64_t x : box.getShape())
    boxDims.push_back(arith::ConstantIndexOp::create(b, loc, x));
  Value desc = nvgpu::TmaCreateDescriptorOp::create(b, loc, descType, unranked, boxDims);
  return UnrealizedConversionCastOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()),
                                            desc)
      .getResult(0);
}

/// Why the tensor-core kernel does not run an op, and whether that is the
/// pass options' doing (an error: they ask for a kernel that cannot run an
/// op another kernel could) or the op's (it stays unfused, with a warning,
/// unless strict=true).
struct Refusal {
  std::string why;
  bool byRequest = false;
};

/// The target an op's kernel is checked against: the one --attn-io-cost
/// costed it for, else the preset of the family's chip (h200 for wgmma,
/// a100 for mma.sync).
TargetSpec targetFor(Operation *op, TensorCoreFamily family) {
  if (auto cost = op->getAttrOfType<IOCostAttr>(kIOCostAttrName))
    if (std::optional<TargetSpec> t = getTargetPreset(cost.getTarget()))
      return *t;
  return *getTargetPreset(family == TensorCoreFamily::Wgmma ? "h200" : "a100");
}

/// The kernel configuration of `op`: the one --attn-io-cost recorded
/// (#attn.kernel_config) unless the options ask for another, else the
/// chooser's (lib/Analysis/KernelConfig.cpp, the one chooser). A config no
/// kernel can run is refused with the chooser's reason.
FailureOr<KernelConfig> configFor(Operation *op, const AttentionShape &shape, MaskReads mask,
                                  const KernelOptions &options, Refusal &refusal,
                                  TargetSpec &target) {
  auto recorded = op->getAttrOfType<KernelConfigAttr>(kKernelConfigAttrName);
  KernelConfigRequest request = options.request;
  request.family = options.family;
  if (!request.family && recorded)
    request.family = getKernelConfig(recorded).family;
  // Neither asked for nor recorded: the chooser picks for the costed
  // target's chip; without a cost, mma.sync (the a100 preset).
  if (!request.family && !op->hasAttr(kIOCostAttrName))
    request.family = TensorCoreFamily::MmaSync;
  target = targetFor(op, request.family.value_or(TensorCoreFamily::MmaSync));
  // The recorded config is a request too: IR that names a kernel which
  // cannot run its op is wrong, not merely unsupported.
  bool requested = options.family || options.explicitFields() || recorded;
  llvm::Expected<KernelConfig> config = [&]() -> llvm::Expected<KernelConfig> {
    if (recorded && !options.explicitFields() &&
        getKernelConfig(recorded).family == request.family) {
      KernelConfig c = getKernelConfig(recorded);
      if (llvm::Error e = checkKernelConfig(c, shape, target))
        return std::move(e);
      return c;
    }
    return chooseKernelConfig(shape, mask, target, request);
  }();
  if (!config) {
    refusal.why = llvm::toString(config.takeError());
    refusal.byRequest =
        requested && isRefusedOnlyByRequest(shape, mask, target, request);
    return failure();
  }
  return *config;
}

LogicalResult checkGridLimits(const FlashKernelSpec &s, Refusal &refusal);

/// The problem's extents, element type and causal alignment, as every
/// kernel's spec holds them.
void setProblem(const AttentionShape &shape, Type elt, FlashKernelSpec &s) {
  s.batch = shape.batch;
  s.headsQ = shape.headsQ;
  s.headsKV = shape.headsKV;
  s.seqQ = shape.seqQ;
  s.seqKV = shape.seqKV;
  s.headDim = shape.headDim;
  s.headDimV = shape.headDimV;
  s.elementType = elt;
  s.causal = shape.causal;
  s.causalBottomRight = shape.causalBottomRight;
}

/// The rest of the spec, from the problem, its element type and its
/// kernel configuration (the mask, scale and paging are already in `s`);
/// refuses what CUDA's grid limits do not allow.
LogicalResult fillSpec(const AttentionShape &shape, Type elt, const KernelConfig &config,
                       int64_t ctaSlots, FlashKernelSpec &s, Refusal &refusal) {
  s.tensorCore = config.family == TensorCoreFamily::Wgmma
                     ? FlashKernelSpec::TensorCore::Wgmma
                     : FlashKernelSpec::TensorCore::MmaSync;
  setProblem(shape, elt, s);
  s.blockQ = config.blockQ;
  s.blockKV = config.blockKV;
  s.rowsPerWarp = config.rowsPerWarp;
  s.kvStages = config.kvStages;
  s.overlapPV = config.overlapPV;
  s.deferPVWait = s.wgmma() && config.kvStages == 3 && !s.overlapPV;
  s.swizzle = config.swizzle;
  s.packKVGroups = config.packKVGroups;
  s.kvSplits = config.kvSplits;
  s.keysPerSplit = kvSplitKeys(config, shape);
  s.kvWarps = config.kvWarps;
  s.tmaLoads = config.tmaLoads;
  s.producerWarpgroup = config.producerWarpgroup;
  s.persistentCTAs =
      config.persistent
          ? persistentGridSize(s.numWorkItems(), s.numQueryTiles(), s.causal, ctaSlots)
          : 0;
  // Beyond 48 KB (or with the Q tile staged) the tiles live in dynamic
  // shared memory, whose opt-in size the runner sets from the manifest.
  // The key warps' combine views the same dynamic buffer as f32, and the
  // TMA stages' mbarriers follow the tiles in it.
  s.dynamicSharedMemory = s.sharedMemoryBytes() > 48 * 1024 || s.qInSharedMemory() ||
                          s.kvWarps > 1 || s.tmaLoads;
  // The name spells the specialization, so that dumped kernels of different
  // modules never collide and identical attentions share one kernel.
  s.name = llvm::formatv("attn_fa2_{12}_{0}_b{1}_h{2}_kv{3}_q{4}_k{5}_d{6}_v{7}{8}_bq{9}_bk{10}_w{11}",
                         elt.isF16() ? "f16" : "bf16", s.batch, s.headsQ, s.headsKV,
                         s.seqQ, s.seqKV, s.headDim, s.headDimV,
                         (!s.causal ? "" : s.causalBottomRight ? "_causal_br" : "_causal") +
                             maskSuffix(s),
                         s.blockQ, s.blockKV, s.rowsPerWarp, s.wgmma() ? "wgmma" : "mma")
               .str() +
           (s.swizzle ? "_sw" : "") + (s.kvStages != 2 ? "_s" + std::to_string(s.kvStages) : "") +
           (s.packKVGroups ? "_pack" : "") +
           (s.splitKV() ? "_split" + std::to_string(s.kvSplits) : "") +
           (s.kvWarps > 1 ? "_kw" + std::to_string(s.kvWarps) : "") +
           (s.tmaLoads ? "_tma" : "") + (s.producerWarpgroup ? "_ws" : "") + (s.overlapPV ? "_ov" : "") +
           (s.persistentCTAs ? "_pst" + std::to_string(s.persistentCTAs) : "") +
           (s.paged() ? llvm::formatv("_paged{0}x{1}", s.pageSize, s.numPages).str() : "") +
           (s.varlen ? "_varlen" : "") +
           scoreModSuffix(s);
  if (failed(checkGridLimits(s, refusal)))
    return failure();
  // Guaranteed by checkKernelConfig: the warps split the query tile.
  assert(s.blockQ % s.rowsPerWarp == 0 && "warps must split the query tile");
  return success();
}

/// Refuses a spec whose grid CUDA does not allow.
LogicalResult checkGridLimits(const FlashKernelSpec &s, Refusal &refusal) {
  auto fail = [&](const Twine &why) {
    refusal.why = why.str();
    return failure();
  };
  // The grid is (query tiles, B·heads, splits): CUDA caps gridDim.y and z
  // at 65535 (and x at 2^31 - 1). Query tiles run fastest so that the CTAs
  // in flight share K/V in L2; the heads therefore go to y. The combine
  // kernel's grid is B·Hq·Lq along x.
  if (s.gridY() > 65535)
    return fail(Twine(s.varlen ? "" : "B·") + (s.packKVGroups ? "Hkv = " : "Hq = ") +
                Twine(s.gridY()) +
                " exceeds the 65535 CTAs CUDA allows along the grid's y axis");
  if (s.numQueryTiles() > 2147483647)
    return fail("Lq needs more than 2^31 - 1 query tiles");
  if (s.splitKV() && s.batch * s.headsQ * s.seqQ > 2147483647)
    return fail("split-KV's combine kernel needs B·Hq·Lq <= 2^31 - 1 CTAs; "
                "use kv-splits=1");
  return success();
}


/// What every kernel applies to the scores: the scale, the mask, the
/// score_mod region and what it bounds.
FlashKernelSpec scoresSpec(AttentionOp op) {
  FlashKernelSpec s;
  s.scale = op.getScale().convertToDouble();
  if (Value mask = op.getMask()) {
    auto mt = cast<RankedTensorType>(mask.getType());
    s.maskElementType = mt.getElementType();
    s.mask = s.maskElementType.isInteger(1) ? FlashKernelSpec::Mask::Keep
                                            : FlashKernelSpec::Mask::Additive;
    // As [MB, MH, MQ, MK], like the operands (ranks 2 and 3 lack the
    // leading dims).
    s.maskShape.assign(4 - mt.getRank(), 1);
    s.maskShape.append(mt.getShape().begin(), mt.getShape().end());
  }
  if (op.hasScoreMod()) {
    s.scoreMod = &op.getScoreMod();
    s.scoreModRank = op.getRank();
    ScoreModKeyBounds keys = getScoreModKeyBounds(op.getScoreMod());
    s.scoreModLowestKey = keys.lowest;
    s.scoreModHighestKey = keys.highest;
    s.scoreModInsideBounds = keys.insideBounds;
    s.scoreModTensors = getScoreModTensorOperands(op.getScoreMod());
  }
  return s;
}

/// The widest head dim (d or dv) the generic kernel takes.
constexpr int64_t kGenericKernelMaxHeadDim = 2048;

/// The generic kernel's spec (buildGenericAttentionKernel), for an op the
/// tensor-core kernels do not take: f32 inputs, head dims up to 2048, an
/// additive mask of another float type. Refused only for what no kernel takes
/// (whyNoGenericGPUKernelForm), f64, and CUDA's grid limits.
FailureOr<FlashKernelSpec> genericSpecFor(AttentionOp op, Refusal &refusal) {
  auto fail = [&](const Twine &why) -> FailureOr<FlashKernelSpec> {
    refusal.why = why.str();
    return failure();
  };
  if (std::optional<std::string> why = whyNoGenericGPUKernelForm(op))
    return fail(*why);
  Type elt = op.getQuery().getType().getElementType();
  auto isKernelFloat = [](Type t) { return t.isF16() || t.isBF16() || t.isF32(); };
  if (!isKernelFloat(elt))
    return fail("the GPU kernels need f16, bf16 or f32 inputs");
  FlashKernelSpec s = scoresSpec(op);
  if (s.mask == FlashKernelSpec::Mask::Additive && !isKernelFloat(s.maskElementType))
    return fail("the GPU kernels add an f16, bf16 or f32 mask to the f32 scores");
  AttentionShape shape = *op.getCostShape();
  // A row's ⌈d/32⌉ Q and ⌈dv/32⌉ O values per lane, unrolled in registers:
  // past 2048 it cannot fit (d = 2^31 hung the pipeline, found by fuzzing).
  int64_t widest = std::max(shape.headDim, shape.headDimV);
  if (widest > kGenericKernelMaxHeadDim)
    return fail(llvm::formatv("the generic GPU kernel keeps a row of Q and of O in registers: "
                              "head dims up to {0}, got d = {1}, dv = {2}",
                              kGenericKernelMaxHeadDim, shape.headDim, shape.headDimV)
                    .str());
  s.tensorCore = FlashKernelSpec::TensorCore::None;
  setProblem(shape, elt, s);
  // Four warps per CTA, each with as many query rows as its registers
  // hold comfortably (a row costs ⌈d/32⌉ + ⌈dv/32⌉ + 2 per lane); no K/V
  // tiles or stages.
  s.rowsPerWarp = widest <= 128 ? 4 : widest <= 256 ? 2 : 1;
  s.blockQ = 4 * s.rowsPerWarp;
  // Keys per loop step (GenericKernel.cpp).
  s.blockKV = 2;
  s.kvStages = 0;
  std::string eltName;
  llvm::raw_string_ostream(eltName) << elt;
  s.name = llvm::formatv("attn_generic_{0}_b{1}_h{2}_kv{3}_q{4}_k{5}_d{6}_v{7}{8}", eltName,
                         s.batch, s.headsQ, s.headsKV, s.seqQ, s.seqKV, s.headDim, s.headDimV,
                         (!s.causal ? "" : s.causalBottomRight ? "_causal_br" : "_causal"))
               .str() +
           maskSuffix(s) + scoreModSuffix(s);
  if (failed(checkGridLimits(s, refusal)))
    return failure();
  return s;
}

/// What every tensor-core spec shares: the op's form (whyNoGPUKernelForm),
/// its element type (`dtypeWhy`: the refusal of one other than f16/bf16,
/// when the chooser is not left to refuse it), its shape as the cost model
/// reads it, the kernel configuration, then fillSpec on `s`, the op's own
/// part of the spec (scores, paging, packing). `kernelExtents` turns the
/// chooser's shape into the extents the kernel holds (a packed batch's
/// token counts).
FailureOr<FlashKernelSpec>
tensorCoreSpec(Operation *op, FailureOr<AttentionShape> shape, MaskReads mask, FlashKernelSpec s,
               const KernelOptions &options, Refusal &refusal,
               std::optional<StringRef> dtypeWhy,
               function_ref<void(AttentionShape &)> kernelExtents = {}) {
  auto fail = [&](const Twine &why) -> FailureOr<FlashKernelSpec> {
    refusal.why = why.str();
    return failure();
  };
  if (std::optional<std::string> why = whyNoGPUKernelForm(op))
    return fail(*why);
  Type elt = cast<RankedTensorType>(op->getOperand(0).getType()).getElementType();
  if (dtypeWhy && !elt.isF16() && !elt.isBF16())
    return fail(*dtypeWhy);
  if (failed(shape))
    return fail("the GPU kernel needs f16 or bf16 inputs");
  TargetSpec target;
  FailureOr<KernelConfig> config = configFor(op, *shape, mask, options, refusal, target);
  if (failed(config))
    return failure();
  AttentionShape extents = *shape;
  if (kernelExtents)
    kernelExtents(extents);
  int64_t ctaSlots =
      target.smCount * residentCTAsPerSM(*config, *shape, target, mask != MaskReads::None);
  if (failed(fillSpec(extents, elt, *config, ctaSlots, s, refusal)))
    return failure();
  s.minCTAsPerSM = launchBoundCTAsPerSM(*config, *shape, target, mask != MaskReads::None);
  return s;
}

/// attn.attention: its scores (scale, mask, score_mod) in the spec; the
/// chooser refuses element types itself.
FailureOr<FlashKernelSpec> specFor(AttentionOp op, const KernelOptions &options,
                                   Refusal &refusal) {
  return tensorCoreSpec(op, op.getCostShape(), getMaskReads(op), scoresSpec(op), options,
                        refusal, std::nullopt);
}

/// A paged attention: the chooser sees the key capacity as Lk (the kernel
/// is sized for the longest sequence the block table holds).
FailureOr<FlashKernelSpec> specFor(PagedAttentionOp op, const KernelOptions &options,
                                   Refusal &refusal) {
  FlashKernelSpec s;
  s.scale = op.getScale().convertToDouble();
  s.pageSize = op.getPageSize();
  s.numPages = op.getKeyCache().getType().getDimSize(0);
  s.maxPages = op.getBlockTable().getType().getDimSize(1);
  return tensorCoreSpec(op, op.getCostShape(), MaskReads::None, s, options, refusal,
                        StringRef("the GPU kernel needs f16 or bf16 inputs"));
}

/// A packed variable-length batch. The chooser sees its mean sequence
/// (getCostShape: the tiles suit the typical sequence, decode-like or
/// prefill-like; the chooser never splits its keys); the kernel holds the
/// token counts.
FailureOr<FlashKernelSpec> specFor(VarlenAttentionOp op, const KernelOptions &options,
                                   Refusal &refusal) {
  FlashKernelSpec s;
  s.scale = op.getScale().convertToDouble();
  s.varlen = true;
  return tensorCoreSpec(
      op, op.getCostShape(), MaskReads::None, s, options, refusal,
      StringRef("the GPU kernels run packed variable-length batches on f16 or bf16 inputs only"),
      [&](AttentionShape &extents) {
        extents.seqQ = op.getQuery().getType().getDimSize(0);
        extents.seqKV = op.getKey().getType().getDimSize(0);
      });
}

/// How an attention tensor of rank 2 or 3 reads as the kernel's rank 4:
/// [L, d] as [1, 1, L, d], [H, L, d] as [1, H, L, d].
SmallVector<ReassociationIndices> rank4Reassociation(int64_t rank) {
  if (rank == 2)
    return {{0, 1, 2}, {3}};
  return {{0, 1}, {2}, {3}};
}

/// An attention operand (Q, K, V, a mask) in the kernel's rank-4 form, so
/// that one kernel serves ranks 2 to 4.
Value toRank4(OpBuilder &b, Location loc, Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.getRank() == 4)
    return v;
  SmallVector<int64_t> shape(4 - t.getRank(), 1);
  shape.append(t.getShape().begin(), t.getShape().end());
  return tensor::ExpandShapeOp::create(b, loc, RankedTensorType::get(shape, t.getElementType()),
                                       v, rank4Reassociation(t.getRank()));
}

struct AttnLowerToGPUPass
    : public attn::impl::AttnLowerToGPUPassBase<AttnLowerToGPUPass> {
  using AttnLowerToGPUPassBase::AttnLowerToGPUPassBase;

  /// The options as a kernel request. Values no kernel takes are errors
  /// here, before any op; combinations (block-kv=128 with mma.sync, ...)
  /// are checked per op by checkKernelConfig, with the shape.
  FailureOr<KernelOptions> kernelOptions() {
    ModuleOp module = getOperation();
    KernelOptions o;
    // The option parser has already rejected mma values other than auto,
    // mma.sync and wgmma; auto leaves the family to the op's kernel_config.
    o.family = getTensorCoreFamily(mma);
    auto domain = [&](StringRef name, int64_t value,
                      std::initializer_list<int64_t> allowed) {
      if (value == 0 || llvm::is_contained(allowed, value))
        return true;
      // "0 (auto), 32, 64 or 128"
      std::string list = "0 (auto)";
      for (auto [i, a] : llvm::enumerate(allowed))
        list += (i + 1 == allowed.size() ? " or " : ", ") + std::to_string(a);
      module.emitError("attn-lower-to-gpu: ")
          << name << " must be " << list << ", got " << value;
      return false;
    };
    if (kvSplits < 0 || kvSplits > 65535) {
      module.emitError("attn-lower-to-gpu: kv-splits must be 0 (auto) or 1 "
                       "(no split) to 65535, got ")
          << kvSplits.getValue();
      return failure();
    }
    if (!domain("block-q", blockQ, {16, 32, 64, 128}) ||
        !domain("rows-per-warp", rowsPerWarp, {16, 32}) ||
        !domain("block-kv", blockKV, {32, 64, 128}) ||
        !domain("kv-stages", kvStages, {2, 3, 4}) ||
        !domain("kv-warps", kvWarps, {1, 2, 4, 8}))
      return failure();
    o.request.blockQ = blockQ;
    o.request.blockKV = blockKV;
    o.request.rowsPerWarp = rowsPerWarp;
    o.request.kvStages = kvStages;
    o.request.swizzle = swizzle;
    o.request.kvSplits = kvSplits;
    o.request.kvWarps = kvWarps;
    if (llvm::Error e = applyLoadOptions(kvLoads, overlapPV, persistent, o.request)) {
      module.emitError("attn-lower-to-gpu: ") << llvm::toString(std::move(e));
      return failure();
    }
    return o;
  }
  /// An op the kernels do not run: an error (strict, or options that
  /// break an op a kernel could run), else a warning, and the op stays.
  LogicalResult refuse(Operation *op, const Refusal &refusal) {
    if (strict || refusal.byRequest) {
      op->emitError("attn-lower-to-gpu: ") << refusal.why;
      return failure();
    }
    // A correct program is never refused: the op stays as it is, and the
    // GPU pipeline decomposes it for the host like any other computation
    // it does not offload.
    op->emitWarning("attn-lower-to-gpu: ")
        << refusal.why << "; the attention stays unfused (strict=true makes this an error)";
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<KernelOptions> options = kernelOptions();
    if (failed(options))
      return signalPassFailure();
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (isa<AttentionOp, PagedAttentionOp, VarlenAttentionOp>(op))
        ops.push_back(op);
    });
    if (ops.empty())
      return;
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), UnitAttr::get(&getContext()));
    // Kernels of an earlier run of the pass keep their manifests.
    NamedAttrList manifests;
    if (auto earlier = module->getAttrOfType<DictionaryAttr>(kLaunchManifestsAttrName))
      manifests.append(earlier.getValue());
    // The attention kernel and, with split-KV, its combine kernel.
    llvm::StringMap<std::pair<gpu::GPUFuncOp, gpu::GPUFuncOp>> kernels;
    // The scale is a constant of the kernel but not part of its name:
    // attentions that differ only in scale must not share a kernel. The
    // first scale of a name keeps it; another gets its bits appended.
    llvm::StringMap<double> scaleOfName;
    for (Operation *op : ops) {
      auto attention = dyn_cast<AttentionOp>(op);
      auto paged = dyn_cast<PagedAttentionOp>(op);
      auto varlen = dyn_cast<VarlenAttentionOp>(op);
      Refusal refusal;
      FailureOr<FlashKernelSpec> spec = attention ? specFor(attention, *options, refusal)
                                        : paged   ? specFor(paged, *options, refusal)
                                                  : specFor(varlen, *options, refusal);
      if (failed(spec) && attention && genericKernel && !strict && !refusal.byRequest) {
        Refusal genericRefusal;
        spec = genericSpecFor(attention, genericRefusal);
        if (succeeded(spec))
          op->emitWarning("attn-lower-to-gpu: ")
              << refusal.why
              << "; the generic GPU kernel runs it instead (f32 on the CUDA cores, no tensor "
                 "cores; strict=true makes this an error)";
        else
          refusal = genericRefusal;
      }
      if (failed(spec)) {
        if (failed(refuse(op, refusal)))
          return signalPassFailure();
        continue;
      }
      auto [named, fresh] = scaleOfName.try_emplace(spec->name, spec->scale);
      if (!fresh && named->second != spec->scale)
        spec->name += llvm::formatv("_scale{0:x16}", llvm::bit_cast<uint64_t>(spec->scale)).str();
      Location loc = op->getLoc();
      OpBuilder b(module.getBodyRegion());
      auto &[kernel, combine] = kernels[spec->name];
      if (!kernel) {
        auto gpuModule = gpu::GPUModuleOp::create(b, loc, spec->name + "_module");
        kernel = spec->generic() ? buildGenericAttentionKernel(b, loc, gpuModule, *spec)
                                 : buildFlashAttentionKernel(b, loc, gpuModule, *spec);
        if (spec->splitKV())
          combine = buildSplitKVCombineKernel(b, loc, gpuModule, *spec);
        // Keyed by the gpu.module's symbol, which its gpu.binary keeps
        // (see kLaunchManifestsAttrName).
        manifests.set(gpuModule.getSymNameAttr(), manifestFor(b, *spec));
      }
      // Host side: tensors -> buffers, launch, buffer -> tensor.
      b.setInsertionPoint(op);
      // Attention operands in rank-4 form (packed ones as they are); the
      // block table and lengths as they are.
      auto asBuffer = [&](Value t, bool attentionOperand = true) {
        Value t4 = attentionOperand && !varlen ? toRank4(b, loc, t) : t;
        auto tt = cast<RankedTensorType>(t4.getType());
        return bufferization::ToBufferOp::create(
            b, loc, MemRefType::get(tt.getShape(), tt.getElementType()), t4);
      };
      // Q, K, V (or the K/V page pools), as the kernel's first parameters.
      SmallVector<Value> inputs = llvm::map_to_vector(
          op->getOperands().take_front(3), [&](Value t) -> Value { return asBuffer(t); });
      auto outType = MemRefType::get(spec->queryShape(spec->headDimV), spec->elementType);
      Value out = memref::AllocOp::create(b, loc, outType);
      // Split-KV: the attention kernel writes the workspace (partial
      // outputs, log-sum-exps), the combine kernel reads it into `out`.
      SmallVector<Value> workspace;
      if (combine)
        for (Type t : combine.getArgumentTypes().take_front(2))
          workspace.push_back(memref::AllocOp::create(b, loc, cast<MemRefType>(t)));
      SmallVector<Value> args(inputs);
      if (combine)
        args.append(workspace);
      else
        args.push_back(out);
      if (Value mask = attention ? attention.getMask() : Value())
        args.push_back(asBuffer(mask));
      if (paged) {
        args.push_back(asBuffer(paged.getBlockTable(), /*attentionOperand=*/false));
        args.push_back(asBuffer(paged.getSeqLens(), /*attentionOperand=*/false));
      }
      if (varlen) {
        args.push_back(asBuffer(varlen.getCuSeqlensQ(), /*attentionOperand=*/false));
        args.push_back(asBuffer(varlen.getCuSeqlensK(), /*attentionOperand=*/false));
      }
      for (Value t : spec->scoreModTensors)
        args.push_back(asBuffer(t, /*attentionOperand=*/false));
      auto c = [&](int64_t x) { return arith::ConstantIndexOp::create(b, loc, x).getResult(); };
      if (spec->tensorMapLoads())
        for (Value kv : {inputs[1], inputs[2]})
          args.push_back(createTensorMap(b, loc, kv, spec->blockKV));
      // Named first: argument evaluation order is unspecified in C++, and
      // the printed IR should not depend on the host compiler.
      std::array<int64_t, 3> dims = spec->grid();
      gpu::KernelDim3 grid{c(dims[0]), c(dims[1]), c(dims[2])};
      gpu::KernelDim3 block{c(spec->numThreads()), c(1), c(1)};
      Value dynamicSmem;
      if (spec->dynamicSharedMemory)
        dynamicSmem = arith::ConstantIntOp::create(b, loc, b.getI32Type(),
                                                   spec->sharedMemoryBytes());
      gpu::LaunchFuncOp::create(b, loc, kernel, grid, block, dynamicSmem, args);
      if (combine) {
        gpu::KernelDim3 combineGrid{c(spec->batch * spec->headsQ * spec->seqQ), c(1), c(1)};
        gpu::KernelDim3 combineBlock{c(spec->headDimV), c(1), c(1)};
        gpu::LaunchFuncOp::create(b, loc, combine, combineGrid, combineBlock, Value(),
                                  ValueRange{workspace[0], workspace[1], out});
        for (Value buffer : workspace)
          memref::DeallocOp::create(b, loc, buffer);
      }
      Value result = bufferization::ToTensorOp::create(
          b, loc, RankedTensorType::get(outType.getShape(), outType.getElementType()), out,
          /*restrict=*/true, /*writable=*/true);
      auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
      if (resultType.getRank() < outType.getRank())
        result = tensor::CollapseShapeOp::create(b, loc, resultType, result,
                                                 rank4Reassociation(resultType.getRank()));
      op->getResult(0).replaceAllUsesWith(result);
      op->erase();
    }
    module->setAttr(kLaunchManifestsAttrName, manifests.getDictionary(&getContext()));
  }
};

} // namespace

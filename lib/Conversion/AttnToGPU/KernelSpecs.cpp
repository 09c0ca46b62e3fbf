//===- KernelSpecs.cpp - Each op form's kernel spec -----------------------===//
//
// The kernel spec of attn.attention, attn.paged_attention and
// attn.varlen_attention for the tensor-core kernels, and of attn.attention
// for the generic kernel: what the op holds (scores, paging, packing), the
// kernel configuration (KernelConfig.cpp's chooser, or the one the IR
// records), and the limits of CUDA's grid. Every refusal says why.
//
//===----------------------------------------------------------------------===//
#include "KernelSpecs.h"
#include "LaunchManifest.h"
#include "attn/Analysis/PersistentSchedule.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::attn;

namespace {


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

/// FP8's output type and descale factors in the kernel name: attentions
/// that differ only in them need kernels of their own (their parameters
/// differ).
std::string fp8Suffix(const FlashKernelSpec &s) {
  std::string out;
  if (s.outputType != s.elementType) {
    llvm::raw_string_ostream os(out);
    os << "_o" << s.outputType;
  }
  return out + (s.descale ? "_descale" : "");
}

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
  // (An FP8 attention's output type is already in the spec: scoresSpec.)
  if (!s.outputType)
    s.outputType = elt;
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
  std::string eltName;
  llvm::raw_string_ostream(eltName) << elt;
  s.name = llvm::formatv("attn_fa2_{12}_{0}_b{1}_h{2}_kv{3}_q{4}_k{5}_d{6}_v{7}{8}_bq{9}_bk{10}_w{11}",
                         eltName, s.batch, s.headsQ, s.headsKV,
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
           scoreModSuffix(s) + fp8Suffix(s);
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
  s.outputType = op.getResult().getType().getElementType();
  s.descale = !op.getDescale().empty();
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
  s.chosenFor = target.name;
  s.minCTAsPerSM = launchBoundCTAsPerSM(*config, *shape, target, mask != MaskReads::None);
  return s;
}

} // namespace

/// The generic kernel's spec (buildGenericAttentionKernel), for an op the
/// tensor-core kernels do not take: f32 inputs, head dims up to 2048, an
/// additive mask of another float type. Refused only for what no kernel takes
/// (whyNoGenericGPUKernelForm), f64, and CUDA's grid limits.
FailureOr<FlashKernelSpec> mlir::attn::genericSpecFor(AttentionOp op, Refusal &refusal) {
  auto fail = [&](const Twine &why) -> FailureOr<FlashKernelSpec> {
    refusal.why = why.str();
    return failure();
  };
  if (std::optional<std::string> why = whyNoGenericGPUKernelForm(op))
    return fail(*why);
  Type elt = op.getQuery().getType().getElementType();
  auto isKernelFloat = [](Type t) { return t.isF16() || t.isBF16() || t.isF32(); };
  if (!isKernelFloat(elt) && !isFP8Type(elt))
    return fail("the GPU kernels need f16, bf16, f32 or 8-bit float inputs");
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
  // No config to choose; the cost, where there is one, is still for a GPU.
  if (auto cost = op->getAttrOfType<IOCostAttr>(kIOCostAttrName))
    s.chosenFor = cost.getTarget().str();
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
           maskSuffix(s) + scoreModSuffix(s) + fp8Suffix(s);
  if (failed(checkGridLimits(s, refusal)))
    return failure();
  return s;
}

/// attn.attention: its scores (scale, mask, score_mod) in the spec; the
/// chooser refuses element types itself.
FailureOr<FlashKernelSpec> mlir::attn::specFor(AttentionOp op, const KernelOptions &options,
                                   Refusal &refusal) {
  // (scoresSpec reads the mask as rank 4 at most: the form first.)
  if (std::optional<std::string> why = whyNoGPUKernelForm(op)) {
    refusal.why = *why;
    return failure();
  }
  return tensorCoreSpec(op, op.getCostShape(), getMaskReads(op), scoresSpec(op), options,
                        refusal, std::nullopt);
}

/// A paged attention: the chooser sees the key capacity as Lk (the kernel
/// is sized for the longest sequence the block table holds).
FailureOr<FlashKernelSpec> mlir::attn::specFor(PagedAttentionOp op, const KernelOptions &options,
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
FailureOr<FlashKernelSpec> mlir::attn::specFor(VarlenAttentionOp op, const KernelOptions &options,
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

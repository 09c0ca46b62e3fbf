//===- KernelConfig.h - the fused GPU kernel's configuration ----*- C++ -*-===//
//
// One kernel configuration and one chooser for it. The cost model
// (`--attn-io-cost`) costs the configuration this chooser picks, records it
// on the op (#attn.kernel_config), and the GPU lowering builds exactly that
// kernel: the tiles a user reads in the cost report are the tiles that run.
//
// The chooser is plain C++ (no MLIR), unit-tested in
// test/Analysis/IOCostTest.cpp. What the cost model cannot derive yet (how
// much a second CTA per SM, a finer causal grain or a third K/V stage buys)
// is data: each rule below cites its H200 measurement in bench/NOTES.md.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_ANALYSIS_KERNELCONFIG_H
#define ATTN_ANALYSIS_KERNELCONFIG_H

#include "attn/Analysis/IOCost.h"
#include "attn/Analysis/StagedTileLayout.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>

namespace mlir {
namespace attn {

/// The tensor-core instructions of the kernel. mma.sync.m16n8k16 runs on
/// sm_80 and later; Hopper's wgmma.mma_async (sm_90a only) lets a
/// warpgroup of 4 warps multiply 64 query rows by a whole K/V tile.
enum class TensorCoreFamily { MmaSync, Wgmma };

std::optional<TensorCoreFamily> parseTensorCoreFamily(llvm::StringRef name);
llvm::StringRef stringifyTensorCoreFamily(TensorCoreFamily family);
/// wgmma on sm_90a (the only chip that has it), mma.sync everywhere else.
TensorCoreFamily defaultTensorCoreFamily(llvm::StringRef chip);

/// The `mma=` option of --attn-io-cost, --attn-lower-to-gpu and
/// --attn-gpu-pipeline: a family, or `auto`, whose meaning each option's
/// help gives (the target chip's family, or the recorded kernel_config's).
enum class TensorCoreFamilyOption { Auto, MmaSync, Wgmma };

/// The family an explicit option names; nullopt for `auto`.
std::optional<TensorCoreFamily>
getTensorCoreFamily(TensorCoreFamilyOption option);
/// The option that names `family` (never `auto`).
TensorCoreFamilyOption getTensorCoreFamilyOption(TensorCoreFamily family);

/// The `kv-loads=` option: who fills the K/V stages. `auto` leaves it to
/// the chooser; `cp.async` and `tma` ask for one (KernelConfig::tmaLoads),
/// `tma-producer` for TMA issued by a producer warpgroup of its own
/// (KernelConfig::producerWarpgroup). Spelled as a string option and
/// checked by parseKVLoadsOption, so that each pass reports a wrong value
/// with the values it takes.
inline constexpr llvm::StringLiteral kKVLoadsValues =
    "auto, cp.async, tma or tma-producer";
/// What a `kv-loads=` value asks for: nothing (`auto`: both fields nullopt)
/// or who loads.
struct KVLoadsRequest {
  std::optional<bool> tmaLoads;
  std::optional<bool> producerWarpgroup;
};
/// nullopt for a value that is none of kKVLoadsValues.
std::optional<KVLoadsRequest> parseKVLoadsOption(llvm::StringRef value);

/// The `overlap-pv=` option (KernelConfig::overlapPV): `auto` leaves it to
/// the chooser, `on` and `off` ask. Checked by parseAutoOnOffOption.
inline constexpr llvm::StringLiteral kAutoOnOffValues = "auto, on or off";
/// nullopt for a value that is none of kAutoOnOffValues; else the request
/// (nullopt inside for `auto`).
std::optional<std::optional<bool>> parseAutoOnOffOption(llvm::StringRef value);

/// The values `mma=` accepts, spelled as the kernel_config attribute and the
/// reports spell the families: given to each `mma` option as its
/// `llvm::cl::values`, so that the option parser rejects anything else with
/// the list of accepted values.
llvm::cl::ValuesClass tensorCoreFamilyOptionValues();

} // namespace attn
} // namespace mlir

namespace llvm {
namespace cl {
/// The `mma=` options' parser: llvm::cl's enum parser, except that a value
/// it does not know is an error that lists the ones it does ("Cannot find
/// option named 'x'!" says neither what the option takes nor what to write).
template <>
class parser<mlir::attn::TensorCoreFamilyOption> : public generic_parser_base {
protected:
  using DataType = mlir::attn::TensorCoreFamilyOption;
  class OptionInfo : public GenericOptionInfo {
  public:
    OptionInfo(StringRef name, DataType v, StringRef helpStr)
        : GenericOptionInfo(name, helpStr), V(v) {}
    OptionValue<DataType> V;
  };
  SmallVector<OptionInfo, 3> Values;

public:
  parser(Option &o) : generic_parser_base(o) {}
  using parser_data_type = DataType;

  unsigned getNumOptions() const override { return unsigned(Values.size()); }
  StringRef getOption(unsigned n) const override { return Values[n].Name; }
  StringRef getDescription(unsigned n) const override {
    return Values[n].HelpStr;
  }
  const GenericOptionValue &getOptionValue(unsigned n) const override {
    return Values[n].V;
  }

  /// Returns true on error, as every llvm::cl parser does.
  bool parse(Option &o, StringRef argName, StringRef arg, DataType &v) {
    StringRef value = Owner.hasArgStr() ? arg : argName;
    std::string accepted;
    for (const OptionInfo &info : Values) {
      if (info.Name == value) {
        v = info.V.getValue();
        return false;
      }
      accepted += (accepted.empty() ? "" : ", ") + info.Name.str();
    }
    return o.error("'" + value + "' is not one of the accepted values: " +
                   accepted);
  }

  template <class DT>
  void addLiteralOption(StringRef name, const DT &v, StringRef helpStr) {
    Values.push_back(OptionInfo(name, static_cast<DataType>(v), helpStr));
    AddLiteralOption(Owner, name);
  }
  void removeLiteralOption(StringRef name) {
    Values.erase(Values.begin() + findOption(name));
  }
};
} // namespace cl
} // namespace llvm

namespace mlir {
namespace attn {

/// How the kernel reads a mask tensor: not at all, once per key (a padding
/// mask [B, 1, 1, Lk]) or once per score (a mask that varies along the
/// queries, or a score_mod region), which costs registers. KeyBounds: no
/// tensor, but a score_mod that only bounds the keys (a sliding window)
/// compares indices on the K/V tiles that straddle its bounds: on wgmma no
/// register charge beside the overlapped P·V, but, like a mask, no two-CTA
/// launch bound and no persistent CTAs, and beside the causal mask over
/// split keys the charge of split-key state (loopRegistersPerThread); on
/// mma.sync the tiles of a per-score mask (bench/NOTES.md v45b, v46).
enum class MaskReads { None, KeyBounds, PerKey, PerScore };

/// Everything about the fused GPU kernel that is not the problem's shape.
struct KernelConfig {
  TensorCoreFamily family = TensorCoreFamily::Wgmma;
  /// Query rows per CTA (Br) and keys per staged K/V tile (Bc).
  int64_t blockQ = 128;
  int64_t blockKV = 128;
  /// Query rows per warp: 16 (one m16 tile; always with wgmma) or 32.
  int64_t rowsPerWarp = 16;
  /// Shared-memory K/V stages: 2 (double buffering), or 3 with wgmma (the
  /// P·V wait deferred by one tile).
  int64_t kvStages = 2;
  /// mma.sync only: XOR-swizzled shared-memory rows instead of padded ones.
  bool swizzle = false;
  /// GQA head packing (mma.sync): the Hq/Hkv query heads that share a K/V
  /// head become rows of one CTA's query tile (row = query · G + head in
  /// the group), so each K/V tile is read once per group, not once per
  /// query head, and a decode step (Lq = 1) fills G of the MMA's 16 rows
  /// instead of one.
  bool packKVGroups = false;
  /// Split-KV (flash-decoding): the keys are cut into `kvSplits` ranges of
  /// `kvSplitKeys` keys, each its own CTA, whose partial output and row
  /// statistics (kSplitRowStatWords) a second kernel combines exactly. 1:
  /// no split.
  int64_t kvSplits = 1;
  /// Warps that divide each K/V tile's keys (mma.sync): each of the CTA's
  /// kvWarps warps of a query-row slice runs the online softmax over its
  /// own block_kv / kvWarps keys of every tile, and the CTA combines their
  /// (O, m, l) exactly through shared memory after the loop. A decode CTA
  /// of one warp is bound by that warp's issue of copies and MMAs
  /// (bench/NOTES.md v13c); more warps on the same staged tiles stream it
  /// faster without more shared memory. 1: one warp per row slice.
  int64_t kvWarps = 1;
  /// wgmma: the K/V stages are filled by TMA (cp.async.bulk.tensor, one
  /// thread issues a tile's boxes against tensor maps the runtime builds)
  /// and each stage reports full on an mbarrier, instead of every thread
  /// copying 16-byte chunks with cp.async and waiting for its own groups.
  /// The tile lands in the same 128-byte-swizzled atoms wgmma reads.
  bool tmaLoads = false;
  /// wgmma + TMA, two consumer warpgroups (block-q 128): a third warpgroup
  /// only issues the TMA boxes (warp specialization, FlashAttention-3 §3.1).
  /// It waits on a per-stage "empty" mbarrier, on which every consumer
  /// thread arrives once done with the stage, so no CTA-wide barrier is left
  /// in the K/V loop and the two consumer warpgroups run out of step (one's
  /// softmax beside the other's GEMMs). The producer gives its registers to
  /// the consumers (setmaxnreg; FlashKernelSpec::consumerRegisters).
  bool producerWarpgroup = false;
  /// With a producer warpgroup: each tile's P·V is issued behind the next
  /// tile's S = Q·Kᵀ and waited for after that tile's softmax, so the
  /// tensor cores work through the exponentials (FlashAttention-3 §3.2).
  /// Two tiles' scores are then live: the computing warps' 240 registers.
  bool overlapPV = false;
  /// With a producer warpgroup: one CTA per SM slot, each looping over
  /// work items (query tile, batch · head), the producer filling the stage
  /// ring across items, so a CTA's next K/V tiles load during its epilogue
  /// and no CTA launches or ramps up again (FlashAttention-3's persistent
  /// kernel; FlashKernelSpec::persistentCTAs).
  bool persistent = false;

  /// Keys of each tile one warp computes on.
  int64_t warpKeys() const { return blockKV / kvWarps; }
  int64_t numWarps() const { return blockQ / rowsPerWarp * kvWarps; }
  /// Threads per CTA: the computing warps and the producer warpgroup.
  int64_t numThreads() const { return 32 * numWarps() + (producerWarpgroup ? 128 : 0); }
  TileSizes tiles() const { return {blockQ, blockKV, kvSplits, packKVGroups}; }
  bool operator==(const KernelConfig &o) const {
    return family == o.family && blockQ == o.blockQ && blockKV == o.blockKV &&
           rowsPerWarp == o.rowsPerWarp && kvStages == o.kvStages &&
           swizzle == o.swizzle && packKVGroups == o.packKVGroups &&
           kvSplits == o.kvSplits && kvWarps == o.kvWarps && tmaLoads == o.tmaLoads &&
           producerWarpgroup == o.producerWarpgroup && overlapPV == o.overlapPV &&
           persistent == o.persistent;
  }
};

/// The f32 words a split leaves per query row beside its partial output:
/// its score max m and its sum ℓ, apart (SplitKVCombine.cpp says why not
/// one log-sum-exp). The workspace's, the kernels' and the cost model's
/// count.
constexpr int64_t kSplitRowStatWords = 2;

/// Keys per split of `config` on `shape`: the K/V tiles dealt out evenly,
/// ⌈⌈Lk / block_kv⌉ / kv_splits⌉ tiles each (Lk when not split).
int64_t kvSplitKeys(const KernelConfig &config, const AttentionShape &shape);

/// CTAs of `config` on `shape` that one SM holds at once, bounded by shared
/// memory (the target's per-block budget plus the 1 KB the driver reserves
/// per CTA), by registers (64K per SM at the 255 per thread a kernel may
/// use, or the launch bound's count) and by the 32 CTAs an SM schedules.
int64_t residentCTAsPerSM(const KernelConfig &config, const AttentionShape &shape,
                          const TargetSpec &target, bool readsMaskTensor);

/// The CTAs per SM that `config`'s kernel asks ptxas to fit (its launch
/// bound, `.minnctapersm`; 0: none): 1 for a producer warpgroup (setmaxnreg)
/// and wherever shared memory holds one CTA per SM (so that ptxas does not
/// trade registers for a CTA that can never be resident), 2 for two wgmma
/// warpgroups whose accumulators leave room at 128
/// registers per thread and whose shared memory fits twice, on whole key
/// tiles of dense K/V, with no mask tensor and no split keys.
int64_t launchBoundCTAsPerSM(const KernelConfig &config, const AttentionShape &shape,
                             const TargetSpec &target, bool readsMaskTensor);

/// Whether `config`'s CTAs should be persistent (KernelConfig::persistent):
/// a causal producer kernel with the overlapped P·V whose work items
/// (query tiles × batch · heads) pair up (an even number of query tiles:
/// pairsCausalWorkItems) and
/// outnumber the CTAs the GPU holds at once, on unsplit dense keys in whole
/// tiles, dv <= 128, no mask tensor or score_mod (bench/NOTES.md v34b).
bool persistentCTAsPay(const KernelConfig &config, const AttentionShape &shape,
                       const TargetSpec &target, bool readsMaskTensor);

/// Explicit choices (pass options); 0 or nullopt leaves the field to the
/// chooser.
struct KernelConfigRequest {
  std::optional<TensorCoreFamily> family;
  int64_t blockQ = 0, blockKV = 0, rowsPerWarp = 0, kvStages = 0;
  /// 0: chosen by the wave model; 1: no split; S > 1: S splits.
  int64_t kvSplits = 0;
  /// 0: chosen (the streaming model for small-query kernels, else 1).
  int64_t kvWarps = 0;
  bool swizzle = false;
  /// nullopt: chosen (kernelLoadsByTma); true or false: asked for.
  std::optional<bool> tmaLoads;
  /// nullopt: chosen; true asks for TMA by a producer warpgroup.
  std::optional<bool> producerWarpgroup;
  /// nullopt: chosen; true or false: asked for.
  std::optional<bool> overlapPV;
  /// nullopt: chosen; true or false: asked for.
  std::optional<bool> persistent;
  /// 8-bit float inputs: the FP8 tensor-core kernel (true), the generic
  /// CUDA-core kernel (false), or nullopt: kFP8TensorCoresByDefault.
  std::optional<bool> fp8TensorCores;
};

/// Whether 8-bit float inputs take the FP8 tensor-core kernel unless
/// `fp8-mma=off` asks for the generic one: yes. With V transposed by a
/// pre-kernel it runs 1.03-1.27x the bf16 kernel at d = 128, N = 2k-16k
/// (1.16-1.27x at N >= 4k; bench/NOTES.md v43h, H200), 1.3-1.55x the
/// kernel that transposed V in its producer (v43), within the numerics
/// contract (its error against fp64 below the unfused FP8 chain's); the
/// generic kernel is exact to the output's rounding but ~100x slower.
inline constexpr bool kFP8TensorCoresByDefault = true;

/// The `kv-loads=`, `overlap-pv=`, `persistent=` and `fp8-mma=` values into `request`,
/// or an error naming the option and the values it takes
/// (KernelConfigOptions.cpp).
llvm::Error applyLoadOptions(llvm::StringRef kvLoads, llvm::StringRef overlapPV,
                             llvm::StringRef persistent, llvm::StringRef fp8Mma,
                             KernelConfigRequest &request);

/// Whether the Q tile is staged in shared memory: always for wgmma (its A
/// operand of Q·Kᵀ is read by descriptor), and for mma.sync when Q's
/// fragments would take more than 64 registers (m-tiles x d > 128).
bool stagesQInSharedMemory(const KernelConfig &config, const AttentionShape &shape);

/// An estimate of the registers per thread that the K/V loop keeps live,
/// in the family's own units (the families keep different things live; see
/// the definition): O, one tile's scores, Q·Kᵀ's per-k-step operands and,
/// for mma.sync, Q's fragments where they stay in registers and the
/// zero-fill sizes of the copies when the key count is dynamic, and for a
/// producer kernel the loop state a mask tensor (`mask`: PerKey or
/// PerScore) or split keys add (a window beside the causal mask included).
/// The chooser keeps it within loopRegisterBudget(family).
int64_t loopRegistersPerThread(const KernelConfig &config, const AttentionShape &shape,
                               MaskReads mask = MaskReads::None);

/// The estimate a kernel of `family` may reach without spilling, calibrated
/// with ptxas and the H200 runs. mma.sync, 176: v6 measured 32 rows per
/// warp spilling at d = 128 with 64-key tiles (208) and not with 32 (176);
/// d = 192/128 with 32 rows spills 20 bytes (184); d = 64's default is 168.
/// wgmma, 288: d = 128 with 128-key tiles (288) and d = 256 with 64-key
/// tiles (288) assemble without spills at 205-254 registers; d = 160 and
/// d = 192/128 with 128-key tiles (312, 304) spill 208-560 bytes when the
/// keys end inside a tile.
int64_t loopRegisterBudget(TensorCoreFamily family);
/// The budget of `config`'s kernel: its family's, or, with a producer
/// warpgroup, 304: the computing threads then hold setmaxnreg's 240
/// registers, allocated for the computing branch alone, and d = 192/128
/// with 128-key tiles (304) assembles with 0 spills there, causal with a
/// partial last tile included, and runs 1.16-1.22x its 64-key tiling
/// (bench/NOTES.md v29f).
int64_t loopRegisterBudget(const KernelConfig &config);

/// Bytes of shared memory one CTA of `config` uses for `shape` (2-byte
/// elements): the K/V stages, the Q tile where it is staged, and the wgmma
/// path's 1024-byte alignment slack.
int64_t kernelSharedMemoryBytes(const KernelConfig &config,
                                const AttentionShape &shape);

/// Why `config` cannot compute `shape` on `target`, or success: the
/// family's tile sets and MMA shapes, head dims, element type and the
/// shared memory one CTA may use (`target.sramBytesPerBlock`).
llvm::Error checkKernelConfig(const KernelConfig &config,
                              const AttentionShape &shape,
                              const TargetSpec &target);

/// The one chooser: the request's explicit fields, the rest from the
/// measured rules, then checkKernelConfig. An illegal explicit request is
/// an error with the reason, never a silent fallback. The family defaults
/// to the target chip's (`defaultTensorCoreFamily(target.chip)`).
llvm::Expected<KernelConfig>
chooseKernelConfig(const AttentionShape &shape, MaskReads mask,
                   const TargetSpec &target,
                   const KernelConfigRequest &request = {});

/// Whether the refusal of `request` for `shape` is the request's doing:
/// with only the request's family (its tiles, stages and splits left to the
/// chooser) a kernel runs the shape. Such a refusal is the caller's error
/// (they asked for a kernel that cannot run it); any other means no kernel
/// runs the shape, and the passes fall back to the unfused form.
bool isRefusedOnlyByRequest(const AttentionShape &shape, MaskReads mask,
                            const TargetSpec &target,
                            const KernelConfigRequest &request);

} // namespace attn
} // namespace mlir

#endif // ATTN_ANALYSIS_KERNELCONFIG_H

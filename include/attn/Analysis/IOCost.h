//===- IOCost.h - IO cost and roofline model for attention ------*- C++ -*-===//
//
// The one place where attn-opt's cost formulas live. The `--attn-io-cost`
// pass, its JSON report, the roofline SVG, the Python binding and the tile
// choice of `--attn-fuse` all call this library; none re-derives a formula.
//
// Model (FlashAttention paper, Dao et al. 2022, and the roofline of Williams
// et al. 2009):
//   * FLOPs  = 2·B·Hq·Lq·Lk·d + 2·B·Hq·Lq·Lk·dv, halved when causal (the
//     community convention, kept so our TFLOP/s compare with others').
//   * Unfused bytes (Algorithm 0): Q, K, V read, S written, S read, P written,
//     P read, O written: e·B·[Hq·Lq·d + Hkv·Lk·(d+dv) + Hq·Lq·dv + 4·Hq·Lq·Lk].
//   * Fused bytes crossing SRAM<-L2: each Q tile of Br rows streams the K/V
//     it needs: e·B·Hq·[Lq·d + Σ_tiles visitedKeys·(d+dv) + Lq·dv]. Without
//     causal skipping the sum is ⌈Lq/Br⌉·Lk.
//   * Fused bytes crossing L2<-DRAM: two regimes (see fusedDramRegime()).
//   * Roofline: intensity I = FLOPs / bytes, ridge = peak / bandwidth,
//     time = max(FLOPs / peak, bytes / bandwidth).
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_ANALYSIS_IOCOST_H
#define ATTN_ANALYSIS_IOCOST_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace attn {

/// Element precision of an attention problem.
/// F8: either 8-bit float (E4M3FN or E5M2): one byte, the FP8 tensor peak.
enum class DType { F16, BF16, F32, F64, F8 };

/// Parses "f16", "bf16", "f32", "f64", "f8".
std::optional<DType> parseDType(llvm::StringRef name);
llvm::StringRef stringifyDType(DType t);
int64_t elementBytes(DType t);

/// A GPU as the cost model sees it. Every field can be overridden from the
/// pass options, so the model also serves hardware without a preset.
struct TargetSpec {
  std::string name;
  /// The chip the preset names (a100: sm_80; a10: sm_86; l40s: sm_89; h100,
  /// h200: sm_90a; rtx5090: sm_120): it picks
  /// the tensor-core family of the kernel the cost is for.
  std::string chip;
  /// M: shared memory one thread block may use, in bytes.
  int64_t sramBytesPerBlock = 0;
  int64_t smCount = 0;
  /// Resident CTAs per SM of the fused kernel: with smCount, how many query
  /// tiles are in flight at once. 2 is what FlashAttention-2's and attn-opt's
  /// 4-warp kernels run at on Hopper (register-bound, ~240 registers).
  int64_t ctasPerSm = 2;
  int64_t l2Bytes = 0;
  /// DRAM (HBM) bandwidth, bytes per second.
  double hbmBytesPerSec = 0;
  /// L2 -> SM bandwidth, bytes per second (from microbenchmarks; datasheets
  /// do not state it).
  double l2BytesPerSec = 0;
  /// Dense tensor-core peaks in FLOP/s (f32 means TF32 inputs; f8 the FP8
  /// peak, or on a chip without FP8 tensor cores the f16 one, which a
  /// kernel converting FP8 to f16 runs at best).
  double tensorF16 = 0, tensorBF16 = 0, tensorF32 = 0, tensorF64 = 0, tensorF8 = 0;
  /// Peak non-tensor f32 FLOP/s (CUDA cores): softmax runs here.
  double scalarF32 = 0;

  /// Tensor peak used for matmuls of the given input precision.
  double peakFor(DType t) const;
  /// Ridge point peak / HBM bandwidth, in FLOP per byte.
  double ridge(DType t) const { return peakFor(t) / hbmBytesPerSec; }
};

/// Checks that every field the model divides by or multiplies with is a
/// positive, finite number (and SRAM large enough for the smallest 16x16
/// tile of one element byte): the one validity rule for presets and user
/// overrides alike. The error names the field.
llvm::Error validateTarget(const TargetSpec &target);

/// Presets "a100", "a10", "l40s", "h100", "h200", "rtx5090"; std::nullopt
/// for other names.
std::optional<TargetSpec> getTargetPreset(llvm::StringRef name);
/// The preset names, for diagnostics and --help.
std::vector<std::string> getTargetPresetNames();

/// Shapes of one attention problem. Hkv < Hq is GQA/MQA.
struct AttentionShape {
  int64_t batch = 1;      // product of all batch dims
  int64_t headsQ = 1;     // Hq
  int64_t headsKV = 1;    // Hkv (divides Hq)
  int64_t seqQ = 0;       // Lq
  int64_t seqKV = 0;      // Lk
  int64_t headDim = 0;    // d
  int64_t headDimV = 0;   // dv
  DType dtype = DType::BF16;
  /// The output's type where it differs from the inputs' (FP8 inputs give
  /// an f16, bf16 or f32 output); O's bytes are counted in it.
  std::optional<DType> outputDType;
  bool causal = false;
  /// With causal: true for the bottom-right diagonal (j <= i + Lk - Lq).
  bool causalBottomRight = false;
  /// Paged KV cache: tokens per page (0: contiguous K/V). Lk is then the
  /// block table's capacity.
  int64_t pageSize = 0;
  /// A packed variable-length batch (attn.varlen_attention): B sequences
  /// whose lengths are known at run time only, seen as B of the mean
  /// lengths Lq and Lk; its kernels never split the keys.
  bool varlen = false;
  /// Keys a row can keep at all, as offsets j − i from its query row i: a
  /// score_mod region's sliding window or band (getScoreModKeyBounds), no
  /// key below i + lowestKeyOffset or above i + highestKeyOffset; nullopt:
  /// no bound. The causal diagonal is `causal`'s, not folded in here. The
  /// fused kernels skip the K/V tiles outside, so the models count only
  /// the tiles inside (visitedKeysOfRows).
  std::optional<int64_t> lowestKeyOffset, highestKeyOffset;
};

/// Tile sizes of the fused kernel: Br query rows by Bc keys.
struct TileSizes {
  int64_t blockQ = 0;  // Br
  int64_t blockKV = 0; // Bc
  /// Split-KV: CTAs per query tile along the keys, whose partial outputs
  /// (f32 O and log-sum-exp) go through memory to a combine kernel.
  int64_t kvSplits = 1;
  /// GQA head packing: a tile's Br rows are Br/G queries of the G query
  /// heads of one K/V head, which then read each K/V tile once.
  bool packKVGroups = false;
};

/// Whether the models can count `shape` (its extents positive): every
/// extent at most 2^40 and every tensor's element count at most 2^62, so
/// that no product of the cost model or the config chooser overflows. A
/// tensor beyond that exists on no machine; the error says which extent.
llvm::Error checkCountableShape(const AttentionShape &shape);

/// The rule, documented in the `--attn-io-cost` pass description:
///  1. FlashAttention's start: Bc = ⌈M / (4·d·e)⌉, Br = min(Bc, d), with M in
///     bytes and e the element size (the paper counts M in elements).
///  2. Round each down to a power of two in [16, 128]: 16 is the MMA m/k
///     granularity; past 128 the per-thread register tiles no longer fit.
///  3. Registers: 4 warps hold the f32 output tile Br×dv and score tile Br×Bc,
///     (Br·dv + Br·Bc)/128 + 32 (addresses, softmax state) <= 255 per thread.
///  4. Shared memory: the Q tile and two K/V stages (double buffering),
///     e·(Br·d + 2·Bc·(d + dv)) <= M.
///  Steps 3-4 halve Bc first (down to 32), then Br, until both hold.
TileSizes chooseTileSizes(const AttentionShape &shape, const TargetSpec &target);

/// Whether the K/V re-reads of the fused kernel are served by L2, or each
/// wave of CTAs over a head reads its K/V from DRAM again.
enum class DramRegime { KVFitsL2, KVRereadPerWave };

/// Everything the model says about one attention op.
struct AttentionCost {
  AttentionShape shape;
  TileSizes tiles;
  int64_t flops = 0;            // convention: halved when causal
  int64_t expCount = 0;         // one exp per (unmasked) score
  int64_t naiveHbmBytes = 0;    // Algorithm 0
  /// Bytes into SRAM from L2, plus O written (and, with split-KV, the
  /// partial outputs written and read back by the combine kernel).
  int64_t fusedSramL2Bytes = 0;
  /// DRAM traffic of the fused kernel(s): split-KV's partial outputs count
  /// once written and once read.
  int64_t fusedDramReadBytes = 0;
  int64_t fusedDramWriteBytes = 0;
  int64_t fusedDramBytes() const { return fusedDramReadBytes + fusedDramWriteBytes; }
  /// K/V bytes of the heads that are in flight at once.
  int64_t kvWorkingSetBytes = 0;
  DramRegime dramRegime = DramRegime::KVFitsL2;
  double intensityNaive = 0;   // FLOPs / naive bytes
  double intensityFused = 0;   // FLOPs / fused DRAM bytes
  double intensityFusedL2 = 0; // FLOPs / fused SRAM<-L2 bytes
  double ridge = 0;            // peak / HBM bandwidth
  bool naiveMemoryBound = true;
  bool fusedMemoryBound = true;
  double predictedTimeNaiveSec = 0;
  double predictedTimeFusedSec = 0;
  double predictedSpeedup() const {
    return predictedTimeNaiveSec / predictedTimeFusedSec;
  }
};

/// Runs the model. `tiles` overrides the chosen tile sizes when set. Fails
/// with a message on invalid shapes (zero or negative extents, Hq not a
/// multiple of Hkv) or when a byte or FLOP count overflows int64.
llvm::Expected<AttentionCost>
computeAttentionCost(const AttentionShape &shape, const TargetSpec &target,
                     std::optional<TileSizes> tiles = std::nullopt);

/// Number of keys each query tile visits, summed over query tiles (times
/// nothing else). K/V tiles wholly above the causal diagonal or outside the
/// key offsets are skipped at Bc granularity, as the fused kernel does. -1
/// when the count overflows int64.
int64_t visitedKeysPerHead(const AttentionShape &shape, TileSizes tiles);
/// The keys the query rows firstRow..lastRow visit together: those of the
/// Bc-key tiles holding a key one of them can keep (visitedKeysPerHead's
/// tiles), clamped to Lk; 0 when they keep none.
int64_t visitedKeysOfRows(const AttentionShape &shape, int64_t blockKV, int64_t firstRow,
                          int64_t lastRow);
/// The most keys one query tile of `tiles.blockQ` rows visits: Lk unless a
/// key band (lowestKeyOffset with highestKeyOffset or the causal diagonal)
/// narrows every tile's range.
int64_t mostVisitedKeysPerQueryTile(const AttentionShape &shape, TileSizes tiles);

/// Roofline of one op of an unfused chain (one kernel per op).
struct OpCost {
  std::string name;
  int64_t flops = 0;
  int64_t bytes = 0;
  double intensity = 0;
  bool memoryBound = true;
  double predictedTimeSec = 0;
};

/// Roofline numbers for a kernel doing `flops` on the tensor cores (or on the
/// CUDA cores when `tensorCores` is false) and moving `bytes` through DRAM.
OpCost rooflineOp(llvm::StringRef name, int64_t flops, int64_t bytes,
                  DType dtype, bool tensorCores, const TargetSpec &target);

/// The JSON object of one attention in the --attn-io-cost report (keys
/// `op`, `B`, `H`, `Hkv`, `Lq`, `Lk`, `d`, `dv`, `dtype`, `causal`, `flops`,
/// `naive_hbm_bytes`, `fused_sram_l2_bytes`, `fused_dram_bytes`, ...).
llvm::json::Object attentionCostToJSON(llvm::StringRef name, const AttentionCost &c);
/// The report's top-level `target` object.
llvm::json::Object targetToJSON(const TargetSpec &t);

} // namespace attn
} // namespace mlir

#endif // ATTN_ANALYSIS_IOCOST_H

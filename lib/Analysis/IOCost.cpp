//===- IOCost.cpp - IO cost and roofline model for attention --------------===//
#include "attn/Analysis/IOCost.h"
#include "attn/Analysis/KernelConfig.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::attn;

std::optional<DType> mlir::attn::parseDType(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<DType>>(name)
      .Case("f16", DType::F16)
      .Case("bf16", DType::BF16)
      .Case("f32", DType::F32)
      .Case("f64", DType::F64)
      .Case("f8", DType::F8)
      .Default(std::nullopt);
}

llvm::StringRef mlir::attn::stringifyDType(DType t) {
  switch (t) {
  case DType::F16: return "f16";
  case DType::BF16: return "bf16";
  case DType::F32: return "f32";
  case DType::F64: return "f64";
  case DType::F8: return "f8";
  }
  llvm_unreachable("unknown dtype");
}

int64_t mlir::attn::elementBytes(DType t) {
  switch (t) {
  case DType::F16:
  case DType::BF16: return 2;
  case DType::F32: return 4;
  case DType::F64: return 8;
  case DType::F8: return 1;
  }
  llvm_unreachable("unknown dtype");
}

double TargetSpec::peakFor(DType t) const {
  switch (t) {
  case DType::F16: return tensorF16;
  case DType::BF16: return tensorBF16;
  case DType::F32: return tensorF32;
  case DType::F64: return tensorF64;
  case DType::F8: return tensorF8;
  }
  llvm_unreachable("unknown dtype");
}

namespace {
/// One chip's datasheet numbers, in the units datasheets print them.
struct Preset {
  llvm::StringLiteral name, chip;
  int64_t sramKiBPerBlock, smCount, l2MiB;
  double dramTBps, l2TBps;
  /// Dense tensor-core TFLOP/s: FP16/BF16 (f32 accumulation), TF32, FP64
  /// (or the CUDA cores' FP64 where there are no FP64 tensor cores), FP8
  /// (the FP16 peak where there are no FP8 tensor cores: FP8 converted to
  /// f16 runs at it); and the CUDA cores' FP32.
  double f16, tf32, f64, f8, scalarF32;
};

/// Sources: NVIDIA's datasheets and whitepapers (cited per row). L2
/// bandwidth is on no datasheet: microbenchmarks for the A100 and H100/H200;
/// for the others 2.5x DRAM, the A100's ratio. Shared memory per block is
/// what one block may opt into (CCCL arch_traits: the SM's minus 1 KB).
constexpr Preset kPresets[] = {
    // A100 80GB PCIe: 108 SMs, 40 MB L2, 1,935 GB/s HBM2e; 312 / 156 / 19.5
    // (FP64 tensor) / 19.5 FP32. 312 / 1.935 is the seeds' ridge, 161.2.
    {"a100", "sm_80", 163, 108, 40, 1.935, 4.8, 312, 156, 19.5, 312, 19.5},
    // A10 (GA102, sm_86): 72 SMs, 6 MB L2, 600 GB/s GDDR6; 125 / 62.5 /
    // FP64 at 1/64 of the 31.2 FP32. 99 KB per block.
    {"a10", "sm_86", 99, 72, 6, 0.6, 1.5, 125, 62.5, 31.2 / 64, 125, 31.2},
    // L40S (AD102, sm_89): 142 SMs, 96 MB L2, 864 GB/s GDDR6; 362 / 183 /
    // FP64 at 1/64 of 91.6 FP32 / 733 FP8. 99 KB per block.
    {"l40s", "sm_89", 99, 142, 96, 0.864, 2.16, 362, 183, 91.6 / 64, 733, 91.6},
    // H100 SXM5: 132 SMs, 50 MB L2, 3.35 TB/s HBM3, 227 KB per block; 989.4
    // / 494.7 / 66.9 / 1,978.9 FP8 / 66.9.
    {"h100", "sm_90a", 227, 132, 50, 3.35, 7.0, 989.4, 494.7, 66.9, 1978.9, 66.9},
    // H200 SXM: the H100's GH100 with 4.8 TB/s HBM3e; the H200 we measure
    // on reports 60 MB of L2 (shared/ANCHORS.md). Ridge 989.4 / 4.8 = 206.
    {"h200", "sm_90a", 227, 132, 60, 4.8, 7.0, 989.4, 494.7, 66.9, 1978.9, 66.9},
    // GeForce RTX 5090 (GB202, sm_120): 170 SMs, 96 MB L2, 1,792 GB/s
    // GDDR7; with f32 accumulation 209.5 FP16/BF16, 419 FP8; 104.8 TF32 and
    // FP32, FP64 at 1/64. 99 KB per block.
    {"rtx5090", "sm_120", 99, 170, 96, 1.792, 4.48, 209.5, 104.8, 104.8 / 64, 419, 104.8},
};
} // namespace

std::optional<TargetSpec> mlir::attn::getTargetPreset(llvm::StringRef name) {
  const Preset *p = llvm::find_if(kPresets, [&](const Preset &p) { return p.name == name; });
  if (p == std::end(kPresets))
    return std::nullopt;
  TargetSpec t;
  t.name = name.str();
  t.chip = p->chip.str();
  t.sramBytesPerBlock = p->sramKiBPerBlock * 1024;
  t.smCount = p->smCount;
  t.l2Bytes = p->l2MiB << 20;
  t.hbmBytesPerSec = p->dramTBps * 1e12;
  t.l2BytesPerSec = p->l2TBps * 1e12;
  t.tensorF16 = t.tensorBF16 = p->f16 * 1e12;
  t.tensorF32 = p->tf32 * 1e12;
  t.tensorF64 = p->f64 * 1e12;
  t.tensorF8 = p->f8 * 1e12;
  t.scalarF32 = p->scalarF32 * 1e12;
  return t;
}

std::vector<std::string> mlir::attn::getTargetPresetNames() {
  std::vector<std::string> names;
  for (const Preset &p : kPresets)
    names.push_back(p.name.str());
  return names;
}

//===----------------------------------------------------------------------===//
// Checked arithmetic: every count goes through these, so a huge shape gives
// an error instead of a wrapped (and plausible-looking) number.
//===----------------------------------------------------------------------===//

namespace {
struct Checked {
  int64_t value = 0;
  bool overflow = false;
  Checked(int64_t v = 0) : value(v) {}
  Checked operator*(Checked o) const {
    Checked r;
    r.overflow = overflow || o.overflow ||
                 __builtin_mul_overflow(value, o.value, &r.value);
    return r;
  }
  Checked operator+(Checked o) const {
    Checked r;
    r.overflow = overflow || o.overflow ||
                 __builtin_add_overflow(value, o.value, &r.value);
    return r;
  }
};
} // namespace

/// ⌈a / b⌉ for a >= 0, b > 0, without the overflow of (a + b - 1) / b.
static int64_t ceilDiv(int64_t a, int64_t b) {
  return static_cast<int64_t>(llvm::divideCeil(static_cast<uint64_t>(a),
                                               static_cast<uint64_t>(b)));
}

/// Largest power of two <= v, clamped to [lo, hi].
static int64_t powerOfTwoIn(int64_t v, int64_t lo, int64_t hi) {
  int64_t p = lo;
  while (p * 2 <= std::min(v, hi))
    p *= 2;
  return p;
}

TileSizes mlir::attn::chooseTileSizes(const AttentionShape &shape,
                                      const TargetSpec &target) {
  int64_t e = elementBytes(shape.dtype);
  // (Clamped: this runs before the shape is validated, and any head dim
  // beyond 2^40 gives the same 16-row tiles.)
  int64_t d = std::clamp<int64_t>(shape.headDim, 1, int64_t(1) << 40);
  int64_t dv = std::clamp<int64_t>(shape.headDimV, 1, int64_t(1) << 40);
  int64_t mElems = std::max<int64_t>(target.sramBytesPerBlock / e, 1);
  // Step 1: FlashAttention's Bc = ceil(M/4d), Br = min(Bc, d).
  int64_t bc = ceilDiv(mElems, 4 * d);
  int64_t br = std::min(bc, d);
  // Step 2: MMA-friendly powers of two in [16, 128].
  TileSizes t{powerOfTwoIn(br, 16, 128), powerOfTwoIn(bc, 16, 128)};
  // Steps 3-4: register and shared-memory budgets.
  auto regsPerThread = [&](const TileSizes &s) {
    return (s.blockQ * dv + s.blockQ * s.blockKV) / 128 + 32;
  };
  auto smemBytes = [&](const TileSizes &s) {
    return e * (s.blockQ * d + 2 * s.blockKV * (d + dv));
  };
  while (regsPerThread(t) > 255 || smemBytes(t) > target.sramBytesPerBlock) {
    if (t.blockKV > 32)
      t.blockKV /= 2;
    else if (t.blockQ > 16)
      t.blockQ /= 2;
    else if (t.blockKV > 16)
      t.blockKV /= 2;
    else
      break; // 16x16 is the floor; huge d simply exceeds the budget.
  }
  return t;
}

/// A key offset j − i clamped to ±(Lq + Lk): lossless for rows in [0, Lq)
/// and keys in [0, Lk), and no sum with a row below overflows (the extents
/// are at most 2^40: checkCountableShape).
static int64_t clampKeyOffset(const AttentionShape &s, int64_t offset) {
  int64_t reach = s.seqQ + s.seqKV;
  return std::clamp(offset, -reach, reach);
}

int64_t mlir::attn::visitedKeysOfRows(const AttentionShape &s, int64_t blockKV,
                                      int64_t firstRow, int64_t lastRow) {
  // Row i keeps keys i + lowest .. i + highest (the causal diagonal's
  // offset folded into highest); no row keeps any when lowest > highest.
  const int64_t reach = s.seqQ + s.seqKV;
  int64_t lowest = s.lowestKeyOffset ? clampKeyOffset(s, *s.lowestKeyOffset) : -reach;
  int64_t highest = s.highestKeyOffset ? clampKeyOffset(s, *s.highestKeyOffset) : reach;
  if (s.causal)
    highest = std::min(highest, s.causalBottomRight ? s.seqKV - s.seqQ : 0);
  int64_t minKey = std::max<int64_t>(0, firstRow + lowest),
          maxKey = std::min(s.seqKV - 1, lastRow + highest);
  if (lowest > highest || maxKey < minKey)
    return 0;
  // Whole K/V tiles, the last one cut at Lk.
  return std::min(s.seqKV, (maxKey / blockKV + 1) * blockKV) - minKey / blockKV * blockKV;
}

/// Whether some row's keys are bounded (causal or a key offset), so that
/// query tiles may visit fewer than Lk keys.
static bool boundsKeys(const AttentionShape &s) {
  return s.causal || s.lowestKeyOffset || s.highestKeyOffset;
}

/// Past this many query tiles per head the models do not walk them (Lq of
/// 2^29 rows and more: no attention in use).
static constexpr int64_t kMostQueryTilesWalked = int64_t(1) << 22;

/// The keys query tile `i` of `t.blockQ` rows visits (visitedKeysOfRows).
static int64_t keysOfQueryTile(const AttentionShape &s, TileSizes t, int64_t i) {
  return visitedKeysOfRows(s, t.blockKV, i * t.blockQ, std::min(s.seqQ, (i + 1) * t.blockQ) - 1);
}

int64_t mlir::attn::visitedKeysPerHead(const AttentionShape &s, TileSizes t) {
  int64_t qTiles = ceilDiv(s.seqQ, t.blockQ);
  auto keysOfTile = [&](int64_t i) { return keysOfQueryTile(s, t, i); };
  int64_t total;
  if (!boundsKeys(s)) {
    if (__builtin_mul_overflow(qTiles, s.seqKV, &total))
      return -1;
    return total;
  }
  if (qTiles > kMostQueryTilesWalked) {
    // Too many tiles to walk. Causal alone: the trapezoid's area, exact up
    // to tile edges; a key band: the middle tile's keys for every tile (the
    // band's width, over by the clipped tiles at either end).
    int64_t area;
    bool overflow = s.lowestKeyOffset || s.highestKeyOffset
                        ? __builtin_mul_overflow(qTiles, keysOfTile(qTiles / 2), &area)
                        : __builtin_mul_overflow(qTiles / 2, keysOfTile(0) + keysOfTile(qTiles - 1),
                                                 &area);
    return overflow ? -1 : area;
  }
  total = 0;
  for (int64_t i = 0; i < qTiles; ++i)
    if (__builtin_add_overflow(total, keysOfTile(i), &total))
      return -1;
  return total;
}

int64_t mlir::attn::mostVisitedKeysPerQueryTile(const AttentionShape &s, TileSizes t) {
  int64_t qTiles = ceilDiv(s.seqQ, t.blockQ);
  if (!boundsKeys(s) || qTiles > kMostQueryTilesWalked)
    return s.seqKV;
  int64_t most = 0;
  for (int64_t i = 0; i < qTiles; ++i)
    most = std::max(most, keysOfQueryTile(s, t, i));
  return most;
}

llvm::Error mlir::attn::validateTarget(const TargetSpec &t) {
  auto bad = [&](const char *field, const llvm::Twine &value) {
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "target '" + t.name + "': " + field +
            " must be a positive, finite number, got " + value);
  };
  for (auto [field, v] : {std::pair<const char *, int64_t>{"sram-bytes", t.sramBytesPerBlock},
                          {"sm-count", t.smCount},
                          {"ctas-per-sm", t.ctasPerSm},
                          {"l2-bytes", t.l2Bytes}})
    if (v <= 0)
      return bad(field, llvm::Twine(v));
  for (auto [field, v] : {std::pair<const char *, double>{"hbm-bandwidth", t.hbmBytesPerSec},
                          {"l2-bandwidth", t.l2BytesPerSec},
                          {"peak-f16", t.tensorF16},
                          {"peak-bf16", t.tensorBF16},
                          {"peak-f32", t.tensorF32},
                          {"peak-f64", t.tensorF64},
                          {"peak-f8", t.tensorF8},
                          {"peak-scalar", t.scalarF32}})
    if (!(v > 0) || !std::isfinite(v))
      return bad(field, llvm::formatv("{0}", v).str());
  // The smallest tile the model chooses (16x16, one-byte elements, d = 16):
  // Q plus double-buffered K and V. An SRAM below that holds no tile.
  constexpr int64_t kSmallestTileBytes = 16 * 16 + 2 * 16 * (16 + 16);
  if (t.sramBytesPerBlock < kSmallestTileBytes)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "target '" + t.name + "': sram-bytes " +
            llvm::Twine(t.sramBytesPerBlock) + " holds no attention tile (at least " +
            llvm::Twine(kSmallestTileBytes) + " bytes)");
  return llvm::Error::success();
}

OpCost mlir::attn::rooflineOp(llvm::StringRef name, int64_t flops,
                              int64_t bytes, DType dtype, bool tensorCores,
                              const TargetSpec &target) {
  OpCost c;
  c.name = name.str();
  c.flops = flops;
  c.bytes = bytes;
  double peak = tensorCores ? target.peakFor(dtype) : target.scalarF32;
  c.intensity = bytes > 0 ? double(flops) / double(bytes) : 0.0;
  c.memoryBound = c.intensity < peak / target.hbmBytesPerSec;
  c.predictedTimeSec =
      std::max(double(flops) / peak, double(bytes) / target.hbmBytesPerSec);
  return c;
}

llvm::Error mlir::attn::checkCountableShape(const AttentionShape &s) {
  constexpr int64_t kMaxExtent = int64_t(1) << 40, kMaxElements = int64_t(1) << 62;
  auto fail = [](const llvm::Twine &msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
  };
  for (auto [name, v] : {std::pair<const char *, int64_t>{"batch", s.batch},
                         {"Hq", s.headsQ}, {"Hkv", s.headsKV}, {"Lq", s.seqQ},
                         {"Lk", s.seqKV}, {"d", s.headDim}, {"dv", s.headDimV}})
    if (v > kMaxExtent)
      return fail(llvm::Twine(name) + " = " + llvm::Twine(v) +
                  " exceeds 2^40, beyond what the cost model counts");
  // Q and O, K and V, and the scores each count at most 2^62 elements.
  auto fits = [&](std::initializer_list<int64_t> extents) {
    int64_t n = 1;
    for (int64_t e : extents)
      if (llvm::MulOverflow(n, e, n))
        return false;
    return n <= kMaxElements;
  };
  int64_t width = std::max(s.headDim, s.headDimV);
  if (!fits({s.batch, s.headsQ, s.seqQ, width}) || !fits({s.batch, s.headsKV, s.seqKV, width}) ||
      !fits({s.batch, s.headsQ, s.seqQ, s.seqKV}))
    return fail("the attention's tensors exceed 2^62 elements, beyond what the cost "
                "model counts");
  return llvm::Error::success();
}

llvm::Expected<AttentionCost>
mlir::attn::computeAttentionCost(const AttentionShape &s,
                                 const TargetSpec &target,
                                 std::optional<TileSizes> tiles) {
  auto fail = [](const llvm::Twine &msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
  };
  for (auto [name, v] : {std::pair<const char *, int64_t>{"batch", s.batch},
                         {"Hq", s.headsQ}, {"Hkv", s.headsKV}, {"Lq", s.seqQ},
                         {"Lk", s.seqKV}, {"d", s.headDim}, {"dv", s.headDimV}})
    if (v <= 0)
      return fail(llvm::Twine(name) + " must be positive, got " + llvm::Twine(v));
  if (s.headsQ % s.headsKV != 0)
    return fail("Hq (" + llvm::Twine(s.headsQ) +
                ") must be a multiple of Hkv (" + llvm::Twine(s.headsKV) + ")");
  if (llvm::Error e = checkCountableShape(s))
    return std::move(e);
  if (llvm::Error e = validateTarget(target))
    return std::move(e);

  AttentionCost c;
  c.shape = s;
  c.tiles = tiles ? *tiles : chooseTileSizes(s, target);
  if (c.tiles.blockQ <= 0 || c.tiles.blockKV <= 0)
    return fail("tile sizes must be positive");
  Checked e = elementBytes(s.dtype), B = s.batch, hq = s.headsQ,
          hkv = s.headsKV, lq = s.seqQ, lk = s.seqKV, d = s.headDim,
          dv = s.headDimV;

  Checked scores = B * hq * lq * lk;
  Checked fullFlops = Checked(2) * scores * (d + dv);
  c.flops = s.causal ? fullFlops.value / 2 : fullFlops.value;
  c.expCount = s.causal ? scores.value / 2 : scores.value;

  Checked eOut = elementBytes(s.outputDType.value_or(s.dtype));
  Checked qBytes = e * B * hq * lq * d, oBytes = eOut * B * hq * lq * dv;
  Checked kvBytes = e * B * hkv * lk * (d + dv);
  Checked naive = qBytes + kvBytes + oBytes + Checked(4) * e * scores;

  // SRAM <- L2: per (batch, q head), Q once, the visited K/V, O once. With
  // GQA head packing a tile of Br rows holds Br/G queries of all G heads
  // of a K/V head, which stream each K/V tile once for the group (a query
  // spread over G/Br tiles streams it in each).
  const int64_t group = s.headsQ / s.headsKV;
  TileSizes perHead = c.tiles;
  int64_t tilesPerQuery = 1;
  if (c.tiles.packKVGroups) {
    perHead.blockQ = std::max<int64_t>(1, c.tiles.blockQ / group);
    tilesPerQuery = ceilDiv(group, c.tiles.blockQ);
  }
  int64_t visitedKeys = visitedKeysPerHead(s, perHead);
  if (visitedKeys < 0)
    return fail("byte or FLOP count overflows int64 for this shape");
  Checked visited = visitedKeys;
  Checked kvStreamed =
      c.tiles.packKVGroups
          ? e * B * hkv * visited * Checked(tilesPerQuery) * (d + dv)
          : e * B * hq * visited * (d + dv);
  // Split-KV: every split writes its f32 partial output row and its row
  // statistics, which the combine kernel reads back.
  Checked splitPartials =
      c.tiles.kvSplits > 1
          ? Checked(4) * Checked(c.tiles.kvSplits) * B * hq * lq * (dv + kSplitRowStatWords)
          : Checked(0);
  Checked sramL2 = qBytes + kvStreamed + oBytes + splitPartials * 2;

  // L2 <- DRAM. The grid runs query tiles fastest, so the C = SMs x
  // CTAs-per-SM CTAs in flight cover ceil(C / T) query heads (T = query
  // tiles per head), which read ceil(those / group) K/V heads. If that K/V
  // fits in 1/4 of the L2, DRAM sees Q, K, V once. Otherwise each wave of C
  // CTAs over a head reads the head's K/V from DRAM again: 1 + (T-1)/C reads.
  // Fitted, not derived (bench/NOTES.md, 2026-11-29, 30 fused shapes of
  // FlashAttention-2 on the H200, d = 64 and 128, N = 1k..64k, GQA, MQA):
  // K/V reads track 1 + (T-1) / 264 once the heads in flight hold more than
  // ~15 MB of K/V, and stay at 1 below (d = 64, N <= 16k); the earlier
  // two-regime rules (fit in 1/2, then 3/4, else stream every re-read) were
  // off by up to 99%. The rule needs checks on shapes it was not fitted to.
  //
  // The heads in flight are counted as a fraction, C / T query heads (a
  // window that straddles a head holds only a few of its CTAs), but at
  // least one K/V head: every CTA sweeps all of its head's keys. Refined
  // on the stored H200 measurements (53 fused shapes of FlashAttention-2
  // and attn-opt's kernels, bench/iocost_dram_rules.py): within +-15% on
  // 47 (44 with whole heads); attn-opt's kernel at d = 128, N = 16k
  // (132 CTAs over 128-tile heads) reads K/V once, as the fraction says.
  int64_t qTilesPerHead = ceilDiv(s.seqQ, perHead.blockQ);
  int64_t ctasInFlight = std::max<int64_t>(
      llvm::SaturatingMultiply<uint64_t>(target.smCount, target.ctasPerSm) >
              uint64_t(std::numeric_limits<int64_t>::max())
          ? std::numeric_limits<int64_t>::max()
          : target.smCount * target.ctasPerSm,
      1);
  double qHeadsInFlight = std::min(double(ctasInFlight) / double(qTilesPerHead),
                                   double(s.batch * s.headsQ));
  double kvHeadsInFlight =
      std::min(std::max(1.0, qHeadsInFlight / double(group)), double(s.batch * s.headsKV));
  Checked perKVHead = Checked(e) * lk * (d + dv);
  // A fraction of heads, in bytes; guarded like the integer products.
  Checked workingSet = perKVHead;
  double workingSetBytes = kvHeadsInFlight * double(perKVHead.value);
  if (workingSetBytes >= 9.0e18)
    workingSet.overflow = true;
  else if (!perKVHead.overflow)
    workingSet.value = int64_t(std::ceil(workingSetBytes));

  Checked all[] = {scores, fullFlops, qBytes, oBytes, kvBytes, naive,
                   visited, kvStreamed, splitPartials, sramL2, workingSet};
  for (const Checked &v : all)
    if (v.overflow)
      return fail("byte or FLOP count overflows int64 for this shape");

  c.naiveHbmBytes = naive.value;
  c.fusedSramL2Bytes = sramL2.value;
  c.kvWorkingSetBytes = workingSet.value;
  c.fusedDramWriteBytes = oBytes.value + splitPartials.value;
  if (workingSet.value <= target.l2Bytes / 4) {
    c.dramRegime = DramRegime::KVFitsL2;
    c.fusedDramReadBytes = qBytes.value + kvBytes.value + splitPartials.value;
  } else {
    // Each wave of ctasInFlight CTAs over a head reads its K/V from DRAM
    // once: 1 + (T - 1) / C reads per head (a head with one query tile, as
    // in decode, is read once), never more than one per query tile.
    c.dramRegime = DramRegime::KVRereadPerWave;
    Checked rereads = kvBytes * (qTilesPerHead - 1);
    int64_t kvDram = kvBytes.value + rereads.value / ctasInFlight;
    if (rereads.overflow)
      return fail("byte or FLOP count overflows int64 for this shape");
    c.fusedDramReadBytes =
        qBytes.value + std::min(kvDram, kvStreamed.value) + splitPartials.value;
  }

  double peak = target.peakFor(s.dtype);
  c.ridge = target.ridge(s.dtype);
  // The unfused path computes the whole score matrix even when causal.
  c.intensityNaive = double(fullFlops.value) / double(c.naiveHbmBytes);
  c.intensityFused = double(c.flops) / double(c.fusedDramBytes());
  c.intensityFusedL2 = double(c.flops) / double(c.fusedSramL2Bytes);
  c.naiveMemoryBound = c.intensityNaive < c.ridge;
  c.fusedMemoryBound = c.intensityFused < c.ridge;
  c.predictedTimeNaiveSec =
      std::max(double(fullFlops.value) / peak,
               double(c.naiveHbmBytes) / target.hbmBytesPerSec);
  c.predictedTimeFusedSec =
      std::max({double(c.flops) / peak,
                double(c.fusedDramBytes()) / target.hbmBytesPerSec,
                double(c.fusedSramL2Bytes) / target.l2BytesPerSec});
  // Finite, positive inputs can still overflow a double (a bandwidth of
  // 1e-300 B/s): such a cost is not a number a report can carry.
  for (double v : {c.ridge, c.intensityNaive, c.intensityFused,
                   c.intensityFusedL2, c.predictedTimeNaiveSec,
                   c.predictedTimeFusedSec})
    if (!std::isfinite(v))
      return fail("the predicted cost is not finite on target '" +
                  target.name + "' (an override out of any real GPU's range)");
  return c;
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

llvm::json::Object mlir::attn::targetToJSON(const TargetSpec &t) {
  return llvm::json::Object{
      {"name", t.name},
      {"sram_bytes_per_block", t.sramBytesPerBlock},
      {"sm_count", t.smCount},
      {"ctas_per_sm", t.ctasPerSm},
      {"l2_bytes", t.l2Bytes},
      {"hbm_bytes_per_s", t.hbmBytesPerSec},
      {"l2_bytes_per_s", t.l2BytesPerSec},
      {"peak_tensor_flops",
       llvm::json::Object{{"f16", t.tensorF16}, {"bf16", t.tensorBF16},
                          {"f32", t.tensorF32}, {"f64", t.tensorF64},
                          {"f8", t.tensorF8}}},
      {"peak_scalar_f32_flops", t.scalarF32},
      {"ridge_bf16", t.ridge(DType::BF16)}};
}

llvm::json::Object mlir::attn::attentionCostToJSON(llvm::StringRef name,
                                                   const AttentionCost &c) {
  const AttentionShape &s = c.shape;
  llvm::json::Object o{
      {"op", name.str()}, // json::Value does not own a StringRef
      {"B", s.batch},
      {"H", s.headsQ},
      {"Hkv", s.headsKV},
      {"Lq", s.seqQ},
      {"Lk", s.seqKV},
      {"d", s.headDim},
      {"dv", s.headDimV},
      {"dtype", stringifyDType(s.dtype)},
      {"causal", s.causal},
      {"flops", c.flops},
      {"exp_count", c.expCount},
      {"naive_hbm_bytes", c.naiveHbmBytes},
      {"fused_sram_l2_bytes", c.fusedSramL2Bytes},
      {"fused_dram_bytes", c.fusedDramBytes()},
      {"fused_dram_read_bytes", c.fusedDramReadBytes},
      {"fused_dram_write_bytes", c.fusedDramWriteBytes},
      {"kv_working_set_bytes", c.kvWorkingSetBytes},
      {"dram_regime", c.dramRegime == DramRegime::KVFitsL2
                          ? "kv_fits_l2"
                          : "kv_reread_per_wave"},
      {"intensity_naive", c.intensityNaive},
      {"intensity_fused", c.intensityFused},
      {"intensity_fused_l2", c.intensityFusedL2},
      {"ridge", c.ridge},
      {"bound_naive", c.naiveMemoryBound ? "memory" : "compute"},
      {"bound_fused", c.fusedMemoryBound ? "memory" : "compute"},
      {"block_q", c.tiles.blockQ},
      {"block_kv", c.tiles.blockKV},
      {"predicted_time_naive_s", c.predictedTimeNaiveSec},
      {"predicted_time_fused_s", c.predictedTimeFusedSec},
      {"predicted_speedup", c.predictedSpeedup()}};
  // A score_mod's key band, where it has one (the visited keys count it).
  if (s.lowestKeyOffset)
    o["lowest_key_offset"] = *s.lowestKeyOffset;
  if (s.highestKeyOffset)
    o["highest_key_offset"] = *s.highestKeyOffset;
  return o;
}

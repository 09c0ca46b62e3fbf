//===- IOCostTest.cpp - unit tests of the cost model ----------------------===//
//
// Every expected number here was computed by hand from the formulas in
// IOCost.h; the comment above each states the arithmetic.
//
//===----------------------------------------------------------------------===//
#include "TestShapes.h"
#include "attn/Analysis/IOCost.h"

#include <gtest/gtest.h>

#include <limits>

using namespace mlir::attn;

namespace {

AttentionCost cost(const AttentionShape &s, const char *target,
                   std::optional<TileSizes> tiles = std::nullopt) {
  auto c = computeAttentionCost(s, *getTargetPreset(target), tiles);
  EXPECT_TRUE(static_cast<bool>(c)) << llvm::toString(c.takeError());
  return *c;
}

TEST(IOCost, RidgePoints) {
  // Seeds: A100 312 TFLOP/s / 1.935 TB/s = 161.2 FLOP/byte.
  EXPECT_NEAR(getTargetPreset("a100")->ridge(DType::F16), 161.24, 0.01);
  // H200: 989.4 / 4.8 = 206.1.
  EXPECT_NEAR(getTargetPreset("h200")->ridge(DType::BF16), 206.125, 0.01);
  EXPECT_FALSE(getTargetPreset("v100").has_value());
}

TEST(IOCost, SeedN16384OnA100) {
  // N = 16384, d = 64, fp16, one head.
  AttentionCost c = cost(square(1, 1, 16384, 64, DType::F16), "a100");
  // FLOPs = 4·N²·d = 4 · 268435456 · 64.
  EXPECT_EQ(c.flops, 68719476736);
  EXPECT_EQ(c.expCount, 268435456);
  // Naive = 2·[(2N)·d + N·d + N·d + 4N²] = 2·(4194304 + 1073741824).
  EXPECT_EQ(c.naiveHbmBytes, 2155872256);
  EXPECT_TRUE(c.naiveMemoryBound); // 31.9 FLOP/B < 161.2
  EXPECT_NEAR(c.intensityNaive, 31.875, 0.01);
  // Tiles: M = 163 KB = 83456 halves; Bc = ceil(83456/256) = 326 -> 128;
  // Br = min(326, 64) = 64.
  EXPECT_EQ(c.tiles.blockQ, 64);
  EXPECT_EQ(c.tiles.blockKV, 128);
  // SRAM<-L2 = 2·[N·d + (N/64)·N·2d + N·d] = 2·(2097152 + 536870912).
  EXPECT_EQ(c.fusedSramL2Bytes, 1077936128);
  // One head's K/V (4 MiB) fits in L2: DRAM reads Q, K, V once, writes O.
  EXPECT_EQ(c.dramRegime, DramRegime::KVFitsL2);
  EXPECT_EQ(c.fusedDramReadBytes, 6291456);
  EXPECT_EQ(c.fusedDramWriteBytes, 2097152);
  EXPECT_FALSE(c.fusedMemoryBound); // 8192 FLOP/B
  EXPECT_GT(c.predictedSpeedup(), 3.0);
}

TEST(IOCost, FlashAttentionCounterAnchorOnH200) {
  // ANCHORS.md: FA2 at B=1, H=16, N=4096, d=64, bf16 read 25.2 MB of DRAM,
  // exactly Q+K+V once: 3 · 16 · 4096 · 64 · 2 bytes.
  AttentionCost c = cost(square(1, 16, 4096, 64, DType::BF16), "h200");
  EXPECT_EQ(c.fusedDramReadBytes, 25165824);
  EXPECT_EQ(c.dramRegime, DramRegime::KVFitsL2);
  // The SRAM-only count is ~20x larger: 2·16·[4096·64·2 + 64·4096·128].
  EXPECT_EQ(c.fusedSramL2Bytes, 2 * 16 * (4096 * 64 * 2 + 64ll * 4096 * 128));
  EXPECT_GT(double(c.fusedSramL2Bytes) / c.fusedDramReadBytes, 19.0);
}

TEST(IOCost, KVRereadPerWaveWhenItDoesNotFitL2) {
  // A 1 MiB L2 cannot hold even one head's K/V at N = 16384, d = 128 (8 MiB):
  // each wave of 264 CTAs over a head reads its K/V again, 1 + (T - 1) / 264
  // times for T query tiles per head.
  TargetSpec t = *getTargetPreset("h200");
  t.l2Bytes = 1 << 20;
  auto c = computeAttentionCost(square(1, 4, 16384, 128, DType::BF16), t,
                                TileSizes{128, 64});
  ASSERT_TRUE(static_cast<bool>(c));
  EXPECT_EQ(c->dramRegime, DramRegime::KVRereadPerWave);
  int64_t q = 4ll * 16384 * 128 * 2, kv = 2 * q, tiles = 16384 / 128;
  EXPECT_EQ(c->fusedDramReadBytes, q + kv + kv * (tiles - 1) / 264);
  // Never more than one read per query tile: a tiny chip re-reads at most
  // what the SRAM level streams.
  t.smCount = 1;
  t.ctasPerSm = 1;
  c = computeAttentionCost(square(1, 4, 16384, 128, DType::BF16), t, TileSizes{128, 64});
  ASSERT_TRUE(static_cast<bool>(c));
  EXPECT_EQ(c->fusedDramReadBytes + c->fusedDramWriteBytes, c->fusedSramL2Bytes);
}

TEST(IOCost, LongSequenceRereadsKVPerWave) {
  // Measured on the H200 (bench/NOTES.md, io-cost check): FA2 at B=1, H=8,
  // N=65536, d=128, bf16, 128-row tiles read 1.08 GB from DRAM: not Q+K+V+O
  // once (537 MB), not every re-read (138 GB), but K/V once per wave of
  // 264 CTAs over each head's 512 query tiles.
  auto c = computeAttentionCost(square(1, 8, 65536, 128, DType::BF16),
                                *getTargetPreset("h200"), TileSizes{128, 64});
  ASSERT_TRUE(static_cast<bool>(c));
  EXPECT_EQ(c->kvWorkingSetBytes, 65536ll * 256 * 2); // one head in flight
  EXPECT_EQ(c->dramRegime, DramRegime::KVRereadPerWave);
  double measured = 1083e6;
  EXPECT_NEAR(double(c->fusedDramBytes()), measured, 0.05 * measured);
}

TEST(IOCost, StraddledHeadCountsAsAFraction) {
  // Measured on the H200 (bench/NOTES.md, io-cost vs the wgmma kernels):
  // attn-opt's d = 128 kernel at B=1, H=16, N=16384, 128x128 tiles, one CTA
  // per SM: 132 CTAs over heads of 128 query tiles hold 1.03 heads' K/V
  // (8.7 MB, not 2 heads' 16.8 MB), which fits, and DRAM read Q, K, V once:
  // 265 MB measured against 268 MB for Q+K+V+O.
  TargetSpec t = *getTargetPreset("h200");
  t.ctasPerSm = 1;
  auto c = computeAttentionCost(square(1, 16, 16384, 128, DType::BF16), t,
                                TileSizes{128, 128});
  ASSERT_TRUE(static_cast<bool>(c));
  int64_t perHead = 16384ll * 256 * 2;
  EXPECT_EQ(c->kvWorkingSetBytes, (perHead * 132 + 127) / 128);
  EXPECT_EQ(c->dramRegime, DramRegime::KVFitsL2);
  double measured = 265e6;
  EXPECT_NEAR(double(c->fusedDramBytes()), measured, 0.05 * measured);
  // A wave that covers part of one head still needs all of its K/V.
  c = computeAttentionCost(square(1, 16, 65536, 128, DType::BF16), t, TileSizes{128, 128});
  ASSERT_TRUE(static_cast<bool>(c));
  EXPECT_EQ(c->kvWorkingSetBytes, 65536ll * 256 * 2);
}

TEST(IOCost, CausalSkipsTilesAboveTheDiagonal) {
  AttentionShape s = square(1, 1, 256, 64, DType::F32);
  s.causal = true;
  // Br = Bc = 64: query tile i visits (i+1)·64 keys: 64+128+192+256.
  EXPECT_EQ(visitedKeysPerHead(s, {64, 64}), 640);
  s.causal = false;
  EXPECT_EQ(visitedKeysPerHead(s, {64, 64}), 1024);
  // Bottom-right with Lq = 64, Lk = 256: the one query tile sees every key.
  s.causal = true;
  s.causalBottomRight = true;
  s.seqQ = 64;
  EXPECT_EQ(visitedKeysPerHead(s, {64, 64}), 256);
  // Top-left with Lq = 64 < Lk = 256: only the first key tile.
  s.causalBottomRight = false;
  EXPECT_EQ(visitedKeysPerHead(s, {64, 64}), 64);
  // FLOPs are halved by convention.
  AttentionShape sq = square(2, 3, 128, 32, DType::F16);
  sq.causal = true;
  EXPECT_EQ(cost(sq, "h100").flops, 4ll * 2 * 3 * 128 * 128 * 32 / 2);
}

TEST(IOCost, KeyBandsSkipTilesOutside) {
  // A sliding window beside the causal diagonal: keys i − 96 .. i. Query
  // tile i (128 rows) keeps keys 128i − 96 .. 128i + 127: K/V tiles i − 1
  // and i (one for the first tile), the last cut at Lk = 777.
  AttentionShape s = square(1, 1, 777, 96, DType::BF16);
  s.causal = true;
  s.lowestKeyOffset = -96;
  EXPECT_EQ(visitedKeysOfRows(s, 128, 0, 127), 128);
  EXPECT_EQ(visitedKeysOfRows(s, 128, 128, 255), 256);
  EXPECT_EQ(visitedKeysOfRows(s, 128, 768, 776), 777 - 640);
  EXPECT_EQ(visitedKeysPerHead(s, {128, 128}), 128 + 5 * 256 + 137);
  EXPECT_EQ(mostVisitedKeysPerQueryTile(s, {128, 128}), 256);
  // The causal diagonal alone: the last query tile sees every key.
  s.lowestKeyOffset.reset();
  EXPECT_EQ(mostVisitedKeysPerQueryTile(s, {128, 128}), 777);
  // A two-sided band without causal, and one no row keeps any key of.
  s.causal = false;
  s.lowestKeyOffset = 0;
  s.highestKeyOffset = 255;
  EXPECT_EQ(visitedKeysOfRows(s, 128, 0, 127), 384);
  s.highestKeyOffset = -1;
  EXPECT_EQ(visitedKeysPerHead(s, {128, 128}), 0);
  // Offsets far past the extents (a region's constants) are clamped, not
  // overflowed.
  s.lowestKeyOffset = std::numeric_limits<int64_t>::min();
  s.highestKeyOffset = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(visitedKeysPerHead(s, {128, 128}), 7 * 777);
  // The band reaches the cost: fewer K/V bytes streamed into SRAM.
  AttentionShape full = square(1, 1, 4096, 128, DType::BF16), band = full;
  full.causal = band.causal = true;
  band.lowestKeyOffset = -511;
  EXPECT_LT(cost(band, "h200").fusedSramL2Bytes, cost(full, "h200").fusedSramL2Bytes / 3);
}

TEST(IOCost, GQAReadsFewerKVHeads) {
  AttentionShape s = square(1, 32, 1024, 128, DType::BF16);
  s.headsKV = 8;
  AttentionCost c = cost(s, "h200");
  // Naive = 2·[Hq·Lq·d + Hkv·Lk·2d + Hq·Lq·dv + 4·Hq·Lq·Lk].
  int64_t expect = 2 * (32ll * 1024 * 128 + 8ll * 1024 * 256 + 32ll * 1024 * 128 +
                        4ll * 32 * 1024 * 1024);
  EXPECT_EQ(c.naiveHbmBytes, expect);
  EXPECT_EQ(c.fusedDramReadBytes, 2 * (32ll * 1024 * 128 + 8ll * 1024 * 256));
}

TEST(IOCost, DecodeIsMemoryBound) {
  // One query token, Hq = 64, Hkv = 8, Lk = 4096, d = 128: intensity is
  // about (Hq/Hkv)·Lq = 8 FLOP/B, far under the ridge.
  AttentionShape s = square(1, 64, 4096, 128, DType::BF16);
  s.headsKV = 8;
  s.seqQ = 1;
  AttentionCost c = cost(s, "h200");
  EXPECT_EQ(c.flops, 4ll * 64 * 4096 * 128);
  EXPECT_EQ(c.fusedDramReadBytes, 2 * (64ll * 128 + 8ll * 4096 * 256));
  EXPECT_NEAR(c.intensityFused, 8.0, 0.1);
  EXPECT_TRUE(c.fusedMemoryBound);
  EXPECT_TRUE(c.naiveMemoryBound);
}

TEST(IOCost, TileChoiceRespectsBudgets) {
  TargetSpec h200 = *getTargetPreset("h200");
  // d = 128: Bc = ceil(116224/512) = 227 -> 128, Br = 128; registers
  // (128·128 + 128·128)/128 + 32 = 288 > 255, so Bc halves to 64:
  // (16384 + 8192)/128 + 32 = 224.
  TileSizes t = chooseTileSizes(square(1, 1, 4096, 128, DType::BF16), h200);
  EXPECT_EQ(t.blockQ, 128);
  EXPECT_EQ(t.blockKV, 64);
  // A tiny SRAM forces smaller tiles: 16 KB, d = 64, bf16:
  // 2·(Br·64 + 2·Bc·128) <= 16384.
  h200.sramBytesPerBlock = 16 * 1024;
  t = chooseTileSizes(square(1, 1, 4096, 64, DType::BF16), h200);
  EXPECT_LE(2 * (t.blockQ * 64 + 2 * t.blockKV * 128), 16 * 1024);
  EXPECT_GE(t.blockQ, 16);
}

TEST(IOCost, RejectsBadShapesAndOverflow) {
  AttentionShape s = square(1, 6, 128, 64, DType::F16);
  s.headsKV = 4; // 6 is not a multiple of 4
  auto bad = computeAttentionCost(s, *getTargetPreset("h200"));
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("multiple"), std::string::npos);

  AttentionShape zero = square(1, 1, 0, 64, DType::F16);
  auto z = computeAttentionCost(zero, *getTargetPreset("h200"));
  ASSERT_FALSE(static_cast<bool>(z));
  llvm::consumeError(z.takeError());

  // Tensors no machine holds: refused by their element count.
  AttentionShape huge = square(int64_t(1) << 30, 64, int64_t(1) << 24, 128, DType::F32);
  auto h = computeAttentionCost(huge, *getTargetPreset("h200"));
  ASSERT_FALSE(static_cast<bool>(h));
  EXPECT_NE(llvm::toString(h.takeError()).find("2^62 elements"), std::string::npos);
  // Countable extents whose bytes and FLOPs still overflow int64 (2^61 f32
  // elements of Q): an error, not a wrapped number.
  AttentionShape wide = square(1, 1, int64_t(1) << 30, int64_t(1) << 31, DType::F32);
  auto w = computeAttentionCost(wide, *getTargetPreset("h200"));
  ASSERT_FALSE(static_cast<bool>(w));
  EXPECT_NE(llvm::toString(w.takeError()).find("overflow"), std::string::npos);
}

} // namespace

// validateTarget: the presets pass; every field no GPU has is an error that
// names the field, and a cost whose arithmetic leaves the doubles (a
// bandwidth of 1e-300 B/s) is an error, never inf/NaN in a report.
TEST(IOCost, ValidateTargetRejectsWhatNoGpuHas) {
  for (const std::string &name : getTargetPresetNames())
    EXPECT_FALSE(static_cast<bool>(validateTarget(*getTargetPreset(name))));
  auto message = [](TargetSpec t) {
    llvm::Error e = validateTarget(t);
    return e ? llvm::toString(std::move(e)) : std::string();
  };
  TargetSpec t = *getTargetPreset("h200");
  TargetSpec bad = t;
  bad.sramBytesPerBlock = 0;
  EXPECT_NE(message(bad).find("sram-bytes"), std::string::npos);
  bad = t;
  bad.hbmBytesPerSec = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(message(bad).find("hbm-bandwidth"), std::string::npos);
  bad = t;
  bad.tensorBF16 = std::numeric_limits<double>::infinity();
  EXPECT_NE(message(bad).find("peak-bf16"), std::string::npos);
  bad = t;
  bad.ctasPerSm = -3;
  EXPECT_NE(message(bad).find("ctas-per-sm"), std::string::npos);
  bad = t;
  bad.sramBytesPerBlock = 1;
  EXPECT_NE(message(bad).find("holds no attention tile"), std::string::npos);

  bad = t;
  bad.hbmBytesPerSec = 1e-300;
  llvm::Expected<AttentionCost> c =
      computeAttentionCost(square(1, 16, 4096, 64, DType::BF16), bad);
  ASSERT_FALSE(static_cast<bool>(c));
  EXPECT_NE(llvm::toString(c.takeError()).find("not finite"), std::string::npos);
}

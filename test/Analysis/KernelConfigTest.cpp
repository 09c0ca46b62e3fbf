//===- KernelConfigTest.cpp - unit tests of the kernel chooser ------------===//
//
// The chooser's measured rules (each named after the bench/NOTES.md run it
// comes from), explicit requests winning, illegal ones refused with the
// reason, and the residency and persistence facts it decides with.
//
//===----------------------------------------------------------------------===//
#include "TestShapes.h"
#include "attn/Analysis/IOCost.h"
#include "attn/Analysis/KernelConfig.h"
#include "attn/Analysis/PersistentSchedule.h"
#include "attn/Analysis/StagedTileLayout.h"

#include <gtest/gtest.h>

using namespace mlir::attn;

// The one kernel chooser: the measured rules it applies (bench/NOTES.md v6,
// v9 tiles, v10), explicit requests winning, and illegal requests refused
// with the reason.
TEST(KernelConfig, MeasuredRulesAndRequests) {
  TargetSpec h200 = *getTargetPreset("h200"), a100 = *getTargetPreset("a100");
  auto choose = [](const AttentionShape &s, const TargetSpec &t,
                   KernelConfigRequest r = {}, MaskReads m = MaskReads::None) {
    llvm::Expected<KernelConfig> c = chooseKernelConfig(s, m, t, r);
    EXPECT_TRUE(static_cast<bool>(c));
    return c ? *c : KernelConfig{};
  };
  AttentionShape d64 = square(1, 16, 4096, 64, DType::BF16);
  AttentionShape d128 = square(1, 16, 4096, 128, DType::BF16);
  // H200 (sm_90a): wgmma with TMA loads (v28): 64 x 128 at d = 64 (no
  // producer warpgroup: v29), 128 x 128 at d = 128 with a producer
  // warpgroup, the overlapped P·V and three stages (v29b).
  // d = 64: 128 x 128 CTAs without a producer, 2 stages (v32c), two per
  // SM by the launch bound (v33), partial tiles (odd lengths) too.
  KernelConfig c = choose(d64, h200);
  EXPECT_EQ(c.family, TensorCoreFamily::Wgmma);
  EXPECT_TRUE(c.tmaLoads);
  EXPECT_FALSE(c.producerWarpgroup);
  EXPECT_EQ(c.tiles().blockQ, 128);
  EXPECT_EQ(c.blockKV, 128);
  EXPECT_EQ(c.kvStages, 2);
  EXPECT_EQ(launchBoundCTAsPerSM(c, d64, h200, false), 2);
  EXPECT_EQ(residentCTAsPerSM(c, d64, h200, false), 2);
  // Not with a mask tensor or a partial key tile (their masking state
  // spills at 128 registers): one CTA per SM, and 64 rows where that loses
  // (a partial tile or causal).
  EXPECT_EQ(launchBoundCTAsPerSM(c, d64, h200, true), 0);
  EXPECT_EQ(choose(d64, h200, {}, MaskReads::PerScore).blockQ, 128);
  AttentionShape oddD64 = square(8, 32, 1999, 64, DType::BF16);
  EXPECT_EQ(choose(oddD64, h200).blockQ, 64);
  oddD64.seqKV = 2048; // a partial query tile, whole key tiles
  c = choose(oddD64, h200);
  EXPECT_EQ(c.blockQ, 128);
  EXPECT_EQ(launchBoundCTAsPerSM(c, oddD64, h200, false), 2);
  oddD64.seqQ = 2048; // whole query tiles, a partial key tile
  oddD64.seqKV = 1999;
  c = choose(oddD64, h200);
  EXPECT_EQ(c.blockQ, 64);
  EXPECT_EQ(launchBoundCTAsPerSM(c, oddD64, h200, false), 0);
  c = choose(d128, h200);
  EXPECT_EQ(c.tiles().blockQ, 128);
  EXPECT_EQ(c.blockKV, 128);
  EXPECT_TRUE(c.producerWarpgroup);
  EXPECT_TRUE(c.overlapPV);
  EXPECT_EQ(c.numThreads(), 384);
  // A CTA per work item over 32 key tiles: three stages, one barrier pair
  // (v61c: two stages 0.98-1.01x from 32 tiles on).
  EXPECT_FALSE(c.persistent);
  EXPECT_EQ(c.kvStages, 3);
  // Over 8 tiles (1k keys): two, K and V on barriers of their own (v61c:
  // 1.04-1.06x); split keys count the split's tiles.
  EXPECT_EQ(choose(square(16, 16, 1024, 128, DType::BF16), h200).kvStages, 2);
  EXPECT_EQ(choose(square(16, 16, 2048, 128, DType::BF16), h200).kvStages, 2);
  KernelConfigRequest fourSplits;
  fourSplits.kvSplits = 4;
  EXPECT_EQ(choose(d128, h200, fourSplits).kvStages, 2);
  // Without the overlap, the producer takes two stages (v29).
  KernelConfigRequest noOverlap;
  noOverlap.overlapPV = false;
  c = choose(d128, h200, noOverlap);
  EXPECT_TRUE(c.producerWarpgroup);
  EXPECT_EQ(c.kvStages, 2);
  // The overlap needs a producer's registers.
  KernelConfigRequest overlapAlone;
  overlapAlone.overlapPV = true;
  overlapAlone.producerWarpgroup = false;
  llvm::Expected<KernelConfig> noProducer =
      chooseKernelConfig(d128, MaskReads::None, h200, overlapAlone);
  ASSERT_FALSE(bool(noProducer));
  EXPECT_NE(llvm::toString(noProducer.takeError()).find("overlap-pv=on needs a producer"),
            std::string::npos);
  // Where three stages do not fit (d = 256), the overlap with two, whose K
  // and V are released apart (v53); with three they share a barrier pair.
  c = choose(square(1, 8, 4096, 256, DType::BF16), h200);
  EXPECT_TRUE(c.producerWarpgroup);
  EXPECT_TRUE(c.overlapPV);
  EXPECT_EQ(c.kvStages, 2);
  EXPECT_TRUE(separateKVBarriers(c.producerWarpgroup, c.overlapPV, c.kvStages));
  EXPECT_FALSE(separateKVBarriers(true, true, 3));
  // The producer at head dims that are not whole atoms too (d = 160, v53).
  // 2-byte wgmma key tiles narrow 16 keys at a time to the widest both
  // budgets hold (v56: d = 160 on 112, d = 256 on 80); beside mask reads
  // they halve (the register estimate spilled between the powers of two
  // there). wgmma takes any multiple of 16 asked for, mma.sync does not.
  c = choose(square(4, 12, 4096, 160, DType::BF16), h200);
  EXPECT_TRUE(c.producerWarpgroup);
  EXPECT_EQ(c.blockKV, 112);
  EXPECT_EQ(choose(square(4, 12, 4096, 160, DType::BF16), h200, {}, MaskReads::PerKey).blockKV,
            64);
  // Beside a mask tensor Q's descriptors are charged as if hoisted (d/4:
  // with d/8, 64- and 80-key d = 256 kernels spilled 24-36 bytes, v56), so
  // d = 256 keeps its 32 keys there.
  AttentionShape causal256 = square(1, 8, 4096, 256, DType::BF16);
  causal256.causal = true;
  EXPECT_EQ(choose(causal256, h200, {}, MaskReads::PerKey).blockKV, 32);
  EXPECT_EQ(choose(causal256, h200, {}, MaskReads::PerScore).blockKV, 32);
  // Q's descriptors are rebuilt in the loop above 8 k-steps of 32 bytes.
  EXPECT_FALSE(rebuildsQDescriptorsInLoop(8));
  EXPECT_TRUE(rebuildsQDescriptorsInLoop(9));
  KernelConfigRequest eightyKeys;
  eightyKeys.blockKV = 80;
  EXPECT_EQ(choose(square(1, 8, 4096, 256, DType::BF16), h200, eightyKeys).blockKV, 80);
  eightyKeys.family = TensorCoreFamily::MmaSync;
  EXPECT_FALSE(static_cast<bool>(
      chooseKernelConfig(square(1, 8, 4096, 64, DType::BF16), MaskReads::None, a100, eightyKeys)));
  KernelConfigRequest oneThreadIssues;
  oneThreadIssues.tmaLoads = true;
  oneThreadIssues.producerWarpgroup = false;
  c = choose(d128, h200, oneThreadIssues);
  EXPECT_FALSE(c.producerWarpgroup);
  EXPECT_EQ(c.kvStages, 3);
  // Asked for, the producer sets 128-row CTAs even where 64 would be
  // chosen (d = 64); an explicit block-q of 64 with it is refused.
  KernelConfigRequest producer;
  producer.tmaLoads = producer.producerWarpgroup = true;
  c = choose(d64, h200, producer);
  EXPECT_TRUE(c.producerWarpgroup);
  EXPECT_EQ(c.blockQ, 128);
  producer.blockQ = 64;
  llvm::Expected<KernelConfig> oneWarpgroup =
      chooseKernelConfig(d64, MaskReads::None, h200, producer);
  ASSERT_FALSE(bool(oneWarpgroup));
  EXPECT_NE(llvm::toString(oneWarpgroup.takeError()).find("needs block-q=128"),
            std::string::npos);
  // An explicit block-q of 64 drops the chosen producer.
  KernelConfigRequest rows64;
  rows64.blockQ = 64;
  EXPECT_FALSE(choose(d128, h200, rows64).producerWarpgroup);
  // Causal at d = 64: 128 x 128, two per SM (v33), but 64 x 64 tiles when
  // Lk <= 1024.
  AttentionShape causal = d64;
  causal.causal = true;
  EXPECT_EQ(choose(causal, h200).blockQ, 128);
  EXPECT_EQ(choose(causal, h200).blockKV, 128);
  causal.seqQ = causal.seqKV = 2048;
  EXPECT_EQ(choose(causal, h200).blockQ, 128);
  causal.seqQ = causal.seqKV = 1024;
  EXPECT_EQ(choose(causal, h200).blockQ, 64);
  EXPECT_EQ(choose(causal, h200).blockKV, 64);
  // A grid too small for two waves splits its keys, which the bound does
  // not survive: 64-row CTAs again, and the wave model counted one CTA
  // per SM for every split count but one.
  AttentionShape fewCTAs = square(1, 2, 4096, 64, DType::BF16);
  fewCTAs.causal = true;
  c = choose(fewCTAs, h200);
  EXPECT_GT(c.kvSplits, 1);
  EXPECT_EQ(c.blockQ, 64);
  EXPECT_EQ(launchBoundCTAsPerSM(c, fewCTAs, h200, false), 0);
  // The two-CTA bound needs the accumulators to leave room at 128
  // registers: at d = 128 (O 64 + S 64 per thread) a 128-row kernel
  // without a producer never takes it. Its shared memory (the Q tile and
  // 64 KB per stage) holds one CTA per SM, and the bound says that one
  // (v63: told nothing, ptxas may trade registers for a second CTA that
  // can never be resident); a producer kernel's is one CTA (setmaxnreg).
  KernelConfigRequest noProducer128;
  noProducer128.tmaLoads = true;
  noProducer128.producerWarpgroup = false;
  c = choose(d128, h200, noProducer128);
  EXPECT_EQ(c.blockQ, 128);
  EXPECT_EQ(residentCTAsPerSM(c, d128, h200, false), 1);
  EXPECT_EQ(launchBoundCTAsPerSM(c, d128, h200, false), 1);
  // With 64-key stages of cp.async at 64 rows, several fit: no bound.
  KernelConfigRequest small64;
  small64.blockQ = 64;
  small64.blockKV = 64;
  small64.tmaLoads = false;
  c = choose(d128, h200, small64);
  EXPECT_GT(residentCTAsPerSM(c, d128, h200, false), 1);
  EXPECT_EQ(launchBoundCTAsPerSM(c, d128, h200, false), 0);
  EXPECT_EQ(launchBoundCTAsPerSM(choose(d128, h200), d128, h200, false), 1);
  AttentionShape shortCausal128 = square(1, 16, 1024, 128, DType::BF16);
  shortCausal128.causal = true;
  // At d = 128 the 128 x 128 producer kernel with the overlapped P·V
  // (v31b), short causal or not; cp.async keeps v9's 64 x 64.
  c = choose(shortCausal128, h200);
  EXPECT_EQ(c.blockQ, 128);
  EXPECT_EQ(c.blockKV, 128);
  EXPECT_TRUE(c.producerWarpgroup && c.overlapPV);
  // 128 work items on 132 SMs: not persistent, and causal keeps the third
  // stage (v61c: the odd 3000 causal ran 0.97x on two).
  EXPECT_FALSE(c.persistent);
  EXPECT_EQ(c.kvStages, 3);
  // Persistent CTAs (causal pairs over more items than SMs) keep it too:
  // their ring runs on into the next item (v61).
  AttentionShape causalGrid128 = square(16, 16, 1024, 128, DType::BF16);
  causalGrid128.causal = true;
  c = choose(causalGrid128, h200);
  EXPECT_TRUE(c.persistent && c.overlapPV);
  EXPECT_EQ(c.kvStages, 3);
  // A mask tensor read per score: the producer without the overlap (which
  // spills with it), so 2 stages.
  c = choose(shortCausal128, h200, {}, MaskReads::PerScore);
  EXPECT_TRUE(c.producerWarpgroup);
  EXPECT_FALSE(c.overlapPV);
  // Any mask tensor costs a producer kernel's loop a budget step (v32e:
  // 8-36 bytes spilled at d = 128 and 256 in random draws): no overlap and
  // 64-key tiles at d = 128, split or not; without a mask the overlap stays.
  EXPECT_EQ(c.blockKV, 64);
  // A score_mod that only bounds the keys (a sliding window) reads no
  // tensor: the unmasked pick, the overlapped P·V in 128-key tiles (v45b).
  c = choose(shortCausal128, h200, {}, MaskReads::KeyBounds);
  EXPECT_TRUE(c.producerWarpgroup && c.overlapPV);
  EXPECT_EQ(c.blockKV, 128);
  EXPECT_EQ(c.kvStages, 3); // key bounds keep the third stage (v53c, v61)
  // But, like a mask, no two 128-row CTAs per SM at d = 64 (a random window
  // draw spilled 92 bytes at 128 registers): 64-row CTAs, as v32c's rule.
  AttentionShape causal64 = square(8, 16, 2048, 64, DType::BF16);
  causal64.causal = true;
  EXPECT_EQ(choose(causal64, h200).blockQ, 128);
  EXPECT_EQ(choose(causal64, h200, {}, MaskReads::KeyBounds).blockQ, 64);
  // On mma.sync a window's comparisons cost as a mask read per score does.
  EXPECT_EQ(choose(causal64, a100, {}, MaskReads::KeyBounds).blockKV,
            choose(causal64, a100, {}, MaskReads::PerScore).blockKV);
  AttentionShape fewHeads = square(2, 1, 1855, 128, DType::F16);
  fewHeads.causal = true;
  c = choose(fewHeads, h200, {}, MaskReads::PerKey);
  EXPECT_GT(c.kvSplits, 1);
  EXPECT_TRUE(c.producerWarpgroup);
  EXPECT_FALSE(c.overlapPV); // (a mask: not kept when the third stage goes)
  EXPECT_EQ(c.blockKV, 64);
  EXPECT_EQ(c.kvStages, 2);
  c = choose(fewHeads, h200);
  EXPECT_GT(c.kvSplits, 1);
  EXPECT_TRUE(c.overlapPV);
  // A window beside the causal diagonal over split keys: two bounds per
  // score in one run keep a bound per key column live (28-80 bytes spilled
  // by the overlapped 128-key kernel, v46), so the split kernel halves the
  // key tile; a window alone over split keys keeps 128.
  c = choose(fewHeads, h200, {}, MaskReads::KeyBounds);
  EXPECT_GT(c.kvSplits, 1);
  EXPECT_EQ(c.blockKV, 64);
  AttentionShape fewHeadsNonCausal = fewHeads;
  fewHeadsNonCausal.causal = false;
  c = choose(fewHeadsNonCausal, h200, {}, MaskReads::KeyBounds);
  EXPECT_GT(c.kvSplits, 1);
  EXPECT_TRUE(c.overlapPV);
  EXPECT_EQ(c.blockKV, 128);
  // The wave model counts the keys a query tile visits: a narrow window
  // (keys i − 199 .. i, at most three K/V tiles) leaves nothing to split,
  // since fixed splits of Lk wider than the band shorten no CTA (v47); a
  // wide one (i − 1499 .. i) splits as the causal kernel does.
  AttentionShape narrowWindow = fewHeads;
  narrowWindow.lowestKeyOffset = -199;
  EXPECT_EQ(choose(narrowWindow, h200, {}, MaskReads::KeyBounds).kvSplits, 1);
  AttentionShape wideWindow = fewHeads;
  wideWindow.lowestKeyOffset = -1499;
  EXPECT_EQ(choose(wideWindow, h200, {}, MaskReads::KeyBounds).kvSplits,
            choose(fewHeads, h200, {}, MaskReads::KeyBounds).kvSplits);
  // Split keys with the overlap at d = 256 (two stages) on 80-key tiles;
  // without it their range costs registers (v32e) and Q's descriptors are
  // charged as hoisted (v56): 48-key tiles (ptxas: 0 spills).
  AttentionShape fewWideHeads = square(1, 1, 2469, 256, DType::F16);
  c = choose(fewWideHeads, h200);
  EXPECT_GT(c.kvSplits, 1);
  EXPECT_TRUE(c.overlapPV);
  EXPECT_EQ(c.blockKV, 80);
  KernelConfigRequest splitsWithoutOverlap;
  splitsWithoutOverlap.overlapPV = false;
  EXPECT_EQ(choose(fewWideHeads, h200, splitsWithoutOverlap).blockKV, 48);
  EXPECT_EQ(choose(square(8, 16, 4096, 256, DType::F16), h200).blockKV, 80);
  KernelConfigRequest copies;
  copies.tmaLoads = false;
  EXPECT_EQ(choose(shortCausal128, h200, copies).blockQ, 64);
  // cp.async asked for: v9's tiles (128 x 128 at d = 64 non-causal).
  KernelConfigRequest cpAsync;
  cpAsync.tmaLoads = false;
  c = choose(d64, h200, cpAsync);
  EXPECT_FALSE(c.tmaLoads);
  EXPECT_EQ(c.blockQ, 128);
  // A paged cache is no TMA tensor: cp.async, and asking for TMA is refused.
  AttentionShape paged = d128;
  paged.pageSize = 16;
  KernelConfigRequest wgmma;
  wgmma.family = TensorCoreFamily::Wgmma;
  EXPECT_FALSE(choose(paged, h200, wgmma).tmaLoads);
  wgmma.tmaLoads = true;
  llvm::Expected<KernelConfig> refused = chooseKernelConfig(paged, MaskReads::None, h200, wgmma);
  ASSERT_FALSE(bool(refused));
  EXPECT_NE(llvm::toString(refused.takeError()).find("not a paged KV cache"), std::string::npos);
  // v28c: head dims that leave TMA box rows short of 128 bytes take
  // 128 x 128 tiles (two warpgroups), causal or not.
  AttentionShape d40 = square(2, 51, 8192, 40, DType::BF16);
  EXPECT_EQ(choose(d40, h200).blockQ, 128);
  d40.causal = true;
  d40.seqQ = d40.seqKV = 1024;
  EXPECT_EQ(choose(d40, h200).blockQ, 128);
  EXPECT_EQ(choose(d40, h200).blockKV, 128);
  // mma.sync prefill never takes TMA loads by default (and sm_80 has none).
  EXPECT_FALSE(choose(d128, a100).tmaLoads);
  // A100 (sm_80): mma.sync, 32 rows per warp; 32-key tiles at d = 128.
  c = choose(d128, a100);
  EXPECT_EQ(c.family, TensorCoreFamily::MmaSync);
  EXPECT_EQ(c.rowsPerWarp, 32);
  EXPECT_EQ(c.blockKV, 32);
  // A per-score mask at d = 128 on mma.sync: 16 rows per warp, 64-row CTAs.
  c = choose(d128, a100, {}, MaskReads::PerScore);
  EXPECT_EQ(c.blockQ, 64);
  EXPECT_EQ(c.rowsPerWarp, 16);
  // Lq a multiple of 64 but not of 128: 64-row CTAs, unless asked.
  AttentionShape odd = square(1, 2, 192, 64, DType::BF16);
  EXPECT_EQ(choose(odd, h200).blockQ, 64);
  KernelConfigRequest r;
  r.blockQ = 128;
  EXPECT_EQ(choose(odd, h200, r).blockQ, 128);

  auto refusal = [](const AttentionShape &s, const TargetSpec &t,
                    KernelConfigRequest r) {
    llvm::Expected<KernelConfig> c = chooseKernelConfig(s, MaskReads::None, t, r);
    return c ? std::string() : llvm::toString(c.takeError());
  };
  KernelConfigRequest bad;
  bad.family = TensorCoreFamily::MmaSync;
  bad.blockKV = 128;
  EXPECT_NE(refusal(d64, h200, bad).find("block-kv=128 needs mma=wgmma"),
            std::string::npos);
  bad = {};
  bad.family = TensorCoreFamily::Wgmma;
  bad.kvStages = 4;
  EXPECT_NE(refusal(d64, h200, bad).find("mma=wgmma takes kv-stages 2 or 3"),
            std::string::npos);
  // No GPU kernel for f32, for head dims that are no multiple of 8 or
  // exceed 256, or for less shared memory than the smallest tiles need.
  EXPECT_NE(refusal(square(1, 1, 128, 64, DType::F32), h200, {}).find("f16, bf16 or 8-bit"),
            std::string::npos);
  for (int64_t d : {36, 264})
    EXPECT_NE(refusal(square(1, 1, 128, d, DType::BF16), h200, {}).find("multiples of 8"),
              std::string::npos);
  TargetSpec small = h200;
  small.sramBytesPerBlock = 8 * 1024;
  EXPECT_NE(refusal(d128, small, {}).find("bytes of shared memory"),
            std::string::npos);
  // The XOR swizzle permutes 64-column groups.
  KernelConfigRequest swizzled;
  swizzled.family = TensorCoreFamily::MmaSync;
  swizzled.swizzle = true;
  EXPECT_NE(refusal(square(1, 1, 128, 96, DType::BF16), h200, swizzled).find("64-column"),
            std::string::npos);
}

// Persistent CTAs (v34/v34b): chosen for causal producer kernels whose
// items pair up and outnumber the CTA slots; asked for, kept or refused.
TEST(KernelConfig, PersistentWhereCausalPairsPay) {
  TargetSpec h200 = *getTargetPreset("h200");
  auto choose = [&](const AttentionShape &s, KernelConfigRequest r = {},
                    MaskReads m = MaskReads::None) {
    llvm::Expected<KernelConfig> c = chooseKernelConfig(s, m, h200, r);
    EXPECT_TRUE(static_cast<bool>(c));
    return c ? *c : KernelConfig{};
  };
  // 1k causal, B = 16, H = 16: 8 tiles x 256 heads = 2048 items > 132.
  AttentionShape causal = square(16, 16, 1024, 128, DType::BF16);
  causal.causal = true;
  KernelConfig c = choose(causal);
  EXPECT_TRUE(c.producerWarpgroup);
  EXPECT_TRUE(c.persistent);
  EXPECT_EQ(c.kvSplits, 1);
  // Not: non-causal (0.96-0.98x), a mask tensor or score_mod, dv > 128,
  // partial tiles, an odd number of query tiles, fewer items than slots, d = 64 (no
  // producer).
  AttentionShape plain = causal;
  plain.causal = false;
  EXPECT_FALSE(choose(plain).persistent);
  EXPECT_FALSE(choose(causal, {}, MaskReads::PerScore).persistent);
  EXPECT_FALSE(choose(causal, {}, MaskReads::KeyBounds).persistent);
  AttentionShape wide = causal;
  wide.headDim = wide.headDimV = 256;
  EXPECT_FALSE(choose(wide).persistent);
  AttentionShape partial = causal;
  partial.seqQ = partial.seqKV = 1000;
  EXPECT_FALSE(choose(partial).persistent);
  AttentionShape odd = square(2, 16, 1152, 128, DType::BF16); // 9 tiles per head
  odd.causal = true;
  EXPECT_FALSE(choose(odd).persistent);
  AttentionShape few = square(1, 16, 1024, 128, DType::BF16); // 128 items
  few.causal = true;
  EXPECT_FALSE(choose(few).persistent);
  AttentionShape d64 = causal;
  d64.headDim = d64.headDimV = 64;
  EXPECT_FALSE(choose(d64).persistent);
  // Asked for: kept (also non-causal), with whole keys (no wave-model
  // split); refused without a producer warpgroup or with split keys.
  KernelConfigRequest on;
  on.persistent = true;
  EXPECT_TRUE(choose(plain, on).persistent);
  EXPECT_EQ(choose(square(1, 2, 4096, 128, DType::BF16), on).kvSplits, 1);
  KernelConfigRequest off;
  off.persistent = false;
  EXPECT_FALSE(choose(causal, off).persistent);
  KernelConfigRequest noProducer = on;
  noProducer.tmaLoads = true;
  noProducer.producerWarpgroup = false;
  llvm::Expected<KernelConfig> refused =
      chooseKernelConfig(causal, MaskReads::None, h200, noProducer);
  ASSERT_FALSE(static_cast<bool>(refused));
  EXPECT_NE(llvm::toString(refused.takeError()).find("persistent=on needs a producer"),
            std::string::npos);
  KernelConfigRequest split = on;
  split.kvSplits = 2;
  refused = chooseKernelConfig(causal, MaskReads::None, h200, split);
  ASSERT_FALSE(static_cast<bool>(refused));
  llvm::consumeError(refused.takeError());
  // The grid: pairs of causal items, or a stride coprime with the query
  // tiles when they cannot pair; non-causal items fill every slot.
  EXPECT_EQ(persistentGridSize(2048, 8, true, 132), 132);
  EXPECT_EQ(persistentGridSize(200, 8, true, 132), 100);
  EXPECT_EQ(persistentGridSize(135, 9, true, 132), 131);
  EXPECT_EQ(persistentGridSize(288, 9, true, 132), 131); // 9 tiles do not pair
  EXPECT_EQ(persistentGridSize(135, 9, false, 132), 132);
  EXPECT_EQ(persistentGridSize(77, 7, true, 132), 77);
}

// Head dims other than 64 and 128: the measured defaults fitted to the
// register budget and the target's shared memory, never beyond either.
TEST(KernelConfig, HeadDimsFitTheBudgets) {
  TargetSpec h200 = *getTargetPreset("h200");
  TargetSpec a100 = *getTargetPreset("a100");
  auto choose = [](const AttentionShape &s, const TargetSpec &t) {
    llvm::Expected<KernelConfig> c = chooseKernelConfig(s, MaskReads::None, t);
    EXPECT_TRUE(bool(c)) << (c ? "" : llvm::toString(c.takeError()));
    return c ? *c : KernelConfig();
  };
  // The measured defaults are inside the budget, and v6's spilling
  // mma.sync tile (32 rows per warp, 64 keys, d = 128) is not.
  for (int64_t d : {64, 128})
    for (const TargetSpec &t : {h200, a100}) {
      AttentionShape s = square(4, 16, 4096, d, DType::BF16);
      KernelConfig c = choose(s, t);
      EXPECT_LE(loopRegistersPerThread(c, s), loopRegisterBudget(c)) << d;
    }
  KernelConfig spilled = choose(square(4, 16, 4096, 128, DType::BF16), a100);
  spilled.blockKV = 64;
  EXPECT_GT(loopRegistersPerThread(spilled, square(4, 16, 4096, 128, DType::BF16)),
            loopRegisterBudget(spilled.family));
  // d = 256 on wgmma: O is 128 registers, so 80-key tiles (FlashAttention-
  // 3's; shared memory holds no wider); the third stage does not fit beside
  // the Q tile.
  AttentionShape d256 = square(4, 8, 4096, 256, DType::BF16);
  KernelConfig c = choose(d256, h200);
  EXPECT_EQ(c.family, TensorCoreFamily::Wgmma);
  EXPECT_EQ(c.blockKV, 80);
  EXPECT_EQ(c.kvStages, 2);
  EXPECT_LE(kernelSharedMemoryBytes(c, d256), h200.sramBytesPerBlock);
  // mma.sync at d = 256: 16 rows per warp (32 would hold 256 of O).
  c = choose(d256, a100);
  EXPECT_EQ(c.rowsPerWarp, 16);
  EXPECT_LE(loopRegistersPerThread(c, d256), loopRegisterBudget(c.family));
  // DeepSeek's d = 192, dv = 128; Phi's d = 80 (10 chunks of 16 bytes per
  // row: copies need not split evenly over the threads); d = 32.
  AttentionShape mla = square(2, 16, 2048, 192, DType::BF16);
  mla.headDimV = 128;
  for (const AttentionShape &s : {mla, square(2, 32, 2048, 80, DType::F16),
                                  square(2, 64, 2048, 32, DType::BF16)})
    for (const TargetSpec &t : {h200, a100}) {
      KernelConfig k = choose(s, t);
      EXPECT_LE(loopRegistersPerThread(k, s), loopRegisterBudget(k));
      EXPECT_LE(kernelSharedMemoryBytes(k, s), t.sramBytesPerBlock);
    }
  // v29f: d = 192/128 on the H200 takes a producer warpgroup, whose
  // budget holds 128-key tiles (2 stages: 3 do not fit shared memory; the
  // overlap with K and V released apart, v53).
  KernelConfig mlaPick = choose(mla, h200);
  EXPECT_TRUE(mlaPick.producerWarpgroup);
  EXPECT_EQ(mlaPick.blockKV, 128);
  EXPECT_EQ(mlaPick.kvStages, 2);
  EXPECT_TRUE(mlaPick.overlapPV);
  // With Q's 12 k-steps of descriptors rebuilt in the loop (v56): 280
  // units, within even the family's budget.
  EXPECT_EQ(loopRegistersPerThread(mlaPick, mla), 280);
  // wgmma atoms are whole 64 columns: d = 80 stages 128 per row.
  EXPECT_EQ(stagedRowPitch(/*wgmmaAtoms=*/true, false, 80), 128);
  EXPECT_EQ(stagedRowPitch(false, false, 80), 88);
}

// Every preset's chooser, over head dims it did not see written down (d
// and dv multiples of 16 up to 256, decode to prefill lengths, GQA):
// each gets a tensor-core kernel whose shared memory the chip holds and
// whose loop fits the register budget. (sm_86/89/120 presets once took the
// A100's 163 KB or the H200's 227 KB, and d = 256 asked for 135 KB of
// their 99.)
TEST(KernelConfig, EveryPresetFitsItsChip) {
  for (const std::string &name : getTargetPresetNames()) {
    TargetSpec target = *getTargetPreset(name);
    for (int64_t d = 16; d <= 256; d += 16)
      for (int64_t dv : {d, int64_t(64), int64_t(256) - d + 16})
        for (int64_t lq : {1, 4, 64, 1000, 4096}) {
          AttentionShape s = square(2, 8, 4096, d, DType::BF16);
          s.headDimV = dv;
          s.seqQ = lq;
          s.headsKV = lq < 64 ? 2 : 8;
          llvm::Expected<KernelConfig> c = chooseKernelConfig(s, MaskReads::None, target);
          std::string where = name + " d=" + std::to_string(d) + " dv=" + std::to_string(dv) +
                              " Lq=" + std::to_string(lq);
          ASSERT_TRUE(bool(c)) << where << ": " << llvm::toString(c.takeError());
          EXPECT_LE(kernelSharedMemoryBytes(*c, s), target.sramBytesPerBlock) << where;
          // Over the budget only at the family's smallest tiles (d = 16
          // beside dv = 256: 180 units, which ptxas holds in 236 registers
          // without a spill; the ptxas sweeps check such kernels).
          bool smallest = c->family == TensorCoreFamily::MmaSync && c->blockKV == 32 &&
                          c->rowsPerWarp == 16;
          if (!smallest) {
            EXPECT_LE(loopRegistersPerThread(*c, s), loopRegisterBudget(*c)) << where;
          }
        }
  }
}

// Decode and other few-row attentions: the small-query kernel (GQA head
// packing, mma.sync) with its K/V tile and split count from the streaming
// model; requests and refusals; and what the cost model charges for both.
TEST(KernelConfig, SmallQueryPackingAndSplits) {
  TargetSpec h200 = *getTargetPreset("h200");
  auto decode = decodeShape;
  auto choose = [&](const AttentionShape &s, KernelConfigRequest r = {}) {
    llvm::Expected<KernelConfig> c = chooseKernelConfig(s, MaskReads::None, h200, r);
    EXPECT_TRUE(static_cast<bool>(c));
    return c ? *c : KernelConfig{};
  };
  AttentionShape one = decode(1, 64, 8, 1, 16384);
  KernelConfig c = choose(one);
  EXPECT_EQ(c.family, TensorCoreFamily::MmaSync);
  EXPECT_TRUE(c.packKVGroups);
  EXPECT_EQ(c.blockQ, 16);
  EXPECT_EQ(c.rowsPerWarp, 16);
  // 8 unsplit CTAs on 132 SMs: split, and the splits cover Lk exactly.
  EXPECT_GT(c.kvSplits, 8);
  EXPECT_EQ(llvm::divideCeil(one.seqKV, kvSplitKeys(c, one)), c.kvSplits);
  // Double buffering: more stages measured slower (bench/NOTES.md v13c).
  EXPECT_EQ(c.kvStages, 2);
  // Dense K/V on sm_90: TMA boxes fill the stages (v30b), in swizzled
  // atoms: two 64-key stages of 128-column K and V rows, 16 bytes of
  // mbarriers and the 1024-byte alignment slack: 66,576 bytes.
  EXPECT_TRUE(c.tmaLoads);
  KernelConfig boxes = c;
  boxes.kvStages = 2;
  boxes.blockKV = 64;
  boxes.kvWarps = 1;
  EXPECT_EQ(kernelSharedMemoryBytes(boxes, one), 66576);
  // With cp.async, a 1-warp CTA with two 64-key padded stages at d = 128:
  // 69,632 bytes, 3 per SM; with three, 104,448 bytes, 2 per SM.
  KernelConfig two = boxes;
  two.tmaLoads = false;
  EXPECT_EQ(kernelSharedMemoryBytes(two, one), 69632);
  EXPECT_EQ(residentCTAsPerSM(two, one, h200, false), 3);
  two.kvStages = 3;
  EXPECT_EQ(kernelSharedMemoryBytes(two, one), 104448);
  EXPECT_EQ(residentCTAsPerSM(two, one, h200, false), 2);
  // Key warps: 4 warps on the same two stages combine in them (4 x 16 rows
  // x 138 floats fit), 2 per SM by the 255-register bound of 128 threads.
  two.kvStages = 2;
  two.kvWarps = 4;
  EXPECT_EQ(kernelSharedMemoryBytes(two, one), 69632);
  EXPECT_EQ(residentCTAsPerSM(two, one, h200, false), 2);
  // The streaming model (v27): a CTA-starved B = 1 grid takes key warps,
  // which stream a tile faster than one warp.
  EXPECT_GT(c.kvWarps, 1);
  EXPECT_EQ(c.blockKV % (16 * c.kvWarps), 0);
  // 512 packed CTAs at B = 64 fill the GPU without a split.
  EXPECT_EQ(choose(decode(64, 64, 8, 1, 16384)).kvSplits, 1);
  // Nor do 256 to 2048 CTAs of any head grouping at B = 64 (v38 measured
  // the box model's picks there within 3% of the best swept and at
  // 1.00-1.01x cuDNN). Where the grid is that full, the SMs ask for more
  // than the DRAM gives whatever the tile: GQA keeps 128-key tiles, whose
  // K/V head is read by the fewest CTAs.
  for (auto [hq, hkv] : {std::pair<int64_t, int64_t>{64, 8}, {32, 8}, {32, 32}}) {
    KernelConfig wide = choose(decode(64, hq, hkv, 1, 16384));
    EXPECT_EQ(wide.kvSplits, 1) << hq << ":" << hkv;
    if (hq != hkv) {
      EXPECT_EQ(wide.blockKV, 128) << hq << ":" << hkv;
    }
  }
  // Row copies (cp.async) keep v36m's rule: where every candidate streams at
  // the SM's DRAM share that model cannot tell warps apart, and measured,
  // more warps won (4 or 8 key warps on 128-key tiles 1.00-1.22x the 2-warp
  // kernel at B >= 8).
  KernelConfigRequest rows;
  rows.tmaLoads = false;
  for (auto [hq, hkv] : {std::pair<int64_t, int64_t>{64, 8}, {32, 8}, {32, 32}}) {
    KernelConfig wide = choose(decode(64, hq, hkv, 1, 16384), rows);
    EXPECT_FALSE(wide.tmaLoads);
    EXPECT_EQ(wide.blockKV, 128);
    EXPECT_GE(wide.kvWarps, 4) << hq << ":" << hkv;
  }
  // MHA decode is small-query too, unpacked (one head per CTA).
  KernelConfig mha = choose(decode(1, 32, 32, 1, 4096));
  EXPECT_EQ(mha.family, TensorCoreFamily::MmaSync);
  EXPECT_FALSE(mha.packKVGroups);
  // Speculative decoding: 4 queries x 8 heads = 32 rows per CTA.
  EXPECT_EQ(choose(decode(1, 64, 8, 4, 4096)).blockQ, 32);
  // 64 queries of one head fill a warpgroup: the chip's wgmma kernel.
  EXPECT_EQ(choose(decode(1, 32, 32, 64, 4096)).family, TensorCoreFamily::Wgmma);
  // 33 to 48 rows take a legal 64-row tile (the mma.sync chooser once
  // asked for 48, on sm_80 or with mma.sync asked for).
  TargetSpec a100 = *getTargetPreset("a100");
  llvm::Expected<KernelConfig> rows33 =
      chooseKernelConfig(decode(1, 2, 2, 33, 4096), MaskReads::None, a100, {});
  ASSERT_TRUE(bool(rows33)) << llvm::toString(rows33.takeError());
  EXPECT_EQ(rows33->blockQ, 64);

  // Bulk row copies by the TMA unit (kv-loads=tma on mma.sync): the K/V
  // forms no tensor map can follow on sm_90 (pages that are not a power of
  // two here); refused on sm_80 and with swizzled rows.
  KernelConfigRequest bulk;
  bulk.tmaLoads = true;
  AttentionShape paged = one;
  paged.pageSize = 24;
  KernelConfig pagedBulk = choose(paged, bulk);
  EXPECT_EQ(pagedBulk.family, TensorCoreFamily::MmaSync);
  EXPECT_TRUE(pagedBulk.tmaLoads);
  // One mbarrier per stage follows the tiles.
  KernelConfig cpAsyncCopy = pagedBulk;
  cpAsyncCopy.tmaLoads = false;
  EXPECT_EQ(kernelSharedMemoryBytes(pagedBulk, paged),
            kernelSharedMemoryBytes(cpAsyncCopy, paged) + 8 * pagedBulk.kvStages);
  llvm::Expected<KernelConfig> onA100 = chooseKernelConfig(one, MaskReads::None, a100, bulk);
  ASSERT_FALSE(bool(onA100));
  EXPECT_NE(llvm::toString(onA100.takeError()).find("needs the TMA unit of sm_90 or later"),
            std::string::npos);
  bulk.swizzle = true;
  llvm::Expected<KernelConfig> swizzled = chooseKernelConfig(one, MaskReads::None, h200, bulk);
  ASSERT_FALSE(bool(swizzled));
  EXPECT_NE(llvm::toString(swizzled.takeError()).find("drop swizzle=true"), std::string::npos);

  // Requests: wgmma on decode (no packing), tiles only wgmma takes
  // (fall back to the chip's family instead of refusing), explicit splits.
  KernelConfigRequest wg;
  wg.family = TensorCoreFamily::Wgmma;
  c = choose(one, wg);
  EXPECT_EQ(c.family, TensorCoreFamily::Wgmma);
  EXPECT_FALSE(c.packKVGroups);
  KernelConfigRequest big;
  big.blockKV = 128;
  EXPECT_EQ(choose(one, big).family, TensorCoreFamily::Wgmma);
  KernelConfigRequest four;
  four.kvSplits = 4;
  EXPECT_EQ(choose(one, four).kvSplits, 4);
  // 256 keys in 64-key tiles cannot feed 3 splits evenly: refused with the
  // count that can.
  KernelConfigRequest three;
  three.kvSplits = 3;
  llvm::Expected<KernelConfig> bad =
      chooseKernelConfig(decode(1, 8, 2, 1, 256), MaskReads::None, h200, three);
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("splits evenly into 2"), std::string::npos);
  // Degenerate extents are refused, not divided by.
  llvm::Expected<KernelConfig> zero =
      chooseKernelConfig(decode(1, 8, 0, 1, 256), MaskReads::None, h200, {});
  ASSERT_FALSE(static_cast<bool>(zero));
  llvm::consumeError(zero.takeError());

  // The cost of the packed, split kernel: K/V streamed once per group
  // (1/8 of per-head streaming), the split partials written and read back.
  c = choose(one);
  llvm::Expected<AttentionCost> packed = computeAttentionCost(one, h200, c.tiles());
  KernelConfig unpacked = c;
  unpacked.packKVGroups = false;
  unpacked.kvSplits = 1;
  llvm::Expected<AttentionCost> plain = computeAttentionCost(one, h200, unpacked.tiles());
  ASSERT_TRUE(static_cast<bool>(packed) && static_cast<bool>(plain));
  int64_t kvBytes = 2 * 1 * 8 * 16384 * 256;
  int64_t partials = 4 * c.kvSplits * 64 * 1 * (128 + kSplitRowStatWords);
  EXPECT_EQ(plain->fusedSramL2Bytes - packed->fusedSramL2Bytes,
            8 * kvBytes - kvBytes - 2 * partials);
  EXPECT_EQ(packed->fusedDramBytes() - plain->fusedDramBytes(), 2 * partials);
}

// Paged decode: each page a tile spans delays its copies (its lookups
// shared by the CTA's key warps), so with 16-token pages the streaming model
// takes more key warps, smaller tiles or more splits than for contiguous K/V
// (bench/NOTES.md v14f measured the one-warp rule's picks within 2.5% of the
// best swept, v27b the key-warp rule within 5% at 12 of 12 shapes); pages of
// a whole tile or more cost nothing extra, and every pick's registers fit
// the budget with the copies' zero-fill sizes counted.
TEST(KernelConfig, RowCopiedPagesChargePageLookups) {
  TargetSpec h200 = *getTargetPreset("h200");
  auto paged = [](int64_t b, int64_t hq, int64_t hkv, int64_t lk, int64_t page) {
    AttentionShape s = decodeShape(b, hq, hkv, 1, lk);
    s.pageSize = page;
    return s;
  };
  // Row copies (cp.async): the pages' lookups are the copying threads'.
  KernelConfigRequest rows;
  rows.tmaLoads = false;
  auto choose = [&](const AttentionShape &s) {
    llvm::Expected<KernelConfig> c = chooseKernelConfig(s, MaskReads::None, h200, rows);
    EXPECT_TRUE(static_cast<bool>(c));
    return c ? *c : KernelConfig{};
  };
  struct Shape {
    int64_t b, hq, hkv, lk;
  };
  for (Shape p : {Shape{1, 64, 8, 16384}, Shape{1, 32, 32, 131072}, Shape{8, 64, 8, 16384},
                  Shape{8, 32, 32, 16384}}) {
    AttentionShape small = paged(p.b, p.hq, p.hkv, p.lk, 16);
    KernelConfig c = choose(small);
    EXPECT_FALSE(c.tmaLoads);
    llvm::Expected<KernelConfig> rowCopied =
        chooseKernelConfig(paged(p.b, p.hq, p.hkv, p.lk, 0), MaskReads::None, h200, rows);
    ASSERT_TRUE(bool(rowCopied)) << llvm::toString(rowCopied.takeError());
    KernelConfig contiguous = *rowCopied;
    // Pages of a whole tile cost nothing extra: the tile and splits of
    // contiguous K/V copied by rows as paged K/V is (whose tie-break may
    // take more warps where it streams at its DRAM share, v36m; paged keeps
    // v27b's). 16-token pages take more warps, smaller tiles or more splits
    // than those, unless those already have a warp per page (one lookup per
    // tile, the least there is).
    KernelConfig wide = choose(paged(p.b, p.hq, p.hkv, p.lk, 128));
    EXPECT_EQ(wide.blockKV, contiguous.blockKV);
    EXPECT_EQ(wide.kvSplits, contiguous.kvSplits);
    bool warpPerPage = wide.warpKeys() <= 16 && c == wide;
    EXPECT_TRUE(c.kvWarps > wide.kvWarps || c.blockKV < wide.blockKV ||
                c.kvSplits > wide.kvSplits || warpPerPage)
        << p.b << " " << p.hq << ":" << p.hkv << " " << p.lk << ": 16-token pages " << c.blockKV
        << " keys x " << c.kvWarps << " warps, " << c.kvSplits << " splits; 128-token pages "
        << wide.blockKV << " x " << wide.kvWarps << ", " << wide.kvSplits;
    EXPECT_LE(loopRegistersPerThread(c, small), loopRegisterBudget(c.family));
  }
}

// Paged pools of power-of-two pages on sm_90 take tensor boxes, one per
// page of a tile (bench/NOTES.md v42), and the pick of the contiguous K/V
// they hold; other page sizes keep row copies.
// Pages a tile lies inside (one box per atom, as a dense tile) take the
// contiguous pick. Smaller pages pay for the boxes each issuer adds
// (kBoxIssueSec, pageBoxIssuers; bench/NOTES.md v49-v51): none where the
// tile has a warp per page, as 16-token pages' 128-key, 8-warp pick at B = 8, 4k GQA
// (measured 0.95 of contiguous with one issuer per page, 0.85 with one
// issuer for all eight pages).
TEST(KernelConfig, PagesOfBoxesPayForTheirBoxes) {
  TargetSpec h200 = *getTargetPreset("h200");
  auto choose = [&](const AttentionShape &s) {
    llvm::Expected<KernelConfig> c = chooseKernelConfig(s, MaskReads::None, h200);
    EXPECT_TRUE(static_cast<bool>(c)) << (c ? "" : llvm::toString(c.takeError()));
    return c ? *c : KernelConfig{};
  };
  for (int64_t b : {1, 8, 64})
    for (auto [hq, hkv] : {std::pair<int64_t, int64_t>{64, 8}, {32, 32}})
      for (int64_t lk : {4096, 131072}) {
        KernelConfig contiguous = choose(decodeShape(b, hq, hkv, 1, lk));
        ASSERT_TRUE(contiguous.tmaLoads);
        for (int64_t page : {8, 16, 128, 256}) {
          AttentionShape s = decodeShape(b, hq, hkv, 1, lk);
          s.pageSize = page;
          KernelConfig c = choose(s);
          EXPECT_TRUE(c.tmaLoads) << page;
          if (page >= c.blockKV) {
            EXPECT_EQ(c, contiguous) << b << " " << hq << ":" << hkv << " " << lk << " " << page;
          }
          EXPECT_LE(loopRegistersPerThread(c, s), loopRegisterBudget(c.family));
        }
        AttentionShape odd = decodeShape(b, hq, hkv, 1, lk);
        odd.pageSize = 24;
        if (b == 8 && hkv == 8 && lk == 4096) {
          // Contiguous K/V takes 4 warps (a 128-key tile copies in as long
          // on 4 as on 8, v68); 16-token pages take 8, a warp per page, and
          // pay no box beyond a dense tile's: the same tile and splits.
          AttentionShape small = decodeShape(b, hq, hkv, 1, lk);
          small.pageSize = 16;
          KernelConfig paged = choose(small);
          EXPECT_EQ(contiguous.blockKV, 128);
          EXPECT_EQ(contiguous.kvWarps, 4);
          EXPECT_EQ(paged.blockKV, 128);
          EXPECT_EQ(paged.kvWarps, 8);
          EXPECT_EQ(paged.kvSplits, contiguous.kvSplits);
        }
        EXPECT_FALSE(choose(odd).tmaLoads);
        odd.pageSize = 4; // (a box would start inside the swizzle's 8-row period)
        EXPECT_FALSE(choose(odd).tmaLoads);
      }
}

// Every small-query shape, over head dims, page layouts (dense, row-copied
// and boxed pages), GQA groups, query counts and key lengths, takes a legal
// mma.sync kernel on sm_90a: never a 128-row wgmma tile for a few rows. (The
// split-state refit once halved d = 256's over-budget 64-key tile on 4 key
// warps to 32 keys, 8 per warp, which no kernel takes; the small-query rule
// then fell back to wgmma, found by bench/gen_paged_random.py.)
TEST(KernelConfig, SmallQueriesStayOnLegalMmaSyncTiles) {
  TargetSpec h200 = *getTargetPreset("h200");
  int checked = 0;
  for (int64_t d : {32, 64, 80, 96, 128, 160, 256})
    for (int64_t page : {0, 12, 16, 24, 128})
      for (auto [hq, hkv] : {std::pair<int64_t, int64_t>{8, 2}, {64, 8}, {4, 4}})
        for (int64_t lq : {1, 4})
          for (int64_t lk : {96, 600, 10248, 131072}) {
            AttentionShape s = decodeShape(2, hq, hkv, lq, lk);
            s.headDim = s.headDimV = d;
            s.pageSize = page;
            llvm::Expected<KernelConfig> c = chooseKernelConfig(s, MaskReads::None, h200);
            ASSERT_TRUE(static_cast<bool>(c)) << llvm::toString(c.takeError());
            std::string where = "d=" + std::to_string(d) + " page=" + std::to_string(page) +
                                " " + std::to_string(hq) + ":" + std::to_string(hkv) +
                                " lq=" + std::to_string(lq) + " lk=" + std::to_string(lk);
            EXPECT_EQ(c->family, TensorCoreFamily::MmaSync) << where;
            EXPECT_EQ(c->warpKeys() % 16, 0) << where;
            llvm::Error legal = checkKernelConfig(*c, s, h200);
            EXPECT_FALSE(static_cast<bool>(legal)) << where << ": " << llvm::toString(std::move(legal));
            ++checked;
          }
  EXPECT_EQ(checked, 7 * 5 * 3 * 2 * 4);
}

// Pages that a step of copied rows may straddle (24 tokens here) cost each
// of a thread's rows its own block-table entry and address per tensor; the
// chooser charges them (bench/NOTES.md v60). d = 80 on 128-key tiles over 2
// key warps copies 32 rows a thread (16 lanes share a row of 10 chunks) and
// spilled 100 bytes in its loop; 16-token pages (one lookup per page of a
// tile) charge the copies as dense rows do.
TEST(KernelConfig, RowsOfStraddledPagesAreChargedPerRow) {
  TargetSpec sm90Target = *getTargetPreset("h200"); // as an sm_90 (non-"a") target
  sm90Target.chip = "sm_90"; // (row copies by cp.async: no tensor boxes of 24-token pages)
  AttentionShape s = decodeShape(1, 1, 1, 1, 216);
  s.headDim = s.headDimV = 80;
  s.causal = true;
  s.pageSize = 24;
  KernelConfig spilled;
  spilled.family = TensorCoreFamily::MmaSync;
  spilled.rowsPerWarp = 16;
  spilled.blockQ = 16;
  spilled.blockKV = 128;
  spilled.kvWarps = 2;
  spilled.tmaLoads = false;
  EXPECT_EQ(rowCopyLanes(80 / 8, 32 * spilled.numWarps()), 16);
  EXPECT_TRUE(pagesLookedUpPerRow(24, 64 / 16, 128));
  EXPECT_GT(loopRegistersPerThread(spilled, s), loopRegisterBudget(spilled.family));
  AttentionShape nested = s;
  nested.pageSize = 16;
  EXPECT_FALSE(pagesLookedUpPerRow(16, 64 / 16, 128));
  EXPECT_LE(loopRegistersPerThread(spilled, nested), loopRegisterBudget(spilled.family));
  llvm::Expected<KernelConfig> pick = chooseKernelConfig(s, MaskReads::None, sm90Target);
  ASSERT_TRUE(static_cast<bool>(pick)) << llvm::toString(pick.takeError());
  EXPECT_FALSE(pick->tmaLoads);
  EXPECT_LE(loopRegistersPerThread(*pick, s), loopRegisterBudget(pick->family));
}

// 8-bit floats: the FP8 wgmma kernel (P·V reads Vᵀ from a pre-kernel)
// where the chip has wgmma, tiled like the d = 128 bf16 picks and fitted to
// the budgets at d = 256; refused (the generic kernel's case) on mma.sync,
// for head dims that are not whole 32-element k-steps, and for requests
// the kernel cannot honour.
TEST(KernelConfig, EightBitFloats) {
  TargetSpec h200 = *getTargetPreset("h200"), a100 = *getTargetPreset("a100");
  KernelConfigRequest on;
  on.fp8TensorCores = true;
  auto refusal = [&](const AttentionShape &s, const TargetSpec &t, KernelConfigRequest r) {
    r.fp8TensorCores = r.fp8TensorCores.value_or(true);
    llvm::Expected<KernelConfig> c = chooseKernelConfig(s, MaskReads::None, t, r);
    return c ? std::string() : llvm::toString(c.takeError());
  };
  // By default (fp8-mma=auto) since v43; fp8-mma=off asks for the generic
  // kernel.
  EXPECT_TRUE(kFP8TensorCoresByDefault);
  EXPECT_TRUE(static_cast<bool>(chooseKernelConfig(square(1, 16, 4096, 128, DType::F8),
                                                   MaskReads::None, h200, {})));
  KernelConfigRequest off;
  off.fp8TensorCores = false;
  EXPECT_NE(refusal(square(1, 16, 4096, 128, DType::F8), h200, off).find("fp8-mma=off"),
            std::string::npos);
  for (int64_t d : {32, 64, 96, 128, 256}) {
    AttentionShape s = square(1, 16, 4096, d, DType::F8);
    llvm::Expected<KernelConfig> c = chooseKernelConfig(s, MaskReads::None, h200, on);
    ASSERT_TRUE(static_cast<bool>(c)) << d << ": " << llvm::toString(c.takeError());
    EXPECT_EQ(c->family, TensorCoreFamily::Wgmma);
    EXPECT_TRUE(c->tmaLoads && c->producerWarpgroup);
    EXPECT_EQ(c->blockQ, 128);
    EXPECT_EQ(c->kvSplits, 1);
    EXPECT_FALSE(c->persistent);
    EXPECT_LE(kernelSharedMemoryBytes(*c, s), h200.sramBytesPerBlock);
    EXPECT_LE(loopRegistersPerThread(*c, s), loopRegisterBudget(*c));
    if (d == 128) {
      EXPECT_EQ(c->blockKV, 128);
      EXPECT_EQ(c->kvStages, 3);
      EXPECT_TRUE(c->overlapPV);
    }
  }
  // The Vᵀ stages replace V's in shared memory: d = 128, 3 stages of K and
  // Vᵀ (16 KB each) and the Q tile, 113 KB with barriers and alignment
  // slack.
  KernelConfig c = *chooseKernelConfig(square(1, 16, 4096, 128, DType::F8), MaskReads::None,
                                       h200, on);
  EXPECT_EQ(kernelSharedMemoryBytes(c, square(1, 16, 4096, 128, DType::F8)),
            3 * 2 * 16384 + 16384 + 3 * 2 * 8 + 1024);
  // Causal with more pairs of query tiles than SMs: persistent CTAs, as
  // bf16 (v43d); one CTA per item otherwise.
  AttentionShape causal = square(2, 16, 2048, 128, DType::F8);
  causal.causal = true;
  EXPECT_TRUE(chooseKernelConfig(causal, MaskReads::None, h200, on)->persistent);
  EXPECT_NE(refusal(square(1, 16, 4096, 128, DType::F8), a100, on).find("needs mma=wgmma"),
            std::string::npos);
  EXPECT_NE(refusal(square(1, 16, 4096, 80, DType::F8), h200, on).find("d a multiple of 32"),
            std::string::npos);
  KernelConfigRequest cpAsync;
  cpAsync.tmaLoads = false;
  EXPECT_NE(refusal(square(1, 16, 4096, 128, DType::F8), h200, cpAsync)
                .find("needs kv-loads=tma-producer"),
            std::string::npos);
  KernelConfigRequest split;
  split.kvSplits = 2;
  EXPECT_NE(refusal(square(1, 16, 4096, 128, DType::F8), h200, split).find("unsplit keys"),
            std::string::npos);
}

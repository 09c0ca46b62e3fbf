//===- KVSplitModels.cpp - how many CTAs split each query tile's keys -----===//
//
// The two models chooseKernelConfig (KernelConfig.cpp) asks for split-KV:
// the wave model for compute-bound grids that do not fill the GPU, and the
// streaming model for the memory-bound small-query (decode) kernels, which
// also picks their K/V tile and key warps.
//
//===----------------------------------------------------------------------===//
#include "KVSplitModels.h"
#include "attn/Analysis/StagedTileLayout.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <tuple>

using namespace mlir;
using namespace mlir::attn;

/// The split count of the wave model (flash-decoding's heuristic). A grid
/// of C CTAs on an SM array that holds W at once runs ⌈C / W⌉ waves of
/// which the last may be mostly idle; S splits make S·C CTAs, each over
/// Lk / S keys, or fewer where a key band (a sliding window beside the
/// causal diagonal) leaves a query tile only `band` keys to visit, and the
/// W CTAs of a wave share the SMs (each runs W / SMs times as long). Among
/// S = 1 .. the most that leave each split two K/V tiles (a CTA overlaps a
/// copy with math only from its second tile), take the fewest splits whose
/// time ⌈S·C / W⌉ · W · min(band, Lk / S) is within 15% of the best: each
/// split adds partial outputs to write and combine. (Without a band this
/// orders the splits as the wave efficiency n / ⌈n⌉, n = S·C / W, did
/// before the band: the same picks; with one, splits of Lk wider than the
/// band shorten no CTA: bench/NOTES.md v47.)
int64_t mlir::attn::detail::waveModelSplits(const KernelConfig &c, const AttentionShape &s,
                        const TargetSpec &target, bool readsMaskTensor) {
  int64_t group = s.headsQ / s.headsKV;
  int64_t rows = (c.packKVGroups ? group : 1) * s.seqQ;
  int64_t heads = c.packKVGroups ? s.headsKV : s.headsQ;
  int64_t ctas = int64_t(std::min<uint64_t>(
      llvm::SaturatingMultiply<uint64_t>(s.batch * heads, llvm::divideCeil(rows, c.blockQ)),
      std::numeric_limits<int64_t>::max()));
  // Saturating: an sm-count override may be as large as int64 allows. A
  // split kernel may hold fewer CTAs per SM (no launch bound of two).
  auto wave = [&](int64_t splits) {
    KernelConfig split = c;
    split.kvSplits = splits;
    return int64_t(std::min<uint64_t>(
        llvm::SaturatingMultiply<uint64_t>(target.smCount,
                                           residentCTAsPerSM(split, s, target, readsMaskTensor)),
        std::numeric_limits<int64_t>::max()));
  };
  if (ctas >= wave(1))
    return 1;
  int64_t tiles = llvm::divideCeil(s.seqKV, c.blockKV);
  int64_t most = std::clamp<int64_t>(tiles / 2, 1, 1024);
  // A packed tile's Br rows are Br / G queries of each head.
  TileSizes queryTile{c.packKVGroups ? std::max<int64_t>(1, c.blockQ / group) : c.blockQ,
                      c.blockKV};
  double band = double(mostVisitedKeysPerQueryTile(s, queryTile));
  // 1 / time, in CTA-key slots: higher is faster.
  auto efficiency = [&](int64_t splits) {
    double resident = double(wave(splits));
    double waves = std::ceil(double(splits) * double(ctas) / resident);
    return 1.0 / (waves * resident * std::min(band, double(s.seqKV) / double(splits)));
  };
  double best = 0;
  for (int64_t splits = 1; splits <= most; ++splits)
    best = std::max(best, efficiency(splits));
  int64_t splits = 1;
  while (efficiency(splits) < 0.85 * best)
    ++splits;
  // The tiles dealt out evenly may need fewer splits to cover Lk.
  KernelConfig split = c;
  split.kvSplits = splits;
  return llvm::divideCeil(s.seqKV, kvSplitKeys(split, s));
}

namespace {

/// Facts of the streaming model below, measured on the H200 and (box
/// copies, since v68) the H100; the chip's preset gives its SM count and
/// DRAM bandwidth. One CTA moves one K/V tile pair per tileStreamSeconds,
/// which depends on how its stages are filled. bench/decode_model_replay.py
/// replays the box model on the measured sweeps.
///
/// Copies from every thread (cp.async, or bulk rows: paged and packed K/V,
/// chips without TMA): a fixed latency, the copy of its bytes (one CTA
/// keeps one tile pair in flight, ~86 GB/s), and the math of the keys each
/// of its warps computes on (10.6 ns per key at d + dv = 256, in series
/// with the copies in a warp). Fitted on v27's sweep (bench/NOTES.md: 1 to
/// 8 warps, 32- to 128-key tiles, CTA-starved B = 1 grids), where it gives
/// 1.21 µs for v13's one warp on 64-key tiles (v13 measured 1.2) and is
/// within 5% of six of seven tile shapes.
constexpr double kTileLatencySec = 0.15e-6;
constexpr double kTileCopySecPerByte = 0.0119e-6 / 1024;
constexpr double kWarpSecPerKey = 10.6e-9;
/// Tensor boxes issued by one thread (TMA, dense K/V on sm_90): the copy
/// engine streams a tile pair while the warps compute on the previous one,
/// so a tile takes the longer of its copy and its math. The copy: one CTA
/// keeps its two stages in flight at ~83 GB/s (a 128-key tile pair in
/// 0.79-0.80 µs on 4 and on 8 warps alike, where 16 keys per warp compute
/// in 0.60). The math: least near 10 keys per warp and growing with the
/// square of the distance (0.60 µs at 16, 0.78 at 32, 1.75 at 64).
/// Fitted on the CTA-starved points of v37 (H200) and v68 (H100): B = 1,
/// one split, 8 CTAs, 32- to 128-key tiles on 1 to 8 warps, within 4% of
/// every tile shape on both chips. (The fit before it summed copy and math,
/// which made 8 warps 12% faster than 4 on 128-key tiles: measured, 4
/// warps were as fast or 1-3% faster at every B = 1 point of both sweeps.)
constexpr double kBoxCopyBytesPerSec = 83e9;
constexpr double kBoxMathSec = 0.585e-6;
constexpr double kBoxMathBestWarpKeys = 9.8;
constexpr double kBoxMathSecPerWarpKeySquared = 0.397e-9;
/// How the SMs' demand meets the DRAM's bandwidth: a grid takes the
/// smooth maximum (a p-norm, p = 3) of its busiest SM's time at its CTAs'
/// own rate and every CTA's bytes at the DRAM's, rather than the greater: a
/// grid whose demand barely exceeds the DRAM's rate queues and reaches ~85%
/// of it (v36k: 128-key tiles on 2 warps at B = 64, where 4 warps reached
/// 1.01x cuDNN). p = 3 put v37's picks within 2% of the best at 26 of 26
/// shapes with the tile fit before (p = 2: 0.94 at worst; 6: 0.96; the
/// plain maximum 0.88); replayed with this one, p = 4 and 6 move 8-20 picks
/// to split counts no sweep timed, and p = 6 misses one H100 shape.
constexpr double kDramSmoothP = 3;
/// The SMs of a TPC share its path to the memory system. A grid with more
/// CTAs than TPCs and fewer than SMs doubles up some TPCs beside others
/// that hold one, and streams slower than both ends: v68b (every split
/// count from 2 to 16 at four B = 1 shapes on an H100, two passes within
/// 0.5%) measured a trough 3-6% deep at ~96 CTAs on 132 SMs, 1-2% at 72
/// and at 128. The DRAM's rate is taken to lose kTpcImbalance·f·(1 − f), f
/// the doubled TPCs' fraction: 4% at f = 1/2. (Measured on an H100 only;
/// taken as a fact of every chip with two SMs per TPC, sm_80 to sm_90.)
constexpr double kTpcImbalance = 0.16;
constexpr int64_t kSMsPerTPC = 2;
/// v13c found that more stages do not raise the rate while they cost
/// resident CTAs: the model keeps 2. A split grid pays the combine kernel's
/// launch and tail: 1.6-2.2 µs measured in CUDA graphs (v37 (b), as a
/// serving loop launches). (v13 took 8 µs, timed without graphs: the
/// Python runtime's second launch. Replayed on v37's and v68's sweeps,
/// 8 µs keeps one split at B = 1, 4k (32, 32), 0.85 of the best.)
constexpr double kSplitOverheadSec = 2e-6;
/// A split grid also costs time that grows with its split count: v69c
/// measured 0.06-0.09 µs per split on an H100 (B = 1, one K/V head, 16 ->
/// 153 splits: 8 µs more; v69 (a), B = 1 4k GQA, 16 -> 32: 1.5 µs), where
/// 2 µs whatever S is picked 153 splits of two 32-key tiles at 0.63 of the
/// best. The combine loops over a row's S partials, so the term is taken
/// as the longer of its partials' reads at the DRAM's rate and S trips;
/// but v70 unrolled those loops by 8 and measured no change, so the cost
/// is measured, not derived (the split grid's small CTAs' fixed costs are
/// the other suspect).
constexpr double kCombineSecPerSplit = 0.06e-6;
/// A paged tile's copies wait for its pages' block-table entries. v14e
/// swept 16-token pages and v14f measured the fit for one-warp CTAs: 0.45
/// µs per page a tile spans put the picks within 2.5% of the best at 12 of
/// 12 decode shapes (the chooser without it: 7 of 12). The lookups are
/// dealt out over the CTA's threads with the copies, so key warps share
/// them: v27b's paged sweep (1 to 8 warps) puts the picks within 5% of the
/// best at 12 of 12 shapes with ⌈pages / kv_warps⌉ lookups per tile (9 of
/// 12 with every page charged in full). A tile inside one page pays nothing
/// more: 128-token pages ran at 0.97-1.01x the contiguous kernel (v14e).
constexpr double kPageLookupSec = 0.45e-6;
/// Each tensor box one issuer of a paged tile issues beyond a dense tile's
/// (pageBoxesBeyondOne) costs the CTA this much more per tile: its warp
/// issues them before its share of the math. v42 measured 0.59 µs per
/// 128-key tile of 16-token pages from one issuer (28 more boxes, ~21 ns
/// each) at B = 8, 4k GQA on the H200; v48 ruled out the block-table
/// reads. Since v50 a tile's pages are dealt out over its warps, which
/// ran the 128-key, 8-warp pick there 1.11-1.12x the one-issuer kernel on
/// an H100 (0.95 of contiguous), so a pick with a warp per page pays
/// nothing.
constexpr double kBoxIssueSec = 20e-9;

/// Whether `c`'s stages are filled with tensor boxes (TMA: dense K/V from
/// one thread, the copies v37's sweep fitted, or whole pages of a pool, one
/// box per page and atom from a warp per page, whose picks v42 measured
/// with this fit: 128-token pages 0.94-1.01x the contiguous kernel; smaller
/// pages pay kBoxIssueSec per box an issuer adds);
/// row copies (cp.async, packed K/V, chips without TMA) keep the fits of
/// v13-v27b.
bool streamsBoxes(const KernelConfig &c, const AttentionShape &s) {
  return stagesInSwizzledAtoms(/*wgmma=*/false, c.tmaLoads,
                               kvTilesInTensorBoxes(s.pageSize, s.varlen));
}

/// The boxes the busiest issuer of a tile pair of whole pages issues
/// beyond a dense tile's one per K and V atom (kBoxCopyBytesPerSec's fit): its
/// pages (pageBoxIssuers deals them out) less one, times the atoms.
int64_t pageBoxesBeyondOne(const KernelConfig &c, const AttentionShape &s) {
  if (s.pageSize == 0 || s.pageSize >= c.blockKV)
    return 0;
  int64_t atoms = llvm::divideCeil(s.headDim, atomColumns(2)) +
                  llvm::divideCeil(s.headDimV, atomColumns(2));
  int64_t pages = c.blockKV / s.pageSize;
  return (llvm::divideCeil(pages, pageBoxIssuers(pages, c.numWarps())) - 1) * atoms;
}

/// One SM's share of DRAM bandwidth, bytes per second.
double dramShare(const TargetSpec &target) {
  return target.hbmBytesPerSec / double(target.smCount);
}

/// Seconds one CTA takes to stream one K/V tile pair of `c` on `s`.
double tileStreamSeconds(const KernelConfig &c, const AttentionShape &s) {
  const double tileBytes = double(c.blockKV) * double(s.headDim + s.headDimV) * 2;
  const double mathScale = double(s.headDim + s.headDimV) / 256;
  if (streamsBoxes(c, s)) {
    double fromBest = double(c.warpKeys()) - kBoxMathBestWarpKeys;
    double math = kBoxMathSec + kBoxMathSecPerWarpKeySquared * fromBest * fromBest * mathScale;
    return std::max(tileBytes / kBoxCopyBytesPerSec, math) +
           kBoxIssueSec * double(pageBoxesBeyondOne(c, s));
  }
  double seconds = kTileLatencySec + tileBytes * kTileCopySecPerByte +
                   double(c.warpKeys()) * kWarpSecPerKey * mathScale;
  if (s.pageSize == 0 || s.pageSize >= c.blockKV)
    return seconds;
  int64_t pages = llvm::divideCeil(c.blockKV, s.pageSize);
  return seconds + kPageLookupSec * double(llvm::divideCeil(pages, c.kvWarps));
}

/// How `c`'s CTAs stream K/V on the busiest SM: the bytes each CTA
/// streams, the seconds per tile pair, the rounds of CTAs the SM runs, how
/// many it runs at once, the bytes per second those ask for together, and
/// how many SMs stream, of how many CTAs.
struct SmStream {
  double perCta, tileSec, rounds, together, demand, busySMs, ctas;
  bool boxes;
};

SmStream smStream(const KernelConfig &c, const AttentionShape &s, const TargetSpec &target) {
  const double bytesPerElement = 2;
  int64_t group = s.headsQ / s.headsKV;
  int64_t heads = c.packKVGroups ? s.headsKV : s.headsQ;
  int64_t rows = (c.packKVGroups ? group : 1) * s.seqQ;
  double ctas = double(s.batch) * double(heads) * double(llvm::divideCeil(rows, c.blockQ)) *
                double(c.kvSplits);
  // Every CTA streams its K/V head's keys of its split.
  double kvBytes = ctas / double(c.kvSplits) * double(s.seqKV) *
                   double(s.headDim + s.headDimV) * bytesPerElement;
  double tileBytes = double(c.blockKV) * double(s.headDim + s.headDimV) * bytesPerElement;
  SmStream m;
  m.perCta = kvBytes / ctas;
  m.tileSec = tileStreamSeconds(c, s);
  double perSm = std::ceil(ctas / double(target.smCount));
  // (Small-query mma.sync kernels take no launch bound, mask or not.)
  double resident = double(residentCTAsPerSM(c, s, target, /*readsMaskTensor=*/false));
  m.rounds = std::ceil(perSm / resident);
  m.together = std::min(perSm, resident);
  m.demand = m.together * tileBytes / m.tileSec;
  m.busySMs = std::min(ctas, double(target.smCount));
  m.ctas = ctas;
  m.boxes = streamsBoxes(c, s);
  return m;
}

/// The fraction of the DRAM's rate a grid on `busySMs` SMs keeps beside
/// the TPCs it doubles up (kTpcImbalance).
double tpcBalance(double busySMs, const TargetSpec &target) {
  double tpcs = double(target.smCount / kSMsPerTPC);
  if (tpcs < 1)
    return 1;
  double doubled = std::clamp(busySMs - tpcs, 0.0, tpcs) / tpcs;
  return 1 - kTpcImbalance * doubled * (1 - doubled);
}

/// Seconds the grid streams K/V for. Box copies: the busiest SM's CTAs at
/// their own rate (its rounds of `together` CTAs, each moving one tile pair
/// per tileSec) against every CTA's bytes at the DRAM's rate, in a smooth
/// maximum (kDramSmoothP). The DRAM's side counts every CTA's bytes, not
/// the busiest SM's times the SMs: while it is the bound, an SM with one
/// CTA more than another does not hold it back (v37: 512 CTAs of 128-key
/// tiles, 4 on some SMs and 3 on others, read as fast as any tile). Row
/// copies keep the rule their picks were measured with (v27b, v38 (c)):
/// the busiest SM at the lesser of its demand and its share of DRAM.
/// (v38 (b) measured the box rule's picks; replayed on row copies it moves
/// 16-token paged decode to 32-key tiles that no run has timed.)
double streamingSeconds(const SmStream &m, const TargetSpec &target) {
  if (!m.boxes)
    return m.rounds * m.together * m.perCta / std::min(m.demand, dramShare(target));
  double busiestSM = m.rounds * m.together * m.perCta / m.demand;
  double dram = m.ctas * m.perCta / (target.hbmBytesPerSec * tpcBalance(m.busySMs, target));
  return std::pow(std::pow(busiestSM, kDramSmoothP) + std::pow(dram, kDramSmoothP),
                  1 / kDramSmoothP);
}

/// Predicted time of a memory-bound small-query kernel (decode): K/V is
/// streamed by CTAs that each move one tile pair per tileStreamSeconds
/// (streamingSeconds); CTAs beyond what an SM holds run in further rounds,
/// each paying the pipeline fill.
double predictedStreamSeconds(const KernelConfig &c, const AttentionShape &s,
                              const TargetSpec &target) {
  SmStream m = smStream(c, s, target);
  double seconds = streamingSeconds(m, target) + m.rounds * m.tileSec;
  if (c.kvSplits > 1) {
    // Each split writes and the combine reads a row's partial output and
    // statistics, in f32.
    double partialBytes = 2.0 * double(c.kvSplits) * double(s.batch) * double(s.headsQ) *
                          double(s.seqQ) * double(s.headDimV + kSplitRowStatWords) * 4;
    seconds += kSplitOverheadSec + std::max(partialBytes / target.hbmBytesPerSec,
                                            double(c.kvSplits) * kCombineSecPerSplit);
  }
  return seconds;
}

} // namespace

/// The small-query kernel's K/V tile, key warps and split count, by the
/// streaming model: every legal (block_kv, kv_warps, S) whose registers fit
/// the family's budget, with S up to half the tiles, the fastest
/// prediction, then the fewest splits (then the larger tile, then the
/// fewer warps, or the more where row-copied contiguous K/V streams at the
/// SM's DRAM share) within 3% of it: the model does not resolve differences
/// that small.
llvm::Expected<KernelConfig>
mlir::attn::detail::chooseStreamingSplits(KernelConfig c, const AttentionShape &s,
                                                   const TargetSpec &target,
                                                   const KernelConfigRequest &request) {
  struct Candidate {
    KernelConfig config;
    double seconds;
  };
  llvm::SmallVector<Candidate> candidates;
  // Where no tile fits the register budget (d = 256 beside a paged row
  // copy's per-row state), the one over it least: ptxas spills the excess
  // (gen_paged_random.py: 436-1512 bytes at 64-key tiles on one warp, the
  // first tile listed, which this took before; 8 bytes with this).
  std::optional<std::pair<int64_t, KernelConfig>> leastOver;
  // (block_kv, kv_warps), those the request fixes as it fixes them;
  // checkKernelConfig drops the illegal pairs (fewer than 16 keys per warp,
  // more than 64 for one mma.sync warp).
  llvm::SmallVector<std::pair<int64_t, int64_t>> tiles;
  for (int64_t blockKV : {64, 32, 128})
    for (int64_t warps : {1, 2, 4, 8})
      if ((!request.blockKV || request.blockKV == blockKV) &&
          (!request.kvWarps || request.kvWarps == warps))
        tiles.push_back({blockKV, warps});
  // Each split count of tile `t` that changes the keys per split.
  auto addSplits = [&](const KernelConfig &t) {
    int64_t most = std::clamp<int64_t>(llvm::divideCeil(s.seqKV, t.blockKV) / 2, 1, 4096);
    int64_t last = 0;
    for (int64_t splits = 1; splits <= most; ++splits) {
      KernelConfig split = t;
      split.kvSplits = splits;
      split.kvSplits = llvm::divideCeil(s.seqKV, kvSplitKeys(split, s));
      if (split.kvSplits == last)
        continue;
      last = split.kvSplits;
      candidates.push_back({split, predictedStreamSeconds(split, s, target)});
    }
  };
  // The stages are the family's (2) or the request's: v13c measured more
  // stages slower for these kernels.
  for (auto [blockKV, warps] : tiles) {
    c.blockKV = blockKV;
    c.kvWarps = warps;
    c.kvSplits = 1;
    if (llvm::Error e = checkKernelConfig(c, s, target)) {
      llvm::consumeError(std::move(e));
      continue;
    }
    if (int64_t regs = loopRegistersPerThread(c, s); regs > loopRegisterBudget(c.family)) {
      if (!leastOver || regs < leastOver->first)
        leastOver = {regs, c};
      continue;
    }
    addSplits(c);
  }
  if (candidates.empty() && leastOver)
    addSplits(leastOver->second);
  if (candidates.empty()) {
    if (!tiles.empty())
      std::tie(c.blockKV, c.kvWarps) = tiles.front();
    c.kvSplits = 1;
    if (llvm::Error e = checkKernelConfig(c, s, target))
      return std::move(e);
    return c;
  }
  double fastest = candidates.front().seconds;
  for (const Candidate &cand : candidates)
    fastest = std::min(fastest, cand.seconds);
  const Candidate *pick = nullptr;
  // Then the larger tile; then fewer warps, except where contiguous K/V
  // streamed by row copies asks for its SM's whole DRAM share: that rule
  // predicts the share for any warps there, but measured, CTAs whose demand
  // barely exceeds it stream slower (v36k: B = 64, 128-key tiles, 2 warps
  // 3789-4395 GB/s, 4 warps 4519-4523), so more warps. (The box rule's
  // smooth minimum models that queueing itself; paged K/V keeps v27b's.)
  auto rank = [&](const KernelConfig &c) {
    SmStream m = smStream(c, s, target);
    bool atShare = s.pageSize == 0 && !m.boxes && m.demand >= dramShare(target);
    return std::make_tuple(c.kvSplits, -c.blockKV, atShare ? -c.kvWarps : c.kvWarps);
  };
  for (const Candidate &cand : candidates)
    if (cand.seconds <= 1.03 * fastest && (!pick || rank(cand.config) < rank(pick->config)))
      pick = &cand;
  if (!pick)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the streaming model predicts no finite time for this shape");
  return pick->config;
}


//===- WorkItems.cpp - the CTA's work, and persistent CTAs' item loop ------===//
//
// The emitter's first stages after the kernel's frame
// (FlashAttentionEmitter.h): where the thread sits in its CTA
// (computeThreadCoordinates), which work item (query tile, batch · head,
// split) the CTA runs and which query rows each lane holds in it
// (computeTileCoordinates, rowCoordinates), and, with persistent CTAs
// (FlashKernelSpec::persistentCTAs), the loop over the CTA's work items
// that both the producer warpgroup and the computing warps run
// (forEachWorkItem, emitPersistentConsumer).
//
// Persistent CTAs: the grid holds one CTA per SM slot, and CTA c takes
// items c, c + G, ... (causal: pairs of items of equal work,
// attn/Analysis/PersistentSchedule.h). The producer's stage ring runs on
// across items: both roles count the K/V tiles the ring has held before
// the item (KernelValues::ringBase), so a tile's stage and mbarrier parity
// (KernelContext::stageOf, fillOf) are the same on both sides, and the
// producer fills the next item's first stages while the computing warps
// finish this one's last tiles, its epilogue and the next Q tile.
//
//===----------------------------------------------------------------------===//
#include "FlashAttentionEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::attn;

void FlashAttentionEmitter::computeThreadCoordinates() {
  v.tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  v.warp = k.div(v.tid, 32);
  if (s.kvWarps > 1) {
    // Warps run along the rows first, then along the keys of a tile.
    v.keyWarp = k.div(v.warp, s.rowWarps());
    v.warp = k.rem(v.warp, s.rowWarps());
    v.warpKey0 = k.mul(v.keyWarp, c.warpKeys);
  }
  v.lane = k.rem(v.tid, 32);
  v.g = k.div(v.lane, 4);
  v.t = k.rem(v.lane, 4);
  v.twoT = k.mul(v.t, 2);
  v.laneKey = v.warpKey0 ? k.add(v.twoT, v.warpKey0) : v.twoT;
}

void FlashAttentionEmitter::computeTileCoordinates(Value qTileIdx, Value bh) {
  // Who am I: (batch, head) from bh (varlen: the head; the sequence comes
  // with the tile), query tile from qTileIdx, split from blockIdx.z.
  // Causal: the last query tiles see the most keys. CTAs start in blockIdx
  // order, so blockIdx.x counts down from the last tile: the longest CTAs
  // of each head (varlen: of each sequence) start first and the short ones
  // fill the tail of the grid.
  if (s.causal)
    qTileIdx = arith::SubIOp::create(b, loc, k.idx(s.numQueryTiles() - 1), qTileIdx);
  if (s.varlen)
    locateSequence(qTileIdx); // the sequence's extents, v.qStart and v.kvLen
  else
    v.batch = k.div(bh, s.gridHeads());
  if (s.packKVGroups) {
    // The CTA serves every query head of its K/V head: heads vary by row.
    v.kvHead = k.rem(bh, s.gridHeads());
  } else {
    v.head = k.rem(bh, s.headsQ);
    // GQA: query head h reads K/V head h / (Hq/Hkv); no copy of K/V exists.
    v.kvHead = k.div(v.head, s.headsQ / s.headsKV);
  }
  if (s.splitKV())
    v.split = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);
  if (!s.varlen)
    v.qStart = k.mul(qTileIdx, c.bq);
  Value rowLimit = rowSpaceEnd();
  v.row.resize(c.mt);
  v.rowHead.resize(c.mt);
  v.rowInside.resize(c.mt);
  v.modRow.resize(c.mt);
  v.modRowHead.resize(c.mt);
  for (int64_t mi = 0; mi < c.mt; ++mi) {
    Value rho = k.add(k.add(k.add(v.qStart, k.mul(v.warp, s.rowsPerWarp)), mi * 16), v.g);
    for (int r = 0; r < 2; ++r) {
      Value rowR = k.add(rho, 8 * r);
      if (c.qTail)
        v.rowInside[mi][r] =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, rowR, rowLimit);
      std::tie(v.row[mi][r], v.rowHead[mi][r]) = rowCoordinates(rowR);
      // A score_mod region sees the rows unclamped: its loads clamp their
      // own indices (ScoreModCopier::loadElement) and a row past the row
      // space is never stored. A clamp (a min) beside its index comparisons
      // keeps LLVM from folding them into one difference per tile: a d = 96
      // window over split keys and a partial query tile spilled 212 bytes.
      std::tie(v.modRow[mi][r], v.modRowHead[mi][r]) =
          c.qTail && s.scoreMod ? rowCoordinates(rowR, /*clamp=*/false)
                                : std::pair(v.row[mi][r], v.rowHead[mi][r]);
    }
  }
  // The queries of rows [qStart, qStart + bq): row / packed.
  v.qFirst = c.packed == 1 ? v.qStart : k.div(v.qStart, c.packed);
  v.qEnd = c.packed == 1 ? k.add(v.qStart, c.bq)
                         : k.add(k.div(k.add(v.qStart, c.bq - 1), c.packed), 1);
}

std::pair<Value, Value> FlashAttentionEmitter::rowCoordinates(Value rho, bool clamp) {
  // (A varlen sequence without queries clamps to row 0: queryAt keeps its
  // token in the tensor, and no row of it is stored.)
  if (c.qTail && clamp) {
    Value lastRow;
    if (s.varlen) {
      Value one = k.idx(1);
      lastRow = arith::SubIOp::create(b, loc, arith::MaxUIOp::create(b, loc, v.numRows, one), one);
    } else {
      lastRow = k.idx(s.numRows() - 1);
    }
    rho = arith::MinUIOp::create(b, loc, rho, lastRow);
  }
  if (c.packed == 1)
    return {rho, v.head};
  // row = query · G + head in the group: the G heads of a query are
  // neighbours, so a tile's queries are few and its causal range tight.
  return {k.div(rho, c.packed), k.add(k.mul(v.kvHead, c.packed), k.rem(rho, c.packed))};
}

void FlashAttentionEmitter::forEachWorkItem(function_ref<void()> body) {
  // Item i is query tile i mod T of batch · head i / T: the CTAs that run
  // at once take neighbouring query tiles of few heads, whose K/V stay in
  // L2 (the order of the one-CTA-per-item grid, x fastest). CTA c takes
  // items c, c + G, ..., or, pairing causal items, items 2p and 2p + 1 of
  // pairs p = c, c + G, ...
  const int64_t tiles = s.numQueryTiles(), grid = s.persistentCTAs;
  Value cta = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  const bool pairs = s.pairsCausalItems();
  Value lo = cta, hi = k.idx(s.numWorkItems()), step = k.idx(grid);
  if (pairs) {
    Value myPairs = arith::CeilDivUIOp::create(
        b, loc, arith::SubIOp::create(b, loc, k.idx(s.numWorkItems() / 2), cta), step);
    lo = k.idx(0);
    hi = k.mul(myPairs, 2);
    step = k.idx(1);
  }
  auto loop = scf::ForOp::create(b, loc, lo, hi, step, ValueRange{k.idx(0)});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value n = loop.getInductionVar(), item = n;
  if (pairs)
    item = k.add(k.mul(k.add(cta, k.mul(k.div(n, 2), grid)), 2), k.rem(n, 2));
  Value tile = k.rem(item, tiles);
  if (pairs) {
    // Longest, shortest, ...: computeTileCoordinates runs causal tiles
    // from the last, so even positions 2m take its m-th, odd ones its
    // (T − 1 − m)-th.
    Value m = k.div(tile, 2);
    Value even = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, k.rem(tile, 2),
                                       k.idx(0));
    tile = arith::SelectOp::create(b, loc, even, m,
                                   arith::SubIOp::create(b, loc, k.idx(tiles - 1), m));
  }
  computeTileCoordinates(tile, k.div(item, tiles));
  computeKVRange();
  v.ringBase = loop.getRegionIterArgs()[0];
  body();
  b.setInsertionPointToEnd(loop.getBody());
  // Whole tiles from kvBegin (none when the range is empty).
  Value span = arith::SubIOp::create(b, loc, arith::MaxUIOp::create(b, loc, v.kvEnd, v.kvBegin),
                                     v.kvBegin);
  Value visited = arith::CeilDivUIOp::create(b, loc, span, k.idx(c.bkv));
  scf::YieldOp::create(b, loc, ValueRange{k.add(v.ringBase, visited)});
  v.ringBase = Value();
}

void FlashAttentionEmitter::emitPersistentConsumer() {
  // The two warpgroups hand each other the turn to issue once per K/V
  // tile, so each item ends with the first warpgroup's turn pending, as
  // the first item starts: the turns begin once, before every item.
  zeroHeadDimPadding();
  if (s.overlapPV)
    family.startIssueTurns();
  forEachWorkItem([&] {
    stageQ();
    scf::ForOp loop = emitKVLoops();
    epilogue(loop);
    // Every warp has copied its O rows out of the Q tile before the next
    // item's Q is staged over them (by other threads' chunks).
    NVVM::BarrierOp::create(b, loc, Type(), arith::ConstantIntOp::create(b, loc, 1, 32),
                            arith::ConstantIntOp::create(b, loc, c.threads, 32),
                            NVVM::BarrierReductionAttr(), Value());
  });
}

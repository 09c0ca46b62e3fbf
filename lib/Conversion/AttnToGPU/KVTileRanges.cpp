//===- KVTileRanges.cpp - which K/V tiles a CTA visits, and how -----------===//
//
// The FlashAttentionEmitter stages that decide a CTA's K/V tiles (the rest
// of the emitter is in FlashAttentionEmitter.cpp):
//
//   computeKVRange                   [kvBegin, kvEnd): the CTA's split, up
//                                    to the causal diagonal, inside the
//     skipTilesOutsideScoreModBounds score_mod's key bounds (a window)
//   tileRuns                         where emitKVLoops's runs change: tiles
//     firstTileInsideLowestKey       that apply the whole score_mod, none
//     firstTileNeedingMasks          of it, or the masks
//   emitKVLoops                      the loops over those runs, after the
//     peelFirstTile                  work item's first tile where the P·V
//     emitKVLoop, emitTile           is overlapped; each tile's stage
//                                    acquired, its math, its release
//
//===----------------------------------------------------------------------===//
#include "FlashAttentionEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::attn;

void FlashAttentionEmitter::computeKVRange() {
  // The sequence's keys: Lk, a paged sequence's length, clamped to the
  // capacity (a length out of range is the caller's error; clamped, it
  // cannot make the kernel read past the block table's row), or a varlen
  // sequence's (locateSequence has read it).
  if (!s.varlen)
    v.kvLen = k.idx(c.lk);
  if (s.paged()) {
    Value len = memref::LoadOp::create(b, loc, v.seqLens, ValueRange{v.batch});
    len = arith::IndexCastOp::create(b, loc, b.getIndexType(), len);
    len = arith::MaxSIOp::create(b, loc, len, k.idx(0));
    v.kvLen = arith::MinSIOp::create(b, loc, len, k.idx(c.lk));
  }
  v.causalShift = !s.causalBottomRight ? k.idx(0)
                  : s.varlen           ? arith::SubIOp::create(b, loc, v.kvLen, v.qLen)
                  : s.paged()          ? arith::SubIOp::create(b, loc, v.kvLen, k.idx(c.lq))
                                       : k.idx(s.seqKV - s.seqQ);
  // K/V tiles to visit: the CTA's split of the keys (all of them unless
  // split), and, causal, only up to the tile holding the last key that the
  // CTA's last query row sees (tiles above the diagonal skipped).
  // One past the last key tile (Lk rounded up to whole tiles).
  v.kvBegin = k.idx(0);
  v.kvEnd = k.idx((c.lk + c.bkv - 1) / c.bkv * c.bkv);
  if (s.dynamicKVLength())
    v.kvEnd = k.mul(arith::CeilDivUIOp::create(b, loc, v.kvLen, k.idx(c.bkv)), c.bkv);
  if (s.splitKV()) {
    v.kvBegin = k.mul(v.split, s.keysPerSplit);
    // (A split past a paged sequence's end gets kvEnd < kvBegin: its loops
    // are empty.)
    v.kvEnd = arith::MinUIOp::create(b, loc, k.add(v.kvBegin, s.keysPerSplit), v.kvEnd);
  }
  skipTilesOutsideScoreModBounds();
  if (s.causal) {
    Value lastSeen = k.add(v.qEnd, v.causalShift); // one past the last key
    lastSeen = arith::MaxSIOp::create(b, loc, lastSeen, k.idx(0));
    Value tiles = arith::CeilDivUIOp::create(b, loc, lastSeen, k.idx(c.bkv));
    // (A split past the diagonal gets kvEnd < kvBegin: its loops are empty.)
    v.kvEnd = arith::MinUIOp::create(b, loc, k.mul(tiles, c.bkv), v.kvEnd);
  }
}

void FlashAttentionEmitter::skipTilesOutsideScoreModBounds() {
  // A score_mod that keeps no key below i + lowest (a sliding window) or
  // above i + highest: the tiles wholly outside [qFirst + lowest,
  // qEnd − 1 + highest] would give only -inf scores, which change nothing.
  if (s.scoreModLowestKey) {
    Value lowest = k.add(v.qFirst, *s.scoreModLowestKey), zero = k.idx(0);
    Value first = arith::MaxSIOp::create(b, loc, lowest, zero);
    v.kvBegin = arith::MaxUIOp::create(b, loc, v.kvBegin, k.mul(k.div(first, c.bkv), c.bkv));
  }
  if (s.scoreModHighestKey) {
    Value highest = k.add(v.qEnd, *s.scoreModHighestKey), zero = k.idx(0);
    Value end = arith::MaxSIOp::create(b, loc, highest, zero);
    Value tiles = arith::CeilDivUIOp::create(b, loc, end, k.idx(c.bkv));
    v.kvEnd = arith::MinUIOp::create(b, loc, k.mul(tiles, c.bkv), v.kvEnd);
  }
}

Value FlashAttentionEmitter::firstTileInsideLowestKey() {
  // Tile t is inside when every row's lowest key is at most t: the last row
  // (qEnd − 1) has the highest.
  Value lowest = k.add(k.add(v.qEnd, -1), *s.scoreModLowestKey);
  lowest = arith::MaxSIOp::create(b, loc, lowest, k.idx(0));
  return k.mul(arith::CeilDivUIOp::create(b, loc, lowest, k.idx(c.bkv)), c.bkv);
}

Value FlashAttentionEmitter::firstTileNeedingMasks() {
  // The tile holding the smallest key some row must not see: past the
  // first row's causal diagonal or score_mod's highest key, or Lk (all
  // tiles are masked anyway with a mask tensor).
  auto tileOf = [&](Value firstDropped) {
    firstDropped = arith::MaxSIOp::create(b, loc, firstDropped, k.idx(0));
    return k.mul(k.div(firstDropped, c.bkv), c.bkv);
  };
  auto earlier = [&](Value x, Value y) -> Value {
    return x ? arith::MinUIOp::create(b, loc, x, y).getResult() : y;
  };
  Value first;
  if (!c.hasMask && c.kTail)
    first = s.dynamicKVLength() ? k.mul(k.div(v.kvLen, c.bkv), c.bkv)
                                : k.idx(c.lk / c.bkv * c.bkv);
  if (!c.hasMask && s.causal)
    first = earlier(first, tileOf(k.add(k.add(v.qFirst, v.causalShift), 1)));
  if (s.scoreModHighestKey)
    first = earlier(first, tileOf(k.add(v.qFirst, *s.scoreModHighestKey + 1)));
  return first;
}

FlashAttentionEmitter::TileRuns FlashAttentionEmitter::tileRuns() {
  auto clamp = [&](Value x, Value lo) {
    return arith::MinUIOp::create(b, loc, arith::MaxUIOp::create(b, loc, x, lo), v.kvEnd)
        .getResult();
  };
  // (With kvEnd < kvBegin, a split past the diagonal, every run is empty.)
  TileRuns runs{v.kvBegin, v.kvBegin, v.kvEnd, v.kvEnd, /*masked=*/false};
  if (Value end = firstTileNeedingMasks()) {
    runs.insideEnd = clamp(end, v.kvBegin);
    runs.masked = true;
  }
  if (s.scoreModLowestKey)
    runs.insideBegin = arith::MinUIOp::create(
        b, loc, clamp(firstTileInsideLowestKey(), v.kvBegin), runs.insideEnd);
  return runs;
}

void FlashAttentionEmitter::TileRuns::startAfter(KernelBuilder &k, Value start) {
  // A run that ends at or before `start` is empty.
  for (Value *bound : {&begin, &insideBegin, &insideEnd, &end})
    *bound = arith::MaxUIOp::create(k.b, k.loc, *bound, start);
}

scf::ForOp FlashAttentionEmitter::emitKVLoops() {
  // Loop state: acc[mi][nd] (mt * dv/8 C tiles), then m[mi][r], then l[mi][r].
  numAcc = c.mt * (c.dv / 8);
  mBase = numAcc;
  lBase = numAcc + 2 * c.mt;
  // overlapPV: P of "the tile before the first", zero (peelsFirstTile: the
  // state where the item visits no tile; else the first iteration's P·V
  // adds 0 · V of its own stage, finite, already loaded). (One 32-bit
  // register per 2 keys of 2-byte P, per 4 of 8-bit P.)
  pBase = lBase + 2 * c.mt;
  numPacked = s.overlapPV ? c.bkv * s.elementBytes() / 8 : 0;
  auto [zeroAcc, zeroP] = family.zeroState(numAcc, numPacked);
  SmallVector<Value> state(zeroAcc);
  for (int64_t i = 0; i < 2 * c.mt; ++i)
    state.push_back(k.f(negInf));
  for (int64_t i = 0; i < 2 * c.mt; ++i)
    state.push_back(k.f(0.0));
  state.append(zeroP.begin(), zeroP.end());
  producer.prologue();
  if (s.overlapPV && !s.persistentCTAs) // (persistent: once, emitPersistentConsumer)
    family.startIssueTurns();

  // Three runs of tiles, each loop specialized to its run (statically
  // empty runs are not emitted):
  //   [kvBegin, insideBegin)    across the score_mod's lowest key (a
  //                             window's far edge): the whole region;
  //   [insideBegin, insideEnd)  wholly inside the score_mod's key bounds
  //                             and below the causal diagonal and Lk: only
  //                             the region's inside value (none for a plain
  //                             window), no causal or Lk mask;
  //   [insideEnd, kvEnd)        the rest (the diagonal, a partial last
  //                             tile, the score_mod's highest key):
  //                             everything.
  // A mask tensor is applied in every run.
  TileRuns runs = tileRuns();
  if (s.peelsFirstTile()) {
    state = peelFirstTile(state, runs);
    runs.startAfter(k, k.add(v.kvBegin, c.bkv));
  }
  if (s.scoreModLowestKey) {
    scf::ForOp edge = emitKVLoop(runs.begin, runs.insideBegin, state, c.hasMask,
                                 /*inside=*/false);
    b.setInsertionPointAfter(edge);
    state.assign(edge.getResults().begin(), edge.getResults().end());
  }
  scf::ForOp inside =
      emitKVLoop(runs.insideBegin, runs.insideEnd, state, c.hasMask, /*inside=*/true);
  if (!runs.masked)
    return inside;
  b.setInsertionPointAfter(inside);
  return emitKVLoop(runs.insideEnd, runs.end, inside.getResults(), /*masked=*/true,
                    /*inside=*/false);
}

/// `cond ? then() : otherwise()` as an scf.if yielding values of `types`.
static SmallVector<Value> emitChoice(OpBuilder &b, Location loc, TypeRange types, Value cond,
                                     function_ref<SmallVector<Value>()> then,
                                     function_ref<SmallVector<Value>()> otherwise) {
  auto branch = scf::IfOp::create(b, loc, types, cond, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(branch.thenBlock());
  scf::YieldOp::create(b, loc, then());
  b.setInsertionPointToStart(branch.elseBlock());
  scf::YieldOp::create(b, loc, otherwise());
  return SmallVector<Value>(branch.getResults());
}

SmallVector<Value> FlashAttentionEmitter::peelFirstTile(ValueRange init, const TileRuns &runs) {
  SmallVector<Type> types(init.getTypes());
  auto peeled = [&](bool masked, bool inside) {
    return emitTile(v.kvBegin, init, masked, inside, /*first=*/true);
  };
  auto visited = [&]() -> SmallVector<Value> {
    // Every tile inside (no diagonal, no partial tile, no window): the
    // inside run's math, statically.
    if (!runs.masked && !s.scoreModLowestKey)
      return peeled(c.hasMask, /*inside=*/true);
    // Else the run that holds kvBegin decides: most causal items start
    // below the diagonal, and the masks' compares and selects on a whole
    // tile are not free (bench/NOTES.md v59).
    Value inInside = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, runs.insideBegin, v.kvBegin),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, v.kvBegin, runs.insideEnd));
    return emitChoice(
        b, loc, types, inInside, [&] { return peeled(c.hasMask, /*inside=*/true); },
        [&] { return peeled(/*masked=*/true, /*inside=*/false); });
  };
  return emitChoice(b, loc, types, c.visitsTiles(), visited,
                    [&] { return SmallVector<Value>(init); });
}

scf::ForOp FlashAttentionEmitter::emitKVLoop(Value lo, Value hi, ValueRange init, bool masked,
                                             bool inside) {
  OpBuilder::InsertionGuard loopGuard(b);
  auto loop = scf::ForOp::create(b, loc, lo, hi, k.idx(c.bkv), init);
  b.setInsertionPointToStart(loop.getBody());
  scf::YieldOp::create(b, loc,
                       emitTile(loop.getInductionVar(), loop.getRegionIterArgs(), masked, inside,
                                /*first=*/false));
  return loop;
}

SmallVector<Value> FlashAttentionEmitter::emitTile(Value kvStart, ValueRange state, bool masked,
                                                   bool inside, bool first) {
  Value buf = producer.acquire(kvStart, /*mayEndKeys=*/masked);
  if (producer.publishesWithBarrier()) {
    family.beforeStageBarrier();
    gpu::BarrierOp::create(b, loc);
  }
  SmallVector<Value> yields = emitTileMath(kvStart, buf, state, masked, inside, first);
  // The next iteration overwrites the tiles.
  producer.releaseStage(kvStart);
  return yields;
}

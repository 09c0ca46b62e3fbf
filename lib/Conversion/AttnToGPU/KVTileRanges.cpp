//===- KVTileRanges.cpp - which K/V tiles a CTA visits, and how -----------===//
//
// The FlashAttentionEmitter stages that decide a CTA's K/V tiles (the rest
// of the emitter is in FlashAttentionEmitter.cpp):
//
//   computeKVRange                   [kvBegin, kvEnd): the CTA's split, up
//                                    to the causal diagonal, inside the
//     skipTilesOutsideScoreModBounds score_mod's key bounds (a window)
//   firstTileInsideLowestKey         where emitKVLoops's runs change: tiles
//   firstTileNeedingMasks            that apply the whole score_mod, none
//                                    of it, or the masks
//
//===----------------------------------------------------------------------===//
#include "FlashAttentionEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

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

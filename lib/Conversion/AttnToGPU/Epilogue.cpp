//===- Epilogue.cpp - O = acc / l, and its stores --------------------------===//
//
// The emitter's last stage (FlashAttentionEmitter::epilogue): the row sums
// reduced over each quad, O = acc / l (0 for a row that saw no key), stored
// as pairs of the output type, or, with split-KV, in f32 beside the row's
// max and sum (m, l) for the combine kernel.
//
// Where the Q tile is staged (FlashKernelSpec::outputThroughSharedMemory)
// the pairs go into each warp's own rows of it instead, and copyOutputRows
// stores those rows in 16-byte chunks: whole 32-byte sectors per store
// instead of 4 bytes per lane (bench/NOTES.md v31: the two-byte stores the
// fragments made were a quarter of a short kernel's time).
//
// With key warps (kv-warps > 1) the warps of a query-row slice each ran the
// online softmax over their own keys of every K/V tile, so each holds the
// (acc, m, l) of a split of the keys. combineKeyWarps combines them
// exactly, as split-KV's combine kernel does across CTAs, but through
// shared memory (the K/V stages, free by then):
//   1. every warp stores its rows' m and l: stats[2][kvWarps][block_q];
//   2. every warp reads all warps' m and l of its rows: M = max m_w,
//      L = Σ 2^(m_w − M) l_w, and scales its accumulators by 2^(m_w − M);
//   3. every warp stores them: partial[kvWarps][block_q][dv + 8] (f32,
//      rows padded so that a fragment's 8 rows fall on distinct banks);
//   4. warp w sums all warps' partials of its share of O's 8-column blocks
//      (dv / 8 / kvWarps of them), which the epilogue divides by L and
//      stores.
// A barrier separates the steps (and the loop's last reads of the stages
// from the first store).
//
//===----------------------------------------------------------------------===//
#include "FlashAttentionEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

using namespace mlir;
using namespace mlir::attn;

void FlashAttentionEmitter::storeRow(int64_t mi, int r, bool firstOfQuad,
                                     function_ref<void()> store) {
  OpBuilder::InsertionGuard storeGuard(b);
  Value cond = c.qTail ? v.rowInside[mi][r] : Value();
  if (firstOfQuad) {
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, v.t, k.idx(0));
    cond = cond ? arith::AndIOp::create(b, loc, cond, first).getResult() : first;
  }
  if (cond) {
    // Rows past the row space (the last query tile's; varlen: each
    // sequence's last tile's, and idle tiles') are not stored.
    auto guard = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
    b.setInsertionPointToStart(guard.thenBlock());
  }
  store();
}

void FlashAttentionEmitter::epilogue(scf::ForOp loop) {
  b.setInsertionPointAfter(loop);
  producer.drain();
  SmallVector<Value> finalAcc(loop.getResults().begin(), loop.getResults().begin() + numAcc);
  if (s.overlapPV)
    finishOverlappedPV(loop, finalAcc);
  else
    family.retireAccumulators(finalAcc);
  producer.releaseLastStage();
  // The lane's output columns: its own accumulators, or, with key warps,
  // its share of the combined ones.
  RowTotals combined;
  SmallVector<OutputBlock> blocks;
  if (s.kvWarps > 1) {
    blocks = combineKeyWarps(loop, finalAcc, combined);
  } else {
    for (int64_t nd = 0; nd < c.dv / 8; ++nd) {
      OutputBlock block{Value(), {}};
      for (int64_t mi = 0; mi < c.mt; ++mi)
        block.tiles.push_back(finalAcc[mi * (c.dv / 8) + nd]);
      blocks.push_back(block);
    }
  }
  // O goes into the Q tile, whose rows stageQ dealt out over all threads:
  // their stores must be done before a warp overwrites its rows. Found by
  // v31b's ragged varlen check: a CTA without K/V tiles (an empty or
  // key-less sequence) passed no barrier, and a warp read back Q.
  if (s.outputThroughSharedMemory() && !producer.publishesQBeforeLoops())
    gpu::BarrierOp::create(b, loc);
  for (int64_t mi = 0; mi < c.mt; ++mi) {
    Value inv[2], l[2];
    for (int r = 0; r < 2; ++r) {
      l[r] = s.kvWarps > 1 ? combined.l[mi][r]
                           : k.quadReduce(loop.getResult(lBase + 2 * mi + r), /*isMax=*/false);
      Value isZero = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, l[r], k.f(0.0));
      Value recip = arith::DivFOp::create(b, loc, k.f(1.0), l[r]);
      // (FP8: v_descale too; a row that saw no key stays 0 whatever it is.)
      if (v.outputDescale)
        recip = k.fmul(recip, v.outputDescale);
      inv[r] = arith::SelectOp::create(b, loc, isZero, k.f(0.0), recip);
    }
    for (auto [nd, block] : llvm::enumerate(blocks)) {
      Value acc = block.tiles[mi];
      for (int r = 0; r < 2; ++r) {
        Value x0 = k.fmul(k.extract(acc, r, 0), inv[r]), x1 = k.fmul(k.extract(acc, r, 1), inv[r]);
        Value col = block.col ? block.col : k.add(v.twoT, int64_t(nd) * 8);
        if (!s.splitKV()) {
          storeOutputPair(mi, r, col, k.toPair(x0, x1, s.outputType));
          continue;
        }
        // Split-KV: the normalized partial output in f32, for the combine.
        Value out = vector::FromElementsOp::create(b, loc, VectorType::get({2}, c.f32),
                                                   ValueRange{x0, x1});
        storeRow(mi, r, false, [&] {
          k.storeAligned(out, v.O,
                         ValueRange{v.split, v.batch, v.rowHead[mi][r], v.row[mi][r], col});
        });
      }
    }
    if (!s.splitKV())
      continue;
    // The row's (m, ℓ) in this split, for the combine: m in the exp2
    // domain, ℓ = Σ 2^(s − m) (0 where the split saw no unmasked key,
    // which gives it weight 0). Kept apart, not as m + log2 ℓ: at
    // m = −FLT_MAX (a row of finite fills) the sum would drop log2 ℓ, and
    // splits of unequal key counts would weigh the same. (Key warps: every
    // warp holds the totals; the first stores them.)
    for (int r = 0; r < 2; ++r) {
      Value m = s.kvWarps > 1 ? combined.m[mi][r] : loop.getResult(mBase + 2 * mi + r);
      auto storeStats = [&] {
        storeRow(mi, r, true, [&] {
          Value fields[] = {m, l[r]};
          for (auto [field, value] : llvm::enumerate(fields))
            memref::StoreOp::create(
                b, loc, value, v.rowStats,
                ValueRange{v.split, v.batch, v.rowHead[mi][r], v.row[mi][r], k.idx(field)});
        });
      };
      if (!v.keyWarp) {
        storeStats();
        continue;
      }
      OpBuilder::InsertionGuard firstWarpGuard(b);
      Value firstWarp = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, v.keyWarp,
                                              k.idx(0));
      b.setInsertionPointToStart(scf::IfOp::create(b, loc, firstWarp, false).thenBlock());
      storeStats();
    }
  }
  if (s.outputThroughSharedMemory())
    copyOutputRows();
}

/// The row of the CTA's tile that the lane's C-fragment row (mi, r) is.
Value FlashAttentionEmitter::tileRowOf(int64_t mi, int r) {
  return k.add(k.add(k.mul(v.warp, s.rowsPerWarp), mi * 16 + 8 * r), v.g);
}

void FlashAttentionEmitter::storeOutputPair(int64_t mi, int r, Value col, Value pair) {
  if (s.outputThroughSharedMemory()) {
    // Into the warp's own rows of the Q tile (copyOutputRows takes them
    // out); the tail rows too, which are not copied.
    k.storeAligned(pair, v.qTile, family.tileAt(Value(), tileRowOf(mi, r), col));
    return;
  }
  storeRow(mi, r, false, [&] {
    k.storeAligned(pair, v.O, c.queryAt(v.row[mi][r], v.rowHead[mi][r], col));
  });
}

void FlashAttentionEmitter::copyOutputRows() {
  // Each warp's rows of O, 16 bytes per lane and store: its lanes share a
  // row as TileCopy deals them, so a row's 2·dv bytes leave in whole
  // 32-byte sectors, where the C fragments would store 4 bytes per lane
  // (the 4 lanes of a quad cover 16 bytes of 8 rows). The warp wrote
  // these rows itself, so a warp barrier orders the reads after the
  // writes.
  NVVM::SyncWarpOp::create(b, loc, arith::ConstantIntOp::create(b, loc, -1, 32));
  const int64_t rows = s.rowsPerWarp;
  Value firstRow = k.mul(v.warp, rows);
  Value rowLimit = rowSpaceEnd();
  auto chunk = VectorType::get({8}, c.T);
  TileCopy copy(k, v.lane, /*threads=*/32, rows, c.dv / 8);
  for (int64_t i = 0; i < copy.steps; ++i) {
    Value tileRow = k.add(firstRow, copy.row(i)), col = copy.col(i);
    Value out = k.loadAligned(chunk, v.qTile, family.tileAt(Value(), tileRow, col));
    Value rho = k.add(v.qStart, tileRow);
    OpBuilder::InsertionGuard guard(b);
    if (c.qTail) {
      Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, rho, rowLimit);
      b.setInsertionPointToStart(scf::IfOp::create(b, loc, inside, false).thenBlock());
    }
    auto [qRow, qHead] = rowCoordinates(rho);
    k.storeAligned(out, v.O, c.queryAt(qRow, qHead, col));
  }
}

SmallVector<FlashAttentionEmitter::OutputBlock>
FlashAttentionEmitter::combineKeyWarps(scf::ForOp loop, SmallVectorImpl<Value> &acc,
                                       RowTotals &totals) {
  // Each warp ran the online softmax over its slice of every tile: its
  // (acc, m, l) are those of a split of the keys, combined exactly as the
  // split-KV combine does, O = Σ_w 2^(m_w − M) acc_w / Σ_w 2^(m_w − M) l_w
  // with M = max_w m_w, here through shared memory. The K/V stages are free
  // once every warp has left the loop: the barrier below.
  const int64_t kw = s.kvWarps, ndv = c.dv / 8, pitch = keyWarpCombinePitch(c.dv);
  gpu::BarrierOp::create(b, loc);
  auto view = [&](ArrayRef<int64_t> shape, int64_t offset) -> Value {
    auto type = MemRefType::get(shape, c.f32, MemRefLayoutAttrInterface(), c.workgroup);
    return memref::ViewOp::create(b, loc, type, v.smem, k.idx(offset), ValueRange{});
  };
  Value partial = view({kw, c.bq, pitch}, 0);
  Value stats = view({2, kw, c.bq}, 4 * kw * c.bq * pitch);
  // The lane's rows within the CTA's tile.
  SmallVector<std::array<Value, 2>> tileRow(c.mt);
  for (int64_t mi = 0; mi < c.mt; ++mi)
    for (int r = 0; r < 2; ++r)
      tileRow[mi][r] = k.add(k.add(k.mul(v.warp, s.rowsPerWarp), mi * 16 + 8 * r), v.g);
  // Every warp's row maxima and sums (the quad's four lanes store the same
  // value to the same place).
  totals.m.resize(c.mt);
  totals.l.resize(c.mt);
  for (int64_t mi = 0; mi < c.mt; ++mi)
    for (int r = 0; r < 2; ++r) {
      Value lSum = k.quadReduce(loop.getResult(lBase + 2 * mi + r), /*isMax=*/false);
      memref::StoreOp::create(b, loc, loop.getResult(mBase + 2 * mi + r), stats,
                              ValueRange{k.idx(0), v.keyWarp, tileRow[mi][r]});
      memref::StoreOp::create(b, loc, lSum, stats,
                              ValueRange{k.idx(1), v.keyWarp, tileRow[mi][r]});
    }
  gpu::BarrierOp::create(b, loc);
  // The totals of each row, and this warp's weight 2^(m_w − M) (0 for a
  // warp that saw only masked keys; M taken as 0 when every warp did).
  for (int64_t mi = 0; mi < c.mt; ++mi) {
    Value weight[2];
    for (int r = 0; r < 2; ++r) {
      SmallVector<Value> m, l;
      for (int64_t w = 0; w < kw; ++w) {
        m.push_back(memref::LoadOp::create(b, loc, stats,
                                           ValueRange{k.idx(0), k.idx(w), tileRow[mi][r]}));
        l.push_back(memref::LoadOp::create(b, loc, stats,
                                           ValueRange{k.idx(1), k.idx(w), tileRow[mi][r]}));
      }
      Value mMax;
      for (Value mw : m)
        mMax = mMax ? k.fmax(mMax, mw) : mw;
      Value isNegInf = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, mMax,
                                             k.f(negInf));
      Value mSafe = arith::SelectOp::create(b, loc, isNegInf, k.f(0.0), mMax);
      Value lSum = k.f(0.0);
      for (int64_t w = 0; w < kw; ++w)
        lSum = k.fadd(lSum, k.fmul(k.exp2(k.fsub(m[w], mSafe)), l[w]));
      totals.m[mi][r] = mMax;
      totals.l[mi][r] = lSum;
      weight[r] = k.exp2(k.fsub(loop.getResult(mBase + 2 * mi + r), mSafe));
    }
    Value weights = vector::FromElementsOp::create(
        b, loc, c.cType, ValueRange{weight[0], weight[0], weight[1], weight[1]});
    for (int64_t nd = 0; nd < ndv; ++nd) {
      Value scaled = k.fmul(acc[mi * ndv + nd], weights);
      for (int r = 0; r < 2; ++r) {
        Value pair = vector::FromElementsOp::create(
            b, loc, VectorType::get({2}, c.f32),
            ValueRange{k.extract(scaled, r, 0), k.extract(scaled, r, 1)});
        vector::StoreOp::create(b, loc, pair, partial,
                                ValueRange{v.keyWarp, tileRow[mi][r], k.add(v.twoT, nd * 8)});
      }
    }
  }
  gpu::BarrierOp::create(b, loc);
  // This warp's share of the 8-column blocks, summed over the warps.
  const int64_t share = ndv / kw;
  auto pairType = VectorType::get({2}, c.f32);
  SmallVector<OutputBlock> blocks;
  for (int64_t i = 0; i < share; ++i) {
    Value col = k.add(v.twoT, k.mul(k.add(k.mul(v.keyWarp, share), i), 8));
    OutputBlock block{col, {}};
    for (int64_t mi = 0; mi < c.mt; ++mi) {
      Value tile = k.zeros(c.cType);
      for (int r = 0; r < 2; ++r) {
        Value sum;
        for (int64_t w = 0; w < kw; ++w) {
          Value part = vector::LoadOp::create(b, loc, pairType, partial,
                                              ValueRange{k.idx(w), tileRow[mi][r], col});
          sum = sum ? k.fadd(sum, part) : part;
        }
        tile = k.insert(sum, tile, r);
      }
      block.tiles.push_back(tile);
    }
    blocks.push_back(block);
  }
  return blocks;
}

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
// Persistent CTAs: the grid holds one CTA per SM slot, and each CTA takes
// work items from a counter in global memory until none is left
// (attn/Analysis/PersistentSchedule.h): its producer thread takes a ticket
// (atomic add) before each item and hands it to the computing warps through
// one of two shared-memory slots, each with a "full" and an "empty"
// mbarrier, so the producer may run an item ahead. The producer's stage ring runs on
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
#include "mlir/Dialect/MemRef/IR/MemRef.h"
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
  for (int64_t mi = 0; mi < c.mt; ++mi) {
    Value rho = k.add(k.add(k.add(v.qStart, k.mul(v.warp, s.rowsPerWarp)), mi * 16), v.g);
    for (int r = 0; r < 2; ++r) {
      Value rowR = k.add(rho, 8 * r);
      if (c.qTail)
        v.rowInside[mi][r] =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, rowR, rowLimit);
      std::tie(v.row[mi][r], v.rowHead[mi][r]) = rowCoordinates(rowR);
    }
  }
  // The queries of rows [qStart, qStart + bq): row / packed.
  v.qFirst = c.packed == 1 ? v.qStart : k.div(v.qStart, c.packed);
  v.qEnd = c.packed == 1 ? k.add(v.qStart, c.bq)
                         : k.add(k.div(k.add(v.qStart, c.bq - 1), c.packed), 1);
}

std::pair<Value, Value> FlashAttentionEmitter::rowCoordinates(Value rho) {
  // (A varlen sequence without queries clamps to row 0: queryAt keeps its
  // token in the tensor, and no row of it is stored.)
  if (c.qTail) {
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

void FlashAttentionEmitter::initTicketSlots() {
  // Each slot's "full" phase completes with the producer's one arrival;
  // its "empty" phase with one arrival per computing thread, each once it
  // has read the ticket.
  Value leader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, v.tid, k.idx(0));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(scf::IfOp::create(b, loc, leader, false).thenBlock());
  for (int64_t slot = 0; slot < 2; ++slot) {
    NVVM::MBarrierInitOp::create(b, loc, k.sharedPointer(v.itemFull, k.idx(8 * slot)), k.i32(1),
                                 Value());
    NVVM::MBarrierInitOp::create(b, loc, k.sharedPointer(v.itemEmpty, k.idx(8 * slot)),
                                 k.i32(c.threads), Value());
  }
  NVVM::FenceMbarrierInitOp::create(b, loc);
}

Value FlashAttentionEmitter::nextTicket(bool takesTickets, Value n) {
  // Use u = n / 2 of slot n mod 2 is phase u of its mbarriers. The
  // producer waits until every computing thread has read use u − 1 (on a
  // fresh barrier the wait for parity 1 returns at once), takes a ticket
  // and releases it; the computing threads acquire it and report it read.
  Value slot = k.rem(n, 2);
  Value parity = k.i32(arith::AndIOp::create(b, loc, k.div(n, 2), k.idx(1)));
  Value full = k.sharedPointer(v.itemFull, k.mul(slot, 8));
  Value empty = k.sharedPointer(v.itemEmpty, k.mul(slot, 8));
  if (!takesTickets) {
    k.waitParity(full, parity);
    Value ticket = memref::LoadOp::create(b, loc, v.itemSlots, ValueRange{slot});
    k.arrive(empty);
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), ticket);
  }
  k.waitParity(empty, arith::XOrIOp::create(b, loc, parity, k.i32(1)));
  Value ticket = memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addi, k.i32(1),
                                             v.tileCounter, ValueRange{k.idx(0)});
  memref::StoreOp::create(b, loc, ticket, v.itemSlots, ValueRange{slot});
  k.arrive(full);
  return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), ticket);
}

std::pair<Value, Value> FlashAttentionEmitter::itemOfTicket(Value ticket) {
  // WorkItemOrder::itemOf, in index arithmetic.
  const WorkItemOrder order = s.workItemOrder();
  const int64_t sectionHeads = order.sectionHeads, perSection = sectionHeads * order.queryTiles;
  if (sectionHeads == 1)
    return {k.rem(ticket, order.queryTiles), k.div(ticket, order.queryTiles)};
  Value firstHead = k.mul(k.div(ticket, perSection), sectionHeads);
  Value inSection = k.rem(ticket, perSection);
  if (order.heads % sectionHeads == 0)
    return {k.div(inSection, sectionHeads), k.add(firstHead, k.rem(inSection, sectionHeads))};
  // The last section holds the heads that remain.
  Value width = arith::MinUIOp::create(
      b, loc, k.idx(sectionHeads), arith::SubIOp::create(b, loc, k.idx(order.heads), firstHead));
  return {arith::DivUIOp::create(b, loc, inSection, width),
          k.add(firstHead, arith::RemUIOp::create(b, loc, inSection, width))};
}

void FlashAttentionEmitter::forEachWorkItem(bool takesTickets, function_ref<void()> body) {
  // while ((t = nextTicket()) < items) { item t; } carrying (n, ringBase):
  // n the tickets taken, ringBase the K/V tiles the stage ring has held.
  Type index = b.getIndexType();
  auto loop = scf::WhileOp::create(b, loc, TypeRange{index, index, index},
                                   ValueRange{k.idx(0), k.idx(0)});
  OpBuilder::InsertionGuard guard(b);
  Block *before = b.createBlock(&loop.getBefore(), {}, {index, index}, {loc, loc});
  Value ticket = nextTicket(takesTickets, before->getArgument(0));
  Value more = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, ticket,
                                     k.idx(s.numWorkItems()));
  scf::ConditionOp::create(b, loc, more,
                           ValueRange{before->getArgument(0), before->getArgument(1), ticket});
  Block *after = b.createBlock(&loop.getAfter(), {}, {index, index, index}, {loc, loc, loc});
  auto [rank, bh] = itemOfTicket(after->getArgument(2));
  computeTileCoordinates(rank, bh);
  computeKVRange();
  v.ringBase = after->getArgument(1);
  body();
  b.setInsertionPointToEnd(after);
  // Whole tiles from kvBegin (none when the range is empty).
  Value span = arith::SubIOp::create(b, loc, arith::MaxUIOp::create(b, loc, v.kvEnd, v.kvBegin),
                                     v.kvBegin);
  Value visited = arith::CeilDivUIOp::create(b, loc, span, k.idx(c.bkv));
  scf::YieldOp::create(b, loc, ValueRange{k.add(after->getArgument(0), 1),
                                          k.add(v.ringBase, visited)});
  v.ringBase = Value();
}

void FlashAttentionEmitter::emitPersistentConsumer() {
  // The two warpgroups hand each other the turn to issue once per K/V
  // tile, so each item ends with the first warpgroup's turn pending, as
  // the first item starts: the turns begin once, before every item.
  zeroHeadDimPadding();
  if (s.overlapPV)
    family.startIssueTurns();
  forEachWorkItem(/*takesTickets=*/false, [&] {
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

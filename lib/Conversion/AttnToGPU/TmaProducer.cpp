//===- TmaProducer.cpp - K/V tiles into shared memory by TMA ---------------===//
//
// TmaProducer (FlashKernelSpec::tmaLoads; dense K/V or whole pages:
// tensorMapLoads, on wgmma and on mma.sync alike): one thread (a warp per
// page for paged tiles, below) issues each K/V tile as TMA box copies (cp.async.bulk.tensor.4d, PTX ISA 8.0)
// against the tensor maps of K and V, which the runtime encodes from the
// manifest's `tensor_maps` (a [B, Hkv, L, d] tensor seen as dims {d, L, Hkv,
// B}, boxes of {64, block_kv, 1, 1}, the 128-byte swizzle) and passes in
// global memory (`k_tensor_map`, `v_tensor_map`). A box is one 64-column atom of a staged
// tile, and the hardware writes it in exactly the swizzled layout the wgmma
// descriptors read (WgmmaFamily.cpp), and the mma.sync fragment loads then
// address through the swizzle (FlashKernelSpec::atomTiles).
//
// Each stage has an mbarrier. The issuing thread arms it with the bytes of
// the tile (arrive.expect_tx; each issuer with its own, paged) and the copies complete those bytes; every
// thread waits on the stage's phase parity before reading it. Stage s is
// filled by tiles t ≡ s (mod stages) from the CTA's first tile f on, so the
// n-th fill of a stage completes its phase n, and tile t waits for parity
// ⌊(t − f) / stages⌋ mod 2. Boxes reaching past Lk (or past d, in the last
// atom) are zero-filled by the hardware and their bytes still count.
//
// A paged pool whose pages nest with the tiles (kvTilesInTensorBoxes:
// power-of-two pages of at least 8 rows) takes boxes too, from a map over
// the pool seen as {d, Hkv, page_size, pages}: one box per atom and page of
// the tile (or one inside the page holding the tile) at {column, head, row
// in page, page}, the page looked up in the block table by its issuer
// (PageLookup.h). A tile of several pages, in kernels without a producer
// warpgroup, has min(pages, warps) issuers (pageBoxIssuers): the first
// lane of warp w issues pages w, w + issuers, ... and arms the stage's
// mbarrier with their bytes, one of that many arrivals; from one thread,
// the 32 boxes of a 128-key tile pair of 16-token pages held up its warp's
// math (bench/NOTES.md v50: 1.11x at B = 8, 4k GQA). Such a box brings
// whole pages whatever the sequence's length, so the rows past it are
// zeroed once they have landed (zeroKeysPastSequence).
//
// Packed K/V and other page sizes (mma.sync only,
// FlashKernelSpec::bulkRowLoads) are addressed per row through tables no
// tensor map can follow, into padded rows:
// there every computing thread issues whole key rows as bulk copies
// (cp.async.bulk, d·2 bytes each, into the row's place in the tile), rows
// r = tid, tid + threads, ... of K then of V, and the stage's mbarrier
// counts one arrival per thread, each armed with the bytes of that
// thread's rows. The rows are addressed like the cp.async chunks; rows past
// the sequence are zeroed by the thread's own stores before it arrives (a
// copy would bring what lies past it, maybe NaN, which P = 0 does not
// hide). 256-byte requests keep the TMA unit busy: bench/NOTES.md v30
// measured them at 0.35-0.94x cp.async, so they are an option only.
//
// Why: with cp.async every thread computes addresses and issues 16-byte
// copies of every tile (16 per thread and tile at 128 x 128, d = 128), in
// the same instruction stream as the softmax that keeps the tensor cores
// waiting; with TMA one thread issues 2-4 instructions per tile, and the
// per-thread wait is one mbarrier test. The stage-free protocol is the
// cp.async producer's (the barrier that ends each iteration), and no copy
// is issued past the CTA's last tile, so nothing is in flight at the end.
//
// With a producer warpgroup (FlashKernelSpec::producerWarpgroup, warp
// specialization as in FlashAttention-3 §3.1) the issuing thread is the
// first of a fourth warpgroup after the two computing ones, which does
// nothing else: it walks the CTA's tiles and, before the n-th fill of a
// stage (n ≥ 1), waits on the stage's "empty" mbarrier for phase n − 1,
// which completes when all computing threads have arrived on it, each once
// done with the stage (after the P·V that reads it is waited for: with the
// deferred wait, one iteration later). Its first waits (parity 1 on a fresh
// barrier) return at once. So the CTA barrier that ended every iteration is
// gone: the two computing warpgroups run out of step, one's softmax beside
// the other's GEMMs, and the producer runs up to `stages` tiles ahead. The
// producer warps keep 24 registers and give the rest to the computing
// warps (setmaxnreg; 24 x 128 + 240 x 256 fill the SM's 64K).
//
// With the overlapped P·V and two stages (separateKVBarriers) a stage's K
// and V each have a "full" and an "empty" mbarrier: the computing threads
// release K once its Q·Kᵀ is waited for (releaseKeys) and V once its P·V
// is (an iteration later), and the producer issues K's boxes on K's
// barriers and V's on V's, so that it fetches tile j + 2's K while tile j's
// V is still read. acquire waits for the tile's K and for the V its
// iteration's P·V reads (the previous tile's), awaitLastValues for the last
// tile's V (bench/NOTES.md v53).
//
// With 8-bit inputs P·V reads Vᵀ (wgmma reads 8-bit B operands K-major
// only), which a pre-kernel wrote as one image per tile, the exact bytes of
// the stage (VTransposeKernel.cpp): the issuing thread brings K's boxes and
// that image, one bulk copy (cp.async.bulk) into the Vᵀ stage, on the same
// "full" mbarrier. (bench/NOTES.md v39-v39d transposed V in the producer
// warpgroup instead: its shared-memory traffic beside the consumers' made
// the kernel 0.77-0.81x bf16.)
//
// One file past 600 lines: the fill modes (boxes from one thread or a warp
// per page, a producer warpgroup, bulk row copies) are one protocol
// over the same stage barriers and fill parities, which the class keeps
// private; split, each part would re-derive the parity rule.
//
//===----------------------------------------------------------------------===//
#include "FlashAttentionEmitter.h"
#include "PageLookup.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::attn;

namespace {

/// One key row that a thread copies into a stage: `active` says whether
/// the thread has it (null: always), `inside` whether it is a key of the
/// sequence; the others are zeroed instead.
struct RowCopy {
  Value tile, row, active, inside, src;
  int64_t cols;
};

class TmaProducer final : public KVProducer {
public:
  using KVProducer::KVProducer;

  void prologue() override;
  Value acquire(Value kvStart, bool mayEndKeys) override;
  /// No copy is issued past the CTA's last tile, and each one issued is
  /// waited for by the iteration that reads it.
  void drain() override {}
  /// The mbarrier wait publishes each tile to every thread.
  bool publishesWithBarrier() const override { return false; }
  bool publishesQBeforeLoops() const override { return true; }
  bool specializesWarps() const override { return c.s.producerWarpgroup; }
  void splitRoles(gpu::GPUFuncOp func,
                  function_ref<void(function_ref<void()>)> overWork) override;
  void releaseStage(Value kvStart) override;
  void releaseKeys(Value kvStart) override;
  void awaitLastValues() override;
  void releaseLastStage() override;

private:
  /// Thread 0: one "full" mbarrier per stage (an arrival per box issuer,
  /// its arrive.expect_tx, or per thread for row copies) and, with a
  /// producer warpgroup, one "empty" one (an arrival per computing
  /// thread), made visible to the async proxy.
  void initBarriers();
  /// The producer warpgroup's loop (its first thread): every tile of the
  /// work item, each into its stage once the stage's previous tile is
  /// released.
  void produceAllTiles();
  /// Arrives on the "empty" mbarrier of the stage holding the tile at
  /// `start` (each computing thread, once done with it): K's, with
  /// separate barriers (separatesKVBarriers), or V's when `values`.
  void arriveEmpty(Value start, bool values = false);
  /// Which of a tile's parts one issue brings: both on the stage's "full"
  /// mbarrier, or, with separate barriers, K or V on its own.
  enum class TileParts { KeysAndValues, Keys, Values };
  /// Copies the K and V tiles that start at key `start` into stage `buf`
  /// (in the issuing threads only: see inIssuers).
  void issueTile(Value start, Value buf) {
    c.s.bulkRowLoads() ? issueRows(start, buf) : issueBoxes(start, buf);
  }
  /// The boxIssuers() issuers (thread 0, or the first lane of each issuing
  /// warp): arm stage `buf`'s mbarrier with their boxes' bytes and issue
  /// the K and V boxes (or one of them: `parts`, one issuer).
  void issueBoxes(Value start, Value buf, TileParts parts = TileParts::KeysAndValues);
  /// The K and V boxes of the rows from `row` (one box of boxRows() rows
  /// per atom; from pool page `page`, or the dense tensor when null) into
  /// stage `buf`, completing on `full`.
  void issueBoxRows(Value start, Value buf, Value full, Value row, Value page, int64_t atomsK,
                    int64_t atomsV);
  /// Every computing thread: zeroes its rows past the sequence, arms the
  /// mbarrier with its other rows' bytes and copies them.
  void issueRows(Value start, Value buf);
  /// The K and V rows of the tile at `start` that this thread copies.
  SmallVector<RowCopy> rowsOfThread(Value start);
  /// Zeroes `rows` past the sequence in stage `buf`; returns the bytes of
  /// the others.
  Value zeroOutsideRows(ArrayRef<RowCopy> rows, Value buf);
  /// Paged boxes: zeroes the rows of the tile at `start` (in stage `buf`,
  /// landed) past the sequence's keys.
  void zeroKeysPastSequence(Value start, Value buf);
  /// `body` in the threads that issue a tile: thread 0 for boxes (every
  /// thread where boxIssuers() > 1: issueBoxes picks its issuers), every
  /// computing thread for rows.
  void inIssuers(function_ref<void()> body) {
    c.s.bulkRowLoads() || boxIssuers() > 1 ? body() : inLeader(body);
  }
  /// How many warps issue a tile's boxes: pageBoxIssuers for a tile of
  /// several pages, each issuer one arrival on the stage's mbarrier with
  /// its own bytes. One thread elsewhere: a dense tile's or one page's box
  /// per atom, a Vᵀ image, or the producer warpgroup's first thread.
  int64_t boxIssuers() const {
    if (c.s.bulkRowLoads() || specializesWarps() || !c.s.paged() || c.s.boxRows() >= c.bkv ||
        c.s.transposesV())
      return 1;
    return pageBoxIssuers(c.bkv / c.s.boxRows(), c.threads / 32);
  }
  /// issueTile into stage `stage()`, unless the tile starts at or past the
  /// CTA's last key (the stage is computed under that guard).
  void issueTileBeforeEnd(Value start, function_ref<Value()> stage);
  /// The mbarrier of stage `buf`.
  Value stageBarrier(Value buf) { return k.sharedPointer(c.v.stageFull, k.mul(buf, 8)); }
  Value stageBarrier(int64_t buf) { return k.sharedPointer(c.v.stageFull, k.idx(8 * buf)); }
  Value emptyBarrier(Value buf) { return k.sharedPointer(c.v.stageEmpty, k.mul(buf, 8)); }
  Value emptyBarrier(int64_t buf) { return k.sharedPointer(c.v.stageEmpty, k.idx(8 * buf)); }
  /// The mbarriers of stage `buf`'s V: its own with separate barriers, else
  /// the stage's.
  Value valuesFullBarrier(Value buf) {
    return c.s.separatesKVBarriers() ? k.sharedPointer(c.v.stageFullV, k.mul(buf, 8))
                                     : stageBarrier(buf);
  }
  Value valuesEmptyBarrier(Value buf) {
    return c.s.separatesKVBarriers() ? k.sharedPointer(c.v.stageEmptyV, k.mul(buf, 8))
                                     : emptyBarrier(buf);
  }
  /// The parity of the mbarrier phase that the fill of the tile at `start`
  /// completes.
  Value fillParity(Value start) { return i32(k.rem(c.fillOf(start), 2)); }
  /// Blocks until phase `parity` of the mbarrier at `barrier` completed.
  void waitParity(Value barrier, Value parity);
  /// `body` in thread 0 only.
  void inLeader(function_ref<void()> body);
  /// KernelBuilder::sharedPointer as the shared::cluster address the bulk
  /// copies write to (a shared::cta address is a shared::cluster one of
  /// this CTA; the .shared::cta destination form needs PTX 8.6).
  Value clusterPointer(Value memref, Value bytes) {
    return LLVM::AddrSpaceCastOp::create(k.b, k.loc,
                                         LLVM::LLVMPointerType::get(k.b.getContext(), 7),
                                         k.sharedPointer(memref, bytes));
  }
  Value i32(Value index) {
    return arith::IndexCastUIOp::create(k.b, k.loc, k.b.getI32Type(), index);
  }
  Value i32(int64_t x) { return arith::ConstantIntOp::create(k.b, k.loc, x, 32); }
};

} // namespace

void TmaProducer::inLeader(function_ref<void()> body) {
  OpBuilder &b = k.b;
  Value leader = arith::CmpIOp::create(b, k.loc, arith::CmpIPredicate::eq, c.v.tid, k.idx(0));
  auto branch = scf::IfOp::create(b, k.loc, leader, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(branch.thenBlock());
  body();
}

void TmaProducer::initBarriers() {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  inLeader([&] {
    for (int64_t s = 0; s < c.stages; ++s) {
      NVVM::MBarrierInitOp::create(b, loc, stageBarrier(s),
                                   i32(c.s.bulkRowLoads() ? c.threads : boxIssuers()), Value());
      if (specializesWarps())
        NVVM::MBarrierInitOp::create(b, loc, emptyBarrier(s), i32(c.threads), Value());
      if (c.s.separatesKVBarriers()) {
        NVVM::MBarrierInitOp::create(b, loc, valuesFullBarrier(k.idx(s)), i32(1), Value());
        NVVM::MBarrierInitOp::create(b, loc, valuesEmptyBarrier(k.idx(s)), i32(c.threads),
                                     Value());
      }
    }
    NVVM::FenceMbarrierInitOp::create(b, loc);
  });
}

void TmaProducer::splitRoles(gpu::GPUFuncOp func,
                             function_ref<void(function_ref<void()>)> overWork) {
  // Every thread sees the initialized barriers; then the producer
  // warpgroup (threads past the computing ones, a whole warpgroup, as
  // setmaxnreg needs) branches off and returns after its loop.
  OpBuilder &b = k.b;
  Location loc = k.loc;
  initBarriers();
  gpu::BarrierOp::create(b, loc);
  Region &body = func.getBody();
  Block *producerBlock = new Block(), *consumerBlock = new Block();
  body.push_back(producerBlock);
  body.push_back(consumerBlock);
  Value isProducer =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, c.v.tid, k.idx(c.threads));
  cf::CondBranchOp::create(b, loc, isProducer, producerBlock, ValueRange{}, consumerBlock,
                           ValueRange{});
  b.setInsertionPointToStart(producerBlock);
  NVVM::SetMaxRegisterOp::create(b, loc, c.s.producerRegisters(),
                                 NVVM::SetMaxRegisterAction::decrease);
  // Its first thread issues every tile.
  Value first =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, c.v.tid, k.idx(c.threads));
  auto issuer = scf::IfOp::create(b, loc, first, false);
  b.setInsertionPointToStart(issuer.thenBlock());
  overWork([&] { produceAllTiles(); });
  b.setInsertionPointAfter(issuer);
  gpu::ReturnOp::create(b, loc);
  b.setInsertionPointToStart(consumerBlock);
  NVVM::SetMaxRegisterOp::create(b, loc, c.s.consumerRegisters(),
                                 NVVM::SetMaxRegisterAction::increase);
}

void TmaProducer::produceAllTiles() {
  // The n-th tile of the ring is fill ⌊n / stages⌋ of its stage; fill
  // f ≥ 1 waits for the release of fill f − 1 (empty phase f − 1, parity
  // (f − 1) & 1 = (f & 1) ^ 1, which on fill 0 is a phase that counts as
  // complete).
  OpBuilder &b = k.b;
  Location loc = k.loc;
  auto loop = scf::ForOp::create(b, loc, c.v.kvBegin, c.v.kvEnd, k.idx(c.bkv));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value start = loop.getInductionVar();
  Value fill = c.fillOf(start);
  Value parity = i32(arith::XOrIOp::create(
      b, loc, arith::AndIOp::create(b, loc, fill, k.idx(1)), k.idx(1)));
  Value buf = c.stageOf(start);
  waitParity(emptyBarrier(buf), parity);
  if (!c.s.separatesKVBarriers()) {
    issueTile(start, buf);
    return;
  }
  // K as soon as the fill before it was multiplied into S, V once its P·V
  // is done (an iteration later).
  assert(!c.s.bulkRowLoads() && boxIssuers() == 1 && "a producer warpgroup issues boxes");
  issueBoxes(start, buf, TileParts::Keys);
  waitParity(valuesEmptyBarrier(buf), parity);
  issueBoxes(start, buf, TileParts::Values);
}

void TmaProducer::releaseStage(Value kvStart) {
  if (!specializesWarps()) {
    KVProducer::releaseStage(kvStart);
    return;
  }
  // This thread's reads of a stage end when the P·V that reads its V is
  // waited for: in this iteration, or, deferred, in the next one's Q·Kᵀ
  // wait, which retired the previous tile's; overlapped, the P·V of the
  // previous tile was issued and waited for in this one.
  OpBuilder &b = k.b;
  Location loc = k.loc;
  if (!c.s.deferPVWait && !c.s.overlapPV) {
    arriveEmpty(kvStart);
    return;
  }
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(
      scf::IfOp::create(b, loc, c.hasPreviousTile(kvStart), false).thenBlock());
  arriveEmpty(c.previousTileStart(kvStart), /*values=*/true);
}

void TmaProducer::releaseKeys(Value kvStart) {
  if (c.s.separatesKVBarriers())
    arriveEmpty(kvStart);
}

void TmaProducer::awaitLastValues() {
  if (!c.s.separatesKVBarriers())
    return;
  Value last = c.lastTileStart();
  waitParity(valuesFullBarrier(c.stageOf(last)), fillParity(last));
}

void TmaProducer::arriveEmpty(Value start, bool values) {
  Value buf = c.stageOf(start);
  NVVM::MBarrierArriveOp::create(k.b, k.loc, Type(),
                                 values ? valuesEmptyBarrier(buf) : emptyBarrier(buf), Value(),
                                 NVVM::MemScopeKind::CTA, /*relaxed=*/false);
}

void TmaProducer::releaseLastStage() {
  // A deferred release leaves the work item's last tile held; a CTA with
  // one item ends there, a persistent one refills that stage next.
  if (!c.s.persistentCTAs || (!c.s.deferPVWait && !c.s.overlapPV))
    return;
  OpBuilder::InsertionGuard guard(k.b);
  k.b.setInsertionPointToStart(scf::IfOp::create(k.b, k.loc, c.visitsTiles(), false).thenBlock());
  arriveEmpty(c.lastTileStart(), /*values=*/true);
}

void TmaProducer::waitParity(Value barrier, Value parity) {
  // (The suspend-time hint, 10 ms, is CUTLASS's.)
  NVVM::MBarrierTryWaitParityOp::create(k.b, k.loc, barrier, parity, i32(0x989680));
}

void TmaProducer::prologue() {
  // Thread 0 sets up the stages' mbarriers; the barrier after it also
  // publishes the staged Q tile (written by every thread's stores) to
  // wgmma, whose async-proxy fence precedes it. Then the first tiles.
  // With a producer warpgroup the barriers were set up before the roles
  // split (splitRoles); the computing warps publish Q among themselves
  // (named barrier 1) and the producer fills every stage.
  OpBuilder &b = k.b;
  Location loc = k.loc;
  if (specializesWarps()) {
    family.beforeStageBarrier();
    NVVM::BarrierOp::create(b, loc, Type(), i32(1), i32(c.threads),
                            NVVM::BarrierReductionAttr(), Value());
    return;
  }
  initBarriers();
  family.beforeStageBarrier();
  gpu::BarrierOp::create(b, loc);
  inIssuers([&] {
    for (int64_t i = 0; i < c.s.prefetchDistance(); ++i) {
      Value start = k.add(c.v.kvBegin, i * c.bkv);
      issueTileBeforeEnd(start, [&] { return c.stageOf(start); });
    }
  });
}

void TmaProducer::issueTileBeforeEnd(Value start, function_ref<Value()> stage) {
  OpBuilder &b = k.b;
  Value inRange = arith::CmpIOp::create(b, k.loc, arith::CmpIPredicate::ult, start, c.v.kvEnd);
  auto branch = scf::IfOp::create(b, k.loc, inRange, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(branch.thenBlock());
  issueTile(start, stage());
}

Value TmaProducer::acquire(Value kvStart, bool mayEndKeys) {
  // Issue tile j + D into the stage tile j + D − stages left (freed by the
  // barrier that ended the previous iteration), unless it is past the last
  // tile; then wait for tile j.
  OpBuilder &b = k.b;
  Location loc = k.loc;
  const int64_t distance = c.s.prefetchDistance();
  Value tile = k.div(kvStart, c.bkv);
  Value buf = c.stageOf(kvStart);
  Value next = k.add(kvStart, distance * c.bkv);
  if (!specializesWarps())
    inIssuers([&] {
      issueTileBeforeEnd(next, [&] { return k.rem(k.add(tile, distance), c.stages); });
    });
  Value fills = c.v.ringBase ? c.fillOf(kvStart)
                             : k.div(arith::SubIOp::create(b, loc, tile, k.div(c.v.kvBegin, c.bkv)),
                                     c.stages);
  Value parity = i32(arith::AndIOp::create(b, loc, fills, k.idx(1)));
  waitParity(stageBarrier(buf), parity);
  if (c.s.separatesKVBarriers()) {
    // This iteration's P·V reads the previous tile's V (a peeled first
    // tile issues none).
    OpBuilder::InsertionGuard guard(b);
    if (c.s.peelsFirstTile())
      b.setInsertionPointToStart(
          scf::IfOp::create(b, loc, c.hasPreviousTile(kvStart), false).thenBlock());
    Value read = c.pvTileStart(kvStart);
    waitParity(valuesFullBarrier(c.stageOf(read)), fillParity(read));
  }
  if (mayEndKeys && c.s.paged() && c.s.tensorMapLoads())
    zeroKeysPastSequence(kvStart, buf);
  return buf;
}

void TmaProducer::zeroKeysPastSequence(Value start, Value buf) {
  // A page's boxes bring all its rows whatever the sequence's length: those
  // past it (the last page's rest, and whatever the table names for the
  // pages after it, or zeros where that is outside the pool) hold other
  // keys or stale ones, maybe NaN, which P = 0 does not hide. Once the boxes have landed every thread
  // zeroes whole rows of them, and the barrier publishes the zeros before
  // any fragment load. Only a CTA's last tile has such rows, so no box
  // writes the stage after these stores (no proxy fence). (Whole rows per
  // thread, not a loop over 16-byte chunks: with the loop's index
  // arithmetic ptxas held the d = 128 decode kernel at 168 registers and
  // spilled 8-16 bytes; with this, 179 and none.)
  assert(!specializesWarps() && "paged boxes are issued by a computing thread");
  OpBuilder &b = k.b;
  Location loc = k.loc;
  Value pastEnd =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, k.add(start, c.bkv), c.v.kvLen);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(scf::IfOp::create(b, loc, pastEnd, false).thenBlock());
  Value firstPast = arith::SubIOp::create(b, loc, c.v.kvLen, start);
  const int64_t chunkElements = 16 / c.s.elementBytes();
  Value zeros = k.zeros(VectorType::get({chunkElements}, c.T));
  // Thread t zeroes rows t, t + threads, ... of K and V from the first row
  // past the keys on.
  for (int64_t step = 0; step < c.bkv; step += c.threads) {
    Value row = k.add(c.v.tid, step);
    Value past = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, row, firstPast);
    if (step + c.threads > c.bkv) // (more threads than rows)
      past = arith::AndIOp::create(
          b, loc, past, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row, k.idx(c.bkv)));
    OpBuilder::InsertionGuard inRow(b);
    b.setInsertionPointToStart(scf::IfOp::create(b, loc, past, false).thenBlock());
    for (auto [tile, cols] : {std::pair<Value, int64_t>{c.v.kTile, c.d}, {c.v.vTile, c.dv}})
      for (int64_t col = 0; col < cols; col += chunkElements)
        vector::StoreOp::create(b, loc, zeros, tile, family.tileAt(buf, row, k.idx(col)));
  }
  gpu::BarrierOp::create(b, loc);
}

void TmaProducer::issueBoxes(Value start, Value buf, TileParts parts) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  const int64_t atom = atomColumns(c.s.elementBytes());
  // Every atom of the tile is one 128-byte column block x block_kv rows,
  // written by boxes of boxRows() rows (the whole tile, or each of its
  // pages), zero-filled where they reach past the tensor, counted in full.
  // 8-bit V comes as its tile's Vᵀ image instead of V's boxes.
  const int64_t vtBytes = c.s.transposesV() ? transposedVBytes(1, c.bkv, c.dv) : 0;
  const int64_t atomsK = llvm::divideCeil(c.d, atom),
                atomsV = vtBytes ? 0 : llvm::divideCeil(c.dv, atom);
  const int64_t boxRows = c.s.boxRows(), issuers = boxIssuers(),
                rowsPerIssuer = c.bkv / issuers;
  assert(c.bkv % (issuers * boxRows) == 0 && "power-of-two tiles, pages and warps");
  const bool keys = parts != TileParts::Values, values = parts != TileParts::Keys;
  Value full = keys ? stageBarrier(buf) : valuesFullBarrier(buf);
  auto arm = [&](int64_t bytes) {
    NVVM::MBarrierArriveExpectTxOp::create(b, loc, Type(), full, i32(bytes),
                                           NVVM::MemScopeKind::CTA, /*relaxed=*/false, Value());
  };
  PageLookup pages(c, start);
  if (issuers == 1) {
    const int64_t atomsOfK = keys ? atomsK : 0, atomsOfV = values ? atomsV : 0;
    arm((atomsOfK + atomsOfV) * 128 * c.bkv + (values ? vtBytes : 0));
    if (values && vtBytes) {
      Value image =
          k.globalPointer(c.v.V, {c.v.batch, c.v.kvHead, k.div(start, c.bkv), k.idx(0)});
      NVVM::CpAsyncBulkGlobalToSharedClusterOp::create(
          b, loc, clusterPointer(c.v.vtTile, k.mul(buf, vtBytes)), image, full, i32(vtBytes),
          /*multicastMask=*/Value(), /*l2CacheHint=*/Value());
    }
    for (int64_t row = 0; row < c.bkv; row += boxRows)
      issueBoxRows(start, buf, full, k.idx(row),
                   c.s.paged() ? pages.pageOf(row, boxRows, k.add(start, row)) : Value(),
                   atomsOfK, atomsOfV);
    return;
  }
  assert(parts == TileParts::KeysAndValues && "one issuer per barrier of its own");
  // Several issuers (paged K/V, never with Vᵀ): the first lane of warp w
  // takes the box rows w, w + issuers, ... of the tile, one arrival with
  // their bytes; one copy of the code, the warp index at run time.
  Value warp = k.div(c.v.tid, 32);
  Value issues = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, k.rem(c.v.tid, 32), k.idx(0)),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, warp, k.idx(issuers)));
  auto branch = scf::IfOp::create(b, loc, issues, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(branch.thenBlock());
  arm((atomsK + atomsV) * 128 * rowsPerIssuer);
  for (int64_t i = 0; i < rowsPerIssuer / boxRows; ++i) {
    Value row = k.add(k.mul(warp, boxRows), i * issuers * boxRows);
    issueBoxRows(start, buf, full, row, pages.pageAt(k.add(start, row)), atomsK, atomsV);
  }
}

void TmaProducer::issueBoxRows(Value start, Value buf, Value full, Value row, Value page,
                               int64_t atomsK, int64_t atomsV) {
  // The box's outer coordinates ({key, head, batch} of a dense tensor,
  // {head, row in page, page} of a pool, PageLookup.h), then its K and V
  // atoms. (Box by box, so that one page's coordinates are live at a time
  // in the issuing branch.)
  OpBuilder &b = k.b;
  Location loc = k.loc;
  const int64_t atom = atomColumns(c.s.elementBytes()), atomBytes = 128 * c.bkv;
  SmallVector<Value, 3> outer;
  if (page) {
    // (A tile of whole pages starts each box at a page's first row.)
    Value rowInPage =
        c.s.boxRows() < c.s.pageSize ? i32(k.rem(start, c.s.pageSize)) : i32(0);
    outer = {i32(c.v.kvHead), rowInPage, i32(page)};
  } else {
    outer = {i32(k.add(start, row)), i32(c.v.kvHead), i32(c.v.batch)};
  }
  Value rowBytes = k.mul(row, 128);
  for (auto [map, tile, atoms] :
       {std::tuple<Value, Value, int64_t>{c.v.kTensorMap, c.v.kTile, atomsK},
        std::tuple<Value, Value, int64_t>{c.v.vTensorMap, c.v.vTile, atomsV}}) {
    // Stage `buf` of a [stages, atoms, block_kv, atom] tile.
    Value stage = k.mul(buf, atoms * atomBytes);
    for (int64_t a = 0; a < atoms; ++a) {
      Value dst = clusterPointer(tile, k.add(k.add(stage, a * atomBytes), rowBytes));
      SmallVector<Value, 4> at{i32(a * atom)};
      at.append(outer.begin(), outer.end());
      NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
          b, loc, dst, map, at, full, /*im2colOffsets=*/ValueRange{}, /*multicastMask=*/Value(),
          /*l2CacheHint=*/Value(), NVVM::TMALoadMode::TILE, /*isCTAOnly=*/false,
          /*group=*/nullptr, /*predicate=*/Value());
    }
  }
}

namespace {

/// `a ∧ b` of two conditions where null is true.
Value both(KernelBuilder &k, Value a, Value b) {
  if (!a || !b)
    return a ? a : b;
  return arith::AndIOp::create(k.b, k.loc, a, b);
}

} // namespace

SmallVector<RowCopy> TmaProducer::rowsOfThread(Value start) {
  // One row per step of `threads` rows through K's tile, then V's; a CTA
  // with more threads than a tile has rows (threads and block_kv are
  // powers of two) gives thread t K's row t or V's row t − block_kv. Row
  // copies serve paged or packed K/V, whose key count is read at run time
  // (dense K/V take tensor boxes).
  OpBuilder &b = k.b;
  Location loc = k.loc;
  const KernelValues &v = c.v;
  PageLookup pages(c, start);
  SmallVector<RowCopy> copies;
  auto addRow = [&](Value src, Value tile, int64_t cols, Value row, Value active,
                    int64_t stepRow, int64_t rowsPerStep) {
    Value key = k.add(start, row);
    Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, key, v.kvLen);
    SmallVector<Value> at = c.s.paged() ? pages.poolAt(stepRow, rowsPerStep, key, k.idx(0))
                                        : c.keyAt(key, k.idx(0), /*inSequence=*/false);
    copies.push_back({tile, row, active, inside, k.globalPointer(src, at), cols});
  };
  for (auto [src, tile, cols] : {std::tuple<Value, Value, int64_t>{v.K, v.kTile, c.d},
                                 std::tuple<Value, Value, int64_t>{v.V, v.vTile, c.dv}}) {
    if (c.threads <= c.bkv) {
      assert(c.bkv % c.threads == 0 && "power-of-two tiles and CTAs");
      for (int64_t step = 0; step < c.bkv; step += c.threads)
        addRow(src, tile, cols, k.add(v.tid, step), Value(), step, c.threads);
      continue;
    }
    Value part = k.div(v.tid, c.bkv);
    Value active = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, part,
                                         k.idx(tile == v.kTile ? 0 : 1));
    addRow(src, tile, cols, k.rem(v.tid, c.bkv), active, 0, c.bkv);
  }
  return copies;
}

Value TmaProducer::zeroOutsideRows(ArrayRef<RowCopy> rows, Value buf) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  const int64_t elementBytes = c.T.getIntOrFloatBitWidth() / 8;
  Value bytes = i32(0);
  for (const RowCopy &row : rows) {
    Value copied = both(k, row.active, row.inside);
    bytes = arith::AddIOp::create(
        b, loc, bytes,
        arith::SelectOp::create(b, loc, copied, i32(row.cols * elementBytes), i32(0)));
    Value outside = arith::XOrIOp::create(b, loc, row.inside,
                                          arith::ConstantIntOp::create(b, loc, 1, 1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(
        scf::IfOp::create(b, loc, both(k, row.active, outside), false).thenBlock());
    Value zeros = k.zeros(VectorType::get({8}, c.T));
    for (int64_t col = 0; col < row.cols; col += 8)
      vector::StoreOp::create(b, loc, zeros, row.tile, family.tileAt(buf, row.row, k.idx(col)));
  }
  return bytes;
}

void TmaProducer::issueRows(Value start, Value buf) {
  // Zero the rows past the sequence, then arrive (its release publishes
  // the zeros with the copies) armed with the bytes of the copied rows.
  OpBuilder &b = k.b;
  Location loc = k.loc;
  const int64_t elementBytes = c.T.getIntOrFloatBitWidth() / 8;
  SmallVector<RowCopy> rows = rowsOfThread(start);
  Value bytes = zeroOutsideRows(rows, buf);
  Value full = stageBarrier(buf);
  NVVM::MBarrierArriveExpectTxOp::create(b, loc, Type(), full, bytes, NVVM::MemScopeKind::CTA,
                                         /*relaxed=*/false, Value());
  for (const RowCopy &row : rows) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(
        scf::IfOp::create(b, loc, both(k, row.active, row.inside), false).thenBlock());
    Value dst =
        clusterPointer(row.tile, k.byteOffset(row.tile, family.tileAt(buf, row.row, k.idx(0))));
    NVVM::CpAsyncBulkGlobalToSharedClusterOp::create(b, loc, dst, row.src, full,
                                                     i32(row.cols * elementBytes),
                                                     /*multicastMask=*/Value(),
                                                     /*l2CacheHint=*/Value());
  }
}

std::unique_ptr<KVProducer> mlir::attn::createTmaProducer(KernelContext &c,
                                                          TensorCoreFamily &family) {
  return std::make_unique<TmaProducer>(c, family);
}

//===- TmaProducer.cpp - K/V tiles into shared memory by TMA ---------------===//
//
// TmaProducer (wgmma kernels, FlashKernelSpec::tmaLoads): one thread issues
// each K/V tile as TMA box copies (cp.async.bulk.tensor.4d, PTX ISA 8.0)
// against the tensor maps of K and V, which the runtime encodes from the
// manifest's `tensor_maps` (a [B, Hkv, L, d] tensor seen as dims {d, L, Hkv,
// B}, boxes of {64, block_kv, 1, 1}, the 128-byte swizzle) and passes in
// global memory (`k_tensor_map`, `v_tensor_map`). A box is one 64-column atom of a staged
// tile, and the hardware writes it in exactly the swizzled layout the wgmma
// descriptors read (WgmmaFamily.cpp), so nothing downstream changes.
//
// Each stage has an mbarrier. The issuing thread arms it with the bytes of
// the tile (arrive.expect_tx) and the copies complete those bytes; every
// thread waits on the stage's phase parity before reading it. Stage s is
// filled by tiles t ≡ s (mod stages) from the CTA's first tile f on, so the
// n-th fill of a stage completes its phase n, and tile t waits for parity
// ⌊(t − f) / stages⌋ mod 2. Boxes reaching past Lk (or past d, in the last
// atom) are zero-filled by the hardware and their bytes still count.
//
// Why: with cp.async every thread computes addresses and issues 16-byte
// copies of every tile (16 per thread and tile at 128 x 128, d = 128), in
// the same instruction stream as the softmax that keeps the tensor cores
// waiting; with TMA one thread issues 2-4 instructions per tile, and the
// per-thread wait is one mbarrier test. The stage-free protocol is the
// cp.async producer's (the barrier that ends each iteration), and no copy
// is issued past the CTA's last tile, so nothing is in flight at the end.
//
//===----------------------------------------------------------------------===//
#include "FlashAttentionEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::attn;

namespace {

class TmaProducer final : public KVProducer {
public:
  using KVProducer::KVProducer;

  void prologue() override;
  Value acquire(Value kvStart) override;
  /// No copy is issued past the CTA's last tile, and each one issued is
  /// waited for by the iteration that reads it.
  void drain() override {}
  /// The mbarrier wait publishes each tile to every thread.
  bool publishesWithBarrier() const override { return false; }

private:
  /// Thread 0 only: arms stage `buf`'s mbarrier with the tile's bytes and
  /// issues the K and V boxes of the tile that starts at key `start`.
  void issueTile(Value start, Value buf);
  /// issueTile into stage `stage()`, unless the tile starts at or past the
  /// CTA's last key (the stage is computed under that guard).
  void issueTileBeforeEnd(Value start, function_ref<Value()> stage);
  /// The mbarrier of stage `buf`.
  Value stageBarrier(Value buf) { return sharedPointer(c.v.stageFull, k.mul(buf, 8)); }
  Value stageBarrier(int64_t buf) { return sharedPointer(c.v.stageFull, k.idx(8 * buf)); }
  /// `body` in thread 0 only.
  void inLeader(function_ref<void()> body);
  /// The 32-bit shared address (as !llvm.ptr<3>) of `memref`'s first element
  /// plus `bytes`.
  Value sharedPointer(Value memref, Value bytes);
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

Value TmaProducer::sharedPointer(Value memref, Value bytes) {
  OpBuilder &b = k.b;
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, k.loc, memref);
  Value address = arith::IndexCastUIOp::create(b, k.loc, b.getI64Type(), k.add(base, bytes));
  return LLVM::IntToPtrOp::create(b, k.loc, LLVM::LLVMPointerType::get(b.getContext(), 3),
                                  address);
}

void TmaProducer::prologue() {
  // Thread 0 sets up one mbarrier per stage (one arrival: its own
  // arrive.expect_tx), made visible to the async proxy; the barrier after
  // it also publishes the staged Q tile (written by every thread's stores)
  // to wgmma, whose async-proxy fence precedes it. Then the first tiles.
  OpBuilder &b = k.b;
  Location loc = k.loc;
  inLeader([&] {
    for (int64_t s = 0; s < c.stages; ++s)
      NVVM::MBarrierInitOp::create(b, loc, stageBarrier(s), i32(1), Value());
    NVVM::FenceMbarrierInitOp::create(b, loc);
  });
  family.beforeStageBarrier();
  gpu::BarrierOp::create(b, loc);
  inLeader([&] {
    for (int64_t i = 0; i < c.s.prefetchDistance(); ++i) {
      Value start = k.add(c.v.kvBegin, i * c.bkv);
      issueTileBeforeEnd(start, [&] { return k.rem(k.div(start, c.bkv), c.stages); });
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

Value TmaProducer::acquire(Value kvStart) {
  // Issue tile j + D into the stage tile j + D − stages left (freed by the
  // barrier that ended the previous iteration), unless it is past the last
  // tile; then wait for tile j.
  OpBuilder &b = k.b;
  Location loc = k.loc;
  const int64_t distance = c.s.prefetchDistance();
  Value tile = k.div(kvStart, c.bkv);
  Value buf = k.rem(tile, c.stages);
  Value next = k.add(kvStart, distance * c.bkv);
  inLeader([&] {
    issueTileBeforeEnd(next, [&] { return k.rem(k.add(tile, distance), c.stages); });
  });
  Value fills = k.div(arith::SubIOp::create(b, loc, tile, k.div(c.v.kvBegin, c.bkv)), c.stages);
  Value parity = i32(arith::AndIOp::create(b, loc, fills, k.idx(1)));
  // (The suspend-time hint, 10 ms, is CUTLASS's.)
  NVVM::MBarrierTryWaitParityOp::create(b, loc, stageBarrier(buf), parity, i32(0x989680));
  return buf;
}

void TmaProducer::issueTile(Value start, Value buf) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  const int64_t atomsK = llvm::divideCeil(c.d, 64), atomsV = llvm::divideCeil(c.dv, 64);
  // Every box is 64 columns x block_kv rows of 2 bytes, zero-filled where it
  // reaches past the tensor, and counted in full.
  const int64_t boxBytes = 64 * 2 * c.bkv;
  Value full = stageBarrier(buf);
  NVVM::MBarrierArriveExpectTxOp::create(b, loc, Type(), full, i32((atomsK + atomsV) * boxBytes),
                                         NVVM::MemScopeKind::CTA, /*relaxed=*/false, Value());
  Value key = i32(start), head = i32(c.v.kvHead), batch = i32(c.v.batch);
  for (auto [map, tile, atoms] : {std::tuple<Value, Value, int64_t>{c.v.kTensorMap, c.v.kTile, atomsK},
                                  std::tuple<Value, Value, int64_t>{c.v.vTensorMap, c.v.vTile, atomsV}}) {
    // Stage `buf` of a [stages, atoms, block_kv, 64] tile.
    Value stage = k.mul(buf, atoms * boxBytes);
    for (int64_t a = 0; a < atoms; ++a) {
      // A shared::cta address is a shared::cluster one of this CTA (the
      // .shared::cta destination form needs PTX 8.6).
      Value dst = LLVM::AddrSpaceCastOp::create(
          b, loc, LLVM::LLVMPointerType::get(b.getContext(), 7),
          sharedPointer(tile, k.add(stage, a * boxBytes)));
      NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
          b, loc, dst, map, ValueRange{i32(a * 64), key, head, batch}, full,
          /*im2colOffsets=*/ValueRange{}, /*multicastMask=*/Value(), /*l2CacheHint=*/Value(),
          NVVM::TMALoadMode::TILE, /*isCTAOnly=*/false, /*group=*/nullptr, /*predicate=*/Value());
    }
  }
}

std::unique_ptr<KVProducer> mlir::attn::createTmaProducer(KernelContext &c,
                                                          TensorCoreFamily &family) {
  return std::make_unique<TmaProducer>(c, family);
}

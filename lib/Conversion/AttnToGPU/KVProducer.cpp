//===- KVProducer.cpp - K/V tiles into shared memory by cp.async ----------===//
//
// CpAsyncProducer: every thread of the CTA copies 16-byte chunks of the K
// and V tiles with cp.async (L1 bypassed) into one of `stages` shared-memory
// stages, one commit group per tile. Tile j+1 is prefetched at the top of
// iteration j, so its copy overlaps the math on tile j; with wgmma's
// deferred P·V wait a third stage keeps tile j-1's V alive while it is read.
//
//===----------------------------------------------------------------------===//
#include "FlashAttentionEmitter.h"
#include "PageLookup.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::attn;

void KVProducer::releaseStage(Value) { gpu::BarrierOp::create(k.b, k.loc); }

namespace {

class CpAsyncProducer final : public KVProducer {
public:
  using KVProducer::KVProducer;

  void prologue() override {
    // The CTA's first `distance` tiles into their stages (tile t lives in
    // stage t % stages), each its own commit group. Tiles past the last are
    // clamped to it: copied, never read.
    OpBuilder &b = k.b;
    Location loc = k.loc;
    Value first = c.v.kvBegin;
    int64_t lastTile = (c.lk + c.bkv - 1) / c.bkv * c.bkv - c.bkv;
    for (int64_t i = 0; i < s().prefetchDistance(); ++i) {
      Value start = k.add(first, i * c.bkv);
      if (i > 0)
        start = arith::MinUIOp::create(b, loc, start, k.idx(lastTile));
      Value buf = s().kvBeginVaries() ? k.rem(k.add(k.div(first, c.bkv), i), c.stages)
                                      : k.idx(i % c.stages);
      stage(start, buf);
    }
  }

  Value acquire(Value kvStart, bool /*mayEndKeys*/) override {
    // Prefetch tile j+D (D = the prefetch distance) into its stage, the one
    // tile j-1 left (the last iterations re-fetch the last tile into that
    // idle stage: branch-free, and nobody reads it), then wait until only
    // the D newest groups are in flight: tile j is here.
    OpBuilder &b = k.b;
    Location loc = k.loc;
    const int64_t distance = s().prefetchDistance();
    Value tile = k.div(kvStart, c.bkv);
    Value buf = k.rem(tile, c.stages);
    Value next = arith::MinUIOp::create(b, loc, k.add(kvStart, distance * c.bkv),
                                        arith::SubIOp::create(b, loc, c.v.kvEnd, k.idx(c.bkv)));
    Value nextBuf = c.stages == 2 ? arith::SubIOp::create(b, loc, k.idx(1), buf).getResult()
                                  : k.rem(k.add(tile, distance), c.stages);
    stage(next, nextBuf);
    NVVM::CpAsyncWaitGroupOp::create(b, loc, int32_t(distance));
    return buf;
  }

  void drain() override {
    // Retire the last (unused) prefetch.
    NVVM::CpAsyncWaitGroupOp::create(k.b, k.loc, 0);
  }

private:
  const FlashKernelSpec &s() const { return c.s; }
  /// Copies the K and V tiles that start at key `start` into stage `buf`,
  /// 16 bytes per thread and step, as one commit group.
  void stage(Value start, Value buf);
  /// The copies of stage(); `wholeTile`: every row is a key of the
  /// sequence (no zero-fill, no clamp).
  void issueCopies(Value start, Value buf, bool wholeTile);
};

} // namespace

void CpAsyncProducer::stage(Value start, Value buf) {
  if (!c.s.varlen)
    return issueCopies(start, buf, /*wholeTile=*/false);
  // A packed sequence's tiles are whole but for its last (and the
  // prefetches past it): their rows are keys of the sequence, inside the
  // tensor, so they need neither the zero-fill size nor the token clamp,
  // four integer ops per 16-byte copy (bench/NOTES.md, v26b).
  OpBuilder &b = k.b;
  Value whole = arith::CmpIOp::create(b, k.loc, arith::CmpIPredicate::ule,
                                      k.add(start, c.bkv), c.v.kvLen);
  auto branch = scf::IfOp::create(b, k.loc, whole, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(branch.thenBlock());
  issueCopies(start, buf, /*wholeTile=*/true);
  b.setInsertionPointToStart(branch.elseBlock());
  issueCopies(start, buf, /*wholeTile=*/false);
}

void CpAsyncProducer::issueCopies(Value start, Value buf, bool wholeTile) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  const KernelValues &v = c.v;
  SmallVector<Value> tokens;
  PageLookup pages(c, start);
  for (auto [src, tile, cols] : {std::tuple<Value, Value, int64_t>{v.K, v.kTile, c.d},
                                 std::tuple<Value, Value, int64_t>{v.V, v.vTile, c.dv}}) {
    TileCopy copy(k, v.tid, c.threads, c.bkv, cols / 8);
    for (int64_t i = 0; i < copy.steps; ++i) {
      Value r = copy.row(i), col = copy.col(i);
      Value kvRow = k.add(start, r);
      // Owned storage: a ValueRange over a braced list would dangle.
      SmallVector<Value> srcIdx;
      Value srcElements;
      if (c.s.dynamicKVLength() && !wholeTile) {
        // Rows past the sequence are zero-filled (cp.async reads 0 bytes):
        // what the pool (or the next packed sequence, or the padding past
        // the last) holds there may be NaN, which P = 0 would not hide.
        Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, kvRow, v.kvLen);
        Value all = k.idx(8), none = k.idx(0); // (named first: see queryAt)
        srcElements = arith::SelectOp::create(b, loc, inside, all, none);
      }
      if (c.s.paged()) {
        srcIdx = pages.poolAt(copy.stepRow(i), copy.rowsPerStep, kvRow, col);
      } else {
        if (c.kTail && !c.s.varlen)
          kvRow = arith::MinUIOp::create(b, loc, kvRow, k.idx(c.lk - 1));
        srcIdx = c.keyAt(kvRow, col, /*inSequence=*/wholeTile);
      }
      tokens.push_back(nvgpu::DeviceAsyncCopyOp::create(b, loc, tile, family.tileAt(buf, r, col),
                                                        src, srcIdx, b.getIndexAttr(8),
                                                        srcElements, b.getUnitAttr()));
    }
  }
  // (Waited for by count, cp.async.wait_group, in acquire.)
  nvgpu::DeviceAsyncCreateGroupOp::create(b, loc, tokens);
}

std::unique_ptr<KVProducer> mlir::attn::createCpAsyncProducer(KernelContext &c,
                                                              TensorCoreFamily &family) {
  return std::make_unique<CpAsyncProducer>(c, family);
}

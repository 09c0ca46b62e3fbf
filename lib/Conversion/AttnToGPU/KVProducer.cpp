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

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

using namespace mlir;
using namespace mlir::attn;

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
      Value buf = s().splitKV() ? k.rem(k.add(k.div(first, c.bkv), i), c.stages)
                                : k.idx(i % c.stages);
      stage(start, buf);
    }
  }

  Value acquire(Value kvStart) override {
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
    Value group = stage(next, nextBuf);
    nvgpu::DeviceAsyncWaitOp::create(b, loc, group, b.getI32IntegerAttr(int32_t(distance)));
    return buf;
  }

  void drain() override {
    // Retire the last (unused) prefetch.
    NVVM::CpAsyncWaitGroupOp::create(k.b, k.loc, 0);
  }

private:
  const FlashKernelSpec &s() const { return c.s; }
  /// Copies the K and V tiles that start at key `start` into stage `buf`,
  /// 16 bytes per thread and step; returns the commit group's token.
  Value stage(Value start, Value buf);
};

} // namespace

Value CpAsyncProducer::stage(Value start, Value buf) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  const KernelValues &v = c.v;
  SmallVector<Value> tokens;
  for (auto [src, tile, cols] : {std::tuple<Value, Value, int64_t>{v.K, v.kTile, c.d},
                                 std::tuple<Value, Value, int64_t>{v.V, v.vTile, c.dv}}) {
    int64_t chunksPerRow = cols / 8, total = c.bkv * chunksPerRow;
    for (int64_t i = 0; i < total / c.threads; ++i) {
      Value ci = k.add(v.tid, i * c.threads);
      Value r = k.div(ci, chunksPerRow), col = k.mul(k.rem(ci, chunksPerRow), 8);
      // Owned storage: a ValueRange over a braced list would dangle.
      Value kvRow = k.add(start, r);
      if (c.kTail)
        kvRow = arith::MinUIOp::create(b, loc, kvRow, k.idx(c.lk - 1));
      SmallVector<Value> srcIdx{v.batch, v.kvHead, kvRow, col};
      tokens.push_back(nvgpu::DeviceAsyncCopyOp::create(b, loc, tile, family.tileAt(buf, r, col),
                                                        src, srcIdx, b.getIndexAttr(8), Value(),
                                                        b.getUnitAttr()));
    }
  }
  return nvgpu::DeviceAsyncCreateGroupOp::create(b, loc, tokens).getResult();
}

std::unique_ptr<KVProducer> mlir::attn::createCpAsyncProducer(KernelContext &c,
                                                              TensorCoreFamily &family) {
  return std::make_unique<CpAsyncProducer>(c, family);
}

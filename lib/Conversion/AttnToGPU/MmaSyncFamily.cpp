//===- MmaSyncFamily.cpp - mma.sync.m16n8k16 tensor-core family -----------===//
//
// The Ampere-and-later family (sm_80+): one warp multiplies m16n8k16 tiles
// with every fragment in registers. A warp owns mt = rowsPerWarp / 16 m-tiles
// of query rows; every K/V fragment it loads from shared memory feeds all mt
// of them.
//   * Staging layout: [stage, row, col] tiles whose rows are padded by 8
//     elements (+4 banks per row) or, with `swizzle`, packed with the 16-byte
//     chunks XOR-permuted by row % 8 (KernelBuilder::swz).
//   * Q: fragments loaded once into registers when they fit (mt·d <= 128),
//     else the staged Q tile re-read with ldmatrix.x4 per use.
//   * S = Q·Kᵀ: per 8 keys, K's B fragments read as 32-bit pairs.
//   * O += P·V: P (two adjacent C tiles of S, rounded) is the A fragment
//     as it stands; V's B fragments come through ldmatrix.x2.trans.
//
//===----------------------------------------------------------------------===//
#include "FlashAttentionEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::attn;

namespace {

class MmaSyncFamily final : public TensorCoreFamily {
public:
  using TensorCoreFamily::TensorCoreFamily;

  /// Padded (or XOR-swizzled) rows; swizzled atoms when TMA boxes fill
  /// the stages (FlashKernelSpec::atomTiles).
  MemRefType tileType(std::optional<int64_t> numStages, int64_t rows,
                      int64_t cols) const override {
    if (s.atomTiles())
      return atomTileType(numStages, rows, cols);
    SmallVector<int64_t> shape;
    if (numStages)
      shape.push_back(*numStages);
    shape.append({rows, s.smemPitch(cols)});
    return MemRefType::get(shape, c.T, MemRefLayoutAttrInterface(), c.workgroup);
  }

  SmallVector<Value> tileAt(Value buf, Value r, Value col) override {
    if (s.atomTiles())
      return atomTileAt(buf, r, col);
    SmallVector<Value> at;
    if (buf)
      at.push_back(buf);
    at.append({r, k.swz(s.swizzle, r, col)});
    return at;
  }

  void prepareOperands() override;
  SmallVector<Value> scoresBlock(int64_t nb, Value buf) override;
  void accumulatePV(const ScoreTile &p, Value buf, SmallVectorImpl<Value> &acc) override;

private:
  /// D = A·B + C, m16n8k16, f32 accumulators.
  Value mma(Value a, Value bb, Value acc);
  /// The A fragment of Q for m-tile mi and k-step ks.
  Value qFragment(int64_t mi, int64_t ks);

  /// qFrag[mi][ks]: Q's A fragments, when they stay in registers.
  SmallVector<SmallVector<Value>> qFrag;
};

} // namespace

void MmaSyncFamily::prepareOperands() {
  // Q fragments stay in registers for the whole K/V loop when they fit.
  qFrag.resize(c.mt);
  if (s.qInSharedMemory())
    return;
  const KernelValues &v = c.v;
  for (int64_t mi = 0; mi < c.mt; ++mi) {
    // Rows are in bounds (clamped) and carry their own head (GQA packing).
    Value r0 = v.row[mi][0], r1 = v.row[mi][1];
    Value h0 = v.rowHead[mi][0], h1 = v.rowHead[mi][1];
    for (int64_t ks = 0; ks < c.kSteps; ++ks) {
      Value col = k.add(v.twoT, ks * 16);
      Value a = k.zeros(c.aType);
      a = k.insert(k.loadAligned(c.pair, v.Q, c.queryAt(r0, h0, col)), a, 0);
      a = k.insert(k.loadAligned(c.pair, v.Q, c.queryAt(r1, h1, col)), a, 1);
      // Columns past d (an odd multiple of 8) stay zero.
      if (ks * 16 + 8 < c.d) {
        a = k.insert(k.loadAligned(c.pair, v.Q, c.queryAt(r0, h0, k.add(col, 8))), a, 2);
        a = k.insert(k.loadAligned(c.pair, v.Q, c.queryAt(r1, h1, k.add(col, 8))), a, 3);
      }
      qFrag[mi].push_back(a);
    }
  }
}

Value MmaSyncFamily::qFragment(int64_t mi, int64_t ks) {
  if (!s.qInSharedMemory())
    return qFrag[mi][ks];
  // ldmatrix.x4 from the staged tile: lanes 0-15 address rows 0-15 at
  // column 0, lanes 16-31 the same rows at column 8.
  const KernelValues &v = c.v;
  Value r = k.add(k.add(k.mul(v.warp, s.rowsPerWarp), mi * 16), k.rem(v.lane, 16));
  Value col = k.add(k.mul(k.div(v.lane, 16), 8), ks * 16);
  return nvgpu::LdMatrixOp::create(k.b, k.loc, c.aType, v.qTile, tileAt(Value(), r, col),
                                   k.b.getBoolAttr(false), k.b.getI32IntegerAttr(4));
}

SmallVector<Value> MmaSyncFamily::scoresBlock(int64_t nb, Value buf) {
  // Each K fragment is loaded once and used by all mt m-tiles.
  const KernelValues &v = c.v;
  SmallVector<Value> sBlock(c.mt);
  for (int64_t mi = 0; mi < c.mt; ++mi)
    sBlock[mi] = k.zeros(c.cType);
  // (Key warps: the warp's slice of the tile starts at warpKey0.)
  Value keyRow = k.add(v.warpKey0 ? k.add(v.g, v.warpKey0) : v.g, nb * 8);
  for (int64_t ks = 0; ks < c.kSteps; ++ks) {
    Value col = k.add(v.twoT, ks * 16);
    Value bf = k.zeros(c.bType);
    bf = k.insert(k.load(c.pair, v.kTile, tileAt(buf, keyRow, col)), bf, 0);
    bf = k.insert(k.load(c.pair, v.kTile, tileAt(buf, keyRow, k.add(col, 8))), bf, 1);
    for (int64_t mi = 0; mi < c.mt; ++mi)
      sBlock[mi] = mma(qFragment(mi, ks), bf, sBlock[mi]);
  }
  return sBlock;
}

void MmaSyncFamily::accumulatePV(const ScoreTile &p, Value buf, SmallVectorImpl<Value> &acc) {
  // P (rounded to the input type) is the A operand straight from registers;
  // V's B operand comes from shared memory through ldmatrix.trans, once per
  // mt m-tiles.
  OpBuilder &b = k.b;
  Location loc = k.loc;
  const KernelValues &v = c.v;
  const int64_t ndv = c.dv / 8;
  Value laneRow = k.rem(v.lane, 16);
  if (v.warpKey0)
    laneRow = k.add(laneRow, v.warpKey0);
  for (int64_t kk = 0; kk < c.warpKeys / 16; ++kk) {
    SmallVector<Value> a(c.mt);
    for (int64_t mi = 0; mi < c.mt; ++mi) {
      const auto &lo = p[mi][2 * kk], &hi = p[mi][2 * kk + 1];
      a[mi] = k.zeros(c.aType);
      a[mi] = k.insert(k.toPair(lo[0][0], lo[0][1]), a[mi], 0);
      a[mi] = k.insert(k.toPair(lo[1][0], lo[1][1]), a[mi], 1);
      a[mi] = k.insert(k.toPair(hi[0][0], hi[0][1]), a[mi], 2);
      a[mi] = k.insert(k.toPair(hi[1][0], hi[1][1]), a[mi], 3);
    }
    Value vRow = k.add(laneRow, kk * 16);
    for (int64_t nd = 0; nd < ndv; ++nd) {
      Value vf = nvgpu::LdMatrixOp::create(b, loc, c.bType, v.vTile,
                                           tileAt(buf, vRow, k.idx(nd * 8)),
                                           b.getBoolAttr(true), b.getI32IntegerAttr(2));
      for (int64_t mi = 0; mi < c.mt; ++mi)
        acc[mi * ndv + nd] = mma(a[mi], vf, acc[mi * ndv + nd]);
    }
  }
}

Value MmaSyncFamily::mma(Value a, Value bb, Value acc) {
  // f16 goes through nvgpu.mma.sync. For bf16 the LLVM 22 lowering of
  // nvgpu.mma.sync cannot deduce the PTX types, so nvvm.mma.sync is built
  // here with them spelled out: A and B as 32-bit pairs, C and D as f32.
  OpBuilder &b = k.b;
  Location loc = k.loc;
  if (c.T.isF16())
    return nvgpu::MmaSyncOp::create(b, loc, a, bb, acc, ArrayRef<int64_t>{16, 8, 16});
  Type i32 = b.getI32Type();
  auto packRows = [&](Value x, int64_t rows) {
    SmallVector<Value> regs;
    for (int64_t r = 0; r < rows; ++r) {
      Value row = vector::ExtractOp::create(b, loc, x, ArrayRef<int64_t>{r});
      regs.push_back(LLVM::BitcastOp::create(b, loc, i32, row));
    }
    return regs;
  };
  SmallVector<Value> aRegs = packRows(a, 4);
  SmallVector<Value> bRegs = packRows(bb, 2);
  SmallVector<Value> cRegs;
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t e = 0; e < 2; ++e)
      cRegs.push_back(k.extract(acc, r, e));
  auto resultType =
      LLVM::LLVMStructType::getLiteral(b.getContext(), {c.f32, c.f32, c.f32, c.f32});
  Value d = NVVM::MmaOp::create(
      b, loc, resultType, aRegs, bRegs, cRegs, ArrayRef<int64_t>{16, 8, 16},
      /*b1Op=*/std::nullopt, /*intOverflow=*/std::nullopt,
      std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16, NVVM::MMATypes::bf16},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row, NVVM::MMALayout::col});
  SmallVector<Value> elems;
  for (int64_t i = 0; i < 4; ++i)
    elems.push_back(LLVM::ExtractValueOp::create(b, loc, d, ArrayRef<int64_t>{i}));
  return vector::FromElementsOp::create(b, loc, cast<VectorType>(acc.getType()), elems);
}

std::unique_ptr<TensorCoreFamily> mlir::attn::createMmaSyncFamily(KernelContext &c) {
  return std::make_unique<MmaSyncFamily>(c);
}

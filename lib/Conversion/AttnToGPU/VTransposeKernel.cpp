//===- VTransposeKernel.cpp - 8-bit V rewritten as Vᵀ tile images --------===//
//
// wgmma reads 8-bit B operands K-major only: there is no transpose flag for
// e4m3/e5m2 (PTX ISA, wgmma.mma_async, "imm-trans-b ... only for .f16 and
// .bf16"). In P·V the K dimension is the keys, but V comes as [keys, dv]
// rows with dv contiguous. So a pre-kernel, launched before the attention
// kernel (the manifest's first launch), writes V once per call as Vᵀ into a
// workspace [B, Hkv, K/V tiles, image] where each tile's image is the exact
// bytes of the shared-memory stage that will hold it: dv rows of the tile's
// keys in 128-key atoms ([atoms, dv, 128] bytes) with the 128-byte swizzle
// (16-byte chunk c of row r at chunk c ^ (r % 8)), which the P·V
// descriptors read like K's. The producer then brings a tile's Vᵀ with one
// bulk copy (TmaProducer.cpp).
//
// The keys of each 32-key group are stored permuted: position p holds key
//   σ(p) = (p & 16) + 2·((p & 15) >> 2) + [0, 1, 8, 9][p & 3].
// Why: wgmma's 8-bit A fragment (m64nNk32) gives lane (g, t) positions
// 4t..4t+3 and 16+4t..16+4t+3 of its rows, while the f32 score accumulator
// gives it keys 2t, 2t+1, 8+2t, 9+2t (and +16). With σ, the four bytes of
// each A register are the lane's own probabilities (WgmmaFamily.cpp,
// pvStepOperand): no shuffle between the two GEMMs. A permutation of the
// keys shared by P and Vᵀ leaves P·V unchanged.
//
// Positions past the tile (64-key tiles fill half an atom) and keys past Lk
// are written as zeros: P is 0 there, but V must not bring NaN to 0·V.
//
// Why a pre-kernel: bench/NOTES.md v39-v39d rewrote each V stage inside the
// attention kernel, in its producer warpgroup; the bank conflicts and the
// shared-memory bandwidth that took from the consumers' wgmma made the FP8
// kernel 0.77-0.81x the bf16 one. Here V is read and written once more in
// global memory (2·B·Hkv·Lk·dv bytes, a few percent of a prefill's time)
// and the attention kernel's producer only issues copies.
//
// Work: one CTA per (tile, batch · K/V head); each thread takes 16
// positions of eight Vᵀ rows: 16 loads of an 8-byte word (eight V columns
// of one key), then eight aligned 16-byte stores (byte j of each word: row
// 8o + j). Consecutive threads take the eight 16-position chunks of one
// 128-key atom, then the next eight columns: a warp's load reads one whole
// 32-byte sector (32 columns) of each of eight keys, and a warp's store
// writes four whole 128-byte rows of the image. (bench/NOTES.md v43e-v43g: loads of one
// byte, or stores of 16 bytes 128 or 512 bytes apart, left the kernel at
// 1.1-1.2 TB/s, L2-bound on half-sector writes, 12-19% of a 2k call.)
//
//===----------------------------------------------------------------------===//
#include "KernelBuilder.h"
#include "attn/Conversion/AttnToGPU/AttnToGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::attn;

/// Offset of position i (0..15) of a 16-position half of a 32-key group
/// from the half's first key: 2·(i >> 2) + [0, 1, 8, 9][i & 3] (σ above).
static int64_t permutedKeyOffset(int64_t i) {
  static constexpr int64_t kInQuad[4] = {0, 1, 8, 9};
  return 2 * (i >> 2) + kInQuad[i & 3];
}

gpu::GPUFuncOp mlir::attn::buildVTransposeKernel(OpBuilder &b, Location loc,
                                                 gpu::GPUModuleOp module,
                                                 const FlashKernelSpec &s) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  Type T = s.elementType;
  KernelBuilder k{b, loc, T, b.getF32Type()};
  auto vType = MemRefType::get(s.keyShape(s.headDimV), T);
  auto imageType = MemRefType::get(s.transposedVImageShape(), T);
  auto func = gpu::GPUFuncOp::create(b, loc, s.vTransposeName(),
                                     b.getFunctionType({vType, imageType}, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({int32_t(s.vTransposeThreads()), 1, 1}));
  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  Value v = entry.getArgument(0), image = entry.getArgument(1);

  // blockIdx = (tile, batch · Hkv + head).
  Value tile = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value batchHead = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
  Value batch = k.div(batchHead, s.headsKV), head = k.rem(batchHead, s.headsKV);
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  const int64_t rows = s.headDimV, bkv = s.blockKV, octs = rows / 8;
  Value lastKey = k.idx(s.seqKV - 1), keys = k.idx(s.seqKV);
  auto word = VectorType::get({8}, T);
  Value zeros = k.zeros(word);

  // Task = (atom, column octet, 16-position chunk of the atom), the chunk
  // fastest; one per thread (FlashKernelSpec::vTransposeThreads).
  Value task = tid;
  Value chunkInAtom = k.rem(task, 8), oct = k.rem(k.div(task, 8), octs);
  Value position = k.add(k.mul(k.div(task, 8 * octs), 8), chunkInAtom);
  // The task's 16 positions start at key tile·bkv + 16·position; past the
  // tile (position ≥ bkv / 16) they are padding.
  Value inTile = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, position,
                                       k.idx(bkv / 16));
  Value firstKey = k.add(k.mul(tile, bkv), k.mul(position, 16));
  Value firstColumn = k.mul(oct, 8);
  // The task reads keys firstKey + permutedKeyOffset(i), i < 16 (offsets
  // 0..15); those at offsets below `present` exist (none past the tile; a
  // partial last tile ends at Lk). Counted once in i32, so that each key's
  // test is one 32-bit compare of a constant: 16 tests on 64-bit keys left
  // ptxas short of predicates, and it spilled (bench/NOTES.md v58).
  Value clampedFirst = arith::MinUIOp::create(b, loc, firstKey, keys);
  Value keysLeft = arith::MinUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, keys, clampedFirst), k.idx(16));
  Value present = k.toI32(arith::SelectOp::create(b, loc, inTile, keysLeft, k.idx(0)));
  // A key's load stays inside V: an absent key reads the last present one
  // (or V's last key), and the select drops it.
  Value loadFirst = arith::MinUIOp::create(b, loc, firstKey, lastKey);
  Value lastOffset = k.toI32(arith::MinUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, lastKey, loadFirst), k.idx(15)));
  SmallVector<Value> words;
  for (int64_t i = 0; i < 16; ++i) {
    Value offset = k.i32(permutedKeyOffset(i));
    Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, offset, present);
    Value loadOffset = arith::MinUIOp::create(b, loc, offset, lastOffset);
    Value at = k.add(loadFirst, k.toIndex(loadOffset));
    Value w = k.loadAligned(word, v, ValueRange{batch, head, at, firstColumn});
    words.push_back(arith::SelectOp::create(b, loc, inside, w, zeros));
  }
  // Row firstColumn + j of Vᵀ: byte j of each word. The stage's layout:
  // atom position / 8, the row, chunk position % 8 swizzled by row % 8.
  for (int64_t j = 0; j < 8; ++j) {
    SmallVector<Value> bytes;
    for (Value w : words)
      bytes.push_back(vector::ExtractOp::create(b, loc, w, ArrayRef<int64_t>{j}));
    Value rowChunk =
        vector::FromElementsOp::create(b, loc, VectorType::get({16}, T), bytes).getResult();
    Value row = k.add(firstColumn, j);
    Value swizzled = arith::XOrIOp::create(b, loc, k.rem(position, 8), k.rem(row, 8));
    Value offset = k.add(k.add(k.mul(k.div(position, 8), rows * 128), k.mul(row, 128)),
                         k.mul(swizzled, 16));
    k.storeAligned(rowChunk, image, ValueRange{batch, head, tile, offset});
  }
  gpu::ReturnOp::create(b, loc);
  return func;
}

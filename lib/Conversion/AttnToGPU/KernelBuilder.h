//===- KernelBuilder.h - op-building helpers for the attention kernels ---===//
//
// Internal to lib/Conversion/AttnToGPU: the op-building vocabulary that the
// kernel emitter (FlashAttentionEmitter.h) and the tensor-core families
// (MmaSyncFamily.cpp, WgmmaFamily.cpp) are written in, so that they read like
// the algorithm.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_LIB_CONVERSION_ATTNTOGPU_KERNELBUILDER_H
#define ATTN_LIB_CONVERSION_ATTNTOGPU_KERNELBUILDER_H

#include "attn/Analysis/StagedTileLayout.h"
#include "attn/Conversion/AttnToGPU/AttnToGPU.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

namespace mlir {
namespace attn {

/// The attention kernels' parameters, in their calling convention (the
/// manifest's `params` order, the launch's arguments): Q, K, V and O as
/// [B, H, L, d] (paged: K/V pools [P, S, Hkv, d]; split-KV: the partial
/// outputs [S, B, Hq, Lq, dv] in f32 in place of O, then their
/// log2-sum-exps), the mask, the block table and sequence lengths, the
/// score_mod's tensors. One definition for every kernel that takes them
/// (FlashAttentionEmitter, GenericKernel.cpp).
struct KernelParameters {
  Value Q, K, V, O, rowStats, M, blockTable, seqLens, cuSeqlensQ, cuSeqlensK;
  SmallVector<Value> scoreModTensors;
  /// FP8: the descale factors of Q, K and V (0-d f32), or null.
  Value qDescale, kDescale, vDescale;
  /// TMA loads: the K and V tensor maps (FlashKernelSpec::tensorMapLoads), last.
  Value kTensorMap, vTensorMap;
  /// The parameter types of `s`'s kernel.
  static SmallVector<Type> types(Builder &b, const FlashKernelSpec &s);
  /// The parameters of `s`'s kernel among the entry block's arguments.
  static KernelParameters bind(Block &entry, const FlashKernelSpec &s);
};

/// Small builder helpers, so that the kernels read like the algorithm.
struct KernelBuilder {
  OpBuilder &b;
  Location loc;
  Type elt, f32;

  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value f(double v) { return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v)); }
  Value i32(int64_t v) { return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v); }
  /// Index <-> i32, for counts known to fit 32 bits (unsigned).
  Value toI32(Value index) { return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), index); }
  Value toIndex(Value x) { return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), x); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value add(Value x, int64_t y) { return y == 0 ? x : add(x, idx(y)); }
  Value mul(Value x, int64_t y) { return arith::MulIOp::create(b, loc, x, idx(y)); }
  Value div(Value x, int64_t y) { return arith::DivUIOp::create(b, loc, x, idx(y)); }
  Value rem(Value x, int64_t y) { return arith::RemUIOp::create(b, loc, x, idx(y)); }
  Value fmax(Value x, Value y) { return arith::MaximumFOp::create(b, loc, x, y); }
  Value fmul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value fadd(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value fsub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  /// A logit (natural units, after the mask or score_mod) in the exp2
  /// domain, x·log2(e), kept finite where x is: a logit below
  /// −FLT_MAX / log2(e), such as the finfo.min that frontends fill masked
  /// scores with, would overflow to −inf, which the kernels read as a
  /// masked key, so a row of fills came out 0 instead of the uniform
  /// average the program computes (bench/NOTES.md v65). Such logits become
  /// −FLT_MAX (all equal, as the fills were); −inf stays −inf.
  Value toExp2Domain(Value x) {
    Value y = fmul(x, f(M_LOG2E));
    Value isNegInf = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x,
                                           f(-std::numeric_limits<float>::infinity()));
    return arith::SelectOp::create(b, loc, isNegInf, y,
                                   fmax(y, f(std::numeric_limits<float>::lowest())));
  }
  /// ex2.approx: the SFU instruction FlashAttention uses. Inline PTX because
  /// the GPU-to-NVVM lowering maps exp2 to a libdevice call instead, and
  /// NVVM has no op for it. Not nvvm.inline_ptx: that always lowers to a
  /// side-effecting asm statement, which would pin each of the kernel's
  /// ex2 in place; this one is pure, so LLVM may move and CSE it.
  Value exp2(Value x) {
    return LLVM::InlineAsmOp::create(
               b, loc, f32, ValueRange{x}, b.getStringAttr("ex2.approx.ftz.f32 $0, $1;"),
               b.getStringAttr("=f,f"), UnitAttr(), UnitAttr(), LLVM::TailCallKindAttr(),
               LLVM::AsmDialectAttr(), ArrayAttr())
        .getResult(0);
  }
  /// The shared address (as !llvm.ptr<3>) of workgroup memref `memref`'s
  /// first element plus `bytes`: for what addresses shared memory below the
  /// memref level (mbarriers, TMA destinations, the Vᵀ transposer's words).
  Value sharedPointer(Value memref, Value bytes) {
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
    Value address = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), add(base, bytes));
    return LLVM::IntToPtrOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3),
                                    address);
  }
  /// The bytes from `memref`'s first element to the one at `indices` (a
  /// static shape with the identity layout, as the kernel's tensors and
  /// tiles have).
  Value byteOffset(Value memref, ValueRange indices) {
    auto type = cast<MemRefType>(memref.getType());
    int64_t stride = type.getElementTypeBitWidth() / 8;
    Value bytes = idx(0);
    for (int64_t dim = type.getRank() - 1; dim >= 0; --dim) {
      bytes = add(bytes, mul(indices[dim], stride));
      stride *= type.getDimSize(dim);
    }
    return bytes;
  }
  /// The global address (!llvm.ptr<1>) of `memref`'s element at `indices`:
  /// the aligned pointer is a generic address, and cvta.to.global makes it
  /// a global one, which the bulk copies' sources must be.
  Value globalPointer(Value memref, ValueRange indices) {
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
    Value address = arith::IndexCastUIOp::create(b, loc, b.getI64Type(),
                                                 add(base, byteOffset(memref, indices)));
    Value generic =
        LLVM::IntToPtrOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()), address);
    return LLVM::AddrSpaceCastOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext(), 1),
                                         generic);
  }
  Value xorShuffle(Value v, int32_t offset) {
    return gpu::ShuffleOp::create(b, loc, v, offset, 32, gpu::ShuffleMode::XOR)
        .getShuffleResult();
  }
  /// Max or sum over the 4 lanes of a quad (the lanes that share a row).
  Value quadReduce(Value v, bool isMax) {
    for (int32_t off : {1, 2}) {
      Value other = xorShuffle(v, off);
      v = isMax ? fmax(v, other) : fadd(v, other);
    }
    return v;
  }
  Value load(Type vec, Value mem, ValueRange indices) {
    return vector::LoadOp::create(b, loc, cast<VectorType>(vec), mem, indices);
  }
  /// A vector load or store whose address the caller knows to be a multiple
  /// of the vector's size: one 4-, 8- or 16-byte access instead of one per
  /// element (LLVM assumes the element's alignment otherwise, and a kernel
  /// parameter's pointer has no more). Global tensors qualify when their
  /// base is 16-byte aligned (the runtimes check it), their rows are whole
  /// multiples of 16 bytes (d a multiple of 8) and the column a multiple of
  /// the vector's length.
  Value loadAligned(VectorType vec, Value mem, ValueRange indices) {
    return vector::LoadOp::create(b, loc, vec, mem, indices, /*nontemporal=*/false,
                                  llvm::MaybeAlign(vectorBytes(vec)));
  }
  void storeAligned(Value value, Value mem, ValueRange indices) {
    auto vec = cast<VectorType>(value.getType());
    vector::StoreOp::create(b, loc, value, mem, indices, /*nontemporal=*/false,
                            llvm::MaybeAlign(vectorBytes(vec)));
  }
  static uint64_t vectorBytes(VectorType vec) {
    return vec.getNumElements() * vec.getElementTypeBitWidth() / 8;
  }
  /// The column where logical column `col` of row `row` lives in a tile of
  /// `elt`: with `swizzle`, its 16-byte chunk (8 two-byte or 16 one-byte
  /// elements) is XORed with row % 8 (the chunk's elements stay in order),
  /// else it is `col` itself (padded rows).
  Value swz(bool swizzle, Value row, Value col) {
    if (!swizzle)
      return col;
    const int64_t log2Chunk = elt.getIntOrFloatBitWidth() == 8 ? 4 : 3;
    Value chunk = arith::ShRUIOp::create(b, loc, col, idx(log2Chunk));
    Value within = arith::AndIOp::create(b, loc, col, idx((1 << log2Chunk) - 1));
    Value phase = arith::AndIOp::create(b, loc, row, idx(7));
    Value moved = arith::XOrIOp::create(b, loc, chunk, phase);
    return arith::OrIOp::create(b, loc, arith::ShLIOp::create(b, loc, moved, idx(log2Chunk)),
                                within);
  }
  Value zeros(VectorType t) {
    return arith::ConstantOp::create(b, loc, t, b.getZeroAttr(t));
  }
  Value insert(Value v, Value into, int64_t pos) {
    return vector::InsertOp::create(b, loc, v, into, ArrayRef<int64_t>{pos});
  }
  Value extract(Value v, int64_t i, int64_t j) {
    return vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{i, j});
  }
  /// Two f32 values rounded to the input type (or `to`), as one pair.
  Value toPair(Value x0, Value x1, Type to = {}) {
    to = to ? to : elt;
    auto round = [&](Value x) -> Value {
      return to == f32 ? x : arith::TruncFOp::create(b, loc, to, x).getResult();
    };
    return vector::FromElementsOp::create(b, loc, VectorType::get({2}, to),
                                          ValueRange{round(x0), round(x1)})
        .getResult();
  }
};

/// How a CTA's threads copy a tile of `rows` rows of `chunksPerRow` 16-byte
/// chunks. `lanes` threads share a row; lane l copies chunks l, l + lanes,
/// l + 2·lanes ... of it (`perLane` copies), so the lanes of a row read
/// `lanes` adjacent chunks per instruction; the CTA's threads cover
/// rowsPerStep = threads / lanes rows at a time. Every copy's addresses are
/// the thread's first plus a constant: mapping chunks densely instead
/// (chunk tid + step·threads) gives a row of a non-power-of-two count
/// (d = 80, 96, 112) a division per step and ptxas one address register per
/// step, live across the K/V loop, which spilled (v16b). lanes is the
/// largest power of two dividing chunksPerRow when that reads at least 64
/// bytes of a row per instruction (d = 96, 160, 192: no copy wasted);
/// otherwise (d = 80, 112: 2 lanes of 32 bytes, 14% slower in v16c) the
/// chunk count rounded up to a power of two, the spare lanes repeating the
/// row's last chunk (the same bytes to the same place). Power-of-two rows
/// map as densely as before.
struct TileCopy {
  TileCopy(KernelBuilder &k, Value tid, int64_t threads, int64_t rows, int64_t chunksPerRow)
      : k(k), rows(rows), chunksPerRow(chunksPerRow) {
    lanes = rowCopyLanes(chunksPerRow, threads);
    perLane = llvm::divideCeil(chunksPerRow, lanes);
    rowsPerStep = threads / lanes;
    rowSteps = llvm::divideCeil(rows, rowsPerStep);
    steps = rowSteps * perLane;
    firstRow = k.div(tid, lanes);
    firstChunk = k.rem(tid, lanes);
  }
  /// The first tile row of copy `i`'s step of rows.
  int64_t stepRow(int64_t i) const { return i % rowSteps * rowsPerStep; }
  /// The thread's row in copy `i` (a last step of rows past the tile
  /// repeats its last row: the same bytes to the same place).
  Value row(int64_t i) {
    Value r = k.add(firstRow, stepRow(i));
    if (stepRow(i) + rowsPerStep > rows)
      r = arith::MinUIOp::create(k.b, k.loc, r, k.idx(rows - 1));
    return r;
  }
  /// The thread's first column (elements of the kernel's input type: 8
  /// or, 8-bit, 16 per chunk) in copy `i`.
  Value col(int64_t i) {
    int64_t j = i / rowSteps;
    Value chunk = k.add(firstChunk, j * lanes);
    if ((j + 1) * lanes > chunksPerRow)
      chunk = arith::MinUIOp::create(k.b, k.loc, chunk, k.idx(chunksPerRow - 1));
    return k.mul(chunk, 128 / k.elt.getIntOrFloatBitWidth());
  }

  KernelBuilder &k;
  int64_t rows, chunksPerRow, lanes, perLane, rowsPerStep, rowSteps, steps;
  Value firstRow, firstChunk;
};

} // namespace attn
} // namespace mlir

#endif // ATTN_LIB_CONVERSION_ATTNTOGPU_KERNELBUILDER_H

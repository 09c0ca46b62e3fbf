//===- KernelBuilder.h - op-building helpers for the attention kernels ---===//
//
// Internal to lib/Conversion/AttnToGPU. The kernel skeleton
// (FlashAttentionKernel.cpp) is written against these helpers, so that it
// reads like the algorithm; the two tensor-core families live here side by
// side, like Triton's MMAv2 / WGMMA split of DotOpToLLVM:
//   * mma.sync.m16n8k16 (Ampere and later): one warp, fragments in registers;
//   * wgmma.mma_async.m64nNk16 (Hopper, sm_90a): one warpgroup of 4 warps,
//     operands described by shared-memory matrix descriptors (Wgmma.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_LIB_CONVERSION_ATTNTOGPU_KERNELBUILDER_H
#define ATTN_LIB_CONVERSION_ATTNTOGPU_KERNELBUILDER_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir {
namespace attn {

/// Small builder helpers, so that the kernels read like the algorithm.
struct KernelBuilder {
  OpBuilder &b;
  Location loc;
  Type elt, f32;

  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value f(double v) { return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v)); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value add(Value x, int64_t y) { return y == 0 ? x : add(x, idx(y)); }
  Value mul(Value x, int64_t y) { return arith::MulIOp::create(b, loc, x, idx(y)); }
  Value div(Value x, int64_t y) { return arith::DivUIOp::create(b, loc, x, idx(y)); }
  Value rem(Value x, int64_t y) { return arith::RemUIOp::create(b, loc, x, idx(y)); }
  Value fmax(Value x, Value y) { return arith::MaximumFOp::create(b, loc, x, y); }
  Value fmul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value fadd(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value fsub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  /// ex2.approx: the SFU instruction FlashAttention uses. Inline PTX because
  /// the GPU-to-NVVM lowering maps exp2 to a libdevice call instead.
  Value exp2(Value x) {
    return LLVM::InlineAsmOp::create(
               b, loc, f32, ValueRange{x}, b.getStringAttr("ex2.approx.ftz.f32 $0, $1;"),
               b.getStringAttr("=f,f"), UnitAttr(), UnitAttr(), LLVM::TailCallKindAttr(),
               LLVM::AsmDialectAttr(), ArrayAttr())
        .getResult(0);
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
  /// The column where logical column `col` of row `row` lives in a tile:
  /// with `swizzle`, its 16-byte chunk is XORed with row % 8 (the chunk's
  /// elements stay in order), else it is `col` itself (padded rows).
  Value swz(bool swizzle, Value row, Value col) {
    if (!swizzle)
      return col;
    Value chunk = arith::ShRUIOp::create(b, loc, col, idx(3));
    Value within = arith::AndIOp::create(b, loc, col, idx(7));
    Value phase = arith::AndIOp::create(b, loc, row, idx(7));
    Value moved = arith::XOrIOp::create(b, loc, chunk, phase);
    return arith::OrIOp::create(b, loc, arith::ShLIOp::create(b, loc, moved, idx(3)), within);
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
  /// D = A·B + C, m16n8k16, f32 accumulators. f16 goes through
  /// nvgpu.mma.sync; for bf16 the LLVM 22 lowering of nvgpu.mma.sync cannot
  /// deduce the PTX types, so the same instruction is emitted as inline PTX.
  Value mma(Value a, Value bb, Value c) {
    if (elt.isF16())
      return nvgpu::MmaSyncOp::create(b, loc, a, bb, c, ArrayRef<int64_t>{16, 8, 16});
    Type i32 = b.getI32Type();
    SmallVector<Value> operands;
    auto packRows = [&](Value v, int64_t rows) {
      for (int64_t r = 0; r < rows; ++r) {
        Value row = vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{r});
        operands.push_back(LLVM::BitcastOp::create(b, loc, i32, row));
      }
    };
    packRows(a, 4);
    packRows(bb, 2);
    for (int64_t r = 0; r < 2; ++r)
      for (int64_t e = 0; e < 2; ++e)
        operands.push_back(extract(c, r, e));
    auto resultType = LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
    Value d = LLVM::InlineAsmOp::create(
                  b, loc, resultType, operands,
                  b.getStringAttr("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                                  "{$0,$1,$2,$3}, {$4,$5,$6,$7}, {$8,$9}, {$10,$11,$12,$13};"),
                  b.getStringAttr("=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f"), UnitAttr(), UnitAttr(),
                  LLVM::TailCallKindAttr(), LLVM::AsmDialectAttr(), ArrayAttr())
                  .getResult(0);
    SmallVector<Value> elems;
    for (int64_t i = 0; i < 4; ++i)
      elems.push_back(LLVM::ExtractValueOp::create(b, loc, d, ArrayRef<int64_t>{i}));
    return vector::FromElementsOp::create(b, loc, cast<VectorType>(c.getType()), elems);
  }

  //===--- Hopper wgmma (Wgmma.cpp) -------------------------------------===//

  /// Inline PTX with side effects: the fences, commits and waits of wgmma
  /// must keep their place relative to each other.
  void ptx(StringRef text);
  /// The 32-bit shared-memory address of a workgroup memref's first element,
  /// as i64 (the descriptor arithmetic is 64-bit).
  Value sharedAddress(Value memref);
  /// A wgmma matrix descriptor for a tile in the 128-byte swizzle layout
  /// (PTX ISA "Matrix Descriptor Format"): start address, leading and stride
  /// byte offsets (all >> 4), swizzle mode 1 (128B) in bits 62-63.
  Value wgmmaDescriptor(Value address, int64_t leadingByteOffset, int64_t strideByteOffset);
  /// `desc` advanced by `bytes` (a multiple of 16) in its start address.
  Value advanceDescriptor(Value desc, int64_t bytes);
  Value advanceDescriptor(Value desc, Value bytesI64);
  /// D (m64 x n, f32, n/2 registers per thread) = A·B (+ D when `acc` is
  /// given), A from registers (4 x i32 per thread: the mma.sync A fragment of
  /// the thread's warp's 16 rows) or from shared memory (descA), B from
  /// shared memory (descB), B read MN-major when `transposeB`.
  SmallVector<Value> wgmma(int64_t n, ArrayRef<Value> aRegs, Value descA, Value descB,
                           bool transposeB, ArrayRef<Value> acc);
  /// Registers written by wgmma are only defined after the wait; passing
  /// them through an empty asm statement placed after it keeps LLVM from
  /// reading them earlier (CUTLASS's warpgroup_fence_operand). Before a
  /// wgmma.fence, the same statement pins the operands' producers above it.
  /// f32 or i32 values.
  SmallVector<Value> fenceOperands(ArrayRef<Value> regs);
};

} // namespace attn
} // namespace mlir

#endif // ATTN_LIB_CONVERSION_ATTNTOGPU_KERNELBUILDER_H

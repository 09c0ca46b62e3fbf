//===- Wgmma.cpp - Hopper warpgroup MMA helpers for the attention kernel --===//
//
// wgmma.mma_async (PTX ISA 8.0, sm_90a) multiplies a 64 x n tile by an
// n x 16 slice per instruction, issued by a warpgroup (4 warps, 128 threads)
// and running asynchronously until wgmma.wait_group. Its shared-memory
// operands are read by the async proxy through 64-bit matrix descriptors.
//
// Layout used by the kernel: every tile is cut into "atoms" of 64 columns
// (128 bytes of f16/bf16 per row); in an atom, row r's 16-byte chunk c sits
// at chunk c ^ (r % 8) (the 128-byte swizzle, applied by the hardware on the
// address bits, so atoms are 1024-byte aligned). Then:
//   * K-major operands (Q as A, K as B of Q·Kᵀ: the head dim contiguous):
//     8-row groups are 1024 bytes apart (the stride byte offset); a k-step
//     of 16 elements is +32 bytes of start address inside the atom, and the
//     next atom of the head dim is one atom-column further on.
//   * MN-major B (V of P·V: keys are K, the head dim is N and contiguous):
//     8-key groups 1024 bytes apart (stride byte offset), the 64-wide atoms
//     along N one atom-column apart (leading byte offset), transpose flag 1.
// (CUTLASS's GmmaDescriptor canonical layouts, cute/arch/mma_sm90_desc.hpp.)
//
// The accumulator fragment of m64nNk16 gives warp w of the warpgroup rows
// 16w..16w+15 and, per 8 columns, the four values of an mma.sync m16n8 C
// tile; the A fragment from registers is the mma.sync A fragment. So the
// softmax code of the mma.sync kernel applies unchanged, and P stays in
// registers as the A operand of P·V.
//
//===----------------------------------------------------------------------===//
#include "KernelBuilder.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::attn;

void KernelBuilder::ptx(StringRef text) {
  LLVM::InlineAsmOp::create(b, loc, TypeRange{}, ValueRange{}, b.getStringAttr(text),
                            b.getStringAttr(""), /*has_side_effects=*/b.getUnitAttr(),
                            UnitAttr(), LLVM::TailCallKindAttr(), LLVM::AsmDialectAttr(),
                            ArrayAttr());
}

Value KernelBuilder::sharedAddress(Value memref) {
  Value p = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  return arith::IndexCastUIOp::create(b, loc, b.getI64Type(), p);
}

Value KernelBuilder::wgmmaDescriptor(Value address, int64_t leadingByteOffset,
                                     int64_t strideByteOffset) {
  Type i64 = b.getI64Type();
  auto c = [&](uint64_t v) {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(i64, v)).getResult();
  };
  // Bits 0-13: address >> 4 (shared addresses are below 2^18).
  Value start = arith::ShRUIOp::create(b, loc, arith::AndIOp::create(b, loc, address, c(0x3FFFF)),
                                       c(4));
  uint64_t fixed = (uint64_t((leadingByteOffset >> 4) & 0x3FFF) << 16) |
                   (uint64_t((strideByteOffset >> 4) & 0x3FFF) << 32) | (uint64_t(1) << 62);
  return arith::OrIOp::create(b, loc, start, c(fixed));
}

Value KernelBuilder::advanceDescriptor(Value desc, int64_t bytes) {
  if (bytes == 0)
    return desc;
  Value step = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(bytes >> 4));
  return arith::AddIOp::create(b, loc, desc, step);
}

Value KernelBuilder::advanceDescriptor(Value desc, Value bytesI64) {
  Value step = arith::ShRUIOp::create(
      b, loc, bytesI64, arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(4)));
  return arith::AddIOp::create(b, loc, desc, step);
}

SmallVector<Value> KernelBuilder::wgmma(int64_t n, ArrayRef<Value> aRegs, Value descA,
                                        Value descB, bool transposeB, ArrayRef<Value> acc) {
  const int64_t numOut = n / 2;
  const bool aInRegisters = !aRegs.empty();
  assert(acc.empty() || int64_t(acc.size()) == numOut);
  std::string type = elt.isF16() ? "f16" : "bf16";
  SmallVector<Value> operands;
  std::string constraints;
  for (int64_t i = 0; i < numOut; ++i)
    constraints += i ? ",=f" : "=f";
  std::string dList;
  for (int64_t i = 0; i < numOut; ++i)
    dList += (i ? ", $" : "$") + std::to_string(i);
  int64_t next = numOut;
  auto operand = [&](Value v, StringRef constraint) {
    operands.push_back(v);
    constraints += ("," + constraint).str();
    return "$" + std::to_string(next++);
  };
  std::string aText;
  if (aInRegisters) {
    aText = "{";
    for (size_t i = 0; i < aRegs.size(); ++i)
      aText += (i ? ", " : "") + operand(aRegs[i], "r");
    aText += "}";
  } else {
    aText = operand(descA, "l");
  }
  std::string bText = operand(descB, "l");
  // scale-d is a predicate: 0 on the first k-step (D = A·B), 1 after.
  Value scaleD = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(acc.empty() ? 0 : 1));
  std::string scaleText = operand(scaleD, "r");
  for (int64_t i = 0; i < int64_t(acc.size()); ++i)
    operand(acc[i], std::to_string(i));
  // imm-scale-a, imm-scale-b = 1; imm-trans-a (shared-memory A only) = 0.
  std::string immediates = aInRegisters ? llvm::formatv("1, 1, {0}", transposeB ? 1 : 0).str()
                                        : llvm::formatv("1, 1, 0, {0}", transposeB ? 1 : 0).str();
  std::string text = llvm::formatv("{{\n.reg .pred p;\nsetp.ne.b32 p, {0}, 0;\n"
                                    "wgmma.mma_async.sync.aligned.m64n{1}k16.f32.{2}.{2} "
                                    "{{{3}}, {4}, {5}, p, {6};\n}",
                                    scaleText, n, type, dList, aText, bText, immediates)
                         .str();
  SmallVector<Type> fields(numOut, f32);
  auto resultType = LLVM::LLVMStructType::getLiteral(b.getContext(), fields);
  Value d = LLVM::InlineAsmOp::create(b, loc, resultType, operands, b.getStringAttr(text),
                                      b.getStringAttr(constraints),
                                      /*has_side_effects=*/b.getUnitAttr(), UnitAttr(),
                                      LLVM::TailCallKindAttr(), LLVM::AsmDialectAttr(),
                                      ArrayAttr())
                .getResult(0);
  SmallVector<Value> out;
  for (int64_t i = 0; i < numOut; ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, loc, d, ArrayRef<int64_t>{i}));
  return out;
}

SmallVector<Value> KernelBuilder::fenceOperands(ArrayRef<Value> regs) {
  // f32 values in "f" registers, 32-bit integers (packed pairs) in "r".
  std::string constraints;
  SmallVector<Type> fields;
  for (size_t i = 0; i < regs.size(); ++i) {
    fields.push_back(regs[i].getType());
    constraints += std::string(i ? "," : "") + (regs[i].getType().isF32() ? "=f" : "=r");
  }
  for (size_t i = 0; i < regs.size(); ++i)
    constraints += "," + std::to_string(i);
  auto resultType = LLVM::LLVMStructType::getLiteral(b.getContext(), fields);
  Value d = LLVM::InlineAsmOp::create(b, loc, resultType, regs, b.getStringAttr(""),
                                      b.getStringAttr(constraints),
                                      /*has_side_effects=*/b.getUnitAttr(), UnitAttr(),
                                      LLVM::TailCallKindAttr(), LLVM::AsmDialectAttr(),
                                      ArrayAttr())
                .getResult(0);
  SmallVector<Value> out;
  for (size_t i = 0; i < regs.size(); ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, loc, d, ArrayRef<int64_t>{int64_t(i)}));
  return out;
}

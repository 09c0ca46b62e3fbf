//===- TransposedV.cpp - V tiles rewritten as Vᵀ for 8-bit P·V ------------===//
//
// wgmma reads 8-bit B operands K-major only: there is no transpose flag for
// e4m3/e5m2 (PTX ISA, wgmma.mma_async, "imm-trans-b ... only for .f16 and
// .bf16"). In P·V the K dimension is the keys, but TMA brings V as [keys,
// dv] rows with dv contiguous. So the producer warpgroup, which otherwise
// only issues TMA boxes, rewrites each V stage as Vᵀ: dv rows of the tile's
// keys, 128-key atoms of the 128-byte swizzle, which the P·V descriptors
// read like K's (FlashAttention-3 transposes V in its producer too).
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
// Work: a warp step covers 16 dv columns x one 32-key group: lane (a, b)
// = (lane / 8, lane % 8) loads the 4 keys σ(4b..4b+3) of V's columns
// 4a..4a+3 (four 32-bit loads), transposes the 4 x 4 bytes with byte
// permutes, and stores 4 words of Vᵀ rows 4a..4a+3 at positions 4b..4b+3.
// Both sides touch 16 distinct banks per instruction (two lanes per bank).
//
//===----------------------------------------------------------------------===//
#include "FlashAttentionEmitter.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::attn;

namespace {

/// Byte offsets of the 128-byte swizzle: element byte `col` (< 128) of row
/// `row` of an atom sits at row·128 + ((col / 16) ^ (row % 8))·16 + col % 16.
Value swizzledByte(KernelBuilder &k, Value row, Value col) {
  Value chunk = arith::XOrIOp::create(k.b, k.loc, k.div(col, 16), k.rem(row, 8));
  return k.add(k.add(k.mul(row, 128), k.mul(chunk, 16)), k.rem(col, 16));
}

/// Rows w0..w3 of a 4 x 4 byte block (byte i of wj: row j, column i) as
/// its columns: byte j of result i is byte i of wj. Eight byte permutes.
SmallVector<Value> transpose4x4Bytes(KernelBuilder &k, ArrayRef<Value> w) {
  Type i32 = k.b.getI32Type();
  StringRef text = "{\n.reg .b32 lo01, hi01, lo23, hi23;\n"
                   "prmt.b32 lo01, $4, $5, 0x5140;\n"
                   "prmt.b32 hi01, $4, $5, 0x7362;\n"
                   "prmt.b32 lo23, $6, $7, 0x5140;\n"
                   "prmt.b32 hi23, $6, $7, 0x7362;\n"
                   "prmt.b32 $0, lo01, lo23, 0x5410;\n"
                   "prmt.b32 $1, lo01, lo23, 0x7632;\n"
                   "prmt.b32 $2, hi01, hi23, 0x5410;\n"
                   "prmt.b32 $3, hi01, hi23, 0x7632;\n}";
  auto type = LLVM::LLVMStructType::getLiteral(k.b.getContext(), SmallVector<Type>(4, i32));
  Value out = LLVM::InlineAsmOp::create(k.b, k.loc, type, w, k.b.getStringAttr(text),
                                        k.b.getStringAttr("=r,=r,=r,=r,r,r,r,r"),
                                        /*has_side_effects=*/UnitAttr(), UnitAttr(),
                                        LLVM::TailCallKindAttr(), LLVM::AsmDialectAttr(),
                                        ArrayAttr())
                  .getResult(0);
  SmallVector<Value> columns;
  for (int64_t i = 0; i < 4; ++i)
    columns.push_back(LLVM::ExtractValueOp::create(k.b, k.loc, out, ArrayRef<int64_t>{i}));
  return columns;
}

} // namespace

void mlir::attn::writeTransposedV(KernelContext &c, Value buf, Value producerThread) {
  KernelBuilder &k = c.k;
  OpBuilder &b = k.b;
  Location loc = k.loc;
  Type i32 = b.getI32Type();
  const int64_t vStageBytes = llvm::divideCeil(c.dv, 128) * c.bkv * 128;
  const int64_t vtStageBytes = transposedVBytes(1, c.bkv, c.dv);
  const int64_t columnGroups = c.dv / 16, steps = columnGroups * (c.bkv / 32);
  Value warp = k.div(producerThread, 32), lane = k.rem(producerThread, 32);
  Value a = k.div(lane, 8), bIdx = k.rem(lane, 8);
  Value t = k.rem(bIdx, 4), half = k.div(bIdx, 4);
  Value vStage = k.mul(buf, vStageBytes), vtStage = k.mul(buf, vtStageBytes);
  // A step: the 4 words of its keys σ(4b..4b+3) at V's columns col..col+3,
  // then their transpose into Vᵀ's rows col..col+3.
  auto columnOf = [&](Value step) {
    return k.add(k.mul(k.rem(step, columnGroups), 16), k.mul(a, 4));
  };
  auto groupOf = [&](Value step) { return k.mul(k.div(step, columnGroups), 32); };
  auto loadRows = [&](Value step) {
    Value col = columnOf(step);
    // Keys σ(4b..4b+3) of the group: 16·half + 2t + {0, 1, 8, 9}.
    Value firstKey = k.add(k.add(groupOf(step), k.mul(half, 16)), k.mul(t, 2));
    Value vAtom = k.add(vStage, k.mul(k.div(col, 128), c.bkv * 128));
    SmallVector<Value> rows;
    for (int64_t offset : {0, 1, 8, 9}) {
      Value key = k.add(firstKey, offset);
      Value at = k.add(vAtom, swizzledByte(k, key, k.rem(col, 128)));
      rows.push_back(LLVM::LoadOp::create(b, loc, i32, k.sharedPointer(c.v.vTile, at)));
    }
    return rows;
  };
  auto storeColumns = [&](Value step, ArrayRef<Value> rows) {
    SmallVector<Value> columns = transpose4x4Bytes(k, rows);
    Value col = columnOf(step);
    Value position = k.add(groupOf(step), k.mul(bIdx, 4));
    Value vtAtom = k.add(vtStage, k.mul(k.div(position, 128), c.dv * 128));
    for (int64_t j = 0; j < 4; ++j) {
      Value row = k.add(col, j);
      Value at = k.add(vtAtom, swizzledByte(k, row, k.rem(position, 128)));
      LLVM::StoreOp::create(b, loc, columns[j], k.sharedPointer(c.v.vtTile, at));
    }
  };
  // Two steps per iteration where the warps' steps pair up: both steps'
  // loads are in flight before the first's stores (the loads cannot move
  // past the stores by themselves: ptxas cannot tell V and Vᵀ apart). A
  // loop, not unrolled further: the producer keeps 40 registers.
  const int64_t producerWarps = kProducerThreads / 32;
  const int64_t perIteration = steps % (2 * producerWarps) == 0 ? 2 : 1;
  auto loop = scf::ForOp::create(b, loc, warp, k.idx(steps),
                                 k.idx(perIteration * producerWarps));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value step = loop.getInductionVar();
  if (perIteration == 1) {
    storeColumns(step, loadRows(step));
    return;
  }
  Value second = k.add(step, producerWarps);
  SmallVector<Value> first = loadRows(step), next = loadRows(second);
  storeColumns(step, first);
  storeColumns(second, next);
}

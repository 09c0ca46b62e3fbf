//===- WgmmaFamily.cpp - Hopper wgmma.mma_async tensor-core family -------===//
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
// 8-bit inputs (e4m3, e5m2): an atom is 128 one-byte columns and a k-step
// 32 elements, so the descriptor arithmetic, in bytes, is the same for
// Q·Kᵀ. P·V differs: 8-bit B operands are read K-major only, so B is Vᵀ,
// which a pre-kernel writes with each 32-key group permuted
// (VTransposeKernel.cpp), and P's A fragment for 32 keys is the lane's own four
// probabilities per register, rounded to e4m3 (pvStepOperand).
//
// One file, past 600 lines: the family's descriptors, its two GEMMs and
// their inline PTX all follow the one layout above, and splitting them
// would put that layout in two places.
//
//===----------------------------------------------------------------------===//
#include "FlashAttentionEmitter.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::attn;

namespace {

/// Bytes of one row of a 64-column atom, and of its 8-row swizzle group.
constexpr int64_t atomRowBytes = 128, groupBytes = 8 * atomRowBytes;

class WgmmaFamily final : public TensorCoreFamily {
public:
  explicit WgmmaFamily(KernelContext &c) : TensorCoreFamily(c), b(c.k.b), loc(c.k.loc) {}

  /// Tiles as [stage, col / 64, row, col % 64]: 64-column atoms, 128-byte
  /// swizzle; a head dim that is no multiple of 64 leaves the last atom's
  /// columns past it unused (no k-step reads them).
  MemRefType tileType(std::optional<int64_t> numStages, int64_t rows,
                      int64_t cols) const override {
    return atomTileType(numStages, rows, cols);
  }

  SmallVector<Value> tileAt(Value buf, Value r, Value col) override {
    return atomTileAt(buf, r, col);
  }

  void prepareOperands() override;
  void beforeStageBarrier() override;
  void issueScores(Value buf, SmallVectorImpl<Value> &acc) override;
  SmallVector<Value> scoresBlock(int64_t nb, Value buf) override {
    return SmallVector<Value>(c.mt, scores[nb]);
  }
  /// Only at d = 128 (218 -> 210 registers): at d = 64 the reordering costs
  /// two registers over 128 and with them the second CTA per SM.
  bool keepsRawScores() const override { return c.dv > 64; }
  void accumulatePV(const ScoreTile &p, Value buf, SmallVectorImpl<Value> &acc) override;
  std::pair<SmallVector<Value>, SmallVector<Value>> zeroState(int64_t tiles,
                                                              int64_t packedP) override;
  void retireAccumulators(SmallVectorImpl<Value> &acc) override;
  SmallVector<Value> packP(const ScoreTile &p) override;
  void issueScoresThenPV(Value buf, ArrayRef<Value> prevP, Value prevBuf,
                         SmallVectorImpl<Value> &acc) override;
  void waitPV(SmallVectorImpl<Value> &acc) override;
  void startIssueTurns() override;
  void accumulatePackedPV(ArrayRef<Value> packed, Value buf,
                          SmallVectorImpl<Value> &acc) override;

private:
  /// wgmma.fence, then S = Q·Kᵀ of stage `buf` (⌈d/16⌉ k-steps chained
  /// through the accumulator struct), committed as a group; its registers
  /// in pendingScores.
  void issueScoreGEMM(Value buf);
  /// pendingScores, once waited for, pinned after the wait, as C tiles.
  void takeScores();
  /// O (flat) += P · V(stage `buf`), P packed (4 x i32 per 16 keys), after
  /// the caller's wgmma.fence; committed, not waited for.
  SmallVector<Value> issuePackedPVGEMM(ArrayRef<Value> packed, Value buf,
                                       ArrayRef<Value> flat);
  /// The named barrier on which warpgroup `wg` (0 or 1, an i32) waits for
  /// its turn to issue: 2 + wg (0 is the CTA's, 1 the computing warps').
  Value turnBarrier(Value wg);
  /// This warpgroup (i32) and the other one.
  Value warpgroup();
  Value otherWarpgroup();
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
  /// Q's descriptor at k-step 0 as this tile's Q·Kᵀ reads it: descQ, or a
  /// copy rebuilt in the loop (rebuildsQDescriptorsInLoop).
  Value loopQDescriptor();
  /// Byte offset (i64) of stage `buf` of a staged tile of `cols` columns.
  Value stageBytes(Value buf, int64_t cols);
  /// D (m64 x n, f32, n/2 registers per thread) += P·V for one k-step of
  /// P·V (D = A·B when `acc` is empty), A from registers (4 x i32 per
  /// thread: pvStepOperand), B from shared memory (descB): V read MN-major,
  /// or Vᵀ K-major for 8-bit V. Inline PTX: upstream's
  /// nvvm.wgmma.mma_async takes A only by descriptor.
  SmallVector<Value> wgmmaRegisterA(int64_t n, ArrayRef<Value> aRegs, Value descB,
                                    ArrayRef<Value> acc);
  /// Keys per k-step of P·V: 16, or 32 for 8-bit V.
  int64_t pvKeysPerStep() const { return s.transposesV() ? 32 : 16; }
  /// The A registers of P·V's k-step `kk` from P (f32): the lane's C tiles
  /// of those keys, rounded to V's type (2-byte) or to e4m3 (8-bit).
  SmallVector<Value> pvStepOperand(const ScoreTile &p, int64_t kk);
  /// Four f32 values as e4m3 bytes 0-3 of one register (saturating).
  Value packE4M3x4(Value x0, Value x1, Value x2, Value x3);
  /// The descriptor of P·V's B operand at stage `buf`, and at its k-step
  /// `kk` from a stage's descriptor.
  Value stageV(Value buf);
  Value pvStepDescriptor(Value stageDesc, int64_t kk);
  /// wgmma's name for an input type.
  NVVM::WGMMATypes wgmmaType(Type t) const;
  /// Registers written by wgmma are only defined after the wait; passing
  /// them through an empty asm statement placed after it keeps LLVM from
  /// reading them earlier (CUTLASS's warpgroup_fence_operand). Before a
  /// wgmma.fence, the same statement pins the operands' producers above it.
  /// f32 or i32 values. An llvm.inline_asm, not nvvm.inline_ptx: it is no
  /// PTX instruction but a compiler fence on registers, whose outputs are
  /// tied to its inputs, and nvvm.inline_ptx returns no new values for its
  /// read-write operands.
  SmallVector<Value> fenceOperands(ArrayRef<Value> regs);
  /// The registers (`types`) an llvm.inline_asm of `text` defines.
  SmallVector<Value> asmRegisters(ArrayRef<Type> types, ValueRange inputs, StringRef text,
                                  StringRef constraints, bool hasSideEffects);
  /// C tiles <-> the flat register list of a wgmma accumulator (4 values
  /// per 8 columns, in C-fragment order).
  SmallVector<Value> flatten(ArrayRef<Value> tiles);
  SmallVector<Value> unflatten(ArrayRef<Value> flat);
  /// The O accumulators passed through fenceOperands after a wgmma wait, so
  /// that nothing reads them before it.
  SmallVector<Value> fenceAccumulators(ArrayRef<Value> tiles) {
    return unflatten(fenceOperands(flatten(tiles)));
  }

  OpBuilder &b;
  Location loc;
  /// Descriptors of the staged tiles at stage 0 and k-step 0.
  Value descQ, descK0, descV0;
  /// Per tile: S as C tiles (one per 8 keys), and V's descriptor.
  SmallVector<Value> scores;
  Value descV;
  /// S as extracted from the wgmma struct, not yet waited for.
  SmallVector<Value> pendingScores;
};

} // namespace

void WgmmaFamily::prepareOperands() {
  // Q rows of this warpgroup (64 per warpgroup: warp w owns rows 16w.., as
  // with mma.sync), K read K-major, V MN-major (its 64-column atoms bkv rows
  // apart). The stage and k-step are added per use.
  const KernelValues &v = c.v;
  Value wgRows = k.mul(k.div(v.warp, 4), 64 * atomRowBytes);
  Value qAddr = arith::AddIOp::create(
      b, loc, sharedAddress(v.qTile),
      arith::IndexCastUIOp::create(b, loc, b.getI64Type(), wgRows));
  descQ = wgmmaDescriptor(qAddr, 16, groupBytes);
  descK0 = wgmmaDescriptor(sharedAddress(v.kTile), 16, groupBytes);
  // 8-bit: P·V's B is Vᵀ, K-major like K (dv rows of 128 key bytes).
  descV0 = s.transposesV()
               ? wgmmaDescriptor(sharedAddress(v.vtTile), 16, groupBytes)
               : wgmmaDescriptor(sharedAddress(v.vTile), c.bkv * atomRowBytes, groupBytes);
}

Value WgmmaFamily::stageV(Value buf) {
  if (!s.transposesV())
    return advanceDescriptor(descV0, stageBytes(buf, c.dv));
  int64_t stage = transposedVBytes(1, c.bkv, c.dv);
  return advanceDescriptor(
      descV0, arith::IndexCastUIOp::create(b, loc, b.getI64Type(), k.mul(buf, stage)).getResult());
}

Value WgmmaFamily::pvStepDescriptor(Value stageDesc, int64_t kk) {
  // 2-byte V, MN-major: 16 keys are 16 rows of 128 bytes. Vᵀ: 32 keys are
  // 32 bytes of each row, four steps per 128-key atom of dv rows.
  if (!s.transposesV())
    return advanceDescriptor(stageDesc, kk * 16 * atomRowBytes);
  return advanceDescriptor(stageDesc, (kk / 4) * c.dv * atomRowBytes + (kk % 4) * 32);
}

NVVM::WGMMATypes WgmmaFamily::wgmmaType(Type t) const {
  if (t.isF16())
    return NVVM::WGMMATypes::f16;
  if (t.isBF16())
    return NVVM::WGMMATypes::bf16;
  return isa<Float8E5M2Type>(t) ? NVVM::WGMMATypes::e5m2 : NVVM::WGMMATypes::e4m3;
}

void WgmmaFamily::beforeStageBarrier() {
  // wgmma reads shared memory through the async proxy: make this thread's
  // cp.async and st.shared writes visible to it before the barrier.
  NVVM::FenceProxyOp::create(
      b, loc, NVVM::ProxyKindAttr::get(b.getContext(), NVVM::ProxyKind::async_shared),
      NVVM::SharedSpaceAttr::get(b.getContext(), NVVM::SharedSpace::shared_cta));
}

Value WgmmaFamily::stageBytes(Value buf, int64_t cols) {
  return arith::IndexCastUIOp::create(b, loc, b.getI64Type(),
                                      k.mul(buf, c.bkv * s.smemPitch(cols) * s.elementBytes()))
      .getResult();
}

void WgmmaFamily::issueScores(Value buf, SmallVectorImpl<Value> &acc) {
  // S for the warpgroup's 64 rows and all bkv keys, ⌈d/16⌉ k-steps
  // accumulated in the tensor cores, then waited for; the same C fragments
  // as mma.sync's, per 8 keys.
  issueScoreGEMM(buf);
  // Also retires the previous tile's P·V when its wait was deferred.
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  takeScores();
  if (s.deferPVWait) {
    SmallVector<Value> fenced = fenceAccumulators(acc);
    acc.assign(fenced.begin(), fenced.end());
  }
  // The V descriptor of this stage, for P·V.
  descV = stageV(buf);
}

Value WgmmaFamily::loopQDescriptor() {
  if (!rebuildsQDescriptorsInLoop(c.kSteps))
    return descQ;
  // Only the low word varies (bits 0-13, the address; rebuildsQDescriptors-
  // InLoop says why): pass it through an empty asm with side effects, which
  // LLVM keeps in the loop, and put the constant high word back.
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Value low = arith::TruncIOp::create(b, loc, i32, descQ);
  low = asmRegisters({i32}, {low}, "", "=r,0", /*hasSideEffects=*/true)[0];
  Value high = arith::AndIOp::create(
      b, loc, descQ, arith::ConstantOp::create(b, loc, b.getIntegerAttr(i64, ~0xFFFFFFFFull)));
  return arith::OrIOp::create(b, loc, arith::ExtUIOp::create(b, loc, i64, low), high);
}

void WgmmaFamily::issueScoreGEMM(Value buf) {
  Value descK = advanceDescriptor(descK0, stageBytes(buf, c.d));
  Value qBase = loopQDescriptor();
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  // Both operands by descriptor: upstream's nvvm.wgmma.mma_async. The
  // accumulator struct is chained through the k-steps; the first ignores
  // its (undefined) input, scale-d = 0.
  auto accType =
      LLVM::LLVMStructType::getLiteral(b.getContext(), SmallVector<Type>(c.bkv / 2, c.f32));
  Value sStruct = LLVM::UndefOp::create(b, loc, accType);
  MLIRContext *ctx = b.getContext();
  auto inType = NVVM::WGMMATypesAttr::get(ctx, wgmmaType(c.T));
  auto one = NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one);
  // A k-step is 32 bytes of the head dim (16 or 32 elements): four per
  // 128-byte atom.
  const int64_t kElems = 32 / s.elementBytes();
  for (int64_t ks = 0; ks < c.kSteps; ++ks) {
    int64_t atom = ks / 4, within = (ks % 4) * 32;
    Value descA = advanceDescriptor(qBase, atom * c.bq * atomRowBytes + within);
    Value descB = advanceDescriptor(descK, atom * c.bkv * atomRowBytes + within);
    sStruct = NVVM::WgmmaMmaAsyncOp::create(
        b, loc, accType, sStruct, descA, descB,
        NVVM::MMAShapeAttr::get(ctx, 64, c.bkv, kElems), inType, inType,
        NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32),
        NVVM::WGMMAScaleOutAttr::get(ctx, ks ? NVVM::WGMMAScaleOut::one
                                              : NVVM::WGMMAScaleOut::zero),
        one, one, NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::row),
        NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::col), NVVM::MMAIntOverflowAttr());
  }
  SmallVector<Value> sAcc;
  for (int64_t i = 0; i < c.bkv / 2; ++i)
    sAcc.push_back(LLVM::ExtractValueOp::create(b, loc, sStruct, ArrayRef<int64_t>{i}));
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  pendingScores = sAcc;
}

void WgmmaFamily::takeScores() {
  scores = unflatten(fenceOperands(pendingScores));
}

SmallVector<Value> WgmmaFamily::packP(const ScoreTile &p) {
  SmallVector<Value> packed;
  for (int64_t kk = 0; kk < c.bkv / pvKeysPerStep(); ++kk)
    llvm::append_range(packed, pvStepOperand(p, kk));
  return packed;
}

SmallVector<Value> WgmmaFamily::pvStepOperand(const ScoreTile &p, int64_t kk) {
  SmallVector<Value> aRegs;
  if (!s.transposesV()) {
    // 16 keys: the C tiles of keys 16kk.. and 16kk + 8.. are the A fragment.
    Type i32 = b.getI32Type();
    const auto &lo = p[0][2 * kk], &hi = p[0][2 * kk + 1];
    for (auto [x0, x1] : {std::pair{lo[0][0], lo[0][1]}, std::pair{lo[1][0], lo[1][1]},
                          std::pair{hi[0][0], hi[0][1]}, std::pair{hi[1][0], hi[1][1]}})
      aRegs.push_back(LLVM::BitcastOp::create(b, loc, i32, k.toPair(x0, x1)));
    return aRegs;
  }
  // 32 keys, as e4m3: register j of the A fragment holds row g + 8(j % 2)
  // at positions 16(j / 2) + 4t .. + 3, and Vᵀ keeps key 2t, 2t + 1,
  // 8 + 2t, 9 + 2t (+ 16) there (TmaProducer.cpp): the lane's own
  // probabilities of the C tiles of keys 32kk + 8nb.., no shuffle.
  for (int j = 0; j < 4; ++j) {
    int r = j % 2;
    const auto &first = p[0][4 * kk + 2 * (j / 2)], &second = p[0][4 * kk + 2 * (j / 2) + 1];
    aRegs.push_back(packE4M3x4(first[r][0], first[r][1], second[r][0], second[r][1]));
  }
  return aRegs;
}

Value WgmmaFamily::packE4M3x4(Value x0, Value x1, Value x2, Value x3) {
  // cvt ...e4m3x2.f32 d, a, b puts a in d's upper byte; x0 is byte 0. Inline
  // PTX: the saturating pair conversion has no arith spelling.
  Type i32 = b.getI32Type();
  StringRef text = "{\n.reg .b16 lo, hi;\n"
                   "cvt.rn.satfinite.e4m3x2.f32 lo, $2, $1;\n"
                   "cvt.rn.satfinite.e4m3x2.f32 hi, $4, $3;\n"
                   "mov.b32 $0, {lo, hi};\n}";
  return LLVM::InlineAsmOp::create(b, loc, i32, ValueRange{x0, x1, x2, x3},
                                   b.getStringAttr(text), b.getStringAttr("=r,f,f,f,f"),
                                   /*has_side_effects=*/UnitAttr(), UnitAttr(),
                                   LLVM::TailCallKindAttr(), LLVM::AsmDialectAttr(), ArrayAttr())
      .getResult(0);
}

SmallVector<Value> WgmmaFamily::issuePackedPVGEMM(ArrayRef<Value> packed, Value buf,
                                                  ArrayRef<Value> flat) {
  Value stageDesc = stageV(buf);
  SmallVector<Value> out(flat);
  for (int64_t kk = 0; kk < c.bkv / pvKeysPerStep(); ++kk)
    out = wgmmaRegisterA(c.dv, packed.slice(4 * kk, 4), pvStepDescriptor(stageDesc, kk), out);
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  return out;
}

Value WgmmaFamily::warpgroup() {
  return k.toI32(k.div(c.v.warp, 4));
}

Value WgmmaFamily::otherWarpgroup() {
  return arith::XOrIOp::create(b, loc, warpgroup(),
                               arith::ConstantIntOp::create(b, loc, 1, 32));
}

Value WgmmaFamily::turnBarrier(Value wg) {
  return arith::AddIOp::create(b, loc, wg, arith::ConstantIntOp::create(b, loc, 2, 32));
}

void WgmmaFamily::startIssueTurns() {
  // Warpgroup 1 arrives on warpgroup 0's turn barrier once, so that 0
  // issues first; from then on each hands the other its turn after issuing.
  Value second = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, warpgroup(),
                                       arith::ConstantIntOp::create(b, loc, 1, 32));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(scf::IfOp::create(b, loc, second, false).thenBlock());
  NVVM::BarrierArriveOp::create(b, loc, turnBarrier(otherWarpgroup()),
                                arith::ConstantIntOp::create(b, loc, c.threads, 32));
}

void WgmmaFamily::issueScoresThenPV(Value buf, ArrayRef<Value> prevP, Value prevBuf,
                                    SmallVectorImpl<Value> &acc) {
  // O (rescaled by the previous iteration) and the previous P complete
  // before the fence; S is the first group, P·V the second, and waiting
  // for all but one group waits for S alone. The two warpgroups take turns
  // to issue (FlashAttention-3's ping-pong): while one issues its GEMMs the
  // other runs its softmax, which the tensor cores then do not wait for.
  // A work item's first tile (no prevP) issues S alone and waits for it.
  const bool withPV = !prevP.empty();
  Value threads = arith::ConstantIntOp::create(b, loc, c.threads, 32);
  SmallVector<Value> pinned;
  if (withPV) {
    pinned = flatten(acc);
    pinned.append(prevP.begin(), prevP.end());
    pinned = fenceOperands(pinned);
  }
  NVVM::BarrierOp::create(b, loc, Type(), turnBarrier(warpgroup()), threads,
                          NVVM::BarrierReductionAttr(), Value());
  issueScoreGEMM(buf);
  SmallVector<Value> out;
  if (withPV)
    out = issuePackedPVGEMM(ArrayRef<Value>(pinned).drop_front(acc.size() * 4), prevBuf,
                            ArrayRef<Value>(pinned).take_front(acc.size() * 4));
  NVVM::BarrierArriveOp::create(b, loc, turnBarrier(otherWarpgroup()), threads);
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, withPV ? 1 : 0);
  takeScores();
  if (withPV) {
    SmallVector<Value> tiles = unflatten(out);
    acc.assign(tiles.begin(), tiles.end());
  }
}

void WgmmaFamily::waitPV(SmallVectorImpl<Value> &acc) {
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  SmallVector<Value> fenced = fenceAccumulators(acc);
  acc.assign(fenced.begin(), fenced.end());
}

void WgmmaFamily::accumulatePackedPV(ArrayRef<Value> packed, Value buf,
                                     SmallVectorImpl<Value> &acc) {
  SmallVector<Value> pinned(flatten(acc));
  pinned.append(packed.begin(), packed.end());
  pinned = fenceOperands(pinned);
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  SmallVector<Value> out =
      issuePackedPVGEMM(ArrayRef<Value>(pinned).drop_front(acc.size() * 4), buf,
                        ArrayRef<Value>(pinned).take_front(acc.size() * 4));
  SmallVector<Value> tiles = unflatten(out);
  acc.assign(tiles.begin(), tiles.end());
  waitPV(acc);
}

void WgmmaFamily::accumulatePV(const ScoreTile &p, Value buf, SmallVectorImpl<Value> &acc) {
  // O (64 x dv per warpgroup) += P (registers) · V (shared, read MN-major),
  // one instruction per 16 keys, waited for before the barrier that frees
  // the stage (or, with deferPVWait, after the next tile's S).
  // The rescaled accumulators are complete before wgmma.fence. P is
  // converted per k-step, between the wgmma's (ptxas then inserts a
  // warpgroup.arrive before each, note C7519); converting and pinning
  // all of P first was measured 3-5% slower at d = 128 and costs the
  // second CTA per SM at d = 64 (bench/NOTES.md, v11).
  SmallVector<Value> flat = fenceOperands(flatten(acc));
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  for (int64_t kk = 0; kk < c.bkv / pvKeysPerStep(); ++kk) {
    // (P's registers first, then the descriptor: the order they are built in.)
    SmallVector<Value> aRegs = pvStepOperand(p, kk);
    flat = wgmmaRegisterA(c.dv, aRegs, pvStepDescriptor(descV, kk), flat);
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  if (!s.deferPVWait) {
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
    flat = fenceOperands(flat);
  }
  SmallVector<Value> tiles = unflatten(flat);
  acc.assign(tiles.begin(), tiles.end());
}

std::pair<SmallVector<Value>, SmallVector<Value>> WgmmaFamily::zeroState(int64_t tiles,
                                                                         int64_t packedP) {
  // Each zero defined by its own mov (an asm block of them): from one
  // zero constant, LLVM copies a single register into every accumulator
  // and P register, and where a kernel's K/V loop folds away (one tile)
  // ptxas then cannot keep the wgmma accumulators apart and serializes
  // every wgmma (C7511; bench/NOTES.md v44d).
  SmallVector<Type> types(4 * tiles, c.f32);
  types.append(packedP, b.getI32Type());
  std::string text, constraints;
  for (size_t i = 0; i < types.size(); ++i) {
    text += "mov.b32 $" + std::to_string(i) + ", 0;\n";
    constraints += std::string(i ? "," : "") + (types[i] == c.f32 ? "=f" : "=r");
  }
  SmallVector<Value> regs =
      asmRegisters(types, ValueRange{}, text, constraints, /*hasSideEffects=*/false);
  SmallVector<Value> acc = unflatten(ArrayRef<Value>(regs).take_front(4 * tiles));
  return {acc, SmallVector<Value>(ArrayRef<Value>(regs).drop_front(4 * tiles))};
}

void WgmmaFamily::retireAccumulators(SmallVectorImpl<Value> &acc) {
  if (!s.deferPVWait)
    return;
  // The last tile's P·V is still in flight.
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  SmallVector<Value> fenced = fenceAccumulators(acc);
  acc.assign(fenced.begin(), fenced.end());
}

SmallVector<Value> WgmmaFamily::flatten(ArrayRef<Value> tiles) {
  SmallVector<Value> flat;
  for (Value tile : tiles)
    for (int r = 0; r < 2; ++r)
      for (int e = 0; e < 2; ++e)
        flat.push_back(k.extract(tile, r, e));
  return flat;
}

SmallVector<Value> WgmmaFamily::unflatten(ArrayRef<Value> flat) {
  SmallVector<Value> tiles;
  for (size_t i = 0; i < flat.size(); i += 4)
    tiles.push_back(vector::FromElementsOp::create(b, loc, c.cType, flat.slice(i, 4)));
  return tiles;
}

Value WgmmaFamily::sharedAddress(Value memref) {
  Value p = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  return arith::IndexCastUIOp::create(b, loc, b.getI64Type(), p);
}

Value WgmmaFamily::wgmmaDescriptor(Value address, int64_t leadingByteOffset,
                                     int64_t strideByteOffset) {
  Type i64 = b.getI64Type();
  auto cst = [&](uint64_t v) {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(i64, v)).getResult();
  };
  // Bits 0-13: address >> 4 (shared addresses are below 2^18).
  Value start = arith::ShRUIOp::create(b, loc, arith::AndIOp::create(b, loc, address, cst(0x3FFFF)),
                                       cst(4));
  uint64_t fixed = (uint64_t((leadingByteOffset >> 4) & 0x3FFF) << 16) |
                   (uint64_t((strideByteOffset >> 4) & 0x3FFF) << 32) | (uint64_t(1) << 62);
  return arith::OrIOp::create(b, loc, start, cst(fixed));
}

Value WgmmaFamily::advanceDescriptor(Value desc, int64_t bytes) {
  if (bytes == 0)
    return desc;
  Value step = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(bytes >> 4));
  return arith::AddIOp::create(b, loc, desc, step);
}

Value WgmmaFamily::advanceDescriptor(Value desc, Value bytesI64) {
  Value step = arith::ShRUIOp::create(
      b, loc, bytesI64, arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(4)));
  return arith::AddIOp::create(b, loc, desc, step);
}

SmallVector<Value> WgmmaFamily::wgmmaRegisterA(int64_t n, ArrayRef<Value> aRegs, Value descB,
                                               ArrayRef<Value> acc) {
  const int64_t numOut = n / 2;
  assert(acc.empty() || int64_t(acc.size()) == numOut);
  // P (A) in V's type, or, for 8-bit V, in e4m3 (three mantissa bits where
  // e5m2 has two; P is in [0, 1]); B read MN-major (2-byte V) or K-major (Vᵀ).
  NVVM::WGMMATypes bType = wgmmaType(c.T);
  NVVM::WGMMATypes aType = s.transposesV() ? NVVM::WGMMATypes::e4m3 : bType;
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
  std::string aText = "{";
  for (size_t i = 0; i < aRegs.size(); ++i)
    aText += (i ? ", " : "") + operand(aRegs[i], "r");
  aText += "}";
  std::string bText = operand(descB, "l");
  // scale-d is a predicate: 0 on the first k-step (D = A·B), 1 after.
  Value scaleD = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(acc.empty() ? 0 : 1));
  std::string scaleText = operand(scaleD, "r");
  for (int64_t i = 0; i < int64_t(acc.size()); ++i)
    operand(acc[i], std::to_string(i));
  // imm-scale-a, imm-scale-b = 1 (a register A has no transpose flag), and
  // B's transpose flag, which 8-bit types do not take (K-major only).
  std::string immediates = s.transposesV() ? "1, 1" : "1, 1, 1";
  std::string text =
      llvm::formatv("{{\n.reg .pred p;\nsetp.ne.b32 p, {0}, 0;\n"
                    "wgmma.mma_async.sync.aligned.m64n{1}k{2}.f32.{3}.{4} "
                    "{{{5}}, {6}, {7}, p, {8};\n}",
                    scaleText, n, pvKeysPerStep(), NVVM::stringifyWGMMATypes(aType),
                    NVVM::stringifyWGMMATypes(bType), dList, aText, bText, immediates)
          .str();
  SmallVector<Type> fields(numOut, c.f32);
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

SmallVector<Value> WgmmaFamily::fenceOperands(ArrayRef<Value> regs) {
  // f32 values in "f" registers, 32-bit integers (packed pairs) in "r".
  std::string constraints;
  SmallVector<Type> fields;
  for (size_t i = 0; i < regs.size(); ++i) {
    fields.push_back(regs[i].getType());
    constraints += std::string(i ? "," : "") + (regs[i].getType().isF32() ? "=f" : "=r");
  }
  for (size_t i = 0; i < regs.size(); ++i)
    constraints += "," + std::to_string(i);
  return asmRegisters(fields, regs, "", constraints, /*hasSideEffects=*/true);
}

SmallVector<Value> WgmmaFamily::asmRegisters(ArrayRef<Type> types, ValueRange inputs,
                                             StringRef text, StringRef constraints,
                                             bool hasSideEffects) {
  auto resultType = LLVM::LLVMStructType::getLiteral(b.getContext(), types);
  Value all = LLVM::InlineAsmOp::create(b, loc, resultType, inputs, b.getStringAttr(text),
                                        b.getStringAttr(constraints),
                                        hasSideEffects ? b.getUnitAttr() : UnitAttr(), UnitAttr(),
                                        LLVM::TailCallKindAttr(), LLVM::AsmDialectAttr(),
                                        ArrayAttr())
                  .getResult(0);
  SmallVector<Value> out;
  for (size_t i = 0; i < types.size(); ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, loc, all, ArrayRef<int64_t>{int64_t(i)}));
  return out;
}

std::unique_ptr<TensorCoreFamily> mlir::attn::createWgmmaFamily(KernelContext &c) {
  return std::make_unique<WgmmaFamily>(c);
}

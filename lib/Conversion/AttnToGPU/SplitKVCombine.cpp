//===- SplitKVCombine.cpp - split-KV's combine kernel ---------------------===//
//
// Flash-decoding's second step. Split s of a query row's keys left its
// normalized partial output O_s, the max m_s of its scores (in the exp2
// domain of the attention kernel) and their sum ℓ_s = Σ 2^(x − m_s). With
// M = max_s m_s, the exact softmax over all keys is
//
//   O = Σ_s w_s · O_s / Σ_s w_s,   w_s = ℓ_s · 2^(m_s − M),
//
// since w_s · 2^M is split s's share of the softmax denominator. A split
// that saw only masked keys has ℓ_s = 0 (m_s = −inf), weight 0; a row that
// no split saw (every key masked) gets 0, as the unsplit kernel gives it.
//
// Why m and ℓ apart, not one log2-sum-exp m + log2 ℓ: a row of finite
// fills (finfo.min, clamped at −FLT_MAX in the exp2 domain) has
// m = −FLT_MAX, where adding log2 ℓ rounds back to m, and splits holding
// unequal numbers of keys would weigh the same (bench/NOTES.md v65b).
//
// One CTA per (batch, query head, query row), one thread per output
// column: the partial outputs are read once, coalesced along the columns;
// the S (m, ℓ) pairs of the row are read by every thread (one cached line).
//
//===----------------------------------------------------------------------===//
#include "KernelBuilder.h"
#include "attn/Analysis/KernelConfig.h"
#include "attn/Conversion/AttnToGPU/AttnToGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <limits>

using namespace mlir;
using namespace mlir::attn;

gpu::GPUFuncOp mlir::attn::buildSplitKVCombineKernel(OpBuilder &b, Location loc,
                                                     gpu::GPUModuleOp module,
                                                     const FlashKernelSpec &s) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  Type f32 = b.getF32Type();
  KernelBuilder k{b, loc, s.elementType, f32};
  auto partialType = MemRefType::get({s.kvSplits, s.batch, s.headsQ, s.seqQ, s.headDimV}, f32);
  auto statsType =
      MemRefType::get({s.kvSplits, s.batch, s.headsQ, s.seqQ, kSplitRowStatWords}, f32);
  auto outType = MemRefType::get({s.batch, s.headsQ, s.seqQ, s.headDimV}, s.elementType);
  auto func = gpu::GPUFuncOp::create(b, loc, s.combineName(),
                                     b.getFunctionType({partialType, statsType, outType}, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({int32_t(s.headDimV), 1, 1}));
  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  Value partial = entry.getArgument(0), stats = entry.getArgument(1), out = entry.getArgument(2);

  // blockIdx.x = (batch · Hq + head) · Lq + query.
  Value id = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value col = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value query = k.rem(id, s.seqQ);
  Value head = k.rem(k.div(id, s.seqQ), s.headsQ);
  Value batch = k.div(id, s.seqQ * s.headsQ);
  auto statOf = [&](Value split, int64_t field) {
    return memref::LoadOp::create(b, loc, stats, ValueRange{split, batch, head, query, k.idx(field)})
        .getResult();
  };
  auto maxOf = [&](Value split) { return statOf(split, 0); };
  auto sumOf = [&](Value split) { return statOf(split, 1); };
  const double negInf = -std::numeric_limits<double>::infinity();
  Value zero = k.idx(0), one = k.idx(1), splits = k.idx(s.kvSplits);

  auto maxLoop = scf::ForOp::create(b, loc, zero, splits, one, ValueRange{k.f(negInf)});
  {
    OpBuilder::InsertionGuard body(b);
    b.setInsertionPointToStart(maxLoop.getBody());
    Value m = k.fmax(maxLoop.getRegionIterArgs()[0], maxOf(maxLoop.getInductionVar()));
    scf::YieldOp::create(b, loc, m);
  }
  // Every split masked: M = −inf; weights against 0 (all of them 0, and
  // no −inf − (−inf)), output 0.
  Value maxOfSplits = maxLoop.getResult(0);
  Value allMasked =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, maxOfSplits, k.f(negInf));
  Value pivot = arith::SelectOp::create(b, loc, allMasked, k.f(0.0), maxOfSplits);

  auto sumLoop = scf::ForOp::create(b, loc, zero, splits, one, ValueRange{k.f(0.0), k.f(0.0)});
  {
    OpBuilder::InsertionGuard body(b);
    b.setInsertionPointToStart(sumLoop.getBody());
    Value split = sumLoop.getInductionVar();
    // (Sequenced: the ops' order must not hang on argument evaluation.)
    Value splitMax = maxOf(split);
    Value splitSum = sumOf(split);
    Value weight = k.fmul(splitSum, k.exp2(k.fsub(splitMax, pivot)));
    Value o = memref::LoadOp::create(b, loc, partial, ValueRange{split, batch, head, query, col});
    Value num = k.fadd(sumLoop.getRegionIterArgs()[0], k.fmul(weight, o));
    Value den = k.fadd(sumLoop.getRegionIterArgs()[1], weight);
    scf::YieldOp::create(b, loc, ValueRange{num, den});
  }
  Value num = sumLoop.getResult(0), den = sumLoop.getResult(1);
  Value isZero = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, den, k.f(0.0));
  Value result = arith::SelectOp::create(b, loc, isZero, k.f(0.0),
                                         arith::DivFOp::create(b, loc, num, den));
  Value rounded = arith::TruncFOp::create(b, loc, s.elementType, result);
  memref::StoreOp::create(b, loc, rounded, out, ValueRange{batch, head, query, col});
  gpu::ReturnOp::create(b, loc);
  return func;
}

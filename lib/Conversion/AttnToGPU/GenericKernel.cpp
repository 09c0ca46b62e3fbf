//===- GenericKernel.cpp - attention on CUDA cores, for any shape ---------===//
//
// The fallback kernel: what the tensor-core kernels do not take (f32
// inputs, 8-bit float inputs where no FP8 tensor-core kernel runs, head
// dims that are not multiples of 8 or above 256, an additive mask wider
// than the inputs) still runs fused on the GPU, exactly, with f32
// arithmetic on the CUDA cores instead of an error or the host. (8-bit
// floats are extended to f32 exactly; FP8's descale factors multiply the
// score scale and the output.)
//
// Four warps per CTA, each with a few query rows (4 up to head dims of 128,
// 2 up to 256, else 1: each K/V row it loads serves all of them, and their
// dependency chains interleave). Lane l holds the Q elements l, l + 32, ...
// of each row and the output columns l, l + 32, ...; the warp walks the
// keys that the causal diagonal and the score_mod's key bounds leave to one
// of its rows (-inf for the others), two per iteration (independent loads
// and butterflies, one rescale of the state):
//
//   s_u = Σ_lanes q·k_u (a butterfly of shuffles), · scale, the score_mod,
//         the mask                                   (every lane has s_u)
//   m'  = max(m, s_0, s_1),  α = 2^((m − m')·log2 e),  p_u = 2^((s_u − m')·log2 e)
//   ℓ'  = α·ℓ + Σ p_u,       o' = α·o + Σ p_u·v_u    (online softmax)
//
// and stores o / ℓ (0 where ℓ = 0: a row that sees no key). K and V rows
// are read by the 32 lanes together (coalesced); nothing is staged in
// shared memory, so no barrier is needed: rows past Lq compute on the last
// row and are not stored. It is a correctness fallback, not a fast path:
// no tensor cores, no shared-memory tiles.
//
//===----------------------------------------------------------------------===//
#include "KernelBuilder.h"
#include "ScoreModInKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::attn;

namespace {

/// The kernel, stage by stage (the file comment has the algorithm).
class GenericAttentionEmitter {
public:
  GenericAttentionEmitter(OpBuilder &b, Location loc, const FlashKernelSpec &s)
      : b(b), loc(loc), s(s), k{b, loc, s.elementType, b.getF32Type()},
        rows(s.rowsPerWarp), keysPerStep(s.blockKV), qRegs(llvm::divideCeil(s.headDim, 32)),
        oRegs(llvm::divideCeil(s.headDimV, 32)), scoreMods(b, loc, s) {}

  gpu::GPUFuncOp emit(gpu::GPUModuleOp module) {
    gpu::GPUFuncOp func = createKernel(module);
    computeCoordinates();
    // A warp whose first row is past Lq has nothing to do (no barriers).
    Value inside =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, firstRow, k.idx(s.seqQ));
    auto ifRow = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
    b.setInsertionPointToStart(&ifRow.getThenRegion().front());
    loadQuery();
    scf::ForOp loop = emitKeyLoop();
    storeOutput(loop);
    b.setInsertionPointToEnd(&func.getBody().front());
    gpu::ReturnOp::create(b, loc);
    scoreMods.expandMath();
    return func;
  }

private:
  gpu::GPUFuncOp createKernel(gpu::GPUModuleOp module) {
    auto func = gpu::GPUFuncOp::create(
        b, loc, s.name, b.getFunctionType(KernelParameters::types(b, s), {}));
    func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({int32_t(32 * s.numWarps()), 1, 1}));
    Block &entry = func.getBody().front();
    b.setInsertionPointToStart(&entry);
    // (No split-KV or paged cache: those take the tensor-core kernels.)
    KernelParameters p = KernelParameters::bind(entry, s);
    std::tie(Q, K, V, O, M) = std::tie(p.Q, p.K, p.V, p.O, p.M);
    scoreMods.buffers = p.scoreModTensors;
    // FP8: the scores scaled by scale·q_descale·k_descale, O by v_descale.
    scoreScale = k.f(s.scale);
    if (s.descale) {
      auto load = [&](Value m) { return memref::LoadOp::create(b, loc, m, ValueRange{}); };
      scoreScale = k.fmul(scoreScale, k.fmul(load(p.qDescale), load(p.kDescale)));
      outputScale = load(p.vDescale);
    }
    return func;
  }

  void computeCoordinates() {
    Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    lane = k.rem(tid, 32);
    Value tile = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    firstRow = k.add(k.mul(tile, s.blockQ), k.mul(k.div(tid, 32), rows));
    // Rows past Lq compute on the last row (in bounds) and are not stored.
    for (int64_t r = 0; r < rows; ++r)
      row.push_back(arith::MinUIOp::create(b, loc, k.add(firstRow, r), k.idx(s.seqQ - 1)));
    Value batchHead = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
    batch = k.div(batchHead, s.headsQ);
    head = k.rem(batchHead, s.headsQ);
    kvHead = k.div(head, s.headsQ / s.headsKV);
  }

  /// Column `r·32 + lane` of a row of `cols` columns, clamped into it (the
  /// lanes past the row read its last column; their values are not used).
  Value column(int64_t r, int64_t cols) {
    return arith::MinUIOp::create(b, loc, k.add(lane, r * 32), k.idx(cols - 1));
  }
  Value isColumn(int64_t r, int64_t cols) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, k.add(lane, r * 32),
                                 k.idx(cols));
  }
  Value toF32(Value x) {
    return x.getType().isF32() ? x : arith::ExtFOp::create(b, loc, b.getF32Type(), x);
  }

  /// The lane's columns of row `key` of K or V (`cols` wide), in f32.
  SmallVector<Value> loadKVRow(Value mem, Value key, int64_t cols) {
    SmallVector<Value> values;
    for (int64_t r = 0, e = llvm::divideCeilSigned(cols, int64_t(32)); r < e; ++r)
      values.push_back(toF32(
          memref::LoadOp::create(b, loc, mem, ValueRange{batch, kvHead, key, column(r, cols)})));
    return values;
  }

  void loadQuery() {
    // Zero past d, so that the lanes past the row add nothing to q·k.
    q.resize(rows);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t r = 0; r < qRegs; ++r) {
        Value x = toF32(memref::LoadOp::create(
            b, loc, Q, ValueRange{batch, head, row[i], column(r, s.headDim)}));
        q[i].push_back(arith::SelectOp::create(b, loc, isColumn(r, s.headDim), x, k.f(0.0)));
      }
  }

  /// [first, end) of the keys a row sees: up to the causal diagonal, inside
  /// the score_mod's key bounds (a sliding window). Null: all of them.
  std::pair<Value, Value> keyRange(Value query) {
    auto clampToKeys = [&](Value key) {
      key = arith::MaxSIOp::create(b, loc, key, k.idx(0));
      return arith::MinSIOp::create(b, loc, key, k.idx(s.seqKV)).getResult();
    };
    Value first, end;
    if (s.causal) {
      int64_t shift = s.causalBottomRight ? s.seqKV - s.seqQ : 0;
      end = clampToKeys(k.add(query, shift + 1));
    }
    if (s.scoreModLowestKey)
      first = clampToKeys(k.add(query, *s.scoreModLowestKey));
    if (s.scoreModHighestKey) {
      Value highest = clampToKeys(k.add(query, *s.scoreModHighestKey + 1));
      end = end ? arith::MinSIOp::create(b, loc, end, highest).getResult() : highest;
    }
    return {first, end};
  }

  /// The scores of key `key` for the warp's rows, in the exp2 domain, as
  /// every lane has them; -inf outside a row's own key range.
  SmallVector<Value> scores(Value key, ArrayRef<std::pair<Value, Value>> ranges) {
    SmallVector<Value> kRow = loadKVRow(K, key, s.headDim);
    SmallVector<Value> x;
    for (int64_t i = 0; i < rows; ++i) {
      Value partial = k.f(0.0);
      for (int64_t r = 0; r < qRegs; ++r)
        partial = k.fadd(partial, k.fmul(q[i][r], kRow[r]));
      x.push_back(partial);
    }
    // The rows' butterflies interleaved: independent shuffles in flight.
    for (int32_t offset : {16, 8, 4, 2, 1})
      for (Value &partial : x)
        partial = k.fadd(partial, k.xorShuffle(partial, offset));
    for (int64_t i = 0; i < rows; ++i) {
      x[i] = k.fmul(x[i], scoreScale);
      if (s.scoreMod) {
        SmallVector<Value, 4> indices{batch, head, row[i], key};
        x[i] = scoreMods.copy(x[i], ArrayRef<Value>(indices).take_back(s.scoreModRank),
                              s.scoreMod->front().getTerminator()->getOperand(0));
      }
      if (M)
        x[i] = applyMask(x[i], row[i], key);
      if (rows > 1)
        x[i] = dropOutside(x[i], key, ranges[i]);
      x[i] = k.toExp2Domain(x[i]);
    }
    return x;
  }

  Value applyMask(Value x, Value query, Value key) {
    auto at = [&](int dim, Value full) { return s.maskShape[dim] == 1 ? k.idx(0) : full; };
    Value m = memref::LoadOp::create(
        b, loc, M, ValueRange{at(0, batch), at(1, head), at(2, query), at(3, key)});
    if (s.mask == FlashKernelSpec::Mask::Keep)
      return arith::SelectOp::create(b, loc, m, x, k.f(-INFINITY));
    return k.fadd(x, toF32(m));
  }

  /// -inf for a key outside [first, end) (the loop visits the union of the
  /// warp's rows' ranges).
  Value dropOutside(Value x, Value key, std::pair<Value, Value> range) {
    using P = arith::CmpIPredicate;
    Value drop;
    if (range.first)
      drop = arith::CmpIOp::create(b, loc, P::slt, key, range.first);
    if (range.second) {
      Value past = arith::CmpIOp::create(b, loc, P::sge, key, range.second);
      drop = drop ? arith::OrIOp::create(b, loc, drop, past).getResult() : past;
    }
    return drop ? arith::SelectOp::create(b, loc, drop, k.f(-INFINITY), x).getResult() : x;
  }

  /// Loop state per row i: m at i·stride, ℓ at i·stride + 1, then o.
  int64_t stride() const { return 2 + oRegs; }

  scf::ForOp emitKeyLoop() {
    SmallVector<std::pair<Value, Value>> ranges;
    for (int64_t i = 0; i < rows; ++i)
      ranges.push_back(keyRange(row[i]));
    // The union: the rows' ranges only grow with the row.
    Value first = ranges.front().first ? ranges.front().first : k.idx(0);
    Value end = ranges.back().second ? ranges.back().second : k.idx(s.seqKV);
    SmallVector<Value> init;
    for (int64_t i = 0; i < rows; ++i) {
      init.append({k.f(-INFINITY), k.f(0.0)});
      for (int64_t r = 0; r < oRegs; ++r)
        init.push_back(k.f(0.0));
    }
    // keysPerStep keys per iteration: their loads and butterflies are
    // independent, and the state is rescaled once for all of them.
    auto loop = scf::ForOp::create(b, loc, first, end, k.idx(keysPerStep), init);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value key = loop.getInductionVar();
    ValueRange state = loop.getRegionIterArgs();
    SmallVector<SmallVector<Value>> x, vRows;
    for (int64_t u = 0; u < keysPerStep; ++u) {
      // Keys past the union's end (the last step) read the last key, in
      // bounds, and score -inf.
      Value keyU = key;
      if (u > 0)
        keyU = arith::MinUIOp::create(b, loc, k.add(key, u), k.idx(s.seqKV - 1));
      x.push_back(scores(keyU, ranges));
      if (u > 0) {
        Value past = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, k.add(key, u), end);
        for (Value &xi : x.back())
          xi = arith::SelectOp::create(b, loc, past, k.f(-INFINITY), xi);
      }
      vRows.push_back(loadKVRow(V, keyU, s.headDimV));
    }
    SmallVector<Value> yields;
    for (int64_t i = 0; i < rows; ++i) {
      ValueRange rowState = state.slice(i * stride(), stride());
      Value mNew = rowState[0];
      for (int64_t u = 0; u < keysPerStep; ++u)
        mNew = k.fmax(mNew, x[u][i]);
      // Every key so far masked: m' = -inf, and α and p must be 0, not NaN.
      Value noKey =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, mNew, k.f(-INFINITY));
      Value mSafe = arith::SelectOp::create(b, loc, noKey, k.f(0.0), mNew);
      Value alpha = k.exp2(k.fsub(rowState[0], mSafe));
      // (ptxas contracts each product and sum into one fma.)
      Value l = k.fmul(rowState[1], alpha);
      SmallVector<Value> o;
      for (int64_t r = 0; r < oRegs; ++r)
        o.push_back(k.fmul(rowState[2 + r], alpha));
      for (int64_t u = 0; u < keysPerStep; ++u) {
        Value p = k.exp2(k.fsub(x[u][i], mSafe));
        l = k.fadd(l, p);
        for (int64_t r = 0; r < oRegs; ++r)
          o[r] = k.fadd(o[r], k.fmul(p, vRows[u][r]));
      }
      yields.push_back(mNew);
      yields.push_back(l);
      yields.append(o);
    }
    scf::YieldOp::create(b, loc, yields);
    return loop;
  }

  void storeOutput(scf::ForOp loop) {
    for (int64_t i = 0; i < rows; ++i) {
      ValueRange rowState = loop.getResults().slice(i * stride(), stride());
      Value l = rowState[1];
      Value none = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, l, k.f(0.0));
      // (v_descale before the select: a row that sees no key stays 0 even
      // for an inf or NaN factor, as in the CPU lowerings.)
      Value inv = arith::DivFOp::create(b, loc, k.f(1.0), l);
      if (outputScale)
        inv = k.fmul(inv, outputScale);
      inv = arith::SelectOp::create(b, loc, none, k.f(0.0), inv);
      Value isRow = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          k.add(firstRow, i), k.idx(s.seqQ));
      for (int64_t r = 0; r < oRegs; ++r) {
        Value o = k.fmul(rowState[2 + r], inv);
        if (!s.outputType.isF32())
          o = arith::TruncFOp::create(b, loc, s.outputType, o);
        Value stored = arith::AndIOp::create(b, loc, isRow, isColumn(r, s.headDimV));
        auto store = scf::IfOp::create(b, loc, stored, /*withElseRegion=*/false);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(&store.getThenRegion().front());
        memref::StoreOp::create(b, loc, o, O,
                                ValueRange{batch, head, row[i], column(r, s.headDimV)});
      }
    }
  }

  OpBuilder &b;
  Location loc;
  const FlashKernelSpec &s;
  KernelBuilder k;
  /// Query rows per warp, keys per loop step, and registers per lane for a
  /// row of Q (d) and of O (dv).
  int64_t rows, keysPerStep, qRegs, oRegs;
  ScoreModCopier scoreMods;
  Value Q, K, V, O, M;
  /// scale (·q_descale·k_descale), and v_descale (null without descale).
  Value scoreScale, outputScale;
  Value lane, firstRow, batch, head, kvHead;
  /// The warp's query rows (clamped to Lq − 1), and their Q registers.
  SmallVector<Value> row;
  SmallVector<SmallVector<Value>> q;
};

} // namespace

gpu::GPUFuncOp mlir::attn::buildGenericAttentionKernel(OpBuilder &b, Location loc,
                                                       gpu::GPUModuleOp module,
                                                       const FlashKernelSpec &spec) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  return GenericAttentionEmitter(b, loc, spec).emit(module);
}

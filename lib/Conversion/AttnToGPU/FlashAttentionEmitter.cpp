//===- FlashAttentionEmitter.cpp - the FlashAttention-2 forward kernel ----===//
//
// Emits the forward kernel as gpu/nvgpu/nvvm/vector/memref/arith ops, to be
// lowered by upstream's gpu-lower-to-nvvm pipeline, one stage per member of
// FlashAttentionEmitter (FlashAttentionEmitter.h lists them). The stages here
// are shared by both tensor-core families; the GEMMs, the staging layout and
// the K/V producer are behind their interfaces. Fragment layouts are those
// of mma.sync.m16n8k16 (PTX ISA, "Matrix Fragments for mma.m16n8k16"), with
// g = lane / 4 and t = lane % 4:
//   A (16x16): a[0] = (g, 2t..2t+1), a[1] = (g+8, 2t..), a[2] = (g, 2t+8..),
//              a[3] = (g+8, 2t+8..)
//   B (16x8):  b[0] = (k 2t..2t+1, n g), b[1] = (k 2t+8..2t+9, n g)
//   C (16x8):  c[0] = (g, 2t..2t+1),    c[1] = (g+8, 2t..2t+1)
// Two adjacent C tiles of S (keys 16kk..16kk+15) are exactly the A operand of
// P·V, which is why P never leaves registers (FlashAttention-2, §3.1).
//
// wgmma's m64nNk16 accumulators give each warp the same C fragments for its
// 16 rows, and take the same A fragment from registers, so the code between
// the GEMMs is shared (WgmmaFamily.cpp explains its shared-memory layout).
//
//===----------------------------------------------------------------------===//
#include "FlashAttentionEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::attn;

KernelContext::KernelContext(OpBuilder &b, Location loc, const FlashKernelSpec &spec)
    : s(spec), k{b, loc, spec.elementType, b.getF32Type()}, ctx(b.getContext()),
      T(spec.elementType), f32(b.getF32Type()), d(spec.headDim), dv(spec.headDimV),
      bq(spec.blockQ), bkv(spec.blockKV), warpKeys(spec.warpKeys()),
      threads(32 * spec.numWarps()),
      // Each warp owns `mt` m16 tiles of query rows. Every K/V fragment read
      // from shared memory feeds mt mma's, so mt = 2 halves the shared-memory
      // traffic per mma (FlashAttention-2's layout) at the price of registers.
      mt(spec.mTiles()), lq(spec.seqQ), lk(spec.seqKV), stages(spec.stages()),
      qTail(spec.varlen || spec.numRows() % spec.blockQ != 0),
      kTail(spec.dynamicKVLength() || spec.seqKV % spec.blockKV != 0),
      hasMask(spec.mask != FlashKernelSpec::Mask::None), packed(spec.packedHeads()) {
  // An MMA k-step is 32 bytes: 16 two-byte or 32 one-byte elements.
  kSteps = llvm::divideCeil(d, 32 / spec.elementBytes());
  aType = VectorType::get({4, 2}, T);
  bType = VectorType::get({2, 2}, T);
  cType = VectorType::get({2, 2}, f32);
  pair = VectorType::get({2}, T);
  workgroup = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
}


gpu::GPUFuncOp FlashAttentionEmitter::emit(gpu::GPUModuleOp module) {
  gpu::GPUFuncOp func = createKernel(module);
  bindSharedMemory(func);
  computeThreadCoordinates();
  if (s.persistentCTAs) {
    // Both roles walk the same work items in the same order, so they
    // agree on each tile's place in the stage ring. (wgmma's operand
    // descriptors depend on the warp only, not on the item.)
    assert(s.wgmma() && "persistent CTAs have a producer warpgroup");
    family.prepareOperands();
    producer.splitRoles(func, [&](function_ref<void()> body) {
      forEachWorkItem([&] {
        prefetchQueryTile();
        body();
      });
    });
    emitPersistentConsumer();
    gpu::ReturnOp::create(b, loc);
    scoreMods.expandMath();
    return func;
  }
  computeTileCoordinates(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x),
                         gpu::BlockIdOp::create(b, loc, gpu::Dimension::y));
  family.prepareOperands();
  if (producer.specializesWarps()) {
    // The producer warps need only the K/V range, and leave there; the Q
    // tile is staged by the computing warps alone.
    computeKVRange();
    producer.splitRoles(func, [](function_ref<void()> body) { body(); });
    zeroHeadDimPadding();
    stageQ();
  } else {
    zeroHeadDimPadding();
    stageQ();
    computeKVRange();
  }
  scf::ForOp loop = emitKVLoops();
  epilogue(loop);
  gpu::ReturnOp::create(b, loc);
  scoreMods.expandMath();
  return func;
}

gpu::GPUFuncOp FlashAttentionEmitter::createKernel(gpu::GPUModuleOp module) {
  auto fnType = b.getFunctionType(KernelParameters::types(b, s), {});
  SmallVector<Type> staticTiles;
  if (!s.dynamicSharedMemory)
    staticTiles = {family.tileType(c.stages, c.bkv, c.d), family.tileType(c.stages, c.bkv, c.dv)};
  auto func = gpu::GPUFuncOp::create(b, loc, s.name, fnType, staticTiles);
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({int32_t(s.numThreads()), 1, 1}));
  // The chooser's residency: setmaxnreg needs the register count at entry,
  // which ptxas knows only from a bound of one CTA per SM (else it ignores
  // it, C7508); two 128-row CTAs must fit 128 registers each.
  if (s.minCTAsPerSM > 0)
    func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                  b.getI32IntegerAttr(int32_t(s.minCTAsPerSM)));
  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  KernelParameters p = KernelParameters::bind(entry, s);
  std::tie(v.Q, v.K, v.V, v.O, v.rowStats, v.M, v.blockTable, v.seqLens, v.cuSeqlensQ,
           v.cuSeqlensK) = std::tie(p.Q, p.K, p.V, p.O, p.rowStats, p.M, p.blockTable, p.seqLens,
                                    p.cuSeqlensQ, p.cuSeqlensK);
  scoreMods.buffers = p.scoreModTensors;
  v.kTensorMap = p.kTensorMap;
  v.vTensorMap = p.vTensorMap;
  if (s.descale) {
    // FP8's per-tensor factors, read once: q·k's multiply every score, v's O.
    auto load = [&](Value scalar) { return memref::LoadOp::create(b, loc, scalar).getResult(); };
    v.scoreDescale = k.fmul(load(p.qDescale), load(p.kDescale));
    v.outputDescale = load(p.vDescale);
  }
  return func;
}

void FlashAttentionEmitter::bindSharedMemory(gpu::GPUFuncOp func) {
  if (!s.dynamicSharedMemory) {
    v.kTile = func.getWorkgroupAttributions()[0];
    v.vTile = func.getWorkgroupAttributions()[1];
    return;
  }
  // One dynamic buffer, viewed as the K stages, the V stages, then the Q
  // tile when it is staged.
  MemRefType kTileType = family.tileType(c.stages, c.bkv, c.d);
  MemRefType vTileType = family.tileType(c.stages, c.bkv, c.dv);
  auto bytes = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                               MemRefLayoutAttrInterface(), c.workgroup);
  Value raw = gpu::DynamicSharedMemoryOp::create(b, loc, bytes);
  v.smem = raw;
  int64_t kBytes = kTileType.getNumElements() * s.elementBytes();
  // wgmma: round the base up to 1024 bytes (the swizzle atom), using the
  // slack that sharedMemoryBytes() adds.
  Value base;
  if (s.alignmentSlackBytes()) {
    Value addr = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, raw);
    base = arith::AndIOp::create(b, loc, arith::SubIOp::create(b, loc, k.idx(0), addr),
                                 k.idx(s.alignmentSlackBytes() - 1));
  }
  auto offset = [&](int64_t bytes) { return base ? k.add(base, bytes) : k.idx(bytes); };
  v.kTile = memref::ViewOp::create(b, loc, kTileType, raw, offset(0), ValueRange{});
  // (8-bit wgmma: the Vᵀ stages in V's place.)
  if (s.transposesV())
    v.vtTile =
        memref::ViewOp::create(b, loc, transposedVTileType(c), raw, offset(kBytes), ValueRange{});
  else
    v.vTile = memref::ViewOp::create(b, loc, vTileType, raw, offset(kBytes), ValueRange{});
  if (s.qInSharedMemory())
    v.qTile = memref::ViewOp::create(b, loc, family.tileType(std::nullopt, c.bq, c.d), raw,
                                     offset(s.kvSharedMemoryBytes()), ValueRange{});
  // The TMA mbarriers: "full" per stage, then (producer warpgroup) "empty".
  auto barriers = [&](int64_t bytes) {
    auto type = MemRefType::get({c.stages}, b.getI64Type(), MemRefLayoutAttrInterface(),
                                c.workgroup);
    return memref::ViewOp::create(b, loc, type, raw, offset(bytes), ValueRange{});
  };
  if (s.tmaLoads)
    v.stageFull = barriers(s.tileBytes());
  if (s.producerWarpgroup)
    v.stageEmpty = barriers(s.tileBytes() + 8 * c.stages);
  if (s.separatesKVBarriers()) {
    v.stageFullV = barriers(s.tileBytes() + 16 * c.stages);
    v.stageEmptyV = barriers(s.tileBytes() + 24 * c.stages);
  }
}

void FlashAttentionEmitter::zeroHeadDimPadding() {
  if (c.d % 16 == 0)
    return;
  // One 16-byte chunk per row of each K stage and of the Q tile, rows dealt
  // out over the threads as TileCopy deals them. The
  // barrier before the first K/V tile is read publishes them (with wgmma,
  // after the async-proxy fence that precedes it).
  auto chunk = VectorType::get({8}, c.T);
  Value zeros = k.zeros(chunk);
  Value padCol = k.idx(c.d);
  auto zeroRows = [&](Value tile, int64_t rows, std::optional<int64_t> numStages) {
    // One chunk per (stage, row) slot.
    TileCopy slots(k, v.tid, c.threads, rows * numStages.value_or(1), /*chunksPerRow=*/1);
    for (int64_t i = 0; i < slots.steps; ++i) {
      Value slot = slots.row(i);
      Value buf = numStages ? k.div(slot, rows) : Value();
      vector::StoreOp::create(b, loc, zeros, tile, family.tileAt(buf, k.rem(slot, rows), padCol));
    }
  };
  // (TMA zero-fills the columns past d of every box it writes; bulk row
  // copies write d columns and leave these zeros alone.)
  if (!s.tensorMapLoads())
    zeroRows(v.kTile, c.bkv, c.stages);
  if (s.qInSharedMemory())
    zeroRows(v.qTile, c.bq, std::nullopt);
}

Value FlashAttentionEmitter::scoreDescaleMagnitude() {
  // |q_descale·k_descale| by its bits (NaN stays NaN).
  if (!signInQ())
    return v.scoreDescale;
  Type i32 = b.getI32Type();
  Value bits = arith::BitcastOp::create(b, loc, i32, v.scoreDescale);
  Value magnitude = arith::AndIOp::create(b, loc, bits,
                                          arith::ConstantIntOp::create(b, loc, 0x7FFFFFFF, 32));
  return arith::BitcastOp::create(b, loc, c.f32, magnitude);
}

Value FlashAttentionEmitter::flipSigns(Value chunk) {
  // 0x80 in every byte when q_descale·k_descale has its sign bit set, else
  // 0; the 16 bytes as two 64-bit words, each XOR'ed with it.
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Value bits = arith::BitcastOp::create(b, loc, i32, v.scoreDescale);
  Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, bits,
                                         arith::ConstantIntOp::create(b, loc, 0, 32));
  Value flip = arith::SelectOp::create(
      b, loc, negative, arith::ConstantIntOp::create(b, loc, int64_t(0x8080808080808080ULL), 64),
      arith::ConstantIntOp::create(b, loc, 0, 64));
  auto words = VectorType::get({2}, i64);
  Value w = vector::BitCastOp::create(b, loc, words, chunk);
  Value mask = vector::BroadcastOp::create(b, loc, words, flip);
  return vector::BitCastOp::create(b, loc, chunk.getType(),
                                   arith::XOrIOp::create(b, loc, w, mask));
}

void FlashAttentionEmitter::stageQ() {
  if (!s.qInSharedMemory())
    return;
  // Stage the CTA's Q tile, 16 bytes per thread and step; the barrier at
  // the top of the first K/V iteration publishes it.
  const int64_t chunkElems = 16 / s.elementBytes();
  auto chunk = VectorType::get({chunkElems}, c.T);
  TileCopy copy(k, v.tid, c.threads, c.bq, c.d / chunkElems);
  for (int64_t i = 0; i < copy.steps; ++i) {
    Value r = copy.row(i), col = copy.col(i);
    auto [qRow, qHead] = rowCoordinates(k.add(v.qStart, r));
    Value vec = k.loadAligned(chunk, v.Q, c.queryAt(qRow, qHead, col));
    if (signInQ())
      vec = flipSigns(vec);
    vector::StoreOp::create(b, loc, vec, v.qTile, family.tileAt(Value(), r, col));
  }
}

void FlashAttentionEmitter::prefetchQueryTile() {
  // The computing warps stage an item's Q after the previous item's
  // epilogue, with nothing else in flight: its load latency is paid once
  // per item (bench/NOTES.md v63). The producer reaches the item a few
  // tiles earlier, its stage ring ahead of the computing warps, so it
  // brings the tile into L2 then: per query head of the tile, its queries
  // [qFirst, qEnd) are consecutive rows of Q [B, H, L, d], one bulk
  // prefetch each (a packed K/V group: one per head of the group). A bulk
  // prefetch moves 16-byte units from 16-byte aligned rows: where a row is
  // not a whole number of them (an 8-bit Q with d = 8 mod 16) none is made;
  // varlen's token-major Q has no such runs (and no persistent CTAs).
  const int64_t rowBytes = c.d * s.elementBytes();
  if (rowBytes % 16 != 0 || s.varlen)
    return;
  Value queries = arith::SubIOp::create(
      b, loc, arith::MinUIOp::create(b, loc, v.qEnd, k.idx(s.seqQ)), v.qFirst);
  Value bytes = k.toI32(k.mul(queries, rowBytes));
  for (int64_t h = 0; h < c.packed; ++h) {
    Value head = c.packed == 1 ? v.head : k.add(k.mul(v.kvHead, c.packed), h);
    Value first = k.globalPointer(v.Q, c.queryAt(v.qFirst, head, k.idx(0)));
    NVVM::CpAsyncBulkPrefetchOp::create(b, loc, first, bytes, /*l2CacheHint=*/Value());
  }
}

SmallVector<Value> FlashAttentionEmitter::emitTileMath(Value kvStart, Value buf,
                                                       ValueRange state, bool masked,
                                                       bool inside, bool first) {
  SmallVector<Value> acc(state.begin(), state.begin() + numAcc);
  if (s.overlapPV) {
    // The previous tile's P·V goes behind this tile's S (a peeled first
    // tile has none; an unpeeled one's is of a zero P).
    SmallVector<Value> prevP;
    Value prevBuf;
    if (!first) {
      prevP.assign(state.begin() + pBase, state.begin() + pBase + numPacked);
      // (pvTileStart's stage, selected between the stages: as the stage of
      // the selected start, ptxas spilled 12 bytes in the persistent d = 128
      // causal kernel and moved its P·V wait up.)
      Value hasPrevious = c.hasPreviousTile(kvStart);
      prevBuf = arith::SelectOp::create(b, loc, hasPrevious,
                                        c.stageOf(c.previousTileStart(kvStart)), buf);
    }
    family.issueScoresThenPV(buf, prevP, prevBuf, acc);
    producer.releaseKeys(kvStart);
  } else {
    family.issueScores(buf, acc);
  }

  const double scaleLog2 = s.scale * M_LOG2E; // exp(x·s) = exp2(x·s·log2 e)
  Value scaleV = k.f(scaleLog2);
  if (v.scoreDescale)
    scaleV = k.fmul(scaleV, scoreDescaleMagnitude());
  // Unmasked tiles may keep the raw scores: the row max is taken on them and
  // scaled once per row (max commutes with a non-negative scale), and each
  // P = exp2(s·scale − m) is one FMA before the exp2 instead of a multiply
  // and a subtract. Masked tiles add the mask in the scaled domain.
  const bool modifies = s.scoreMod && !(inside && s.scoreModIsIdentityInsideBounds());
  // (A descale factor's sign is in Q when signInQ.)
  const bool rawScores = !masked && scaleLog2 > 0 && (!v.scoreDescale || signInQ()) &&
                         family.keepsRawScores() && !modifies;
  Value modResult;
  if (modifies)
    modResult = inside ? s.scoreModInsideBounds
                       : s.scoreMod->front().getTerminator()->getOperand(0);
  ScoreTile p = maskAndScale(kvStart, buf, masked, rawScores, scaleV, modResult);
  SmallVector<Value> mNew(2 * c.mt), lNew(2 * c.mt), rescale;
  onlineSoftmax(p, state, rawScores, scaleV, acc, mNew, lNew,
                s.overlapPV ? &rescale : nullptr);
  SmallVector<Value> packed;
  if (s.overlapPV) {
    // O = α (O + P_prev·V_prev) once that P·V is done; this tile's P waits
    // for the next tile's S.
    // (Before the first tile O is 0, and no P·V is in flight.)
    if (!first) {
      family.waitPV(acc);
      for (size_t i = 0; i < acc.size(); ++i)
        acc[i] = k.fmul(acc[i], rescale[i / (c.dv / 8)]);
    }
    packed = family.packP(p);
  } else {
    family.accumulatePV(p, buf, acc);
  }
  SmallVector<Value> yields(acc);
  yields.append(mNew.begin(), mNew.end());
  yields.append(lNew.begin(), lNew.end());
  yields.append(packed.begin(), packed.end());
  return yields;
}

void FlashAttentionEmitter::finishOverlappedPV(scf::ForOp loop, SmallVectorImpl<Value> &acc) {
  // The last tile's P·V; a CTA that visited no tile (kvEnd ≤ kvBegin) has
  // nothing in flight and its stages may hold anything.
  SmallVector<Type> types(acc.size(), c.cType);
  auto branch = scf::IfOp::create(b, loc, types, c.visitsTiles(), /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(branch.thenBlock());
  Value last = c.lastTileStart();
  SmallVector<Value> lastP(loop.getResults().begin() + pBase,
                           loop.getResults().begin() + pBase + numPacked);
  SmallVector<Value> done(acc.begin(), acc.end());
  producer.awaitLastValues();
  family.accumulatePackedPV(lastP, c.stageOf(last), done);
  scf::YieldOp::create(b, loc, done);
  b.setInsertionPointToStart(branch.elseBlock());
  scf::YieldOp::create(b, loc, acc);
  acc.assign(branch.getResults().begin(), branch.getResults().end());
}

Value FlashAttentionEmitter::loadMask(Value qRow, Value qHead, Value key) {
  // Read from global memory (the mask is small or broadcast, and L1/L2 serve
  // the re-reads); indices clamp like the loads.
  auto at = [&](int dim, Value full, int64_t limit) -> Value {
    if (s.maskShape[dim] == 1)
      return k.idx(0);
    return arith::MinUIOp::create(b, loc, full, k.idx(limit - 1));
  };
  SmallVector<Value> idx{s.maskShape[0] == 1 ? k.idx(0) : v.batch,
                         s.maskShape[1] == 1 ? k.idx(0) : qHead, at(2, qRow, c.lq),
                         at(3, key, c.lk)};
  return memref::LoadOp::create(b, loc, v.M, idx);
}

Value FlashAttentionEmitter::maskScore(Value x, int64_t mi, int r, Value key, Value keyMask) {
  // The score x is already in the exp2 domain: an additive mask m becomes
  // m·log2(e) (toExp2Domain: finfo.min stays finite), a keep mask -inf
  // where false.
  if (c.hasMask) {
    Value m = keyMask ? keyMask : loadMask(v.row[mi][r], v.rowHead[mi][r], key);
    if (s.mask == FlashKernelSpec::Mask::Keep) {
      x = arith::SelectOp::create(b, loc, m, x, k.f(negInf));
    } else {
      Value mf = m.getType() == c.f32 ? m : arith::ExtFOp::create(b, loc, c.f32, m).getResult();
      x = k.fadd(x, k.toExp2Domain(mf));
    }
  }
  // Above the causal diagonal, or a key past Lk.
  Value drop;
  if (s.causal) {
    Value limit = k.add(v.row[mi][r], v.causalShift);
    drop = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, key, limit);
  }
  if (c.kTail) {
    Value past = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, key, v.kvLen);
    drop = drop ? arith::OrIOp::create(b, loc, drop, past).getResult() : past;
  }
  if (drop)
    x = arith::SelectOp::create(b, loc, drop, k.f(negInf), x);
  return x;
}

ScoreTile FlashAttentionEmitter::maskAndScale(Value kvStart, Value buf, bool masked,
                                              bool rawScores, Value scaleV, Value modResult) {
  // A mask that does not vary along the queries (a padding mask
  // [B, 1, 1, Lk]) is read once per key and shared by all of the lane's rows
  // (when they share a head: rows of packed heads need a mask without a
  // head dim).
  const bool maskPerKey = c.hasMask && s.maskShape[2] == 1 &&
                          (c.packed == 1 || s.maskShape[1] == 1);
  ScoreTile p(c.mt, SmallVector<ScoreQuad>(c.warpKeys / 8));
  // A score_mod sees the real score, Q·Kᵀ times scale (and the descale
  // factors).
  Value modScale = k.f(s.scale);
  if (modResult && v.scoreDescale)
    modScale = k.fmul(modScale, scoreDescaleMagnitude());
  for (int64_t nb = 0; nb < c.warpKeys / 8; ++nb) {
    SmallVector<Value> sBlock = family.scoresBlock(nb, buf);
    Value keyMask[2];
    if (masked && maskPerKey)
      for (int e = 0; e < 2; ++e)
        keyMask[e] = loadMask(Value(), v.head, k.add(k.add(kvStart, v.laneKey), nb * 8 + e));
    for (int64_t mi = 0; mi < c.mt; ++mi)
      for (int r = 0; r < 2; ++r)
        for (int e = 0; e < 2; ++e) {
          Value x = k.extract(sBlock[mi], r, e);
          Value key = k.add(k.add(kvStart, v.laneKey), nb * 8 + e);
          if (modResult)
            x = k.toExp2Domain(modifyScore(k.fmul(x, modScale), mi, r, key, modResult));
          else if (!rawScores)
            x = k.fmul(x, scaleV);
          if (masked)
            x = maskScore(x, mi, r, key, maskPerKey ? keyMask[e] : Value());
          p[mi][nb][r][e] = x;
        }
  }
  return p;
}

void FlashAttentionEmitter::onlineSoftmax(ScoreTile &p, ValueRange state, bool rawScores,
                                          Value scaleV, SmallVectorImpl<Value> &acc,
                                          SmallVectorImpl<Value> &mNew,
                                          SmallVectorImpl<Value> &lNew,
                                          SmallVectorImpl<Value> *deferredRescale) {
  // Per row (r = 0: row g, r = 1: row g + 8 of each m-tile).
  const int64_t nbs = c.warpKeys / 8;
  for (int64_t mi = 0; mi < c.mt; ++mi) {
    Value alpha[2];
    for (int r = 0; r < 2; ++r) {
      Value mOld = state[mBase + 2 * mi + r], lOld = state[lBase + 2 * mi + r];
      Value m = p[mi][0][r][0];
      for (int64_t nb = 0; nb < nbs; ++nb)
        for (int e = 0; e < 2; ++e)
          if (nb || e)
            m = k.fmax(m, p[mi][nb][r][e]);
      Value rowMax = k.quadReduce(m, /*isMax=*/true);
      if (rawScores)
        rowMax = k.fmul(rowMax, scaleV);
      Value mRow = k.fmax(mOld, rowMax);
      // A row that has seen only -inf keeps m = -inf; exp2 is taken against
      // 0 then, so P = 0 and alpha = 0 instead of NaN (fully masked rows ->
      // 0).
      Value isNegInf = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, mRow,
                                             k.f(negInf));
      Value mSafe = arith::SelectOp::create(b, loc, isNegInf, k.f(0.0), mRow);
      alpha[r] = k.exp2(k.fsub(mOld, mSafe));
      Value rowSum = k.f(0.0);
      Value negM = rawScores ? arith::NegFOp::create(b, loc, mSafe).getResult() : Value();
      for (int64_t nb = 0; nb < nbs; ++nb)
        for (int e = 0; e < 2; ++e) {
          Value x = p[mi][nb][r][e];
          x = rawScores ? LLVM::FMAOp::create(b, loc, x, scaleV, negM).getResult()
                        : k.fsub(x, mSafe);
          p[mi][nb][r][e] = k.exp2(x);
          rowSum = k.fadd(rowSum, p[mi][nb][r][e]);
        }
      // l stays a per-lane partial sum; the quad reduces it once at the end.
      mNew[2 * mi + r] = mRow;
      lNew[2 * mi + r] = k.fadd(k.fmul(alpha[r], lOld), rowSum);
    }
    Value alphaVec = vector::FromElementsOp::create(
        b, loc, c.cType, ValueRange{alpha[0], alpha[0], alpha[1], alpha[1]});
    if (deferredRescale) {
      deferredRescale->push_back(alphaVec);
      continue;
    }
    for (int64_t nd = 0; nd < c.dv / 8; ++nd)
      acc[mi * (c.dv / 8) + nd] = k.fmul(acc[mi * (c.dv / 8) + nd], alphaVec);
  }
}

std::pair<SmallVector<Value>, SmallVector<Value>>
TensorCoreFamily::zeroState(int64_t tiles, int64_t packedP) {
  SmallVector<Value> acc(tiles, k.zeros(c.cType));
  SmallVector<Value> p(packedP, arith::ConstantIntOp::create(k.b, k.loc, 0, 32));
  return {acc, p};
}

MemRefType TensorCoreFamily::atomTileType(std::optional<int64_t> numStages, int64_t rows,
                                          int64_t cols) const {
  SmallVector<int64_t> shape;
  if (numStages)
    shape.push_back(*numStages);
  const int64_t atom = atomColumns(s.elementBytes());
  shape.append({int64_t(llvm::divideCeil(cols, atom)), rows, atom});
  return MemRefType::get(shape, c.T, MemRefLayoutAttrInterface(), c.workgroup);
}

SmallVector<Value> TensorCoreFamily::atomTileAt(Value buf, Value row, Value col) {
  const int64_t atom = atomColumns(s.elementBytes());
  SmallVector<Value> at;
  if (buf)
    at.push_back(buf);
  at.append({k.div(col, atom), row, k.swz(true, row, k.rem(col, atom))});
  return at;
}

MemRefType mlir::attn::transposedVTileType(const KernelContext &c) {
  return MemRefType::get({c.stages, transposedVAtoms(c.bkv), c.dv, 128},
                         IntegerType::get(c.ctx, 8), MemRefLayoutAttrInterface(), c.workgroup);
}

gpu::GPUFuncOp mlir::attn::buildFlashAttentionKernel(OpBuilder &b, Location loc,
                                                     gpu::GPUModuleOp module,
                                                     const FlashKernelSpec &spec) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  KernelContext c(b, loc, spec);
  std::unique_ptr<TensorCoreFamily> family =
      spec.wgmma() ? createWgmmaFamily(c) : createMmaSyncFamily(c);
  std::unique_ptr<KVProducer> producer =
      spec.tmaLoads ? createTmaProducer(c, *family) : createCpAsyncProducer(c, *family);
  return FlashAttentionEmitter(c, *family, *producer).emit(module);
}

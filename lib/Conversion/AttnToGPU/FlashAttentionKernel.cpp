//===- FlashAttentionKernel.cpp - the FlashAttention-2 forward kernel -----===//
//
// Emits the forward kernel as gpu/nvgpu/nvvm/vector/memref/arith ops, to be
// lowered by upstream's gpu-lower-to-nvvm pipeline. One skeleton (staging,
// masks, online softmax, epilogue) serves both tensor-core families; only the
// two GEMMs differ (KernelBuilder.h, Wgmma.cpp). Fragment layouts are those of
// mma.sync.m16n8k16 (PTX ISA, "Matrix Fragments for mma.m16n8k16"), with
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
// the GEMMs is shared (Wgmma.cpp explains the shared-memory layout).
//
//===----------------------------------------------------------------------===//
#include "attn/Conversion/AttnToGPU/AttnToGPU.h"
#include "KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::attn;

gpu::GPUFuncOp mlir::attn::buildFlashAttentionKernel(
    OpBuilder &b, Location loc, gpu::GPUModuleOp module, const FlashKernelSpec &s) {
  MLIRContext *ctx = b.getContext();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  KernelBuilder k{b, loc, s.elementType, b.getF32Type()};
  Type T = s.elementType, f32 = k.f32;
  const int64_t d = s.headDim, dv = s.headDimV, bq = s.blockQ, bkv = s.blockKV;
  const int64_t threads = 32 * s.numWarps();
  // Each warp owns `mt` m16 tiles of query rows. Every K/V fragment read
  // from shared memory feeds mt mma's, so mt = 2 halves the shared-memory
  // traffic per mma (FlashAttention-2's layout) at the price of registers.
  const int64_t mt = s.mTiles();
  // Sequence lengths need not be multiples of the tiles. Loads clamp their
  // row to the last valid one (no branches, no out-of-bounds reads); keys
  // past Lk are masked to -inf in the last K/V tile; rows past Lq are
  // computed on clamped data and not stored.
  const int64_t lq = s.seqQ, lk = s.seqKV;
  const bool qTail = lq % bq != 0, kTail = lk % bkv != 0;

  auto global = [&](int64_t h, int64_t l, int64_t cols) {
    return MemRefType::get({s.batch, h, l, cols}, T);
  };
  auto workgroup = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  const int64_t stages = s.stages();
  const bool wg = s.wgmma();
  // Tiles as [stage, row, col] (padded or swizzled rows), or for wgmma as
  // [stage, col / 64, row, col % 64]: 64-column atoms, 128-byte swizzle.
  auto tileType = [&](std::optional<int64_t> numStages, int64_t rows, int64_t cols) {
    SmallVector<int64_t> shape;
    if (numStages)
      shape.push_back(*numStages);
    if (wg)
      shape.append({cols / 64, rows, 64});
    else
      shape.append({rows, s.smemPitch(cols)});
    return MemRefType::get(shape, T, MemRefLayoutAttrInterface(), workgroup);
  };
  auto kTileType = tileType(stages, bkv, d), vTileType = tileType(stages, bkv, dv);
  // Where logical element (row, col) of a tile lives ([buf] first when the
  // tile is staged), `col` a multiple of 8 or an ldmatrix column.
  auto tileAt = [&](Value buf, Value r, Value col) {
    SmallVector<Value> at;
    if (buf)
      at.push_back(buf);
    if (wg)
      at.append({k.div(col, 64), r, k.swz(true, r, k.rem(col, 64))});
    else
      at.append({r, k.swz(s.swizzle, r, col)});
    return at;
  };
  SmallVector<Type> params{global(s.headsQ, s.seqQ, d), global(s.headsKV, s.seqKV, d),
                           global(s.headsKV, s.seqKV, dv), global(s.headsQ, s.seqQ, dv)};
  if (s.mask != FlashKernelSpec::Mask::None)
    params.push_back(MemRefType::get(
        s.maskShape, s.mask == FlashKernelSpec::Mask::Keep ? Type(b.getI1Type()) : T));
  auto fnType = b.getFunctionType(params, {});
  SmallVector<Type> staticTiles;
  if (!s.dynamicSharedMemory)
    staticTiles = {kTileType, vTileType};
  auto func = gpu::GPUFuncOp::create(b, loc, s.name, fnType, staticTiles);
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({int32_t(threads), 1, 1}));
  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  Value Q = entry.getArgument(0), K = entry.getArgument(1), V = entry.getArgument(2),
        O = entry.getArgument(3);
  const bool hasMask = s.mask != FlashKernelSpec::Mask::None;
  Value M = hasMask ? entry.getArgument(4) : Value();
  Value kTile, vTile, qTile;
  if (s.dynamicSharedMemory) {
    // One dynamic buffer, viewed as the K stages, the V stages, then the Q
    // tile when it is staged.
    auto bytes = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                                 MemRefLayoutAttrInterface(), workgroup);
    Value raw = gpu::DynamicSharedMemoryOp::create(b, loc, bytes);
    int64_t kBytes = kTileType.getNumElements() * 2;
    // wgmma: round the base up to 1024 bytes (the swizzle atom), using the
    // slack that sharedMemoryBytes() adds.
    Value base;
    if (s.alignmentSlackBytes()) {
      Value addr = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, raw);
      base = arith::AndIOp::create(b, loc, arith::SubIOp::create(b, loc, k.idx(0), addr),
                                   k.idx(s.alignmentSlackBytes() - 1));
    }
    auto offset = [&](int64_t bytes) { return base ? k.add(base, bytes) : k.idx(bytes); };
    kTile = memref::ViewOp::create(b, loc, kTileType, raw, offset(0), ValueRange{});
    vTile = memref::ViewOp::create(b, loc, vTileType, raw, offset(kBytes), ValueRange{});
    if (s.qInSharedMemory())
      qTile = memref::ViewOp::create(b, loc, tileType(std::nullopt, bq, d), raw,
                                     offset(s.kvSharedMemoryBytes()), ValueRange{});
  } else {
    kTile = func.getWorkgroupAttributions()[0];
    vTile = func.getWorkgroupAttributions()[1];
  }

  // Who am I: (batch, head) from blockIdx.y, query tile from blockIdx.x.
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value qTileIdx = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  // Causal: the last query tiles see the most keys. CTAs start in blockIdx
  // order, so blockIdx.x counts down from the last tile: the longest CTAs
  // of each head start first and the short ones fill the tail of the grid.
  if (s.causal)
    qTileIdx = arith::SubIOp::create(b, loc, k.idx(s.numQueryTiles() - 1), qTileIdx);
  Value bh = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
  Value batch = k.div(bh, s.headsQ), head = k.rem(bh, s.headsQ);
  // GQA: query head h reads K/V head h / (Hq/Hkv); no copy of K/V exists.
  Value kvHead = k.div(head, s.headsQ / s.headsKV);
  Value warp = k.div(tid, 32), lane = k.rem(tid, 32);
  Value g = k.div(lane, 4), t = k.rem(lane, 4);
  Value qStart = k.mul(qTileIdx, bq);
  // row[mi][r]: the query row of this lane's C-fragment row r (g or g + 8)
  // in the warp's m-tile mi.
  SmallVector<std::array<Value, 2>> row(mt);
  for (int64_t mi = 0; mi < mt; ++mi) {
    row[mi][0] = k.add(k.add(qStart, k.mul(warp, s.rowsPerWarp)), mi * 16);
    row[mi][0] = k.add(row[mi][0], g);
    row[mi][1] = k.add(row[mi][0], 8);
  }
  Value twoT = k.mul(t, 2);

  // wgmma descriptors of the staged tiles (Wgmma.cpp): Q rows of this
  // warpgroup (64 per warpgroup: warp w owns rows 16w.., as with mma.sync),
  // K read K-major, V MN-major (its 64-column atoms bkv rows apart). The
  // stage and k-step are added per use.
  Value descQ, descK0, descV0;
  const int64_t atomRowBytes = 128, groupBytes = 8 * atomRowBytes;
  if (wg) {
    Value wgRows = k.mul(k.div(warp, 4), 64 * atomRowBytes);
    Value qAddr = arith::AddIOp::create(
        b, loc, k.sharedAddress(qTile),
        arith::IndexCastUIOp::create(b, loc, b.getI64Type(), wgRows));
    descQ = k.wgmmaDescriptor(qAddr, 16, groupBytes);
    descK0 = k.wgmmaDescriptor(k.sharedAddress(kTile), 16, groupBytes);
    descV0 = k.wgmmaDescriptor(k.sharedAddress(vTile), bkv * atomRowBytes, groupBytes);
  }

  // Q fragments stay in registers for the whole K/V loop.
  auto aType = VectorType::get({4, 2}, T), bType = VectorType::get({2, 2}, T);
  auto cType = VectorType::get({2, 2}, f32), pair = VectorType::get({2}, T);
  SmallVector<SmallVector<Value>> qFrag(mt);
  // C tiles <-> the flat register list of a wgmma accumulator (4 values
  // per 8 columns, in C-fragment order).
  auto flatten = [&](ArrayRef<Value> tiles) {
    SmallVector<Value> flat;
    for (Value tile : tiles)
      for (int r = 0; r < 2; ++r)
        for (int e = 0; e < 2; ++e)
          flat.push_back(k.extract(tile, r, e));
    return flat;
  };
  auto unflatten = [&](ArrayRef<Value> flat) {
    SmallVector<Value> tiles;
    for (size_t i = 0; i < flat.size(); i += 4)
      tiles.push_back(vector::FromElementsOp::create(b, loc, cType, flat.slice(i, 4)));
    return tiles;
  };
  // The O accumulators passed through KernelBuilder::fenceOperands after a
  // wgmma wait, so that nothing reads them before it.
  auto fenceAccumulators = [&](ArrayRef<Value> tiles) {
    return unflatten(k.fenceOperands(flatten(tiles)));
  };
  if (s.qInSharedMemory()) {
    // Stage the CTA's Q tile, 16 bytes per thread and step; the barrier at
    // the top of the first K/V iteration publishes it.
    auto chunk = VectorType::get({8}, T);
    int64_t chunksPerRow = d / 8;
    for (int64_t i = 0; i < bq * chunksPerRow / threads; ++i) {
      Value c = k.add(tid, i * threads);
      Value r = k.div(c, chunksPerRow), col = k.mul(k.rem(c, chunksPerRow), 8);
      Value qRow = k.add(qStart, r);
      if (qTail)
        qRow = arith::MinUIOp::create(b, loc, qRow, k.idx(lq - 1));
      Value vec = k.load(chunk, Q, {batch, head, qRow, col});
      vector::StoreOp::create(b, loc, vec, qTile, tileAt(Value(), r, col));
    }
  }
  // The A fragment of Q for m-tile mi and k-step ks: ldmatrix.x4 from the
  // staged tile (lanes 0-15 address rows 0-15 at column 0, lanes 16-31 the
  // same rows at column 8), or the register copy.
  auto qFragment = [&](int64_t mi, int64_t ks) -> Value {
    if (!s.qInSharedMemory())
      return qFrag[mi][ks];
    Value r = k.add(k.add(k.mul(warp, s.rowsPerWarp), mi * 16), k.rem(lane, 16));
    Value col = k.add(k.mul(k.div(lane, 16), 8), ks * 16);
    return nvgpu::LdMatrixOp::create(b, loc, aType, qTile, ValueRange{r, k.swz(s.swizzle, r, col)},
                                     b.getBoolAttr(false), b.getI32IntegerAttr(4));
  };
  for (int64_t mi = 0; mi < mt && !s.qInSharedMemory(); ++mi) {
    Value r0 = row[mi][0], r1 = row[mi][1];
    if (qTail) {
      r0 = arith::MinUIOp::create(b, loc, r0, k.idx(lq - 1));
      r1 = arith::MinUIOp::create(b, loc, r1, k.idx(lq - 1));
    }
    for (int64_t ks = 0; ks < d / 16; ++ks) {
      Value col = k.add(twoT, ks * 16);
      Value a = k.zeros(aType);
      a = k.insert(k.load(pair, Q, {batch, head, r0, col}), a, 0);
      a = k.insert(k.load(pair, Q, {batch, head, r1, col}), a, 1);
      a = k.insert(k.load(pair, Q, {batch, head, r0, k.add(col, 8)}), a, 2);
      a = k.insert(k.load(pair, Q, {batch, head, r1, k.add(col, 8)}), a, 3);
      qFrag[mi].push_back(a);
    }
  }

  // K/V tiles to visit. Causal: stop after the tile holding the last key
  // that the CTA's last query row sees (tiles above the diagonal skipped).
  const int64_t shift = s.causalBottomRight ? s.seqKV - s.seqQ : 0;
  // One past the last key tile (Lk rounded up to whole tiles).
  Value kvEnd = k.idx((lk + bkv - 1) / bkv * bkv);
  if (s.causal) {
    Value lastSeen = k.add(k.add(qStart, bq), shift); // one past the last key
    lastSeen = arith::MaxSIOp::create(b, loc, lastSeen, k.idx(0));
    Value tiles = arith::CeilDivUIOp::create(b, loc, lastSeen, k.idx(bkv));
    kvEnd = arith::MinUIOp::create(b, loc, k.mul(tiles, bkv), kvEnd);
  }
  const double negInf = -std::numeric_limits<double>::infinity();
  // Loop state: acc[mi][nd] (mt * dv/8 C tiles), then m[mi][r], then l[mi][r].
  const int64_t numAcc = mt * (dv / 8), mBase = numAcc, lBase = numAcc + 2 * mt;
  SmallVector<Value> init;
  for (int64_t i = 0; i < numAcc; ++i)
    init.push_back(k.zeros(cType));
  for (int64_t i = 0; i < 2 * mt; ++i)
    init.push_back(k.f(negInf));
  for (int64_t i = 0; i < 2 * mt; ++i)
    init.push_back(k.f(0.0));
  // Stage the K and V tiles that start at key `start` into stage `buf`,
  // 16 bytes per thread and step: cp.async (L1 bypassed) when double
  // buffering, plain vector loads and stores otherwise.
  auto stage = [&](Value start, Value buf) -> Value {
    SmallVector<Value> tokens;
    auto chunk = VectorType::get({8}, T);
    for (auto [src, tile, cols] : {std::tuple<Value, Value, int64_t>{K, kTile, d},
                                   std::tuple<Value, Value, int64_t>{V, vTile, dv}}) {
      int64_t chunksPerRow = cols / 8, total = bkv * chunksPerRow;
      for (int64_t i = 0; i < total / threads; ++i) {
        Value c = k.add(tid, i * threads);
        Value r = k.div(c, chunksPerRow), col = k.mul(k.rem(c, chunksPerRow), 8);
        // Owned storage: a ValueRange over a braced list would dangle.
        Value kvRow = k.add(start, r);
        if (kTail)
          kvRow = arith::MinUIOp::create(b, loc, kvRow, k.idx(lk - 1));
        SmallVector<Value> srcIdx{batch, kvHead, kvRow, col};
        if (s.doubleBuffer) {
          tokens.push_back(nvgpu::DeviceAsyncCopyOp::create(
              b, loc, tile, tileAt(buf, r, col), src, srcIdx,
              b.getIndexAttr(8),
              Value(), b.getUnitAttr()));
        } else {
          Value vec = k.load(chunk, src, srcIdx);
          vector::StoreOp::create(b, loc, vec, tile, tileAt(buf, r, col));
        }
      }
    }
    if (tokens.empty())
      return Value();
    return nvgpu::DeviceAsyncCreateGroupOp::create(b, loc, tokens).getResult();
  };
  if (s.doubleBuffer)
    stage(k.idx(0), k.idx(0)); // prologue: tile 0 into stage 0

  // Two f32 values rounded to the input type, as one 32-bit pair.
  auto toPair = [&](Value x0, Value x1) {
    Value y0 = arith::TruncFOp::create(b, loc, T, x0), y1 = arith::TruncFOp::create(b, loc, T, x1);
    return vector::FromElementsOp::create(b, loc, pair, ValueRange{y0, y1}).getResult();
  };

  // The mask tensor's entry for (row, key), read from global memory (it is
  // small or broadcast, and L1/L2 serve the re-reads) and applied to the
  // score x, which is already in the exp2 domain: an additive m becomes
  // m·log2(e), a keep mask -inf where false. Indices clamp like the loads.
  auto loadMask = [&](Value qRow, Value key) -> Value {
    auto at = [&](int dim, Value full, int64_t limit) -> Value {
      if (s.maskShape[dim] == 1)
        return k.idx(0);
      return arith::MinUIOp::create(b, loc, full, k.idx(limit - 1));
    };
    SmallVector<Value> idx{s.maskShape[0] == 1 ? k.idx(0) : batch,
                           s.maskShape[1] == 1 ? k.idx(0) : head, at(2, qRow, lq),
                           at(3, key, lk)};
    return memref::LoadOp::create(b, loc, M, idx);
  };
  auto applyMask = [&](Value x, Value m) -> Value {
    if (s.mask == FlashKernelSpec::Mask::Keep)
      return arith::SelectOp::create(b, loc, m, x, k.f(negInf));
    Value mf = arith::ExtFOp::create(b, loc, f32, m);
    return k.fadd(x, k.fmul(mf, k.f(M_LOG2E)));
  };
  // A mask that does not vary along the queries (a padding mask
  // [B, 1, 1, Lk]) is read once per key and shared by all of the lane's rows.
  const bool maskPerKey = hasMask && s.maskShape[2] == 1;

  // One loop over the K/V tiles in [lo, hi); `masked` adds the causal
  // element mask, which only the tiles crossing the diagonal need.
  auto emitLoop = [&](Value lo, Value hi, ValueRange loopInit, bool masked) {
  OpBuilder::InsertionGuard loopGuard(b);
  auto loop = scf::ForOp::create(b, loc, lo, hi, k.idx(bkv), loopInit);
  b.setInsertionPointToStart(loop.getBody());
  Value kvStart = loop.getInductionVar();
  ValueRange state = loop.getRegionIterArgs();
  SmallVector<Value> acc(state.begin(), state.begin() + numAcc);

  Value buf = k.idx(0);
  if (s.doubleBuffer) {
    // Prefetch tile j+1 into the other stage (the last iteration re-fetches
    // its own tile into the idle stage: branch-free, and nobody reads it),
    // then wait until only that newest group is in flight: tile j is here.
    Value tile = k.div(kvStart, bkv);
    buf = k.rem(tile, stages);
    Value next = arith::MinUIOp::create(b, loc, k.add(kvStart, bkv),
                                        arith::SubIOp::create(b, loc, kvEnd, k.idx(bkv)));
    Value nextBuf = stages == 2 ? arith::SubIOp::create(b, loc, k.idx(1), buf).getResult()
                                : k.rem(k.add(tile, 1), stages);
    Value group = stage(next, nextBuf);
    nvgpu::DeviceAsyncWaitOp::create(b, loc, group, b.getI32IntegerAttr(1));
  } else {
    stage(kvStart, buf);
  }
  // wgmma reads shared memory through the async proxy: make this thread's
  // cp.async and st.shared writes visible to it before the barrier.
  if (wg)
    k.ptx("fence.proxy.async.shared::cta;");
  gpu::BarrierOp::create(b, loc);

  // wgmma: S for the warpgroup's 64 rows and all bkv keys, d/16 k-steps
  // accumulated in the tensor cores, then waited for; the same C fragments
  // as mma.sync's, per 8 keys.
  SmallVector<Value> wgScores;
  Value descV;
  if (wg) {
    auto stageBytes = [&](int64_t cols) {
      return arith::IndexCastUIOp::create(b, loc, b.getI64Type(),
                                          k.mul(buf, bkv * cols * 2)).getResult();
    };
    Value descK = k.advanceDescriptor(descK0, stageBytes(d));
    NVVM::WgmmaFenceAlignedOp::create(b, loc);
    SmallVector<Value> sAcc;
    for (int64_t ks = 0; ks < d / 16; ++ks) {
      int64_t atom = ks / 4, within = (ks % 4) * 32;
      sAcc = k.wgmma(bkv, {}, k.advanceDescriptor(descQ, atom * bq * atomRowBytes + within),
                     k.advanceDescriptor(descK, atom * bkv * atomRowBytes + within),
                     /*transposeB=*/false, sAcc);
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
    // Also retires the previous tile's P·V when its wait was deferred.
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
    sAcc = k.fenceOperands(sAcc);
    if (s.deferPVWait)
      acc = fenceAccumulators(acc);
    wgScores = unflatten(sAcc);
    // The V descriptor of this stage, for P·V below.
    descV = k.advanceDescriptor(descV0, stageBytes(dv));
  }

  // S = Q·Kᵀ for this warp's rows and the tile's bkv keys: each K fragment
  // is loaded once and used by all mt m-tiles.
  const double scaleLog2 = s.scale * M_LOG2E; // exp(x·s) = exp2(x·s·log2 e)
  Value scaleV = k.f(scaleLog2);
  // Unmasked tiles keep the raw scores: the row max is taken on them and
  // scaled once per row (max commutes with a positive scale), and each
  // P = exp2(s·scale − m) is one FMA before the exp2 instead of a multiply
  // and a subtract. Masked tiles add the mask in the scaled domain. Only
  // at d = 128 (wgmma: 218 -> 210 registers): at d = 64 the reordering
  // costs two registers over 128 and with them the second CTA per SM.
  const bool rawScores = !masked && scaleLog2 > 0 && wg && dv > 64;
  // sv[mi][nb][r][e]: score of row row[mi][r], key kvStart + 8nb + 2t + e
  // (raw or scaled, per rawScores).
  using Quad = std::array<std::array<Value, 2>, 2>;
  SmallVector<SmallVector<Quad>> sv(mt, SmallVector<Quad>(bkv / 8));
  for (int64_t nb = 0; nb < bkv / 8; ++nb) {
    SmallVector<Value> c(mt);
    for (int64_t mi = 0; mi < mt; ++mi)
      c[mi] = wg ? wgScores[nb] : k.zeros(cType);
    Value keyRow = k.add(g, nb * 8);
    for (int64_t ks = 0; ks < d / 16 && !wg; ++ks) {
      Value col = k.add(twoT, ks * 16);
      Value bf = k.zeros(bType);
      bf = k.insert(k.load(pair, kTile, {buf, keyRow, k.swz(s.swizzle, keyRow, col)}), bf, 0);
      bf = k.insert(k.load(pair, kTile, {buf, keyRow, k.swz(s.swizzle, keyRow, k.add(col, 8))}),
                    bf, 1);
      for (int64_t mi = 0; mi < mt; ++mi)
        c[mi] = k.mma(qFragment(mi, ks), bf, c[mi]);
    }
    Value keyMask[2];
    if (masked && maskPerKey)
      for (int e = 0; e < 2; ++e)
        keyMask[e] = loadMask(Value(), k.add(k.add(kvStart, twoT), nb * 8 + e));
    for (int64_t mi = 0; mi < mt; ++mi)
      for (int r = 0; r < 2; ++r)
        for (int e = 0; e < 2; ++e) {
          Value x = k.extract(c[mi], r, e);
          if (!rawScores)
            x = k.fmul(x, scaleV);
          if (masked) {
            // Masked: the mask tensor, above the causal diagonal, or a key
            // past Lk.
            Value key = k.add(k.add(kvStart, twoT), nb * 8 + e);
            if (hasMask)
              x = applyMask(x, maskPerKey ? keyMask[e] : loadMask(row[mi][r], key));
            Value drop;
            if (s.causal) {
              Value limit = k.add(row[mi][r], shift);
              drop = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, key, limit);
            }
            if (kTail) {
              Value past = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, key,
                                                 k.idx(lk));
              drop = drop ? arith::OrIOp::create(b, loc, drop, past).getResult() : past;
            }
            if (drop)
              x = arith::SelectOp::create(b, loc, drop, k.f(negInf), x);
          }
          sv[mi][nb][r][e] = x;
        }
  }

  // Online softmax, per row (r = 0: row g, r = 1: row g + 8 of each m-tile).
  SmallVector<Value> mNew(2 * mt), lNew(2 * mt);
  for (int64_t mi = 0; mi < mt; ++mi) {
    Value alpha[2];
    for (int r = 0; r < 2; ++r) {
      Value mOld = state[mBase + 2 * mi + r], lOld = state[lBase + 2 * mi + r];
      Value m = sv[mi][0][r][0];
      for (int64_t nb = 0; nb < bkv / 8; ++nb)
        for (int e = 0; e < 2; ++e)
          if (nb || e)
            m = k.fmax(m, sv[mi][nb][r][e]);
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
      for (int64_t nb = 0; nb < bkv / 8; ++nb)
        for (int e = 0; e < 2; ++e) {
          Value x = sv[mi][nb][r][e];
          x = rawScores ? LLVM::FMAOp::create(b, loc, x, scaleV, negM).getResult()
                        : k.fsub(x, mSafe);
          sv[mi][nb][r][e] = k.exp2(x);
          rowSum = k.fadd(rowSum, sv[mi][nb][r][e]);
        }
      // l stays a per-lane partial sum; the quad reduces it once at the end.
      mNew[2 * mi + r] = mRow;
      lNew[2 * mi + r] = k.fadd(k.fmul(alpha[r], lOld), rowSum);
    }
    Value alphaVec = vector::FromElementsOp::create(
        b, loc, cType, ValueRange{alpha[0], alpha[0], alpha[1], alpha[1]});
    for (int64_t nd = 0; nd < dv / 8; ++nd)
      acc[mi * (dv / 8) + nd] = k.fmul(acc[mi * (dv / 8) + nd], alphaVec);
  }

  // O += P·V: P (rounded to the input type) is the A operand straight from
  // registers; V's B operand comes from shared memory through ldmatrix.trans,
  // once per mt m-tiles.
  Value laneRow = k.rem(lane, 16);
  if (wg) {
    // wgmma: O (64 x dv per warpgroup) += P (registers) · V (shared, read
    // MN-major), one instruction per 16 keys, waited for before the
    // barrier that frees the stage.
    // The rescaled accumulators are complete before wgmma.fence.
    // The rescaled accumulators are complete before wgmma.fence. P is
    // converted per k-step, between the wgmma's (ptxas then inserts a
    // warpgroup.arrive before each, note C7519); converting and pinning
    // all of P first was measured 3-5% slower at d = 128 and costs the
    // second CTA per SM at d = 64 (bench/NOTES.md, v11).
    SmallVector<Value> flat = k.fenceOperands(flatten(acc));
    NVVM::WgmmaFenceAlignedOp::create(b, loc);
    Type i32 = b.getI32Type();
    for (int64_t kk = 0; kk < bkv / 16; ++kk) {
      const auto &lo = sv[0][2 * kk], &hi = sv[0][2 * kk + 1];
      SmallVector<Value> aRegs;
      for (auto [x0, x1] : {std::pair{lo[0][0], lo[0][1]}, std::pair{lo[1][0], lo[1][1]},
                            std::pair{hi[0][0], hi[0][1]}, std::pair{hi[1][0], hi[1][1]}})
        aRegs.push_back(LLVM::BitcastOp::create(b, loc, i32, toPair(x0, x1)));
      flat = k.wgmma(dv, aRegs, Value(), k.advanceDescriptor(descV, kk * 16 * atomRowBytes),
                     /*transposeB=*/true, flat);
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
    if (!s.deferPVWait) {
      NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
      flat = k.fenceOperands(flat);
    }
    acc = unflatten(flat);
  }
  for (int64_t kk = 0; kk < bkv / 16 && !wg; ++kk) {
    SmallVector<Value> a(mt);
    for (int64_t mi = 0; mi < mt; ++mi) {
      const auto &lo = sv[mi][2 * kk], &hi = sv[mi][2 * kk + 1];
      a[mi] = k.zeros(aType);
      a[mi] = k.insert(toPair(lo[0][0], lo[0][1]), a[mi], 0);
      a[mi] = k.insert(toPair(lo[1][0], lo[1][1]), a[mi], 1);
      a[mi] = k.insert(toPair(hi[0][0], hi[0][1]), a[mi], 2);
      a[mi] = k.insert(toPair(hi[1][0], hi[1][1]), a[mi], 3);
    }
    Value vRow = k.add(laneRow, kk * 16);
    for (int64_t nd = 0; nd < dv / 8; ++nd) {
      Value vf = nvgpu::LdMatrixOp::create(
          b, loc, bType, vTile, ValueRange{buf, vRow, k.swz(s.swizzle, vRow, k.idx(nd * 8))},
          b.getBoolAttr(true), b.getI32IntegerAttr(2));
      for (int64_t mi = 0; mi < mt; ++mi)
        acc[mi * (dv / 8) + nd] = k.mma(a[mi], vf, acc[mi * (dv / 8) + nd]);
    }
  }
  // The next iteration overwrites the tiles.
  gpu::BarrierOp::create(b, loc);
  SmallVector<Value> yields(acc);
  yields.append(mNew.begin(), mNew.end());
  yields.append(lNew.begin(), lNew.end());
  scf::YieldOp::create(b, loc, yields);
  return loop;
  };

  // Causal: tiles wholly below the diagonal (last key <= first row + shift)
  // need no mask; only the tiles from `diagStart` on pay for it.
  // A partial last K/V tile (Lk % bkv != 0) is masked as well; a mask
  // tensor masks every tile.
  scf::ForOp loop;
  if (hasMask) {
    loop = emitLoop(k.idx(0), kvEnd, init, /*masked=*/true);
  } else if (s.causal || kTail) {
    Value maskedStart = k.idx(lk / bkv * bkv);
    if (s.causal) {
      Value firstMasked = k.add(k.add(qStart, shift), 1); // smallest masked key
      firstMasked = arith::MaxSIOp::create(b, loc, firstMasked, k.idx(0));
      Value diagStart = k.mul(k.div(firstMasked, bkv), bkv);
      maskedStart = arith::MinUIOp::create(b, loc, diagStart, maskedStart);
    }
    maskedStart = arith::MinUIOp::create(b, loc, maskedStart, kvEnd);
    scf::ForOp full = emitLoop(k.idx(0), maskedStart, init, /*masked=*/false);
    b.setInsertionPointAfter(full);
    loop = emitLoop(maskedStart, kvEnd, full.getResults(), /*masked=*/true);
  } else {
    loop = emitLoop(k.idx(0), kvEnd, init, /*masked=*/false);
  }

  // O = acc / l (0 where l = 0), written as pairs of the output type.
  b.setInsertionPointAfter(loop);
  // Retire the last (unused) prefetch before the CTA's shared memory goes.
  if (s.doubleBuffer)
    NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
  SmallVector<Value> finalAcc(loop.getResults().begin(), loop.getResults().begin() + numAcc);
  if (s.deferPVWait) {
    // The last tile's P·V is still in flight.
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
    finalAcc = fenceAccumulators(finalAcc);
  }
  for (int64_t mi = 0; mi < mt; ++mi) {
    Value inv[2];
    for (int r = 0; r < 2; ++r) {
      Value l = k.quadReduce(loop.getResult(lBase + 2 * mi + r), /*isMax=*/false);
      Value isZero = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, l, k.f(0.0));
      Value recip = arith::DivFOp::create(b, loc, k.f(1.0), l);
      inv[r] = arith::SelectOp::create(b, loc, isZero, k.f(0.0), recip);
    }
    for (int64_t nd = 0; nd < dv / 8; ++nd) {
      Value c = finalAcc[mi * (dv / 8) + nd];
      for (int r = 0; r < 2; ++r) {
        Value out = toPair(k.fmul(k.extract(c, r, 0), inv[r]),
                           k.fmul(k.extract(c, r, 1), inv[r]));
        OpBuilder::InsertionGuard storeGuard(b);
        if (qTail) {
          // Rows past Lq exist only in the last query tile: not stored.
          Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row[mi][r],
                                               k.idx(lq));
          auto guard = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
          b.setInsertionPointToStart(guard.thenBlock());
        }
        vector::StoreOp::create(b, loc, out, O,
                                ValueRange{batch, head, row[mi][r], k.add(twoT, nd * 8)});
      }
    }
  }
  gpu::ReturnOp::create(b, loc);
  return func;
}

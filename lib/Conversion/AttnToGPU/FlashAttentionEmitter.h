//===- FlashAttentionEmitter.h - the attention kernel as named stages -----===//
//
// Internal to lib/Conversion/AttnToGPU. The FlashAttention-2 forward kernel
// is emitted by one FlashAttentionEmitter whose members are the stages of the
// algorithm, in kernel order:
//
//   createKernel, bindSharedMemory                        (the CTA)
//   computeThreadCoordinates, computeTileCoordinates      (the thread's and
//     forEachWorkItem                                      its work item's
//                                                          place; persistent
//                                                          CTAs loop over items;
//                                                          WorkItems.cpp)
//   stageQ                                                (Q to registers or shared memory;
//     prefetchQueryTile                                    persistent: Q into L2 first)
//   computeKVRange, emitKVLoops                           (the CTA's K/V tiles, in
//                                                          runs; KVTileRanges.cpp)
//   KVProducer::prologue / acquire / drain                (produce K/V tiles)
//   TensorCoreFamily::issueScores / scoresBlock           (S = Q·Kᵀ)
//   maskAndScale, onlineSoftmax                           (mask, online softmax)
//     modifyScore, loadElement                            (a score_mod region;
//                                                          ScoreModInKernel.cpp)
//   TensorCoreFamily::accumulatePV                        (O += P·V)
//   epilogue                                              (O = acc / l, stores;
//     combineKeyWarps                                      the key warps'
//                                                          results combined;
//                                                          Epilogue.cpp)
//
// What depends on the tensor-core instruction lives behind TensorCoreFamily:
// the shared-memory layout of the staged tiles, how Q is held, the two GEMMs
// and the waits on their results. Its implementations are MmaSyncFamily
// (mma.sync.m16n8k16, sm_80+; MmaSyncFamily.cpp) and WgmmaFamily
// (wgmma.mma_async.m64nNk16, sm_90a; WgmmaFamily.cpp). Who fills the K/V
// stages lives behind KVProducer; CpAsyncProducer (KVProducer.cpp) is the
// cp.async double/triple buffer. A new variant (a TMA producer with warp
// specialization, split-KV decode with a combine step, d = 256) is a new
// implementation of one of these, or a new stage member, not a new lambda.
//
// Both families hand the emitter the same register layout: per warp, mt
// m16 tiles of query rows, S and O as mma.sync m16n8 C tiles
// (vector<2x2xf32>: rows g and g + 8, columns 2t and 2t + 1, g = lane / 4,
// t = lane % 4), so masking, softmax and the epilogue are shared.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_LIB_CONVERSION_ATTNTOGPU_FLASHATTENTIONEMITTER_H
#define ATTN_LIB_CONVERSION_ATTNTOGPU_FLASHATTENTIONEMITTER_H

#include "KernelBuilder.h"
#include "ScoreModInKernel.h"
#include "attn/Conversion/AttnToGPU/AttnToGPU.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <array>
#include <limits>
#include <memory>
#include <optional>

namespace mlir {
namespace attn {

/// −∞: the running row max before any key, and a masked score.
inline constexpr double negInf = -std::numeric_limits<double>::infinity();

/// The values every stage reads, set by the emitter's first stages.
struct KernelValues {
  /// Kernel parameters: Q, K, V, O as [B, H, L, d]; M the mask (or null).
  /// Split-KV: O is the partial outputs [S, B, Hq, Lq, dv] (f32) and
  /// rowStats each row's (m, ℓ) [S, B, Hq, Lq, 2] (f32; SplitKVCombine.cpp).
  Value Q, K, V, O, M, rowStats;
  /// Paged KV cache: the block table [B, maxPages] and sequence lengths [B].
  Value blockTable, seqLens;
  /// Varlen: the cumulative sequence lengths cu_q, cu_k [B + 1].
  Value cuSeqlensQ, cuSeqlensK;
  /// Shared memory: the K and V stages, and the Q tile when it is staged;
  /// `smem` the dynamic buffer they are views of (null when static).
  Value kTile, vTile, qTile, smem;
  /// TMA loads: the K and V tensor maps (generic pointers to global memory,
  /// kernel parameters) and the stages' mbarriers ([stages] i64 in shared
  /// memory).
  Value kTensorMap, vTensorMap, stageFull;
  /// Producer warpgroup: the mbarriers on which the consumers report each
  /// stage empty.
  Value stageEmpty;
  /// FlashKernelSpec::separatesKVBarriers: V's "full" and "empty"
  /// mbarriers ([stages] i64 each); stageFull and stageEmpty are then K's.
  Value stageFullV, stageEmptyV;
  /// 8-bit inputs (FlashKernelSpec::transposesV): the Vᵀ stages (in place
  /// of V's), bytes [stages, ⌈bkv/128⌉, dv, 128] in the 128-byte swizzle,
  /// each 32 keys permuted (VTransposeKernel.cpp).
  Value vtTile;
  /// FP8 with descale factors: q_descale·k_descale (multiplies the scores'
  /// scale) and v_descale (multiplies O); null without them.
  Value scoreDescale, outputDescale;
  /// The thread in its CTA: lane = tid % 32, g = lane / 4, t = lane % 4;
  /// `warp` its warp along the query rows.
  Value tid, warp, lane, g, t, twoT;
  /// Key warps (FlashKernelSpec::kvWarps > 1): the warp's index along the
  /// keys and the first key of its slice of every tile (null with one warp
  /// per row slice). `laneKey`: the lane's first key in a tile's slice,
  /// 2t (+ warpKey0).
  Value keyWarp, warpKey0, laneKey;
  /// The CTA's work: batch, query head (null when the CTA packs a K/V
  /// head's group), K/V head, first row of its tile in the row space
  /// (FlashKernelSpec::numRows), and its split of the keys (null: none).
  Value batch, head, kvHead, qStart, split;
  /// row[mi][r]: the query row of this lane's C-fragment row r (g or g + 8)
  /// in the warp's m-tile mi, and rowHead[mi][r] its query head. Rows past
  /// the row space are clamped to its last row (loads stay in bounds);
  /// rowInside[mi][r] says which are real (set only with a row tail).
  SmallVector<std::array<Value, 2>> row, rowHead, rowInside;
  /// The (i, h) a score_mod region sees: row/rowHead before the clamp.
  SmallVector<std::array<Value, 2>> modRow, modRowHead;
  /// The queries the tile holds: [qFirst, qEnd).
  Value qFirst, qEnd;
  /// The keys the CTA visits: [kvBegin, kvEnd), whole tiles (the last tile
  /// may reach past Lk, whose keys are masked).
  Value kvBegin, kvEnd;
  /// The keys of the CTA's sequence (Lk, or the paged or varlen sequence's
  /// length, read at run time), and the causal shift: query q sees keys <=
  /// q + shift (Lk − Lq for bottom_right, else 0).
  Value kvLen, causalShift;
  /// Persistent CTAs (FlashKernelSpec::persistentCTAs): how many K/V tiles
  /// the CTA's stage ring held before this work item's first (null: one
  /// work item per CTA).
  Value ringBase;
  /// Varlen (locateSequence): the sequence's queries and its rows
  /// (packedHeads · queries), and its first query and key token in the
  /// packed tensors.
  Value qLen, numRows, qTokenBase, kvTokenBase;
};

/// What the stages share: the spec, the op builder, the values above and
/// the kernel's fixed sizes.
struct KernelContext {
  KernelContext(OpBuilder &b, Location loc, const FlashKernelSpec &spec);
  /// The place of the tile that starts at key `start` among the tiles the
  /// CTA's stage ring has held: its index from the work item's first tile,
  /// plus, with persistent CTAs, the tiles of the CTA's earlier work items.
  Value tileOrdinal(Value start) {
    Value n = k.div(arith::SubIOp::create(k.b, k.loc, start, v.kvBegin), bkv);
    return v.ringBase ? k.add(v.ringBase, n) : n;
  }
  /// The K/V stage of the tile that starts at key `start` (the producers
  /// fill, the GEMMs read, it): tile t of the keys lives in stage t mod
  /// stages, and a persistent CTA's n-th tile in stage n mod stages, so
  /// that the ring runs on across work items. Its fill of the stage,
  /// fillOf, gives the mbarrier phase it completes.
  Value stageOf(Value start) {
    return v.ringBase ? k.rem(tileOrdinal(start), stages) : k.rem(k.div(start, bkv), stages);
  }
  Value fillOf(Value start) { return k.div(tileOrdinal(start), stages); }
  /// Whether the tile at key `start` follows another tile of the work item
  /// (start > kvBegin), and that tile's first key, start − bkv (meaningful
  /// only when it does): the tile whose V stage the overlapped loop
  /// releases in this one.
  Value hasPreviousTile(Value start) {
    return arith::CmpIOp::create(k.b, k.loc, arith::CmpIPredicate::ugt, start, v.kvBegin);
  }
  Value previousTileStart(Value start) {
    return arith::SubIOp::create(k.b, k.loc, start, k.idx(bkv));
  }
  /// The tile whose V the overlapped P·V issued with the tile at `start`
  /// reads: the previous one, or, for the work item's first where it is
  /// not peeled (FlashKernelSpec::peelsFirstTile), its own, which a zero
  /// P multiplies (so it must be loaded: finite).
  Value pvTileStart(Value start) {
    Value hasPrevious = hasPreviousTile(start);
    return arith::SelectOp::create(k.b, k.loc, hasPrevious, previousTileStart(start), start);
  }
  /// Whether the work item visits any K/V tile (kvBegin < kvEnd), and
  /// the first key of the last one it visits, kvBegin + ⌊(kvEnd − kvBegin −
  /// 1) / bkv⌋ · bkv (meaningful only when it visits one).
  Value visitsTiles() {
    return arith::CmpIOp::create(k.b, k.loc, arith::CmpIPredicate::ult, v.kvBegin, v.kvEnd);
  }
  Value lastTileStart() {
    Value span = arith::SubIOp::create(k.b, k.loc, v.kvEnd, v.kvBegin);
    span = arith::SubIOp::create(k.b, k.loc, span, k.idx(1));
    return k.add(v.kvBegin, k.mul(k.div(span, bkv), bkv));
  }

  const FlashKernelSpec &s;
  KernelBuilder k;
  KernelValues v;
  MLIRContext *ctx;
  Type T, f32;
  /// warpKeys: the keys of a tile one warp computes on (bkv / kvWarps).
  int64_t d, dv, bq, bkv, warpKeys, threads, mt, lq, lk, stages;
  /// The k-steps of Q·Kᵀ: d rounded up to the MMA's k = 16. With d an odd
  /// multiple of 8 the staged Q and K tiles' 8 columns past d hold zeros
  /// (zeroHeadDimPadding), so the last k-step adds nothing from them.
  int64_t kSteps;
  /// Sequence lengths need not be multiples of the tiles: loads clamp their
  /// row to the last valid one, keys past Lk are masked, rows past the row
  /// space are computed on clamped data and not stored. A paged sequence's
  /// length is known at run time only: kTail holds, and its keys past the
  /// length are zero-filled, not clamped (kvLen).
  bool qTail, kTail, hasMask;
  /// Query heads per row space (FlashKernelSpec::packedHeads).
  int64_t packed;
  /// The fragment types of mma.sync.m16n8k16 (f16/bf16 A and B, f32 C), and
  /// two elements of the input type (one 32-bit register).
  VectorType aType, bType, cType, pair;
  Attribute workgroup;

  /// The indices of column `col` of query `q` (of the CTA's sequence) and
  /// head `head` in Q or O: [b, h, q, col], or, varlen, [token, h, col]
  /// with the token clamped into the packed tensor.
  SmallVector<Value> queryAt(Value q, Value head, Value col);
  /// Likewise in K or V for key `key` of the K/V head: [b, kvHead, key,
  /// col] (`key` in bounds), or [token, kvHead, col] (varlen; the token
  /// clamped unless `inSequence`: a key of the sequence is in the tensor).
  SmallVector<Value> keyAt(Value key, Value col, bool inSequence = false);
};

/// Scores of one K/V tile for this lane: p[mi][nb][r][e] is the score (then
/// the probability) of row row[mi][r] and key kvStart + laneKey + 8nb + e
/// (nb < warpKeys / 8).
using ScoreQuad = std::array<std::array<Value, 2>, 2>;
using ScoreTile = SmallVector<SmallVector<ScoreQuad>>;

/// A tensor-core instruction family: how the staged tiles are laid out in
/// shared memory, how Q is held, and the two GEMMs of a K/V tile. The
/// emitter calls the hooks in kernel order; the accumulators `acc` are
/// mt * dv / 8 C tiles (m-tile major) in both families.
class TensorCoreFamily {
public:
  explicit TensorCoreFamily(KernelContext &c) : c(c), k(c.k), s(c.s) {}
  virtual ~TensorCoreFamily() = default;

  //===--- staging layout ---------------------------------------------===//
  /// The memref type of a staged tile of `rows` x `cols` (with a leading
  /// stage dimension when `numStages` is given).
  virtual MemRefType tileType(std::optional<int64_t> numStages, int64_t rows,
                              int64_t cols) const = 0;
  /// The indices of logical element (row, col) of a tile ([buf] first when
  /// the tile is staged), `col` a multiple of 8 or an ldmatrix column.
  virtual SmallVector<Value> tileAt(Value buf, Value row, Value col) = 0;

  //===--- Q ----------------------------------------------------------===//
  /// Before the Q tile is staged (KernelValues are set): operand
  /// descriptors, or Q fragments loaded into registers.
  virtual void prepareOperands() {}

  //===--- S = Q·Kᵀ ---------------------------------------------------===//
  /// Before the barrier that publishes a filled stage to the GEMMs.
  virtual void beforeStageBarrier() {}
  /// Issues the scores GEMM of the tile in stage `buf`, if this family
  /// computes it for the whole tile at once (and retires a deferred P·V,
  /// whose accumulators `acc` it then re-pins).
  virtual void issueScores(Value buf, SmallVectorImpl<Value> &acc) {}
  /// S for keys 8nb..8nb+7 of the tile: one C tile per m-tile. The emitter
  /// masks each block as it comes, so a family that multiplies per block
  /// (mma.sync) keeps its products next to their use.
  virtual SmallVector<Value> scoresBlock(int64_t nb, Value buf) = 0;
  /// Whether unmasked tiles keep raw scores (the scale folded into one FMA
  /// before exp2) rather than scaling each score: a register trade-off
  /// measured per family.
  virtual bool keepsRawScores() const { return false; }

  //===--- O += P·V ---------------------------------------------------===//
  /// O += P·V for the tile in stage `buf`, P from registers.
  virtual void accumulatePV(const ScoreTile &p, Value buf, SmallVectorImpl<Value> &acc) = 0;
  /// The loop's initial O accumulators (`tiles` C tiles) and packed P
  /// (`packedP` i32), all zero: constants, unless the family needs each
  /// in a register of its own.
  virtual std::pair<SmallVector<Value>, SmallVector<Value>> zeroState(int64_t tiles,
                                                                      int64_t packedP);
  /// After the loop: the accumulators, complete.
  virtual void retireAccumulators(SmallVectorImpl<Value> &acc) {}

  //===--- overlapped P·V (FlashKernelSpec::overlapPV; wgmma) ----------===//
  /// P as the A-operand registers of P·V: 4 x i32 per 16 keys (bf16/f16
  /// pairs) or per 32 keys (e4m3 quadruples, 8-bit V), the loop state that
  /// carries it to the next tile.
  virtual SmallVector<Value> packP(const ScoreTile &p) { llvm_unreachable("no overlapped P·V"); }
  /// Issues S for the tile in stage `buf`, then O += P_prev · V(stage
  /// `prevBuf`) behind it, and waits for S only; `acc` are then in flight
  /// until waitPV. With `prevP` empty (a work item's first tile), S alone.
  virtual void issueScoresThenPV(Value buf, ArrayRef<Value> prevP, Value prevBuf,
                                 SmallVectorImpl<Value> &acc) {
    llvm_unreachable("no overlapped P·V");
  }
  /// Before the first issueScoresThenPV: the second warpgroup hands the
  /// first its turn (the two issue their GEMMs in alternation).
  virtual void startIssueTurns() { llvm_unreachable("no overlapped P·V"); }
  /// Waits for the P·V issued by issueScoresThenPV; `acc` re-pinned.
  virtual void waitPV(SmallVectorImpl<Value> &acc) { llvm_unreachable("no overlapped P·V"); }
  /// O += P · V(stage `buf`), P packed, waited for (the last tile's).
  virtual void accumulatePackedPV(ArrayRef<Value> packed, Value buf,
                                  SmallVectorImpl<Value> &acc) {
    llvm_unreachable("no overlapped P·V");
  }

protected:
  /// Swizzled atoms (FlashKernelSpec::atomTiles): [atoms, rows, 64] per
  /// stage, 64-column atoms of 128-byte rows whose 16-byte chunks are
  /// permuted by chunk ^ (row % 8), as TMA's 128-byte swizzle writes them
  /// and wgmma's descriptors read them.
  MemRefType atomTileType(std::optional<int64_t> numStages, int64_t rows, int64_t cols) const;
  SmallVector<Value> atomTileAt(Value buf, Value row, Value col);

  KernelContext &c;
  KernelBuilder &k;
  const FlashKernelSpec &s;
};

/// The memref type of the Vᵀ stages (KernelValues::vtTile).
MemRefType transposedVTileType(const KernelContext &c);

std::unique_ptr<TensorCoreFamily> createMmaSyncFamily(KernelContext &c);
std::unique_ptr<TensorCoreFamily> createWgmmaFamily(KernelContext &c);

/// Who fills the K/V stages in shared memory.
class KVProducer {
public:
  KVProducer(KernelContext &c, TensorCoreFamily &family) : c(c), k(c.k), family(family) {}
  virtual ~KVProducer() = default;
  /// Before the K/V loops.
  virtual void prologue() = 0;
  /// At the top of an iteration of a K/V loop: the stage that holds the
  /// tile starting at key `kvStart` once the barrier after it has passed.
  /// `mayEndKeys`: whether the loop's run of tiles may hold the tile where
  /// the keys end (its masked run), the only one that can reach past them.
  virtual Value acquire(Value kvStart, bool mayEndKeys) = 0;
  /// After the K/V loops, before the CTA's shared memory goes.
  virtual void drain() = 0;
  /// Whether a tile acquired by each thread is published to all by a CTA
  /// barrier (cp.async: each thread waits for its own copies), which also
  /// orders the family's async-proxy reads after them; false when acquire
  /// itself waits for the whole tile (an mbarrier).
  virtual bool publishesWithBarrier() const { return true; }
  /// Whether the prologue's barrier orders every thread's stores of the
  /// staged Q tile before the loops (TMA); else only the first
  /// iteration's barrier does (cp.async), which a CTA without K/V tiles
  /// never reaches.
  virtual bool publishesQBeforeLoops() const { return false; }
  /// Whether the producer runs in warps of its own, after the computing
  /// warps (KernelConfig::producerWarpgroup).
  virtual bool specializesWarps() const { return false; }
  /// Producer warps only, before anything else: branches on the warp's
  /// role; the producer warps fill the stages with the tiles of each work
  /// item `overWork` visits (it calls its argument once per item, with
  /// the item's K/V range set) and return, the computing warps go on at
  /// the insertion point.
  virtual void splitRoles(gpu::GPUFuncOp func,
                          function_ref<void(function_ref<void()>)> overWork) {}
  /// At the end of the iteration over the tile at `kvStart`: this thread
  /// is done with the stages it reads (a P·V whose wait is deferred
  /// excepted). By default a CTA barrier, after which the next iteration's
  /// acquire may refill any stage not still being read.
  virtual void releaseStage(Value kvStart);
  /// Once the Q·Kᵀ of the tile at `kvStart` is waited for (overlapPV):
  /// this thread is done with its K, which the producer may then refill
  /// while the V is still to be read (FlashKernelSpec::separatesKVBarriers).
  virtual void releaseKeys(Value kvStart) {}
  /// Before the P·V of the work item's last tile, after the loops
  /// (overlapPV): its V has landed. (In the loops acquire waits for the V
  /// of the P·V each iteration issues.)
  virtual void awaitLastValues() {}
  /// Once the work item's last P·V is complete: a persistent CTA's
  /// producer may refill the stage a deferred release still holds.
  virtual void releaseLastStage() {}

protected:
  KernelContext &c;
  KernelBuilder &k;
  TensorCoreFamily &family;
};

std::unique_ptr<KVProducer> createCpAsyncProducer(KernelContext &c, TensorCoreFamily &family);
/// TMA boxes issued by one thread, an mbarrier per stage (wgmma's atoms;
/// TmaProducer.cpp).
std::unique_ptr<KVProducer> createTmaProducer(KernelContext &c, TensorCoreFamily &family);

/// The kernel, stage by stage (FlashAttentionEmitter.cpp).
class FlashAttentionEmitter {
public:
  FlashAttentionEmitter(KernelContext &c, TensorCoreFamily &family, KVProducer &producer)
      : c(c), k(c.k), b(c.k.b), loc(c.k.loc), s(c.s), v(c.v), family(family),
        producer(producer) {}
  gpu::GPUFuncOp emit(gpu::GPUModuleOp module);

private:
  /// The gpu.func and its parameters (static shared-memory tiles included).
  gpu::GPUFuncOp createKernel(gpu::GPUModuleOp module);
  /// The K/V (and Q) tiles: views of the dynamic buffer or the static ones.
  void bindSharedMemory(gpu::GPUFuncOp func);
  /// The thread's warp, lane and fragment coordinates.
  void computeThreadCoordinates();
  /// The work item's (batch, head, query tile, split) from its query tile
  /// `qTileIdx` and batch · head `bh`, and the thread's rows in it.
  void computeTileCoordinates(Value qTileIdx, Value bh);
  /// `body` once per work item of the CTA, with the item's coordinates
  /// and K/V range set: the CTA's own, or, with persistent CTAs, items
  /// blockIdx.x, blockIdx.x + grid, ..., carrying the stage ring's count.
  void forEachWorkItem(function_ref<void()> body);
  /// The computing warps of a persistent CTA: every work item's Q tile,
  /// K/V loops and epilogue.
  void emitPersistentConsumer();
  /// Varlen: the CTA's sequence from its flat tile index (binary search
  /// over the sequences' first tiles) and the sequence's extents.
  void locateSequence(Value tileIdx);
  /// The (query, query head) of row `rho` of the row space, in bounds
  /// (rows past it clamped to its last), or without the clamp.
  std::pair<Value, Value> rowCoordinates(Value rho, bool clamp = true);
  /// Zeros in the 8 columns past d of every staged K tile and of the Q
  /// tile, when d is an odd multiple of 8: no copy writes them, and the
  /// last k-step of Q·Kᵀ reads them.
  void zeroHeadDimPadding();
  /// The CTA's Q tile into shared memory when it is staged there.
  void stageQ();
  /// Persistent CTAs, the producer's thread: the work item's Q rows into
  /// L2 (cp.async.bulk.prefetch), ahead of the computing warps' stageQ.
  void prefetchQueryTile();
  /// v.kvEnd: the K/V tiles to visit (causal: up to the diagonal).
  void computeKVRange();
  /// The K/V loops (a score_mod's lower edge, tiles inside every bound,
  /// then masked tiles) from the initial state; with overlapPV, after the
  /// work item's first tile, peeled (peelFirstTile).
  scf::ForOp emitKVLoops();
  struct TileRuns;
  /// overlapPV: the work item's first tile, which has no previous tile's
  /// P·V to issue behind its S, before the loops (the state unchanged
  /// where the item visits no tile), with the math of the run of `runs`
  /// that holds it. A zero P·V in the loop's first iteration instead cost
  /// a whole tile's P·V of tensor time per item (1/16 of the GEMMs at 8
  /// tiles).
  SmallVector<Value> peelFirstTile(ValueRange init, const TileRuns &runs);
  /// One K/V tile at `kvStart` from `state`: its stage acquired, the math
  /// (emitTileMath) and its stage released. Returns the state to yield.
  SmallVector<Value> emitTile(Value kvStart, ValueRange state, bool masked, bool inside,
                              bool first);
  /// The K/V loops' runs of tiles, [begin, insideBegin), [insideBegin,
  /// insideEnd), [insideEnd, end) (emitKVLoops says what each applies);
  /// `masked`: whether the last run may hold tiles (else it is emitted
  /// not at all).
  struct TileRuns {
    Value begin, insideBegin, insideEnd, end;
    bool masked;
    /// Every run from `start` on (a peeled first tile before it).
    void startAfter(KernelBuilder &k, Value start);
  };
  TileRuns tileRuns();
  /// The first tile wholly above every row's lowest score_mod key.
  Value firstTileInsideLowestKey();
  /// The first tile some row must mask (causal, Lk, the score_mod's
  /// highest key), or null when no tile needs more than the loop's run.
  Value firstTileNeedingMasks();
  /// One loop over the K/V tiles in [lo, hi); `masked` applies the masks,
  /// `inside` (tiles wholly inside the score_mod's key bounds) only the
  /// region's inside value.
  scf::ForOp emitKVLoop(Value lo, Value hi, ValueRange init, bool masked, bool inside);
  /// The scores of the tile in stage `buf` at key `kvStart`, through the
  /// score_mod region's value `modResult` (null: none), scaled (unless
  /// `rawScores`) and masked when `masked`.
  ScoreTile maskAndScale(Value kvStart, Value buf, bool masked, bool rawScores, Value scaleV,
                         Value modResult);
  /// Narrows [kvBegin, kvEnd) to the keys the score_mod can keep.
  void skipTilesOutsideScoreModBounds();
  /// One score (scaled, natural domain) through the op's score_mod region,
  /// copied in with the lane's indices.
  Value modifyScore(Value score, int64_t mi, int r, Value key, Value modResult);

  /// One score after the mask tensor, the causal diagonal and Lk.
  Value maskScore(Value x, int64_t mi, int r, Value key, Value keyMask);
  /// The mask tensor's entry for (query row, query head, key).
  Value loadMask(Value qRow, Value qHead, Value key);
  /// Online softmax on `p` (scores in, probabilities out): the new row
  /// maxima and partial sums, `acc` rescaled.
  /// With `deferredRescale`, `acc` is left alone and the rescale factors
  /// (one C-tile-shaped vector per m-tile) are returned there instead.
  void onlineSoftmax(ScoreTile &p, ValueRange state, bool rawScores, Value scaleV,
                     SmallVectorImpl<Value> &acc, SmallVectorImpl<Value> &mNew,
                     SmallVectorImpl<Value> &lNew,
                     SmallVectorImpl<Value> *deferredRescale = nullptr);
  /// The GEMMs of one K/V iteration in program order: S, softmax, P·V
  /// (waited before the stage is released), or, with overlapPV, S then the
  /// previous tile's P·V, softmax, the P·V wait and O's rescale (the
  /// `first` tile of a work item: S alone). Returns the loop state to
  /// yield.
  SmallVector<Value> emitTileMath(Value kvStart, Value buf, ValueRange state, bool masked,
                                  bool inside, bool first);
  /// overlapPV: the last tile's P·V, after the loops (none when the CTA
  /// visited no tile); the accumulators complete.
  void finishOverlappedPV(scf::ForOp loop, SmallVectorImpl<Value> &acc);
  /// Whether q_descale·k_descale's sign goes into the staged Q: an 8-bit
  /// float's sign bit flips exactly (NaN stays NaN), so the scores come out
  /// negated and the scale times |q_descale·k_descale| is never negative:
  /// unmasked tiles may then keep raw scores (their row max commutes with
  /// the scale), as without descale factors.
  bool signInQ() const { return v.scoreDescale && s.qInSharedMemory(); }
  /// |q_descale·k_descale| when signInQ, else the signed product.
  Value scoreDescaleMagnitude();
  /// A 16-byte chunk of Q with its signs flipped when q_descale·k_descale
  /// is negative.
  Value flipSigns(Value chunk);

  /// O = acc / l (0 where l = 0), stored as pairs of the output type; with
  /// split-KV, in f32 with the row's log2-sum-exp beside it.
  void epilogue(scf::ForOp loop);
  /// 8 output columns of the lane's rows: the first of its column pair,
  /// and one unnormalized C tile per m-tile.
  struct OutputBlock {
    Value col;
    SmallVector<Value> tiles;
  };
  /// Per row (mi, r) of the lane: the maximum (exp2 domain) and the sum of
  /// the CTA's probabilities.
  struct RowTotals {
    SmallVector<std::array<Value, 2>> m, l;
  };
  /// Key warps: the warps' (acc, m, l) combined exactly through shared
  /// memory; returns this warp's share of O's columns, and sets `totals`.
  SmallVector<OutputBlock> combineKeyWarps(scf::ForOp loop, SmallVectorImpl<Value> &acc,
                                           RowTotals &totals);
  /// One pair of O's columns (col, col + 1) of the lane's row (mi, r): to
  /// global memory, or, outputThroughSharedMemory, to the Q tile.
  void storeOutputPair(int64_t mi, int r, Value col, Value pair);
  /// outputThroughSharedMemory: each warp's rows of O from the Q tile to
  /// global memory in 16-byte stores.
  void copyOutputRows();
  /// The CTA tile's row of the lane's C-fragment row (mi, r).
  Value tileRowOf(int64_t mi, int r);
  /// The end of the CTA's row space: its rows at or past it are not stored
  /// (varlen: the sequence's rows, read at run time).
  Value rowSpaceEnd() { return s.varlen ? v.numRows : k.idx(s.numRows()); }
  /// Runs `store` under the row-tail guard of row (mi, r), and, when
  /// `firstOfQuad`, only in the quad's first lane.
  void storeRow(int64_t mi, int r, bool firstOfQuad, function_ref<void()> store);

  KernelContext &c;
  KernelBuilder &k;
  OpBuilder &b;
  Location loc;
  const FlashKernelSpec &s;
  KernelValues &v;
  TensorCoreFamily &family;
  KVProducer &producer;
  /// Loop state layout: acc (numAcc C tiles), then m[mi][r], then l[mi][r],
  /// then (overlapPV) the previous tile's packed P (numPacked i32).
  int64_t numAcc = 0, mBase = 0, lBase = 0, pBase = 0, numPacked = 0;
  /// The score_mod's copies (its tensors' parameters bound by createKernel;
  /// declared after b, loc and s, which it is built from).
  ScoreModCopier scoreMods{b, loc, s};
};

} // namespace attn
} // namespace mlir

#endif // ATTN_LIB_CONVERSION_ATTNTOGPU_FLASHATTENTIONEMITTER_H

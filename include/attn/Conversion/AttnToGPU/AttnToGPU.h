//===- AttnToGPU.h - attn.attention -> GPU kernels --------------*- C++ -*-===//
#ifndef ATTN_CONVERSION_ATTNTOGPU_ATTNTOGPU_H
#define ATTN_CONVERSION_ATTNTOGPU_ATTNTOGPU_H

#include <algorithm>
#include <array>
#include <optional>

#include "attn/Analysis/PersistentSchedule.h"
#include "attn/Analysis/StagedTileLayout.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include <string>

namespace mlir {
namespace gpu {
class GPUFuncOp;
class GPUModuleOp;
} // namespace gpu
namespace attn {

/// The discardable attribute on the top-level module that holds the launch
/// manifest of every kernel --attn-lower-to-gpu built: a DictionaryAttr from
/// each kernel's gpu.module symbol to its manifest, a DictionaryAttr that
/// --attn-dump-gpu-kernels writes out as `<kernel>.json`.
///
/// Why the module and not the gpu.func or gpu.module: gpu-module-to-binary
/// (the end of the upstream gpu-lower-to-nvvm-pipeline) replaces each
/// gpu.module by a gpu.binary and keeps none of the discardable attributes
/// of the gpu.module or of its functions, while the top-level module's
/// attributes pass through every upstream pass. The gpu.binary keeps the
/// gpu.module's symbol, since the gpu.launch_func ops still refer to it by
/// that name, so the symbol is the key that survives serialization.
inline constexpr llvm::StringLiteral kLaunchManifestsAttrName =
    "attn.launch_manifests";

/// The L2 promotion of every TMA tensor map the kernels read through: none.
/// Each box row is one whole 128-byte line (a 64-column atom of 2-byte
/// elements), so promoting a request to 256 bytes only makes L2 fetch the
/// other half of a 256-byte K/V row early and apart from the box that wants
/// it: measured 6.3-6.8% slower on the B >= 8 decode kernels, within noise
/// on prefill (bench/NOTES.md v36e/v36f). The manifest states it per map
/// (`l2_promotion`) for the runtimes, which encode the maps.
inline constexpr llvm::StringLiteral kTensorMapL2Promotion = "none";

/// What a kernel generator needs to know about one attention.
struct FlashKernelSpec {
  std::string name;
  /// The GPU (--attn-io-cost preset) the kernel was chosen and costed for:
  /// the tensor-core kernels' config comes from its SM count and
  /// bandwidths. Empty where nothing costed the op.
  std::string chosenFor;
  int64_t batch = 1, headsQ = 1, headsKV = 1, seqQ = 0, seqKV = 0;
  int64_t headDim = 0, headDimV = 0;
  /// Q, K and V's type: f16 or bf16 (tensor cores); also f32 and the
  /// 8-bit floats (the generic kernel).
  Type elementType;
  /// O's type: the inputs' unless they are 8-bit floats (f16, bf16 or f32).
  Type outputType;
  double scale = 1.0;
  /// FP8 inputs with descale factors (attn.attention's `descale`): three
  /// f32 scalars in device memory, parameters after the score_mod's
  /// tensors; the scores are scaled by q·k's and O by v's.
  bool descale = false;
  bool causal = false;
  bool causalBottomRight = false;
  /// A mask tensor, the kernel's fifth parameter, as [MB, MH, MQ, MK] with
  /// each extent 1 (broadcast) or the full one: additive (the input element
  /// type, added to the scores) or keep (i1, -inf where false).
  enum class Mask { None, Additive, Keep } mask = Mask::None;
  SmallVector<int64_t, 4> maskShape;
  /// i1 for a keep mask; an additive mask's float type (the inputs' for
  /// the tensor-core kernels, any float up to f32 for the generic one).
  Type maskElementType;
  /// The tensor-core instruction family. mma.sync.m16n8k16 runs on sm_80
  /// and later; Hopper's wgmma.mma_async (sm_90a) lets a warpgroup of 4
  /// warps multiply 64 query rows by a whole K/V tile per instruction with
  /// both operands read from shared memory (Q·Kᵀ) or A from registers (P·V).
  /// None: the generic kernel (buildGenericAttentionKernel), f32 on the
  /// CUDA cores, for what neither family takes; blockQ is then its rows
  /// (one per warp), and it stages nothing in shared memory.
  enum class TensorCore { MmaSync, Wgmma, None } tensorCore = TensorCore::MmaSync;
  bool wgmma() const { return tensorCore == TensorCore::Wgmma; }
  bool generic() const { return tensorCore == TensorCore::None; }
  static StringRef tensorCoreName(TensorCore t) {
    return t == TensorCore::Wgmma ? "wgmma" : t == TensorCore::None ? "none" : "mma.sync";
  }
  int64_t blockQ = 64;
  int64_t blockKV = 64;
  /// Query rows per warp: 16 (one m16 tile) or 32 (two; every K/V fragment
  /// loaded from shared memory then feeds two mma's).
  int64_t rowsPerWarp = 16;
  /// Place the K/V stages in dynamic shared memory (sized at launch) rather
  /// than static workgroup buffers, which are capped at 48 KB per CTA.
  bool dynamicSharedMemory = false;
  /// wgmma only: the P·V of tile j is waited for after the S = Q·Kᵀ of
  /// tile j+1 has been issued, so the tensor cores run P·V across the
  /// barrier and the copy wait instead of draining before them. Tile j's
  /// stage is then still being read while tile j+1 is prefetched: a third
  /// stage.
  bool deferPVWait = false;
  /// wgmma with a producer warpgroup: the P·V of tile j is issued right
  /// behind tile j+1's S = Q·Kᵀ, and waited for only after tile j+1's
  /// softmax, so the tensor cores multiply while the warpgroup computes
  /// exponentials (FlashAttention-3 §3.2, intra-warpgroup pipelining). P of
  /// the previous tile is loop state (packed, bkv / 4 registers), O is
  /// rescaled once its P·V is done, and the last tile's P·V follows the
  /// loops (KernelConfig::overlapPV).
  bool overlapPV = false;
  /// A stage's K and V each on a "full" and an "empty" mbarrier of their
  /// own (StagedTileLayout.h, separateKVBarriers; TmaProducer.cpp).
  bool separatesKVBarriers() const {
    return separateKVBarriers(producerWarpgroup, overlapPV, kvStages);
  }
  /// overlapPV: the work item's first tile, whose S has no previous tile's
  /// P·V to go behind, peeled out of the K/V loops, instead of a P·V of a
  /// zero P in their first iteration (a tile's P·V of tensor time per
  /// item). Not in persistent CTAs: with the peeled tile inside their item
  /// loop, ptxas moved the loop's P·V wait up to the S wait, which
  /// serializes P·V and softmax (bench/NOTES.md v57). Nor where every
  /// item has the same few tiles, known here: LLVM then unrolls the loops
  /// after the peeled tile into straight-line code, in which ptxas spilled
  /// 24-248 bytes at d = 128-256 over 2-3 tiles (v59c); the zero P·V is
  /// the cheaper trade there.
  bool peelsFirstTile() const {
    return overlapPV && !persistentCTAs && !(staticTilesPerItem() && *staticTilesPerItem() <= 3);
  }
  /// The K/V tiles of every work item where they are the same compile-time
  /// constant (no causal diagonal, split, window or run-time length).
  std::optional<int64_t> staticTilesPerItem() const {
    if (causal || splitKV() || dynamicKVLength() || scoreModLowestKey || scoreModHighestKey)
      return std::nullopt;
    return int64_t(llvm::divideCeil(seqKV, blockKV));
  }
  /// K/V stages filled by cp.async (nvgpu.device_async_copy). wgmma: the
  /// copy of tile j+1 overlaps the math on tile j, and a third stage holds
  /// the V of a P·V still in flight (deferPVWait). mma.sync: 2 to 4 stages,
  /// tiles j+1 .. j+stages-1 in flight during the math on tile j (deeper
  /// for the memory-bound decode kernels, whose one warp per CTA otherwise
  /// keeps a single tile in flight).
  int64_t kvStages = 2;
  int64_t stages() const { return kvStages; }
  /// Tiles fetched ahead of the one being computed on.
  int64_t prefetchDistance() const { return wgmma() ? 1 : kvStages - 1; }
  /// Q fragments live in registers for the whole K/V loop when they fit (64
  /// registers at most: mTiles * headDim <= 128). Otherwise the Q tile is
  /// staged in shared memory once and re-read with ldmatrix.x4 per use, as
  /// FlashAttention-2 does at d = 128, leaving the registers to the O
  /// accumulators.
  /// wgmma reads its A operand (Q) from shared memory.
  bool qInSharedMemory() const { return wgmma() || mTiles() * headDim > 128; }
  /// The epilogue writes O into the Q tile and stores it from there in
  /// 16-byte row chunks instead of storing the C fragments' 4-byte pairs
  /// (bench/NOTES.md v31: 64 two-byte stores per thread were a quarter of
  /// the d = 128, N = 1k kernel's time). Each warp reuses its own rows of
  /// the Q tile, which its last Q·Kᵀ has read by then; so the O rows must
  /// fit the Q rows (dv <= d), each warp must own whole rows (no key
  /// warps), and the split-KV f32 partial outputs keep their direct stores.
  /// (An 8-bit Q row is half a 2-byte O row: O is stored directly.)
  bool outputThroughSharedMemory() const {
    return !generic() && qInSharedMemory() && !splitKV() && kvWarps == 1 &&
           headDimV <= headDim && outputType == elementType;
  }
  /// Bytes of Q, K and V's elements: 2, or 1 for the 8-bit floats.
  int64_t elementBytes() const { return elementType.getIntOrFloatBitWidth() / 8; }
  /// Whether P·V reads Vᵀ (8-bit wgmma, stagesTransposedV): the kernel's V
  /// parameter is then the pre-kernel's workspace of Vᵀ tile images
  /// (transposedVImageShape), and its stages hold Vᵀ instead of V.
  bool transposesV() const { return stagesTransposedV(wgmma(), elementBytes()); }
  /// The Vᵀ workspace [B, Hkv, K/V tiles, bytes of one Vᵀ stage]: tile j
  /// of a K/V head is the exact image of the stage that holds it
  /// (VTransposeKernel.cpp).
  SmallVector<int64_t, 4> transposedVImageShape() const {
    return {batch, headsKV, int64_t(llvm::divideCeil(seqKV, blockKV)),
            transposedVBytes(1, blockKV, headDimV)};
  }
  /// The Vᵀ pre-kernel's name and grid (transposesV only): a CTA per K/V
  /// tile of each (batch, K/V head).
  std::string vTransposeName() const { return name + "_vt"; }
  std::array<int64_t, 3> vTransposeGrid() const {
    return {transposedVImageShape()[2], batch * headsKV, 1};
  }
  /// Threads per CTA of the Vᵀ pre-kernel: one per task (16 positions of
  /// eight Vᵀ rows), so each thread runs exactly one and the kernel has no
  /// loop. (A 128-thread CTA looping over the tasks left a loop whose trip
  /// count differed between threads at dv = 160, and ptxas spilled in it:
  /// bench/NOTES.md v58.) At most 2 atoms · 256 rows = 512 threads.
  int64_t vTransposeThreads() const {
    return transposedVAtoms(blockKV) * headDimV;
  }
  /// Bytes of the K and V stages (Vᵀ's for 8-bit wgmma).
  int64_t kvSharedMemoryBytes() const {
    return elementBytes() * stages() * blockKV * smemPitch(headDim) +
           (transposesV() ? transposedVBytes(stages(), blockKV, headDimV)
                          : elementBytes() * stages() * blockKV * smemPitch(headDimV));
  }
  /// Shared memory of the CTA in bytes: the tiles, the TMA mbarriers, and
  /// the slack that aligns wgmma's atoms.
  int64_t sharedMemoryBytes() const {
    if (generic())
      return 0;
    return tileBytes() + tmaBarrierBytes(tmaLoads, producerWarpgroup, overlapPV, stages()) +
           alignmentSlackBytes();
  }
  /// Bytes of the tiles: the K/V stages, then the Q tile when it is staged
  /// (the key warps combine in the same bytes once the loop is done). The
  /// TMA stages' mbarriers follow them.
  int64_t tileBytes() const {
    return std::max(kvSharedMemoryBytes() +
                        (qInSharedMemory() ? elementBytes() * blockQ * smemPitch(headDim) : 0),
                    keyWarpCombineBytes(kvWarps, blockQ, headDimV));
  }
  /// The K/V stages are filled by the TMA unit (KernelConfig::tmaLoads),
  /// each stage's arrival counted by an mbarrier (TmaProducer.cpp). Dense
  /// K/V, and paged pools whose pages nest with the tiles
  /// (kvTilesInTensorBoxes): as tensor boxes into 128-byte-swizzled atoms
  /// (tensorMapLoads, atomTiles); the kernel then takes two more
  /// parameters, the K and V tensor maps (CUtensorMap, 128 bytes each) in
  /// global memory, which the runtime encodes from the manifest's
  /// `tensor_maps` and the tensors' addresses. Packed K/V and other page
  /// sizes (mma.sync only): as one bulk copy per key row into padded rows
  /// (bulkRowLoads), addressed like the cp.async chunks.
  bool tmaLoads = false;
  bool kvInTensorBoxes() const { return kvTilesInTensorBoxes(pageSize, varlen); }
  bool tensorMapLoads() const { return tmaLoads && kvInTensorBoxes(); }
  bool bulkRowLoads() const { return tmaLoads && !kvInTensorBoxes(); }
  /// Key rows per tensor box: a whole tile, or one page of a paged pool
  /// whose pages are smaller than the tile.
  int64_t boxRows() const { return paged() ? std::min(pageSize, blockKV) : blockKV; }
  /// The K/V tensor maps' box, innermost dim first (as CUtensorMap takes
  /// it): one swizzle atom's columns of boxRows() keys of one K/V head, over
  /// [B, Hkv, Lk, d] ({d, Lk, Hkv, B}) or a pool [pages, pageSize, Hkv, d]
  /// ({d, Hkv, pageSize, pages}).
  SmallVector<int64_t, 4> tensorMapBox() const {
    const int64_t atom = atomColumns(elementBytes());
    if (paged())
      return {atom, 1, boxRows(), 1};
    return {atom, boxRows(), 1, 1};
  }
  /// The staged tiles are [atoms, rows, 64] with the 128-byte swizzle
  /// (wgmma; mma.sync filled by tensor boxes), else rows.
  bool atomTiles() const { return stagesInSwizzledAtoms(wgmma(), tmaLoads, kvInTensorBoxes()); }
  /// TMA issued by a producer warpgroup after the computing warps, which
  /// waits on per-stage "empty" mbarriers the consumers arrive on
  /// (KernelConfig::producerWarpgroup; TmaProducer.cpp).
  bool producerWarpgroup = false;
  /// The CTAs per SM the launch bound asks ptxas to fit (0: no bound;
  /// launchBoundCTAsPerSM, lib/Analysis/Residency.cpp).
  int64_t minCTAsPerSM = 0;
  /// Registers per thread after setmaxnreg: 24 x 128 + 240 x 256 fill the
  /// SM's 64K (FlashAttention-3's split for two consumer warpgroups).
  int64_t producerRegisters() const { return 24; }
  int64_t consumerRegisters() const { return 240; }
  /// The K/V tensor maps the kernel takes: K's and V's, or K's alone where
  /// V comes as Vᵀ images (transposesV).
  int64_t tensorMapCount() const { return tensorMapLoads() ? (transposesV() ? 1 : 2) : 0; }
  /// Threads per CTA: the computing warps, then the producer warpgroup.
  int64_t numThreads() const { return 32 * numWarps() + (producerWarpgroup ? 128 : 0); }
  /// The oldest chip that has every instruction the kernel uses (the
  /// manifest's min_chip; the PTX's .target is the chip it was compiled
  /// for, which may be later): wgmma and setmaxnreg are sm_90a's, the TMA
  /// unit's copies and mbarrier waits sm_90's, the rest (mma.sync,
  /// cp.async, ldmatrix; the generic kernel's f32 FMAs) sm_80's.
  StringRef minimumChip() const {
    if (wgmma() || producerWarpgroup)
      return "sm_90a";
    return tmaLoads ? "sm_90" : "sm_80";
  }
  /// 128-byte-swizzle atoms must start on 1024-byte boundaries; the
  /// kernel rounds the dynamic shared-memory base up.
  int64_t alignmentSlackBytes() const { return atomTiles() ? 1024 : 0; }
  /// Warps per query-row slice that divide each K/V tile's keys
  /// (KernelConfig::kvWarps); warp w takes keys [w·warpKeys(),
  /// (w+1)·warpKeys()) of every tile.
  int64_t kvWarps = 1;
  int64_t warpKeys() const { return blockKV / kvWarps; }
  /// Warps along the query rows.
  int64_t rowWarps() const { return blockQ / rowsPerWarp; }
  int64_t numWarps() const { return rowWarps() * kvWarps; }
  /// GQA head packing: a CTA's rows are (query, head in group) pairs of
  /// one K/V head, row = query · group + head, so each K/V tile serves the
  /// whole group. Without packing a CTA serves one query head.
  bool packKVGroups = false;
  /// Query heads per CTA row space: Hq/Hkv when packed, else 1.
  int64_t packedHeads() const { return packKVGroups ? headsQ / headsKV : 1; }
  /// Rows a CTA row space holds: packedHeads() · Lq (varlen: an upper
  /// bound, packedHeads() · Tq; each sequence's are read at run time).
  int64_t numRows() const { return packedHeads() * seqQ; }
  /// Heads along the grid's y axis (with the batch): K/V heads when
  /// packed, query heads otherwise.
  int64_t gridHeads() const { return packKVGroups ? headsKV : headsQ; }
  /// CTAs along the grid's x axis: the row space in tiles (the last one
  /// may be partial). Varlen: enough for every sequence's rows in tiles,
  /// wherever its boundaries fall (FlashAttentionEmitter::locateSequence).
  int64_t numQueryTiles() const {
    return varlen ? numRows() / blockQ + batch + 2 : (numRows() + blockQ - 1) / blockQ;
  }
  /// CTAs along the grid's y axis: batch · heads (varlen: heads; the
  /// sequence comes from x).
  int64_t gridY() const { return varlen ? gridHeads() : batch * gridHeads(); }
  /// Persistent CTAs (KernelConfig::persistent): this many CTAs, each
  /// looping over work items (query tile, batch · head) with a stride of
  /// the grid, the producer warpgroup filling the stage ring across them;
  /// 0: one CTA per work item.
  int64_t persistentCTAs = 0;
  /// Work items: query tiles × batch · heads, the query tiles of one head
  /// neighbours (the CTAs that run at once share their K/V in L2).
  int64_t numWorkItems() const { return numQueryTiles() * gridY(); }
  /// Causal persistent CTAs run their items in pairs of equal work
  /// (pairsCausalWorkItems, attn/Analysis/PersistentSchedule.h).
  bool pairsCausalItems() const { return pairsCausalWorkItems(causal, numQueryTiles()); }
  /// The launch grid: (query tiles, batch · heads, splits), or the
  /// persistent CTAs along x.
  std::array<int64_t, 3> grid() const {
    if (persistentCTAs)
      return {persistentCTAs, 1, 1};
    return {numQueryTiles(), gridY(), kvSplits};
  }
  /// Split-KV: key ranges per query tile (grid z). With more than one, the
  /// attention kernel writes partial outputs (f32, normalized) and their
  /// log2-sum-exp to a workspace, and a combine kernel writes O.
  int64_t kvSplits = 1;
  /// Keys per split: whole K/V tiles (the last split may hold fewer keys).
  int64_t keysPerSplit = 0;
  bool splitKV() const { return kvSplits > 1; }
  /// The combine kernel's name (split-KV only).
  std::string combineName() const { return name + "_combine"; }
  int64_t mTiles() const { return rowsPerWarp / 16; }
  /// Row pitch of a K/V/Q tile in shared memory, in elements. Padded (the
  /// default): +8 halves shift successive rows by 4 banks. With `swizzle`,
  /// rows are packed (128-byte aligned) and the 16-byte chunks of row r are
  /// permuted by chunk ^ (r % 8) (FlashAttention-2's layout). Both keep the
  /// fragment loads and ldmatrix of 8 rows on 32 distinct banks. Measured on
  /// the H200 (bench/NOTES.md, v8): padded rows straddle 128-byte lines and
  /// every cp.async warp request then fetches 24 L2 sectors instead of 16
  /// (1.5x the L2->SM bytes), but the swizzled addresses cost ~10 registers
  /// and are 1-4% slower at d = 64, because L2 bandwidth is not what bounds
  /// this kernel.
  /// Swizzled atoms (atomTiles: wgmma, and mma.sync filled by TMA boxes)
  /// are packed 64-column atoms with the 128-byte swizzle (WgmmaFamily.cpp).
  int64_t smemPitch(int64_t cols) const {
    return stagedRowPitch(atomTiles(), swizzle, cols, elementBytes());
  }
  bool swizzle = false;
  /// Paged KV cache (attn.paged_attention): K and V are pools of `numPages`
  /// pages of `pageSize` tokens, [P, S, Hkv, d], read through a block table
  /// [B, maxPages] (i32) for the sequence lengths [B] (i32), the kernel's
  /// last two parameters. seqKV is the capacity maxPages · pageSize; the
  /// keys a CTA visits end at its sequence's length, read at run time.
  int64_t pageSize = 0, numPages = 0, maxPages = 0;
  bool paged() const { return pageSize > 0; }
  /// Packed variable-length batch (attn.varlen_attention, FlashAttention's
  /// varlen): Q, O are [Tq, Hq, d] and K, V [Tk, Hkv, d], holding `batch`
  /// sequences back to back whose boundaries the cumulative lengths cu_q,
  /// cu_k [B + 1] (i32, the kernel's last two parameters) give at run
  /// time. seqQ = Tq and seqKV = Tk are then token capacities, not lengths.
  bool varlen = false;
  /// Whether a CTA's key count is read at run time (paged, varlen): its
  /// keys past it are zero-filled and masked.
  bool dynamicKVLength() const { return paged() || varlen; }
  /// The shapes of Q and O (`cols` = d or dv): [B, Hq, Lq, cols], or
  /// packed [Tq, Hq, cols] (varlen).
  SmallVector<int64_t, 4> queryShape(int64_t cols) const {
    if (varlen)
      return {seqQ, headsQ, cols};
    return {batch, headsQ, seqQ, cols};
  }
  /// The shapes of K and V: [B, Hkv, Lk, cols], a paged pool [P, S, Hkv,
  /// cols], or packed [Tk, Hkv, cols] (varlen).
  SmallVector<int64_t, 4> keyShape(int64_t cols) const {
    if (paged())
      return {numPages, pageSize, headsKV, cols};
    if (varlen)
      return {seqKV, headsKV, cols};
    return {batch, headsKV, seqKV, cols};
  }
  /// attn.attention's score_mod region (null: none), copied into the kernel
  /// and applied to each scaled score before the masks. Its block takes the
  /// score and `scoreModRank` indices ([b, h, i, j] at rank 4, [h, i, j] at
  /// rank 3, [i, j] at rank 2). Unmasked tiles then lose the raw-score FMA.
  Region *scoreMod = nullptr;
  int64_t scoreModRank = 0;
  /// The tensors from above the region reads elements of
  /// (getScoreModTensorOperands): kernel parameters after all others, read
  /// from global memory at clamped indices.
  SmallVector<Value> scoreModTensors;
  /// The keys the score_mod can keep, as offsets j − i
  /// (getScoreModKeyBounds): K/V tiles wholly outside them are skipped.
  std::optional<int64_t> scoreModLowestKey, scoreModHighestKey;
  /// The region's value inside those bounds (ScoreModKeyBounds): the
  /// K/V tiles wholly inside them apply only that, and none of the
  /// bounds' selects; the score argument itself means no modification.
  Value scoreModInsideBounds;
  bool scoreModIsIdentityInsideBounds() const {
    return scoreMod && scoreModInsideBounds == scoreMod->front().getArgument(0);
  }
  /// Whether a CTA's first K/V tile may be another than tile 0 (a split of
  /// the keys, or a window's first tile): the stage of tile t is t % stages
  /// from the first tile on.
  bool kvBeginVaries() const { return splitKV() || scoreModLowestKey.has_value(); }
};

/// The FlashAttention-2 forward kernel, one CTA per (batch·head, query tile
/// of blockQ rows): K/V tiles staged in shared memory by cp.async (double
/// buffered), S and P in registers (P is reused as the A operand of P·V),
/// online softmax in exp2 with the scale folded in, causal tiles above the
/// diagonal skipped. The tensor cores are mma.sync (16 or 32 query rows per
/// warp, Q fragments in registers or ldmatrix'd from shared memory) or
/// wgmma (16 rows per warp, 64 per warpgroup, Q and K/V read by descriptor).
/// Parameters: Q, K, V, O as [B, H, L, d] memrefs (bare pointers), then the
/// mask when there is one; with split-KV, the partial outputs and
/// log2-sum-exps (buildSplitKVCombineKernel) in place of O. Emitted stage by stage by FlashAttentionEmitter
/// (lib/Conversion/AttnToGPU/FlashAttentionEmitter.h).
gpu::GPUFuncOp buildFlashAttentionKernel(OpBuilder &b, Location loc,
                                                gpu::GPUModuleOp module,
                                                const FlashKernelSpec &spec);

/// The generic kernel (GenericKernel.cpp): one warp per query row and
/// `blockQ` rows per CTA, f32 arithmetic on the CUDA cores, any head dims,
/// f16/bf16/f32 inputs, the mask, causal diagonal and score_mod of the
/// tensor-core kernels. Parameters: Q, K, V, O as [B, H, L, d], the mask,
/// then the score_mod's tensors.
gpu::GPUFuncOp buildGenericAttentionKernel(OpBuilder &b, Location loc, gpu::GPUModuleOp module,
                                           const FlashKernelSpec &spec);
/// Split-KV's second kernel: one CTA of dv threads per (batch, query head,
/// query row), each thread one output column, combining the kvSplits
/// partial outputs by their log2-sum-exp. Parameters: the partial outputs
/// [S, B, Hq, Lq, dv] (f32), the log2-sum-exps [S, B, Hq, Lq] (f32), O.
gpu::GPUFuncOp buildSplitKVCombineKernel(OpBuilder &b, Location loc,
                                         gpu::GPUModuleOp module,
                                         const FlashKernelSpec &spec);
/// The 8-bit wgmma kernel's pre-kernel (FlashKernelSpec::transposesV): V
/// rewritten as Vᵀ, one image per K/V tile of each (batch, K/V head), laid
/// out as the tile's shared-memory stage (VTransposeKernel.cpp). Grid
/// [K/V tiles, B · Hkv, 1], FlashKernelSpec::vTransposeThreads threads.
/// Parameters: V [B, Hkv, Lk, dv], the images
/// (FlashKernelSpec::transposedVImageShape).
gpu::GPUFuncOp buildVTransposeKernel(OpBuilder &b, Location loc, gpu::GPUModuleOp module,
                                     const FlashKernelSpec &spec);

} // namespace attn
} // namespace mlir

#endif // ATTN_CONVERSION_ATTNTOGPU_ATTNTOGPU_H

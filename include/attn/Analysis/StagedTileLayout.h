//===- StagedTileLayout.h - rows of the kernel's shared-memory tiles -*- C++ -*-===//
//
// How a K, V or Q tile's rows are laid out in shared memory, shared by the
// chooser (which counts the bytes) and the GPU lowering (which builds the
// tiles), so that the two never disagree on a CTA's shared memory.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_ANALYSIS_STAGEDTILELAYOUT_H
#define ATTN_ANALYSIS_STAGEDTILELAYOUT_H

#include "llvm/Support/MathExtras.h"

#include <algorithm>

#include <cstdint>

namespace mlir {
namespace attn {

/// Columns of a swizzle atom: one 128-byte row, 64 two-byte or 128 one-byte
/// elements.
inline int64_t atomColumns(int64_t elementBytes) { return 128 / elementBytes; }

/// Whether the staged tiles are atoms of the 128-byte swizzle, [atoms,
/// rows, atomColumns] per stage: what wgmma's descriptors read, and what TMA
/// writes from a tensor map's boxes, so also the mma.sync kernels' when
/// TMA fills their stages from tensor boxes (their ldmatrix addresses
/// follow the swizzle). Otherwise rows (padded, or XOR-swizzled in place).
inline bool stagesInSwizzledAtoms(bool wgmma, bool tmaLoads, bool boxKV) {
  return wgmma || (tmaLoads && boxKV);
}

/// Whether tensor boxes can fill a K/V tile (`boxKV` above): dense [B, Hkv,
/// Lk, d] tensors, and paged pools [pages, pageSize, Hkv, d] whose pages
/// nest with the tiles: a power-of-two page size (so that a power-of-two
/// tile lies inside one page or is whole pages, one box each) of at least
/// 8 rows (so that each box starts on the 1024-byte period of the 128-byte
/// swizzle, which TMA applies by shared-memory address). Packed varlen rows
/// and other page sizes are copied row by row.
inline bool kvTilesInTensorBoxes(int64_t pageSize, bool varlen) {
  return !varlen && (pageSize == 0 || (pageSize >= 8 && llvm::isPowerOf2_64(pageSize)));
}

/// How many threads share a row of `chunksPerRow` 16-byte chunks when a
/// CTA of `threads` copies a K/V tile row by row (TileCopy,
/// lib/Conversion/AttnToGPU/KernelBuilder.h): the largest power of two
/// dividing the chunk count when that reads at least 64 bytes of a row per
/// instruction, else the chunk count rounded up to a power of two (d = 80,
/// 112: the spare lanes repeat the row's last chunk); at most `threads`.
/// The CTA then covers threads / lanes rows per step of its copies.
inline int64_t rowCopyLanes(int64_t chunksPerRow, int64_t threads) {
  int64_t lanes = chunksPerRow & -chunksPerRow;
  if (lanes < 4)
    lanes = int64_t(llvm::PowerOf2Ceil(uint64_t(chunksPerRow)));
  return std::min(lanes, threads);
}

/// Whether a paged tile's row copies look up each row's page on its own
/// (PageLookup, lib/Conversion/AttnToGPU/PageLookup.h): a step of
/// `rowsPerStep` rows may straddle a page boundary unless the page size is
/// a multiple of the step and the tile of `blockKV` keys a multiple or a
/// divisor of the page (as with power-of-two sizes); otherwise one lookup
/// per page of the tile serves all threads.
inline bool pagesLookedUpPerRow(int64_t pageSize, int64_t rowsPerStep, int64_t blockKV) {
  return !(pageSize % rowsPerStep == 0 && (pageSize % blockKV == 0 || blockKV % pageSize == 0));
}

/// Whether the wgmma kernel rebuilds Q's Q·Kᵀ descriptors inside the K/V
/// loop, from one 32-bit copy of the tile's that LLVM cannot hoist, rather
/// than leaving LLVM to hoist one 64-bit descriptor per k-step (`qkSteps`
/// k-steps of 32 bytes) out of the loop. Above 8 k-steps (d > 128 at 2
/// bytes) the hoisted set (32 registers at d = 256) stayed beside the
/// accumulators and spilled d = 256's 128 x 80 tile; at 8 or fewer ptxas
/// rematerializes it, and the opaque copy moved its allocation to spill
/// 12-40 more bytes (d = 64 at 128 registers, d = 128 persistent causal;
/// bench/NOTES.md v56).
inline bool rebuildsQDescriptorsInLoop(int64_t qkSteps) { return qkSteps > 8; }

/// How many issuers bring a K/V tile of `pages` whole pool pages (one box
/// per page and atom) in a CTA of `warps` warps without a producer
/// warpgroup: the first lane of each of min(pages, warps) warps, page p
/// from warp p mod issuers, each one arrival on the stage's mbarrier. From
/// one thread, the 32 boxes of a 128-key tile pair of 16-token pages held
/// up that thread's warp, which also computes (bench/NOTES.md v49, v50).
inline int64_t pageBoxIssuers(int64_t pages, int64_t warps) {
  return std::max<int64_t>(1, std::min(pages, warps));
}

/// Elements per row of a staged tile of `cols` columns of `elementBytes`
/// each. Swizzled atoms are whole atoms, so a head dim of 80 or 96 (2-byte)
/// leaves the last atom partly unused (the MMAs' k-steps never read it).
/// mma.sync rows (2-byte elements) are padded by 8 elements (+4 banks per
/// row) or, with `swizzle`, packed with XOR-permuted 16-byte chunks.
inline int64_t stagedRowPitch(bool swizzledAtoms, bool swizzle, int64_t cols,
                              int64_t elementBytes = 2) {
  if (swizzledAtoms)
    return int64_t(llvm::alignTo(cols, atomColumns(elementBytes)));
  return swizzle ? cols : cols + 8;
}

/// Whether the kernel stages Vᵀ instead of V: wgmma reads 8-bit B operands
/// K-major only (no transpose flag for them), and P·V's K is the keys, so
/// 8-bit V ([keys, dv], dv contiguous) is rewritten as Vᵀ [dv, keys] once
/// per call by a pre-kernel (VTransposeKernel.cpp) into a workspace that
/// holds each K/V tile as the exact bytes of its shared-memory stage, and
/// the producer brings that image with one bulk copy per tile.
inline bool stagesTransposedV(bool wgmma, int64_t elementBytes) {
  return wgmma && elementBytes == 1;
}

/// The 128-key atoms of one Vᵀ stage (stagesTransposedV): a 64-key tile
/// fills half of one.
inline int64_t transposedVAtoms(int64_t blockKV) {
  return int64_t(llvm::divideCeil(blockKV, 128));
}

/// Bytes of the Vᵀ stages (stagesTransposedV): per stage, dv rows of the
/// tile's keys in 128-key atoms, [atoms, dv, 128] bytes. One stage is also
/// one tile's image in the pre-kernel's workspace.
inline int64_t transposedVBytes(int64_t stages, int64_t blockKV, int64_t headDimV) {
  return stages * transposedVAtoms(blockKV) * headDimV * 128;
}

/// Floats per row of the key warps' combine buffer (f32 partial outputs of
/// `colsV` columns): padded by 8 so that the 8 rows of a fragment's float2
/// accesses fall on distinct banks.
inline int64_t keyWarpCombinePitch(int64_t colsV) { return colsV + 8; }

/// Bytes of the buffer in which `kvWarps` warps that divided each K/V tile's
/// keys combine their results after the K/V loop (reusing the K/V stages):
/// every warp's partial O, [kvWarps, rows, pitch] f32, then its row maxima
/// and sums, [2, kvWarps, rows] f32. 0 with one warp per row slice.
inline int64_t keyWarpCombineBytes(int64_t kvWarps, int64_t rows, int64_t colsV) {
  if (kvWarps <= 1)
    return 0;
  return 4 * kvWarps * rows * (keyWarpCombinePitch(colsV) + 2);
}

/// Whether a stage's K and V are filled and released on barriers of their
/// own: with a producer warpgroup, the P·V overlapped with the next tile's
/// softmax (KernelConfig::overlapPV) and two stages. There a tile's K is
/// done with once its Q·Kᵀ is waited for, an iteration before its V; on
/// one barrier pair the producer could refill neither until the V was, and
/// had nothing to fetch ahead (bench/NOTES.md v29b: 0.61-0.88x). Apart, it
/// fetches the K of tile j + 2 while tile j's V is still read
/// (FlashAttention-3's separate K and V pipelines): v53, 1.05-1.13x the
/// two-stage kernels without the overlap at d = 160-256. With a third
/// stage the shared pair keeps the producer a tile ahead anyway, and the
/// second pair's waits and arrivals cost 2-9% (v53, d = 128 and FP8).
inline bool separateKVBarriers(bool producerWarpgroup, bool overlapPV, int64_t stages) {
  return producerWarpgroup && overlapPV && stages == 2;
}

/// Bytes of the mbarriers through which TMA (cp.async.bulk.tensor) reports
/// each K/V stage full: one 8-byte mbarrier per stage, after the tiles, and
/// with a producer warpgroup one more per stage on which the consumers
/// report it empty; twice that where K and V have their own
/// (separateKVBarriers). 0 when the stages are filled by cp.async.
inline int64_t tmaBarrierBytes(bool tmaLoads, bool producerWarpgroup, bool overlapPV,
                               int64_t stages) {
  return tmaLoads ? 8 * stages * (1 + producerWarpgroup) *
                        (1 + separateKVBarriers(producerWarpgroup, overlapPV, stages))
                  : 0;
}

} // namespace attn
} // namespace mlir

#endif // ATTN_ANALYSIS_STAGEDTILELAYOUT_H

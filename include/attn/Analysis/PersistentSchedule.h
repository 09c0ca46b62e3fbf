//===- PersistentSchedule.h - work items of persistent CTAs -----*- C++ -*-===//
//
// How persistent CTAs (KernelConfig::persistent) share out the work items
// (query tile, batch · head), shared by the chooser (which decides where
// persistence pays), the GPU lowering (which sizes the grid and emits the
// item loop) and the unit tests, so that none of them disagrees on the
// order.
//
// The items are handed out at run time: the CTA's producer takes a ticket
// from a counter in global memory (one atomic add per item, the launch's
// `tile_counter` workspace, zeroed before each launch) and runs ticket t's
// item next. A CTA that finishes early takes the next ticket, so no CTA
// waits on a fixed share: bench/NOTES.md v34/v34c measured fixed shares
// (CTA c taking items c, c + G, ...) at 0.96-0.98x one CTA per item on
// non-causal grids, where the same code launched one CTA per item (the
// hardware's dispatch, which is dynamic) ran 1.00-1.02x.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_ANALYSIS_PERSISTENTSCHEDULE_H
#define ATTN_ANALYSIS_PERSISTENTSCHEDULE_H

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace mlir {
namespace attn {

/// One CTA per slot the GPU holds at once, or per item when there are fewer.
inline int64_t persistentGridSize(int64_t items, int64_t ctaSlots) {
  return std::min(items, ctaSlots);
}

/// The order in which tickets name work items: `heads` (batch · heads)
/// groups of `queryTiles` items, taken in sections of `sectionHeads` heads.
/// Within a section the items go by query tile rank first, then by head:
/// the rank-0 tiles of every head of the section, then the rank-1 tiles,
/// .... The last section holds the heads that remain.
///
/// Non-causal items are of equal work and take sections of one head (a
/// head's query tiles in a row, so the CTAs running at once read few heads'
/// K/V, from L2). Causal items differ: rank r (from the last query tile,
/// FlashAttentionEmitter::computeTileCoordinates) sees the keys of T − r
/// K/V tiles, so longest-first within a section leaves the short items for
/// the end of the grid (LPT, as FlashAttention-3's scheduler does), and
/// sections bound the heads whose K/V are read at once
/// (causalSectionHeads).
struct WorkItemOrder {
  int64_t queryTiles = 1, heads = 1, sectionHeads = 1;

  int64_t numItems() const { return queryTiles * heads; }
  /// Ticket `t`'s item: (query tile rank, batch · head).
  std::pair<int64_t, int64_t> itemOf(int64_t t) const {
    const int64_t perSection = sectionHeads * queryTiles;
    const int64_t firstHead = t / perSection * sectionHeads;
    const int64_t inSection = t % perSection;
    const int64_t width = std::min(sectionHeads, heads - firstHead);
    return {inSection / width, firstHead + inSection % width};
  }
};

/// Heads per section of causal items: as many as a quarter of L2 holds the
/// K/V of (the io-cost model's bound for K/V that stays in L2), and at
/// least enough that the section's work, spread over the `ctaSlots` CTAs,
/// exceeds its longest item (T tiles of the T(T + 1)/2 a head holds): the
/// last section's long items then start early enough not to end after
/// the rest. `kvBytesPerHead`: the K and V bytes one query head reads (a
/// K/V head's, shared among its query heads).
inline int64_t causalSectionHeads(int64_t queryTiles, int64_t heads, int64_t kvBytesPerHead,
                                  int64_t l2Bytes, int64_t ctaSlots) {
  const int64_t fitL2 = l2Bytes / 4 / std::max<int64_t>(kvBytesPerHead, 1);
  const int64_t fillSlots = llvm::divideCeil(2 * ctaSlots, queryTiles + 1);
  return std::clamp<int64_t>(std::max(fitL2, fillSlots), 1, heads);
}

} // namespace attn
} // namespace mlir

#endif // ATTN_ANALYSIS_PERSISTENTSCHEDULE_H

//===- PersistentSchedule.h - work items of persistent CTAs -----*- C++ -*-===//
//
// How persistent CTAs (KernelConfig::persistent) share out the work items
// (query tile, batch · head), shared by the chooser (which decides where
// persistence pays) and the GPU lowering (which sizes the grid and emits
// the item loop), so that the two never disagree on a CTA's share.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_ANALYSIS_PERSISTENTSCHEDULE_H
#define ATTN_ANALYSIS_PERSISTENTSCHEDULE_H

#include <algorithm>
#include <cstdint>
#include <numeric>

namespace mlir {
namespace attn {

/// Whether causal items run in pairs of equal work: a head's query tiles in
/// the order longest, shortest, second longest, ..., items 2p and 2p + 1 to
/// the same CTA. A causal item's keys grow linearly with its query tile, so
/// with an even number of query tiles per head every pair spans the same
/// keys and a CTA's share is its number of pairs whatever that number
/// (bench/NOTES.md v34b: balanced causal grids 1.01-1.04x one CTA per item,
/// where a plain stride over items lost up to 32% at 16k).
inline bool pairsCausalWorkItems(bool causal, int64_t queryTiles) {
  return causal && queryTiles % 2 == 0;
}

/// The persistent grid for `items` work items of `queryTiles` query tiles
/// per head, on `ctaSlots` CTAs the GPU holds at once: one CTA per slot, or
/// per item (causal: per pair) when there are fewer. CTA c runs items
/// (pairs) c, c + G, c + 2G, .... Causal items that cannot pair (an odd
/// number of query tiles) differ in length by query tile, item mod T; with
/// G and T coprime
/// each CTA's items pass through every query tile in turn instead of always
/// the same few (G = 132, T = 8: CTAs c = 3 mod 4 would run only the tiles
/// of 5 and 1 key tiles, c = 0 mod 4 those of 8 and 4).
inline int64_t persistentGridSize(int64_t items, int64_t queryTiles, bool causal,
                                  int64_t ctaSlots) {
  if (pairsCausalWorkItems(causal, queryTiles))
    return std::min(items / 2, ctaSlots);
  int64_t grid = std::min(items, ctaSlots);
  if (causal && grid < items)
    while (grid > 1 && std::gcd(grid, queryTiles) != 1)
      --grid;
  return grid;
}

} // namespace attn
} // namespace mlir

#endif // ATTN_ANALYSIS_PERSISTENTSCHEDULE_H

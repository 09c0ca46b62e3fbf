//===- PageLookup.h - the pages of a staged K/V tile ------------*- C++ -*-===//
//
// Internal to lib/Conversion/AttnToGPU: the block-table reads of a paged KV
// cache's tile, shared by the producers that copy K/V rows (KVProducer.cpp's
// cp.async chunks, TmaProducer.cpp's bulk rows).
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_LIB_CONVERSION_ATTNTOGPU_PAGELOOKUP_H
#define ATTN_LIB_CONVERSION_ATTNTOGPU_PAGELOOKUP_H

#include "FlashAttentionEmitter.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir {
namespace attn {

/// The pages of one staged tile of a paged KV cache, each looked up in the
/// block table once for the K and the V copies. Row copies clamp their
/// lookups to the sequence's last page, so that no entry past it (which may
/// hold anything) is ever used as an address. Tensor boxes need no clamp:
/// the TMA unit checks a box's coordinates against the pool and zero-fills
/// outside it, and the rows a box brings past the sequence are zeroed
/// anyway (TmaProducer::zeroKeysPastSequence); their lookups only stay
/// inside the block table's row.
class PageLookup {
public:
  PageLookup(KernelContext &c, Value start) : c(c), k(c.k), start(start) {
    if (!c.s.paged() || c.s.tensorMapLoads())
      return;
    // The last page of the sequence (page 0 for an empty one).
    Value lastKey = arith::SubIOp::create(k.b, k.loc,
                                          arith::MaxUIOp::create(k.b, k.loc, c.v.kvLen, k.idx(1)),
                                          k.idx(1));
    lastPage = k.div(lastKey, c.s.pageSize);
  }

  /// The page of the thread's row `kvRow`, which lies in the step of rows
  /// [stepRow, stepRow + rowsPerStep) of the tile. When no step straddles a
  /// page boundary (!pagesLookedUpPerRow) the page is the step's, the same
  /// for every thread and one load per page of the tile; otherwise it is
  /// looked up per row, which the chooser charges in registers
  /// (loopRegistersPerThread).
  /// The indices of column `col` of key `kvRow` (in a step as for pageOf)
  /// in a K or V pool [pages, pageSize, Hkv, d].
  SmallVector<Value> poolAt(int64_t stepRow, int64_t rowsPerStep, Value kvRow, Value col) {
    return {pageOf(stepRow, rowsPerStep, kvRow), k.rem(kvRow, c.s.pageSize), c.v.kvHead, col};
  }

  Value pageOf(int64_t stepRow, int64_t rowsPerStep, Value kvRow) {
    const int64_t pageSize = c.s.pageSize;
    if (pagesLookedUpPerRow(pageSize, rowsPerStep, c.bkv))
      return lookup(k.div(kvRow, pageSize));
    int64_t pageInTile = stepRow / pageSize;
    Value &page = stepPages[pageInTile];
    if (!page)
      page = lookup(k.add(k.div(start, pageSize), pageInTile));
    return page;
  }

  /// The page of key `key` (any row of the tile), looked up on its own.
  Value pageAt(Value key) { return lookup(k.div(key, c.s.pageSize)); }

private:
  Value lookup(Value pageIndex) {
    if (lastPage)
      pageIndex = arith::MinUIOp::create(k.b, k.loc, pageIndex, lastPage);
    else if (llvm::alignTo(c.lk, c.bkv) > uint64_t(c.s.maxPages * c.s.pageSize))
      pageIndex = arith::MinUIOp::create(k.b, k.loc, pageIndex, k.idx(c.s.maxPages - 1));
    Value page = memref::LoadOp::create(k.b, k.loc, c.v.blockTable,
                                        ValueRange{c.v.batch, pageIndex});
    return arith::IndexCastOp::create(k.b, k.loc, k.b.getIndexType(), page);
  }

  KernelContext &c;
  KernelBuilder &k;
  Value start, lastPage;
  llvm::DenseMap<int64_t, Value> stepPages;
};

} // namespace attn
} // namespace mlir

#endif // ATTN_LIB_CONVERSION_ATTNTOGPU_PAGELOOKUP_H

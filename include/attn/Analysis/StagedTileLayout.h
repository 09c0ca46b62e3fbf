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

#include <cstdint>

namespace mlir {
namespace attn {

/// Elements per row of a staged tile of `cols` columns (2-byte elements).
/// wgmma's operands are whole 64-column atoms of the 128-byte swizzle, so a
/// head dim of 80 or 96 leaves the last atom partly unused (the MMAs'
/// k-steps never read it). mma.sync rows are padded by 8 elements (+4 banks
/// per row) or, with `swizzle`, packed with XOR-permuted 16-byte chunks.
inline int64_t stagedRowPitch(bool wgmmaAtoms, bool swizzle, int64_t cols) {
  if (wgmmaAtoms)
    return int64_t(llvm::alignTo(cols, 64));
  return swizzle ? cols : cols + 8;
}

} // namespace attn
} // namespace mlir

#endif // ATTN_ANALYSIS_STAGEDTILELAYOUT_H

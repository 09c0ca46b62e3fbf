//===- KVSplitModels.h - split-KV models of the kernel chooser --*- C++ -*-===//
//
// Internal to lib/Analysis: the models behind chooseKernelConfig's split
// counts (KVSplitModels.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_LIB_ANALYSIS_KVSPLITMODELS_H
#define ATTN_LIB_ANALYSIS_KVSPLITMODELS_H

#include "attn/Analysis/KernelConfig.h"

namespace mlir {
namespace attn {
namespace detail {

/// The split count of the wave model (flash-decoding's heuristic) for a
/// legal unsplit config `c`: 1 when its grid fills a wave.
int64_t waveModelSplits(const KernelConfig &c, const AttentionShape &s,
                        const TargetSpec &target, bool readsMaskTensor);

/// The small-query kernel's K/V tile, key warps and split count by the
/// streaming model (the request's block_kv and kv_warps, if any, are kept).
llvm::Expected<KernelConfig> chooseStreamingSplits(KernelConfig c, const AttentionShape &s,
                                                   const TargetSpec &target,
                                                   const KernelConfigRequest &request);

} // namespace detail
} // namespace attn
} // namespace mlir

#endif // ATTN_LIB_ANALYSIS_KVSPLITMODELS_H

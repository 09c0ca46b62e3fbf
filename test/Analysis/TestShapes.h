//===- TestShapes.h - attention shapes the unit tests share -----*- C++ -*-===//
#ifndef ATTN_TEST_ANALYSIS_TESTSHAPES_H
#define ATTN_TEST_ANALYSIS_TESTSHAPES_H

#include "attn/Analysis/IOCost.h"

namespace mlir::attn {

/// B x H heads of n queries and n keys, head dim d, the same for K/V.
inline AttentionShape square(int64_t b, int64_t h, int64_t n, int64_t d, DType t) {
  AttentionShape s;
  s.batch = b;
  s.headsQ = s.headsKV = h;
  s.seqQ = s.seqKV = n;
  s.headDim = s.headDimV = d;
  s.dtype = t;
  return s;
}

/// A bf16, d = 128 attention of `lq` query rows per head over `lk` keys.
inline AttentionShape decodeShape(int64_t b, int64_t hq, int64_t hkv, int64_t lq, int64_t lk) {
  AttentionShape s;
  s.batch = b;
  s.headsQ = hq;
  s.headsKV = hkv;
  s.seqQ = lq;
  s.seqKV = lk;
  s.headDim = s.headDimV = 128;
  s.dtype = DType::BF16;
  return s;
}

} // namespace mlir::attn

#endif // ATTN_TEST_ANALYSIS_TESTSHAPES_H

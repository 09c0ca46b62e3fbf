//===- MaskEvaluator.h - fold index-built masks to their values -*- C++ -*-===//
//
// Frameworks build causal masks at run time from iota tensors: arange(L),
// two broadcasts, a subtraction, a comparison, perhaps an `and` with an
// all-true buffer, then select(keep, 0, -inf). None of that depends on the
// inputs, so the detector can fold it to its values, and then ask whether
// they are the causal pattern (DetectNormalize.cpp: causalConstant).
//
// This is a small interpreter over static-shaped, input-free tensor code in
// the spellings torch-mlir emits: constants, elementwise linalg.generic with
// linalg.index in the payload, linalg.fill / broadcast / transpose, tensor
// expand/collapse_shape, and the tosa elementwise, reshape and cast ops.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_LIB_TRANSFORMS_MASKEVALUATOR_H
#define ATTN_LIB_TRANSFORMS_MASKEVALUATOR_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <vector>

namespace mlir {
namespace attn {

/// A tensor's values in row-major order. Integers (exact up to 2^53) and
/// booleans (0/1) are stored as doubles alongside floats.
struct EvaluatedTensor {
  SmallVector<int64_t> shape;
  std::vector<double> data;
};

/// The values of `v` if it is computed from constants and loop indices
/// alone, by ops the evaluator knows, and has at most `maxElements`
/// elements (every intermediate tensor too). Otherwise nullopt: the caller
/// keeps the tensor as it is, which is always correct.
std::optional<EvaluatedTensor> evaluateInputFreeTensor(Value v,
                                                       int64_t maxElements);

} // namespace attn
} // namespace mlir

#endif // ATTN_LIB_TRANSFORMS_MASKEVALUATOR_H

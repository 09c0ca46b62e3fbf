//===- VerifierHelpers.h - shared by the attn ops' verifiers --*- C++ -*-===//
//
// Internal to lib/Dialect/Attn/IR: extent comparisons and messages shared
// by AttnOps.cpp and ServingOps.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_LIB_DIALECT_ATTN_IR_VERIFIERHELPERS_H
#define ATTN_LIB_DIALECT_ATTN_IR_VERIFIERHELPERS_H

#include "attn/Analysis/IOCost.h"
#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"

#include <optional>
#include <string>

namespace mlir {
namespace attn {

/// Two extents agree if either is dynamic or they are equal.
inline bool extentsAgree(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

/// An extent as the messages print it ("?" when dynamic).
inline std::string fmtExtent(int64_t e) {
  return ShapedType::isDynamic(e) ? std::string("?") : std::to_string(e);
}

/// Why `type` is empty, if it is: zero-sized extents make attention
/// meaningless (a softmax over zero keys is undefined) and would divide by
/// zero in the cost model.
inline std::optional<std::string> emptyDimError(llvm::StringRef name, RankedTensorType type) {
  for (auto [i, e] : llvm::enumerate(type.getShape()))
    if (e == 0)
      return name.str() + " has an empty dim " + std::to_string(i);
  return std::nullopt;
}

} // namespace attn
} // namespace mlir

#endif // ATTN_LIB_DIALECT_ATTN_IR_VERIFIERHELPERS_H

//===- InputNesting.h - refuse MLIR text nested beyond the parser's stack -===//
//
// MLIR's parser recurses once per nested bracket of an attribute, type or
// affine expression, with no limit of its own: 10,000 nested `[` overflow
// the 8 MB main-thread stack and kill attn-opt (found by fuzzing). Real IR
// nests a few dozen levels. So every front door (the attn-opt driver, the
// C API behind the Python package) checks the text first and refuses it
// with a located error past kMaxInputNesting levels.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_TOOLS_INPUTNESTING_H
#define ATTN_TOOLS_INPUTNESTING_H

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <optional>

namespace mlir {
namespace attn {

/// The deepest bracket nesting accepted: well inside what the parser's
/// recursion survives on an 8 MB stack (6,000 nested `[` parse; 10,000 do
/// not), far beyond any real program.
inline constexpr std::size_t kMaxInputNesting = 2048;

/// The offset in `text` of the first bracket ((, [, {, <) that opens level
/// kMaxInputNesting + 1, or nullopt. String literals and `//` comments are
/// skipped; `->` is no bracket.
std::optional<std::size_t> findExcessiveNesting(llvm::StringRef text);

} // namespace attn
} // namespace mlir

#endif // ATTN_TOOLS_INPUTNESTING_H

//===- InputNesting.cpp - refuse MLIR text nested beyond the parser's stack ===//
#include "attn/Tools/InputNesting.h"

using namespace mlir;

std::optional<std::size_t> attn::findExcessiveNesting(llvm::StringRef text) {
  std::size_t depth = 0;
  for (std::size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    if (c == '"') {
      // A string literal: to its closing quote, over escapes.
      for (++i; i < e && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
      continue;
    }
    if (c == '/' && i + 1 < e && text[i + 1] == '/') {
      i = text.find('\n', i);
      if (i == llvm::StringRef::npos)
        break;
      continue;
    }
    if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (++depth > kMaxInputNesting)
        return i;
    } else if (c == ')' || c == ']' || c == '}' || (c == '>' && (i == 0 || text[i - 1] != '-'))) {
      // (An unmatched closer, `>=` in an integer set, only lowers the count.)
      if (depth > 0)
        --depth;
    }
  }
  return std::nullopt;
}

//===- GuardedCall.h - one pass pipeline run that cannot kill the caller -===//
//
// The engine under the C API: parse text in a fresh context, run passes,
// collect what comes out, with every diagnostic captured and every crash
// inside MLIR or LLVM recovered into an error message.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_LIB_CAPI_GUARDEDCALL_H
#define ATTN_LIB_CAPI_GUARDEDCALL_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringRef.h"

#include <functional>
#include <string>
#include <vector>

namespace mlir::attn::capi {

struct CallResult {
  std::string ir;                   ///< the printed module, or the finish step's text
  std::vector<std::string> remarks; ///< "loc: remark: text"
  int64_t count = 0;                ///< ops named Call::countOp in the result
};

struct Call {
  std::string description; ///< "pass pipeline '...'", for messages
  /// Builds the pass manager; returns false with `error` set when it cannot.
  std::function<bool(PassManager &, std::string &error)> populate;
  /// Optional: runs after the passes succeeded (e.g. reads a report file).
  std::function<bool(ModuleOp, CallResult &, std::string &error)> finish;
  std::string countOp; ///< count ops with this name in the result
  bool printIR = true;
};

/// Runs `call` on `text`. Returns false with `error` holding the message
/// and every error diagnostic (a crash says so) when anything fails.
bool runGuarded(llvm::StringRef text, const Call &call, CallResult &result,
                std::string &error);

} // namespace mlir::attn::capi

#endif // ATTN_LIB_CAPI_GUARDEDCALL_H

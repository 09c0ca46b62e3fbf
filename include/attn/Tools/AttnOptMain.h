//===- AttnOptMain.h - the attn-opt driver as a library -------*- C++ -*-===//
//
// attn-opt's `main`, callable from anything that links the compiler: the
// `attn-opt` executable, and the C API's `attnopt_main`, which the Python
// wheel's `attn-opt` console command calls. One driver, so both behave the
// same on every file error and option.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_TOOLS_ATTNOPTMAIN_H
#define ATTN_TOOLS_ATTNOPTMAIN_H

namespace mlir {
class DialectRegistry;
namespace attn {

/// Adds what attn-opt parses to `registry`: every upstream dialect,
/// extension and LLVM IR translation, and the attn dialect. Registers every
/// upstream and attn pass with the global pass registry (once).
void registerEverything(DialectRegistry &registry);

/// mlir-opt's command line over the registry above; returns the process's
/// exit code. Parses LLVM's global command-line options, so call it at most
/// once per process.
int attnOptMain(int argc, char **argv);

} // namespace attn
} // namespace mlir

#endif // ATTN_TOOLS_ATTNOPTMAIN_H

//===- attn-opt.cpp - the attn-opt executable -----------------------------===//
//
// The driver lives in lib/Tools (attn::attnOptMain), shared with the C API's
// attnopt_main behind the Python wheel's `attn-opt` command. Only the
// executable installs LLVM's crash handlers (a stack dump and the pass
// that was running, on a signal), as upstream mlir-opt does: the C API
// runs inside the caller's process, whose signals are not ours to take.
//
//===----------------------------------------------------------------------===//
#include "attn/Tools/AttnOptMain.h"
#include "../SanitizerDefaults.h"

#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/PrettyStackTrace.h"

int main(int argc, char **argv) {
  llvm::InitLLVM crashReporting(argc, argv);
  // (Not upstream LLVM's tracker: the crash is ours until shown otherwise.)
  llvm::setBugReportMsg("attn-opt crashed: please report it to attn-opt's developers with "
                        "the input, the command line and the stack dump below.\n");
  return mlir::attn::attnOptMain(argc, argv);
}

//===- attn-opt.cpp - the attn-opt executable -----------------------------===//
//
// The driver lives in lib/Tools (attn::attnOptMain), shared with the C API's
// attnopt_main behind the Python wheel's `attn-opt` command.
//
//===----------------------------------------------------------------------===//
#include "attn/Tools/AttnOptMain.h"
#include "../SanitizerDefaults.h"

int main(int argc, char **argv) { return mlir::attn::attnOptMain(argc, argv); }

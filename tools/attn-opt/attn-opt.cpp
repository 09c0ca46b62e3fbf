//===- attn-opt.cpp - the attn-opt driver ---------------------------------===//
//
// mlir-opt plus the attn dialect and passes. Every upstream dialect, pass and
// LLVM IR translation is registered too, so attn-opt parses the linalg, tosa
// and tensor IR that frameworks emit and can run whole pipelines down to
// LLVM and PTX by itself.
//
//===----------------------------------------------------------------------===//
#include "attn/InitAttn.h"
#include "../SanitizerDefaults.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::attn::registerAttnPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::attn::registerAttnDialect(registry);

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "attn-opt: attention fusion compiler\n", registry));
}

//===- consumer.cpp - a downstream user of attn-opt's library -------------===//
//
// Registers the attn dialect and passes through the public API, parses an
// attention, runs io-cost and fuse by name, and prints the result.
//
//===----------------------------------------------------------------------===//
#include "attn/InitAttn.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

static const char *kModule = R"mlir(
func.func @attn(%q: tensor<1x4x128x64xf16>) -> tensor<1x4x128x64xf16> {
  %o = attn.attention %q, %q, %q scale(0.125) causal(top_left)
      : tensor<1x4x128x64xf16>, tensor<1x4x128x64xf16>, tensor<1x4x128x64xf16>
      -> tensor<1x4x128x64xf16>
  return %o : tensor<1x4x128x64xf16>
}
)mlir";

int main() {
  mlir::DialectRegistry registry;
  mlir::attn::registerAttnDialect(registry);
  mlir::attn::registerAttnPasses();
  mlir::MLIRContext context(registry);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(kModule, &context);
  if (!module)
    return 1;
  auto pm = mlir::PassManager::on<mlir::ModuleOp>(&context);
  if (mlir::failed(mlir::parsePassPipeline(
          "attn-io-cost{target=h100},func.func(attn-fuse)", pm, llvm::errs())))
    return 2;
  if (mlir::failed(pm.run(*module)))
    return 3;
  module->print(llvm::outs());
  return 0;
}

//===- AttnOptMain.cpp - the attn-opt driver ------------------------------===//
//
// mlir-opt plus the attn dialect and passes. Every upstream dialect, pass and
// LLVM IR translation is registered too, so attn-opt parses the linalg, tosa
// and tensor IR that frameworks emit and can run whole pipelines down to
// LLVM and PTX by itself.
//
// The driver opens the input and output files itself, rather than through
// MlirOptMain(argc, argv, ...), so that every file error is an `error:`
// diagnostic with a non-zero exit: upstream prints unreadable inputs and
// unwritable outputs without one, and a full device (-o /dev/full) ends in
// an LLVM fatal error when the stream is destroyed.
//
//===----------------------------------------------------------------------===//
#include "attn/Tools/AttnOptMain.h"
#include "attn/InitAttn.h"
#include "attn/Tools/InputNesting.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

#include <mutex>

using namespace mlir;

void attn::registerEverything(DialectRegistry &registry) {
  static std::once_flag passesRegistered;
  std::call_once(passesRegistered, [] {
    registerAllPasses();
    registerAttnPasses();
  });
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  registerAttnDialect(registry);
}

static LogicalResult fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "attn-opt") << message << "\n";
  return failure();
}

/// mlir-opt's processing between files this driver opens and checks.
static LogicalResult runAttnOpt(llvm::StringRef inputFilename,
                                llvm::StringRef outputFilename,
                                DialectRegistry &registry) {
  std::string message;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFilename, &message);
  if (!input)
    return fail(message);
  // Deeper nesting than the parser's recursion survives: an error at the
  // bracket, not a stack overflow (InputNesting.h).
  if (std::optional<std::size_t> at = attn::findExcessiveNesting(input->getBuffer())) {
    llvm::SourceMgr sourceMgr;
    const char *where = input->getBufferStart() + *at;
    sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
    sourceMgr.PrintMessage(llvm::SMLoc::getFromPointer(where), llvm::SourceMgr::DK_Error,
                           "brackets nested deeper than " +
                               llvm::Twine(attn::kMaxInputNesting) +
                               " levels; attn-opt does not parse this input");
    return failure();
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &message);
  if (!output)
    return fail(message);
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  if (failed(MlirOptMain(output->os(), std::move(input), registry, config)))
    return failure();
  // A write error (a full device, a closed pipe) is reported here, and
  // cleared, instead of aborting in the stream's destructor.
  output->os().flush();
  if (std::error_code ec = output->os().error()) {
    output->os().clear_error();
    return fail("cannot write '" + outputFilename + "': " + ec.message());
  }
  output->keep();
  return success();
}

int attn::attnOptMain(int argc, char **argv) {
  DialectRegistry registry;
  registerEverything(registry);
  auto [inputFilename, outputFilename] = registerAndParseCLIOptions(
      argc, argv, "attn-opt: attention fusion compiler\n", registry);
  return asMainReturnCode(runAttnOpt(inputFilename, outputFilename, registry));
}

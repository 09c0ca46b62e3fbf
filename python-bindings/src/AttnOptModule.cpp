//===- AttnOptModule.cpp - attnopt._core, the native half of attnopt ------===//
//
// Text in, text out: every call builds its own MLIRContext with every
// dialect attn-opt parses, runs a pass pipeline on the parsed module, and
// returns the printed result. MLIR diagnostics are collected with their
// locations and raised as attnopt.MLIRError, never printed to stderr.
//
//===----------------------------------------------------------------------===//
#include "attn/InitAttn.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <mutex>

namespace nb = nanobind;
using namespace mlir;

namespace {

/// Raised for anything MLIR reports: parse errors, verifier errors, pass
/// failures. Its message lists every diagnostic with its location.
struct MLIRError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void registerEverythingOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerAllPasses();
    attn::registerAttnPasses();
  });
}

DialectRegistry makeRegistry() {
  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  attn::registerAttnDialect(registry);
  return registry;
}

/// "file:line:col" like a compiler, from the first file location inside
/// `loc` (fused and named locations wrap one).
std::string formatLocation(Location loc) {
  std::string out;
  loc->walk([&](Location inner) {
    if (auto flc = dyn_cast<FileLineColLoc>(inner)) {
      out = (flc.getFilename().getValue() + ":" + llvm::Twine(flc.getLine()) + ":" +
             llvm::Twine(flc.getColumn()))
                .str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (out.empty()) {
    llvm::raw_string_ostream os(out);
    os << loc;
  }
  return out;
}

/// Collects diagnostics as "loc: severity: message" lines.
struct Diagnostics {
  std::vector<std::string> errors, remarks;
  explicit Diagnostics(MLIRContext &ctx)
      : handler(&ctx, [this](Diagnostic &d) {
          std::string text;
          llvm::raw_string_ostream os(text);
          os << formatLocation(d.getLocation()) << ": ";
          switch (d.getSeverity()) {
          case DiagnosticSeverity::Error: os << "error: "; break;
          case DiagnosticSeverity::Warning: os << "warning: "; break;
          case DiagnosticSeverity::Remark: os << "remark: "; break;
          case DiagnosticSeverity::Note: os << "note: "; break;
          }
          os << d;
          for (const Diagnostic &note : d.getNotes())
            os << "\n  " << formatLocation(note.getLocation()) << ": note: " << note;
          (d.getSeverity() == DiagnosticSeverity::Remark ? remarks : errors)
              .push_back(std::move(text));
          return success();
        }) {}
  [[noreturn]] void raise(const std::string &what) const {
    std::string msg = what;
    for (const std::string &e : errors)
      msg += "\n" + e;
    throw MLIRError(msg);
  }
  ScopedDiagnosticHandler handler;
};

struct PipelineResult {
  std::string ir;
  std::vector<std::string> remarks;
};

PipelineResult runPipelineImpl(const std::string &text, const std::string &pipeline) {
  registerEverythingOnce();
  MLIRContext ctx(makeRegistry());
  ctx.allowUnregisteredDialects(false);
  Diagnostics diags(ctx);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(text, &ctx, "<attnopt input>");
  if (!module)
    diags.raise("could not parse the MLIR input");
  // Anchored on the module: a pipeline string without builtin.module(...).
  auto pm = PassManager::on<ModuleOp>(&ctx);
  std::string parseErrors;
  llvm::raw_string_ostream errs(parseErrors);
  if (failed(parsePassPipeline(pipeline, pm, errs)))
    throw MLIRError("invalid pass pipeline '" + pipeline + "': " + parseErrors);
  if (failed(pm.run(*module)))
    diags.raise("pass pipeline '" + pipeline + "' failed");
  PipelineResult r;
  llvm::raw_string_ostream os(r.ir);
  module->print(os);
  r.remarks = diags.remarks;
  return r;
}

} // namespace

NB_MODULE(_core, m) {
  m.doc() = "Native core of attnopt: MLIR pass pipelines over attn-opt's C++ API.";
  nb::exception<MLIRError>(m, "MLIRError");

  m.def(
      "run_pipeline",
      [](const std::string &text, const std::string &pipeline) {
        nb::gil_scoped_release release;
        return runPipelineImpl(text, pipeline).ir;
      },
      nb::arg("mlir_text"), nb::arg("pipeline"),
      "Parse `mlir_text`, run the pass pipeline (e.g. "
      "'func.func(attn-detect),attn-io-cost'), return the printed module.");

  m.def(
      "run_pipeline_with_remarks",
      [](const std::string &text, const std::string &pipeline) {
        PipelineResult r;
        {
          nb::gil_scoped_release release;
          r = runPipelineImpl(text, pipeline);
        }
        return std::make_tuple(r.ir, r.remarks);
      },
      nb::arg("mlir_text"), nb::arg("pipeline"),
      "Like run_pipeline, and also return the remarks as 'loc: remark: text' lines.");
}

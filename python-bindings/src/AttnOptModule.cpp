//===- AttnOptModule.cpp - attnopt._core, the native half of attnopt ------===//
//
// Text in, text out: every call builds its own MLIRContext with every
// dialect attn-opt parses, runs a pass pipeline on the parsed module, and
// returns the printed result. MLIR diagnostics are collected with their
// locations and raised as attnopt.MLIRError, never printed to stderr.
//
// The interpreter must survive any input. What MLIR reports as a diagnostic
// is an MLIRError; what crashes instead (an upstream parser bug, an LLVM
// fatal error in the NVPTX backend, a failed assertion) is caught by an
// llvm::CrashRecoveryContext around the whole call and raised as an
// MLIRError saying so. A crashed call leaks its MLIRContext (nothing of it
// can be trusted to destruct), and its diagnostics up to the crash are kept.
//
//===----------------------------------------------------------------------===//
#include "attn/Dialect/Attn/Transforms/Passes.h"
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
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cmath>
#include <csignal>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

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
  ScopedDiagnosticHandler handler;
};

struct PipelineResult {
  std::string ir;
  std::vector<std::string> remarks;
  /// Ops named `countOp` in the result (0 when none was asked for).
  int64_t count = 0;
};

/// Where an LLVM fatal error on this thread leaves its message
/// (report_fatal_error calls the handler, then aborts; the abort is what the
/// crash recovery catches).
thread_local std::string *fatalErrorSink = nullptr;

/// Signals the crash recovery catches; their handlers also run on the
/// alternate signal stack, so that a stack overflow (deeply nested input) is
/// recovered too.
const int kCrashSignals[] = {SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGSEGV, SIGTRAP};

void installHandlersOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::install_fatal_error_handler([](void *, const char *reason, bool) {
      if (fatalErrorSink)
        *fatalErrorSink = reason;
    });
    llvm::CrashRecoveryContext::Enable();
    for (int sig : kCrashSignals) {
      struct sigaction action;
      if (sigaction(sig, nullptr, &action) == 0) {
        action.sa_flags |= SA_ONSTACK;
        sigaction(sig, &action, nullptr);
      }
    }
  });
}

/// Each pipeline runs on its own thread with a large stack (deep nesting in
/// the parser and the verifier recurses) and an alternate signal stack.
constexpr unsigned kPipelineStackBytes = 256u << 20;
constexpr size_t kSignalStackBytes = 256u << 10;

/// How a call builds its pass manager: from a pipeline string, or from typed
/// options (no text). Returns false with `error` set when it cannot.
using Populate = std::function<bool(PassManager &, std::string &error)>;
/// What a call does after the passes succeeded (e.g. read a report file);
/// returns false with `error` set when it fails.
using Finish = std::function<bool(ModuleOp, PipelineResult &, std::string &error)>;

struct Call {
  std::string description; ///< "pass pipeline '...'", for messages
  Populate populate;
  Finish finish;            ///< optional
  std::string countOp;      ///< count ops with this name in the result
  bool printIR = true;
};

/// The call itself; runs inside the crash recovery context, so it never
/// throws: the outcome goes into `result` or `error`.
void runUnsafe(const std::string &text, const Call &call,
               std::unique_ptr<MLIRContext> &ctxOut, std::unique_ptr<Diagnostics> &diagsOut,
               std::optional<PipelineResult> &result, std::string &error,
               const char *&phase) {
  phase = "setting up";
  registerEverythingOnce();
  ctxOut = std::make_unique<MLIRContext>(makeRegistry());
  MLIRContext &ctx = *ctxOut;
  // Passes run on this thread, inside the crash recovery context.
  ctx.disableMultithreading();
  ctx.allowUnregisteredDialects(false);
  diagsOut = std::make_unique<Diagnostics>(ctx);
  Diagnostics &diags = *diagsOut;
  auto withDiagnostics = [&](std::string msg) {
    for (const std::string &e : diags.errors)
      msg += "\n" + e;
    return msg;
  };
  phase = "parsing the MLIR input";
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(text, &ctx, "<attnopt input>");
  if (!module) {
    error = withDiagnostics("could not parse the MLIR input");
    return;
  }
  // Anchored on the module: a pipeline string without builtin.module(...).
  phase = "building the pass pipeline";
  auto pm = PassManager::on<ModuleOp>(&ctx);
  if (!call.populate(pm, error))
    return;
  phase = "running the pass pipeline";
  if (failed(pm.run(*module))) {
    error = withDiagnostics(call.description + " failed");
    return;
  }
  phase = "printing the result";
  PipelineResult r;
  if (call.printIR) {
    llvm::raw_string_ostream os(r.ir);
    module->print(os);
  }
  if (!call.countOp.empty())
    module->walk([&](Operation *op) {
      if (op->getName().getStringRef() == call.countOp)
        ++r.count;
    });
  r.remarks = diags.remarks;
  if (call.finish) {
    phase = "collecting the result";
    if (!call.finish(*module, r, error))
      return;
  }
  result = std::move(r);
}

PipelineResult runGuarded(const std::string &text, const Call &call) {
  installHandlersOnce();
  std::unique_ptr<MLIRContext> ctx;
  std::unique_ptr<Diagnostics> diags;
  std::optional<PipelineResult> result;
  std::string error;
  const char *phase = "starting";
  std::string fatalError;
  auto signalStack = std::make_unique<char[]>(kSignalStackBytes);
  llvm::CrashRecoveryContext crc;
  bool ok = crc.RunSafelyOnThread([&] {
    fatalErrorSink = &fatalError;
    stack_t altStack{};
    altStack.ss_sp = signalStack.get();
    altStack.ss_size = kSignalStackBytes;
    sigaltstack(&altStack, nullptr);
    try {
      runUnsafe(text, call, ctx, diags, result, error, phase);
    } catch (const std::exception &e) {
      error = std::string("attn-opt raised a C++ exception: ") + e.what();
    } catch (...) {
      error = "attn-opt raised an unknown C++ exception";
    }
    stack_t off{};
    off.ss_flags = SS_DISABLE;
    sigaltstack(&off, nullptr);
  }, kPipelineStackBytes);
  if (!ok) {
    // Nothing the crashed call built can be trusted to destruct: leak it.
    std::string msg = "attn-opt crashed (";
    msg += fatalError.empty() ? "signal " + std::to_string(crc.RetCode - 128)
                              : "LLVM ERROR: " + fatalError;
    msg += std::string(") while ") + phase + " (" + call.description +
           "); this is a bug in attn-opt or MLIR, please report it with the input";
    if (diags)
      for (const std::string &e : diags->errors)
        msg += "\n" + e;
    (void)ctx.release();
    (void)diags.release();
    // The crashed thread's alternate signal stack may still be registered
    // to it; that thread is gone, but keep the memory anyway.
    (void)signalStack.release();
    throw MLIRError(msg);
  }
  // Destroy the handler before its context.
  diags.reset();
  ctx.reset();
  if (!result)
    throw MLIRError(error);
  return std::move(*result);
}

PipelineResult runPipelineImpl(const std::string &text, const std::string &pipeline,
                               const std::string &countOp = "") {
  Call call;
  call.description = "pass pipeline '" + pipeline + "'";
  call.populate = [&](PassManager &pm, std::string &error) {
    std::string parseErrors;
    llvm::raw_string_ostream errs(parseErrors);
    if (succeeded(parsePassPipeline(pipeline, pm, errs)))
      return true;
    error = "invalid pass pipeline '" + pipeline + "': " + parseErrors;
    return false;
  };
  call.countOp = countOp;
  return runGuarded(text, call);
}

/// --attn-io-cost with typed options (no option string), returning the JSON
/// report. The pass writes its report to a file: a fresh temporary one,
/// removed afterwards.
std::string ioCostReport(const std::string &text, const std::string &target,
                         const std::map<std::string, int64_t> &ints,
                         const std::map<std::string, double> &reals) {
  attn::AttnIOCostPassOptions options;
  options.target = target;
  const std::map<std::string, int64_t attn::AttnIOCostPassOptions::*> intFields = {
      {"sram_bytes", &attn::AttnIOCostPassOptions::sramBytes},
      {"sm_count", &attn::AttnIOCostPassOptions::smCount},
      {"ctas_per_sm", &attn::AttnIOCostPassOptions::ctasPerSm},
      {"l2_bytes", &attn::AttnIOCostPassOptions::l2Bytes},
      {"block_q", &attn::AttnIOCostPassOptions::blockQ},
      {"block_kv", &attn::AttnIOCostPassOptions::blockKV}};
  const std::map<std::string, double attn::AttnIOCostPassOptions::*> realFields = {
      {"hbm_bandwidth", &attn::AttnIOCostPassOptions::hbmBandwidth},
      {"l2_bandwidth", &attn::AttnIOCostPassOptions::l2Bandwidth},
      {"peak_f16", &attn::AttnIOCostPassOptions::peakF16},
      {"peak_bf16", &attn::AttnIOCostPassOptions::peakBF16},
      {"peak_f32", &attn::AttnIOCostPassOptions::peakF32},
      {"peak_f64", &attn::AttnIOCostPassOptions::peakF64},
      {"peak_scalar", &attn::AttnIOCostPassOptions::peakScalar}};
  for (const auto &[name, value] : ints) {
    auto it = intFields.find(name);
    if (it == intFields.end())
      throw nb::type_error(("unknown integer io-cost override '" + name + "'").c_str());
    if (value <= 0)
      throw nb::value_error((name + " must be positive").c_str());
    options.*(it->second) = value;
  }
  for (const auto &[name, value] : reals) {
    auto it = realFields.find(name);
    if (it == realFields.end())
      throw nb::type_error(("unknown rate io-cost override '" + name + "'").c_str());
    if (!std::isfinite(value) || value <= 0)
      throw nb::value_error((name + " must be finite and positive").c_str());
    options.*(it->second) = value;
  }
  llvm::SmallString<128> path;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("attnopt-iocost", "json", path))
    throw MLIRError("cannot create a temporary file for the io-cost report: " + ec.message());
  llvm::FileRemover remover(path);
  options.report = std::string(path);
  Call call;
  call.description = "attn-io-cost (target " + target + ")";
  call.printIR = false;
  call.populate = [&](PassManager &pm, std::string &) {
    pm.addPass(attn::createAttnIOCostPass(options));
    return true;
  };
  call.finish = [&](ModuleOp, PipelineResult &r, std::string &error) {
    auto buffer = llvm::MemoryBuffer::getFile(path);
    if (!buffer) {
      error = "cannot read the io-cost report: " + buffer.getError().message();
      return false;
    }
    r.ir = (*buffer)->getBuffer().str();
    return true;
  };
  return runGuarded(text, call).ir;
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

  m.def(
      "run_pipeline_counting",
      [](const std::string &text, const std::string &pipeline, const std::string &opName) {
        PipelineResult r;
        {
          nb::gil_scoped_release release;
          r = runPipelineImpl(text, pipeline, opName);
        }
        return std::make_tuple(r.ir, r.remarks, r.count);
      },
      nb::arg("mlir_text"), nb::arg("pipeline"), nb::arg("op_name"),
      "Like run_pipeline_with_remarks, and also return how many ops named "
      "`op_name` (e.g. 'attn.attention') the resulting module holds.");

  m.def(
      "io_cost_report",
      [](const std::string &text, const std::string &target,
         const std::map<std::string, int64_t> &ints, const std::map<std::string, double> &reals) {
        nb::gil_scoped_release release;
        return ioCostReport(text, target, ints, reals);
      },
      nb::arg("mlir_text"), nb::arg("target"), nb::arg("int_overrides"),
      nb::arg("rate_overrides"),
      "The --attn-io-cost JSON report of `mlir_text`, the pass built from typed "
      "options: target preset and overrides by their Python names (sram_bytes, "
      "hbm_bandwidth, ...).");
}

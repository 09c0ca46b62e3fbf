//===- GuardedCall.cpp - one pass pipeline run that cannot kill the caller ===//
//
// Every call builds its own MLIRContext with every dialect attn-opt parses,
// runs a pass pipeline on the parsed module, and returns the printed result.
// MLIR diagnostics are collected with their locations, never printed.
//
// The caller must survive any input. What MLIR reports as a diagnostic is
// an error message; what crashes instead (an upstream parser bug, an LLVM
// fatal error in the NVPTX backend, a failed assertion) is caught by an
// llvm::CrashRecoveryContext around the whole call and reported as an error
// saying so. A crashed call leaks its MLIRContext (nothing of it can be
// trusted to destruct), and its diagnostics up to the crash are kept.
//
//===----------------------------------------------------------------------===//
#include "GuardedCall.h"
#include "attn/Tools/InputNesting.h"
#include "attn/Tools/AttnOptMain.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

#include <csignal>
#include <memory>
#include <mutex>
#include <optional>

using namespace mlir;
using namespace mlir::attn::capi;

namespace {

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

const char *severityName(DiagnosticSeverity severity) {
  switch (severity) {
  case DiagnosticSeverity::Error: return "error";
  case DiagnosticSeverity::Warning: return "warning";
  case DiagnosticSeverity::Remark: return "remark";
  case DiagnosticSeverity::Note: return "note";
  }
  return "note";
}

/// Collects diagnostics as "loc: severity: message" lines.
struct Diagnostics {
  std::vector<std::string> errors, remarks;
  explicit Diagnostics(MLIRContext &ctx)
      : handler(&ctx, [this](Diagnostic &d) {
          std::string text;
          llvm::raw_string_ostream os(text);
          os << formatLocation(d.getLocation()) << ": " << severityName(d.getSeverity())
             << ": " << d;
          for (const Diagnostic &note : d.getNotes())
            os << "\n  " << formatLocation(note.getLocation()) << ": note: " << note;
          (d.getSeverity() == DiagnosticSeverity::Remark ? remarks : errors)
              .push_back(std::move(text));
          return success();
        }) {}
  ScopedDiagnosticHandler handler;
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

/// What a call leaves behind, also when it crashes half-way.
struct CallState {
  std::unique_ptr<MLIRContext> ctx;
  std::unique_ptr<Diagnostics> diags;
  std::optional<CallResult> result;
  std::string error;
  const char *phase = "starting";

  std::string withDiagnostics(std::string msg) const {
    if (diags)
      for (const std::string &e : diags->errors)
        msg += "\n" + e;
    return msg;
  }
};

/// The call itself; runs inside the crash recovery context, so it never
/// throws: the outcome goes into `state.result` or `state.error`.
void runUnsafe(llvm::StringRef text, const Call &call, CallState &state) {
  state.phase = "setting up";
  DialectRegistry registry;
  attn::registerEverything(registry);
  state.ctx = std::make_unique<MLIRContext>(registry);
  MLIRContext &ctx = *state.ctx;
  // Passes run on this thread, inside the crash recovery context.
  ctx.disableMultithreading();
  ctx.allowUnregisteredDialects(false);
  state.diags = std::make_unique<Diagnostics>(ctx);
  state.phase = "parsing the MLIR input";
  if (std::optional<std::size_t> at = attn::findExcessiveNesting(text)) {
    // (What the parser's recursion would not survive: InputNesting.h.)
    Location loc = FileLineColLoc::get(&ctx, "<attnopt input>",
                                       1 + text.take_front(*at).count('\n'),
                                       1 + *at - (text.take_front(*at).rfind('\n') + 1));
    emitError(loc) << "brackets nested deeper than " << attn::kMaxInputNesting
                   << " levels; attn-opt does not parse this input";
    state.error = state.withDiagnostics("could not parse the MLIR input");
    return;
  }
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &ctx, "<attnopt input>");
  if (!module) {
    state.error = state.withDiagnostics("could not parse the MLIR input");
    return;
  }
  // Anchored on the module: a pipeline string without builtin.module(...).
  state.phase = "building the pass pipeline";
  auto pm = PassManager::on<ModuleOp>(&ctx);
  if (!call.populate(pm, state.error))
    return;
  state.phase = "running the pass pipeline";
  if (failed(pm.run(*module))) {
    state.error = state.withDiagnostics(call.description + " failed");
    return;
  }
  state.phase = "printing the result";
  CallResult r;
  if (call.printIR) {
    llvm::raw_string_ostream os(r.ir);
    module->print(os);
  }
  if (!call.countOp.empty())
    module->walk([&](Operation *op) {
      if (op->getName().getStringRef() == call.countOp)
        ++r.count;
    });
  r.remarks = state.diags->remarks;
  if (call.finish) {
    state.phase = "collecting the result";
    if (!call.finish(*module, r, state.error))
      return;
  }
  state.result = std::move(r);
}

} // namespace

bool mlir::attn::capi::runGuarded(llvm::StringRef text, const Call &call,
                                  CallResult &result, std::string &error) {
  installHandlersOnce();
  CallState state;
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
      runUnsafe(text, call, state);
    } catch (const std::exception &e) {
      state.error = std::string("attn-opt raised a C++ exception: ") + e.what();
    } catch (...) {
      state.error = "attn-opt raised an unknown C++ exception";
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
    msg += std::string(") while ") + state.phase + " (" + call.description +
           "); this is a bug in attn-opt or MLIR, please report it with the input";
    error = state.withDiagnostics(msg);
    (void)state.ctx.release();
    (void)state.diags.release();
    // The crashed thread's alternate signal stack may still be registered
    // to it; that thread is gone, but keep the memory anyway.
    (void)signalStack.release();
    return false;
  }
  // Destroy the handler before its context.
  state.diags.reset();
  state.ctx.reset();
  if (!state.result) {
    error = std::move(state.error);
    return false;
  }
  result = std::move(*state.result);
  return true;
}

//===- AttnOpt.cpp - attn-opt's C API -------------------------------------===//
//
// The C entry points of include/attn-c/AttnOpt.h: arguments in, one JSON
// object out (llvm::json), every failure an {"error": ...} object. Nothing
// here throws across the C boundary.
//
//===----------------------------------------------------------------------===//
#include "attn-c/AttnOpt.h"
#include "GuardedCall.h"

#include "attn/Dialect/Attn/Transforms/Passes.h"
#include "attn/Tools/AttnOptMain.h"

#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

#ifndef ATTNOPT_VERSION_STRING
#define ATTNOPT_VERSION_STRING "attn-opt (unknown version)"
#endif

using namespace mlir;
using namespace mlir::attn::capi;

namespace {

char *toCString(const std::string &s) {
  char *out = static_cast<char *>(std::malloc(s.size() + 1));
  if (out)
    std::memcpy(out, s.c_str(), s.size() + 1);
  return out;
}

/// Writes the JSON object into *out and returns the C API's status code.
int reply(llvm::json::Object object, char **out, int status) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(object));
  if (out)
    *out = toCString(text);
  return status;
}

int replyError(const std::string &message, char **out) {
  return reply(llvm::json::Object{{"error", message}}, out, 1);
}

llvm::json::Array remarksOf(const CallResult &r) {
  llvm::json::Array remarks;
  for (const std::string &line : r.remarks)
    remarks.push_back(line);
  return remarks;
}

/// Sets one field of the io-cost options from a JSON value; false with
/// `error` set for an unknown key, a wrong type or a value that is not
/// finite and positive.
bool setIOCostOption(attn::AttnIOCostPassOptions &options, llvm::StringRef key,
                     const llvm::json::Value &value, std::string &error) {
  using Options = attn::AttnIOCostPassOptions;
  static const std::pair<const char *, int64_t Options::*> intFields[] = {
      {"sram_bytes", &Options::sramBytes}, {"sm_count", &Options::smCount},
      {"ctas_per_sm", &Options::ctasPerSm}, {"l2_bytes", &Options::l2Bytes},
      {"block_q", &Options::blockQ},       {"block_kv", &Options::blockKV}};
  static const std::pair<const char *, double Options::*> realFields[] = {
      {"hbm_bandwidth", &Options::hbmBandwidth}, {"l2_bandwidth", &Options::l2Bandwidth},
      {"peak_f16", &Options::peakF16},           {"peak_bf16", &Options::peakBF16},
      {"peak_f32", &Options::peakF32},           {"peak_f64", &Options::peakF64},
      {"peak_f8", &Options::peakF8},
      {"peak_scalar", &Options::peakScalar}};
  if (key == "target") {
    std::optional<llvm::StringRef> target = value.getAsString();
    if (!target) {
      error = "io-cost option 'target' must be a string";
      return false;
    }
    options.target = target->str();
    return true;
  }
  for (const auto &[name, field] : intFields) {
    if (key != name)
      continue;
    std::optional<int64_t> v = value.getAsInteger();
    if (!v || *v <= 0) {
      error = key.str() + " must be a positive integer";
      return false;
    }
    options.*field = *v;
    return true;
  }
  for (const auto &[name, field] : realFields) {
    if (key != name)
      continue;
    std::optional<double> v = value.getAsNumber();
    if (!v || !std::isfinite(*v) || *v <= 0) {
      error = key.str() + " must be finite and positive";
      return false;
    }
    options.*field = *v;
    return true;
  }
  error = "unknown io-cost option '" + key.str() + "'";
  return false;
}

bool parseIOCostOptions(const char *json, attn::AttnIOCostPassOptions &options,
                        std::string &error) {
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(json ? json : "{}");
  if (!parsed) {
    error = "io-cost options are not JSON: " + llvm::toString(parsed.takeError());
    return false;
  }
  const llvm::json::Object *object = parsed->getAsObject();
  if (!object) {
    error = "io-cost options must be a JSON object";
    return false;
  }
  for (const auto &[key, value] : *object)
    if (!setIOCostOption(options, key, value, error))
      return false;
  return true;
}

} // namespace

extern "C" {

const char *attnopt_version(void) { return ATTNOPT_VERSION_STRING; }

int attnopt_run_pipeline(const char *mlir, size_t mlirLen, const char *pipeline,
                         const char *countOp, char **outJson) {
  if (!mlir || !pipeline)
    return replyError("attnopt_run_pipeline: null input or pipeline", outJson);
  std::string pipelineText = pipeline;
  Call call;
  call.description = "pass pipeline '" + pipelineText + "'";
  call.populate = [&](PassManager &pm, std::string &error) {
    std::string parseErrors;
    llvm::raw_string_ostream errs(parseErrors);
    if (succeeded(parsePassPipeline(pipelineText, pm, errs)))
      return true;
    error = "invalid pass pipeline '" + pipelineText + "': " + parseErrors;
    return false;
  };
  call.countOp = countOp ? countOp : "";
  CallResult result;
  std::string error;
  if (!runGuarded(llvm::StringRef(mlir, mlirLen), call, result, error))
    return replyError(error, outJson);
  return reply(llvm::json::Object{{"ir", std::move(result.ir)},
                                  {"remarks", remarksOf(result)},
                                  {"count", result.count}},
               outJson, 0);
}

int attnopt_io_cost_report(const char *mlir, size_t mlirLen, const char *optionsJson,
                           char **outJson) {
  if (!mlir)
    return replyError("attnopt_io_cost_report: null input", outJson);
  attn::AttnIOCostPassOptions options;
  std::string error;
  if (!parseIOCostOptions(optionsJson, options, error))
    return replyError(error, outJson);
  // The pass writes its report to a file: a fresh temporary one, removed
  // afterwards.
  llvm::SmallString<128> path;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile("attnopt-iocost", "json", path))
    return replyError("cannot create a temporary file for the io-cost report: " +
                          ec.message(),
                      outJson);
  llvm::FileRemover remover(path);
  options.report = std::string(path);
  Call call;
  call.description = "attn-io-cost (target " + options.target + ")";
  call.printIR = false;
  call.populate = [&](PassManager &pm, std::string &) {
    pm.addPass(attn::createAttnIOCostPass(options));
    return true;
  };
  call.finish = [&](ModuleOp, CallResult &r, std::string &finishError) {
    auto buffer = llvm::MemoryBuffer::getFile(path);
    if (!buffer) {
      finishError = "cannot read the io-cost report: " + buffer.getError().message();
      return false;
    }
    r.ir = (*buffer)->getBuffer().str();
    return true;
  };
  CallResult result;
  if (!runGuarded(llvm::StringRef(mlir, mlirLen), call, result, error))
    return replyError(error, outJson);
  return reply(llvm::json::Object{{"report", std::move(result.ir)},
                                  {"remarks", remarksOf(result)}},
               outJson, 0);
}

int attnopt_main(int argc, char **argv) { return attn::attnOptMain(argc, argv); }

void attnopt_free(char *json) { std::free(json); }

} // extern "C"

//===- attn-fuzz-options.cpp - libFuzzer target over pass options ---------===//
//
// The bytes choose a fixed attention module, a pass or pipeline (attn-io-cost,
// attn-fuse, attn-lower-to-loops, attn-lower-to-gpu, attn-cpu-pipeline,
// attn-gpu-pipeline) and an option string for it: option names of that pass
// and values from a table of interesting ones (tile sizes off by one, zero,
// negative, huge, NaN, chips that exist and do not), or raw bytes. The
// pipeline is then parsed and run. An option string that does not parse or
// a pass that fails with a diagnostic is fine; a crash, an abort (LLVM
// ERROR, report_fatal_error in a backend), a sanitizer report or a hang is
// a bug.
//
// Options that write files (report=, roofline=, dump-dir=) are not fuzzed.
// Built as attn-fuzz-options (libFuzzer) and attn-fuzz-options-replay
// (plain main, CI), like attn-fuzz.
//
//===----------------------------------------------------------------------===//
#include "attn/InitAttn.h"
#include "../SanitizerDefaults.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

using namespace mlir;

namespace {

/// The modules options are tried on: what the kernels and the cost model
/// see in practice (f16 d=64 and d=128, causal, a keep mask with GQA, bf16
/// GQA with d_v != d, f32 2-D with both mask kinds and a dynamic extent, and
/// a linalg chain that only detection turns into attention).
const char *const kModules[] = {
    R"(func.func @f16_d64(%q: tensor<1x4x256x64xf16>, %k: tensor<1x4x256x64xf16>, %v: tensor<1x4x256x64xf16>) -> tensor<1x4x256x64xf16> {
  %o = attn.attention %q, %k, %v scale(0.125) : tensor<1x4x256x64xf16>, tensor<1x4x256x64xf16>, tensor<1x4x256x64xf16> -> tensor<1x4x256x64xf16>
  return %o : tensor<1x4x256x64xf16>
})",
    R"(func.func @f16_d128_causal(%q: tensor<2x2x200x128xf16>, %k: tensor<2x2x200x128xf16>, %v: tensor<2x2x200x128xf16>) -> tensor<2x2x200x128xf16> {
  %o = attn.attention %q, %k, %v scale(0.088) causal(top_left) : tensor<2x2x200x128xf16>, tensor<2x2x200x128xf16>, tensor<2x2x200x128xf16> -> tensor<2x2x200x128xf16>
  return %o : tensor<2x2x200x128xf16>
})",
    R"(func.func @masked(%q: tensor<1x4x256x128xf16>, %k: tensor<1x2x256x128xf16>, %v: tensor<1x2x256x128xf16>, %m: tensor<1x1x256x256xi1>) -> tensor<1x4x256x128xf16> {
  %o = attn.attention %q, %k, %v mask(%m : tensor<1x1x256x256xi1>) scale(0.088) causal(bottom_right)
      : tensor<1x4x256x128xf16>, tensor<1x2x256x128xf16>, tensor<1x2x256x128xf16> -> tensor<1x4x256x128xf16>
  return %o : tensor<1x4x256x128xf16>
})",
    R"(func.func @gqa_bf16(%q: tensor<2x8x128x64xbf16>, %k: tensor<2x2x128x64xbf16>, %v: tensor<2x2x128x32xbf16>) -> tensor<2x8x128x32xbf16> {
  %o = attn.attention %q, %k, %v scale(0.125) causal(top_left)
      : tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x32xbf16> -> tensor<2x8x128x32xbf16>
  return %o : tensor<2x8x128x32xbf16>
})",
    R"(func.func @f32_2d(%q: tensor<16x8xf32>, %k: tensor<24x8xf32>, %v: tensor<24x8xf32>, %m: tensor<1x24xf32>, %keep: tensor<16x24xi1>) -> (tensor<16x8xf32>, tensor<16x8xf32>, tensor<?x8xf32>) {
  %a = attn.attention %q, %k, %v mask(%m : tensor<1x24xf32>) scale(1.0)
      : tensor<16x8xf32>, tensor<24x8xf32>, tensor<24x8xf32> -> tensor<16x8xf32>
  %b = attn.attention %q, %k, %v mask(%keep : tensor<16x24xi1>) scale(0.5) causal(bottom_right)
      : tensor<16x8xf32>, tensor<24x8xf32>, tensor<24x8xf32> -> tensor<16x8xf32>
  %qd = tensor.cast %q : tensor<16x8xf32> to tensor<?x8xf32>
  %c = attn.attention %qd, %k, %v scale(1.0)
      : tensor<?x8xf32>, tensor<24x8xf32>, tensor<24x8xf32> -> tensor<?x8xf32>
  return %a, %b, %c : tensor<16x8xf32>, tensor<16x8xf32>, tensor<?x8xf32>
})",
    R"(#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mo = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @chain(%q: tensor<64x64xf16>, %k: tensor<64x64xf16>, %v: tensor<64x64xf16>) -> tensor<64x64xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<64x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<64x64xf16>) -> tensor<64x64xf16>
  %s = linalg.matmul indexing_maps = [#mq, #mk, #mo] ins(%q, %k : tensor<64x64xf16>, tensor<64x64xf16>) outs(%acc : tensor<64x64xf16>) -> tensor<64x64xf16>
  %c = arith.constant 0.125 : f16
  %s1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<64x64xf16>) outs(%e : tensor<64x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    %m = arith.mulf %in, %c : f16
    linalg.yield %m : f16
  } -> tensor<64x64xf16>
  %p = linalg.softmax dimension(1) ins(%s1 : tensor<64x64xf16>) outs(%e : tensor<64x64xf16>) -> tensor<64x64xf16>
  %o = linalg.matmul ins(%p, %v : tensor<64x64xf16>, tensor<64x64xf16>) outs(%acc : tensor<64x64xf16>) -> tensor<64x64xf16>
  return %o : tensor<64x64xf16>
})",
};

/// Values worth trying for any option: each option also draws from its own
/// list below. Values of the wrong type must be rejected by the parser.
const char *const kAnyValues[] = {
    "0", "1", "-1", "2", "3", "7", "8", "15", "16", "17", "31", "32", "33",
    "48", "63", "64", "65", "96", "127", "128", "129", "192", "255", "256",
    "257", "512", "1024", "65536", "1048576", "4294967295", "4294967296",
    "2147483647", "2147483648", "-2147483648", "9223372036854775807",
    "-9223372036854775808", "18446744073709551615", "99999999999999999999",
    "nan", "-nan", "inf", "-inf", "1e308", "1e-308", "1e400", "-0", "0.5",
    "0x40", "1.5", "true", "false", "''", "\"\"", "h200", "a100", "h100",
    "sm_90a", "sm_80", "wgmma", "mma.sync", "auto", "{}", "{", "}", "=",
    " ", ",", "'64'", "\"64\"", "%s%n%x"};

struct OptionSpec {
  const char *name;
  std::vector<const char *> values;
};

const std::vector<const char *> kTiles = {"0", "16", "32", "48", "64", "96",
                                          "128", "256", "-64", "1", "17"};
const std::vector<const char *> kWarps = {"0", "1", "2", "3", "4", "8", "16", "-2"};
const std::vector<const char *> kSizes = {
    "-1", "0", "1", "1024", "49152", "101376", "232448", "233472", "262144",
    "52428800", "9223372036854775807", "-2"};
const std::vector<const char *> kRates = {"-1", "0", "1e-300", "4.8e12",
                                          "1e308", "nan", "inf", "-5",
                                          "989e12", "2.0"};
const std::vector<const char *> kChips = {
    "sm_90a", "sm_90", "sm_80", "sm_86", "sm_87", "sm_89", "sm_100",
    "sm_100a", "sm_120", "sm_120a", "sm_70", "sm_75", "sm_35", "sm_20",
    "sm_", "sm_9999", "sm_90b", "gfx90a", "", "SM_90A", "sm_90a ",
    "sm_80,sm_90", "compute_90a", "sm_101", "sm_103a", "sm_121"};
const std::vector<const char *> kMma = {"auto", "mma.sync", "wgmma", "",
                                        "WGMMA", "mma", "tcgen05", "mma.sync "};
const std::vector<const char *> kLoads = {"auto", "cp.async", "tma", "tma-producer", "",
                                          "TMA", "cp.async ", "bulk", "tma-"};
const std::vector<const char *> kAutoOnOff = {"auto", "on", "off", "", "ON", "true", "1",
                                              "on "};
/// The GPU pipeline's target= also takes auto, and checks the preset against chip=.
const std::vector<const char *> kGpuTargets = {"auto", "h100", "h200", "a100", "rtx5090",
                                               "", "Auto", "v100", "h200 "};
const std::vector<const char *> kTargets = {"h200", "h100", "a100", "a10", "l40s", "rtx5090", "",
                                            "b200", "H200", "cpu", "h200 "};
const std::vector<const char *> kBools = {"true", "false", "1", "0", "yes",
                                          "2", ""};

const std::vector<OptionSpec> kIOCost = {
    {"target", kTargets},    {"sram-bytes", kSizes},
    {"sm-count", kSizes},    {"ctas-per-sm", kSizes},
    {"l2-bytes", kSizes},    {"hbm-bandwidth", kRates},
    {"l2-bandwidth", kRates}, {"peak-f16", kRates},
    {"peak-bf16", kRates},   {"peak-f32", kRates},
    {"peak-f64", kRates},    {"peak-f8", kRates},    {"peak-scalar", kRates},
    {"block-q", kTiles},     {"block-kv", kTiles},
    {"kv-splits", kTiles},   {"kv-warps", kWarps},    {"kv-loads", kLoads},
    {"overlap-pv", kAutoOnOff}, {"remarks", kBools}};
const std::vector<OptionSpec> kFuse = {{"block-q", kTiles},
                                       {"block-kv", kTiles}};
const std::vector<OptionSpec> kLowerToLoops = {{"decompose-only", kBools}};
const std::vector<OptionSpec> kLowerToGpu = {
    {"block-q", kTiles},  {"rows-per-warp", kTiles}, {"block-kv", kTiles},
    {"swizzle", kBools},  {"mma", kMma},             {"kv-stages", kTiles},
    {"kv-splits", kTiles},  {"kv-warps", kWarps},    {"kv-loads", kLoads},
    {"overlap-pv", kAutoOnOff}};
const std::vector<OptionSpec> kCpuPipeline = {
    {"target", kTargets}, {"block-q", kTiles}, {"block-kv", kTiles},
    {"detect", kBools},   {"fuse", kBools}};
const std::vector<OptionSpec> kGpuPipeline = {
    {"chip", kChips},     {"block-q", kTiles}, {"rows-per-warp", kTiles},
    {"block-kv", kTiles}, {"swizzle", kBools}, {"kv-stages", kTiles},
    {"mma", kMma},        {"kv-splits", kTiles}, {"kv-warps", kWarps},
    {"kv-loads", kLoads}, {"overlap-pv", kAutoOnOff}, {"target", kGpuTargets}};

/// Reads the input front to back; past the end it yields zeros.
struct ByteReader {
  const uint8_t *data;
  size_t size, pos = 0;
  bool done() const { return pos >= size; }
  uint8_t next() { return pos < size ? data[pos++] : 0; }
};

/// One option string `{k=v k=v}` for `specs`, drawn from the input.
std::string options(ByteReader &in, const std::vector<OptionSpec> &specs) {
  unsigned count = in.next() % 5;
  std::string s;
  for (unsigned i = 0; i < count && !in.done(); ++i) {
    uint8_t a = in.next(), b = in.next();
    const OptionSpec &spec = specs[a % specs.size()];
    std::string value;
    if (b < 0xC0) {
      value = spec.values[b % spec.values.size()];
    } else if (b < 0xF8) {
      value = kAnyValues[b % std::size(kAnyValues)];
    } else {
      // Raw bytes: up to 16 of them, as they come.
      unsigned len = in.next() % 17;
      for (unsigned j = 0; j < len && !in.done(); ++j)
        value.push_back(static_cast<char>(in.next()));
    }
    s += (s.empty() ? "" : " ") + std::string(spec.name) + "=" + value;
  }
  return s.empty() ? s : "{" + s + "}";
}

/// A pass list for the module's pass manager (no builtin.module anchor:
/// see attn-fuzz.cpp).
std::string pipelineFor(ByteReader &in) {
  switch (in.next() % 6) {
  case 0:
    return "attn-io-cost" + options(in, kIOCost);
  case 1: {
    std::string io = options(in, kIOCost), fuse = options(in, kFuse),
                loops = options(in, kLowerToLoops);
    return "attn-io-cost" + io + ",func.func(attn-fuse" + fuse +
           "),attn-lower-to-loops" + loops;
  }
  case 2:
    return "attn-lower-to-loops" + options(in, kLowerToLoops);
  case 3:
    return "func.func(attn-detect),attn-lower-to-gpu" +
           options(in, kLowerToGpu);
  case 4:
    return "attn-cpu-pipeline" + options(in, kCpuPipeline);
  default:
    return "attn-gpu-pipeline" + options(in, kGpuPipeline);
  }
}

struct FuzzState {
  DialectRegistry registry;
  std::unique_ptr<MLIRContext> context;
  std::vector<OwningOpRef<ModuleOp>> modules;
  unsigned uses = 0;

  FuzzState() {
    registerAllDialects(registry);
    registerAllExtensions(registry);
    registerAllToLLVMIRTranslations(registry);
    attn::registerAttnDialect(registry);
    attn::registerAttnPasses();
  }

  MLIRContext &get() {
    // Recycled now and then, as in attn-fuzz: types and attributes stay
    // interned. The pipelines here build much more IR per input.
    if (!context || ++uses > 500) {
      modules.clear();
      context = std::make_unique<MLIRContext>(
          registry, MLIRContext::Threading::DISABLED);
      context->loadAllAvailableDialects();
      for (const char *text : kModules) {
        modules.push_back(parseSourceString<ModuleOp>(text, context.get()));
        if (!modules.back()) {
          llvm::errs() << "attn-fuzz-options: a fixed module does not parse\n";
          abort();
        }
      }
      uses = 1;
    }
    return *context;
  }
};

unsigned long succeededRuns = 0, failedRuns = 0;

FuzzState &state() {
  static FuzzState s;
  return s;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext &ctx = state().get();
  static const bool verbose = getenv("ATTN_FUZZ_VERBOSE") != nullptr;
  ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &d) {
    if (verbose)
      llvm::errs() << d.getLocation() << ": " << d.str() << "\n";
    return success();
  });
  ByteReader in{data, size};
  auto &modules = state().modules;
  OwningOpRef<ModuleOp> module(modules[in.next() % modules.size()]->clone());
  std::string pipeline = pipelineFor(in);
  if (verbose)
    llvm::errs() << "attn-fuzz-options: " << pipeline << "\n";
  PassManager pm(&ctx, ModuleOp::getOperationName());
  pm.enableVerifier(true);
  std::string errors;
  llvm::raw_string_ostream errStream(errors);
  if (failed(parsePassPipeline(pipeline, pm, errStream))) {
    if (verbose)
      llvm::errs() << errors << "\n";
    return 0;
  }
  if (succeeded(pm.run(*module)))
    ++succeededRuns;
  else
    ++failedRuns;
  return 0;
}

extern "C" const char *attnFuzzReplaySummary() {
  static std::string s;
  s = "pipelines: " + std::to_string(succeededRuns) + " succeeded, " +
      std::to_string(failedRuns) + " failed with a diagnostic";
  return s.c_str();
}

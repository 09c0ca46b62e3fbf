//===- oracle.cpp - semantic oracle of the fuzz targets -------------------===//
//
// See oracle.h and FUZZING.md ("The semantic oracle").
//
// Why one file of ~780 lines: eligibility, the two lowerings, the JIT calls
// through packed memref descriptors and the comparison are one procedure
// whose parts share the descriptor layout described below; it is test
// tooling, not compiler code.
//
// How a function is called: the CPU pipeline bufferizes function boundaries
// with identity layouts (lib/Dialect/Attn/Transforms/LowerToLoops.cpp), so
// after convert-to-llvm a tensor<AxBxf32> argument is the expanded memref
// descriptor (allocated ptr, aligned ptr, offset, sizes..., strides...) and
// the results come back as one LLVM struct of such descriptors. The
// ExecutionEngine's packed wrapper `_mlir_<name>` takes a pointer to every
// one of those scalars and, last, a pointer to the result struct, all of
// whose fields are 8 bytes wide.
//
//===----------------------------------------------------------------------===//
#include "oracle.h"

#include "attn/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Compiler.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <vector>

#if LLVM_ADDRESS_SANITIZER_BUILD
#include <sanitizer/allocator_interface.h>
#endif

using namespace mlir;

namespace attnfuzz {
namespace {

// Limits: what makes an input cheap and safe enough to run.
constexpr int64_t kMaxArgElements = 16 * 1024;   // per argument or result
constexpr int64_t kMaxSignatureElements = 64 * 1024; // per function
constexpr int64_t kMaxValueElements = 1 << 20;   // any tensor in the body
constexpr int64_t kMaxWork = 1 << 23;            // iterations, summed
constexpr unsigned kMaxOps = 400;
constexpr size_t kDedupeCapacity = 1 << 16;

struct Stats {
  uint64_t parsed = 0, eligible = 0, raised = 0, duplicate = 0, checks = 0,
           refLowerFail = 0, detLowerFail = 0, jitFail = 0, refAsserts = 0,
           values = 0, skippedNonFinite = 0, illConditioned = 0, mismatches = 0;
  double seconds = 0;
} stats;

const char *statsDir() {
  static const char *dir = getenv("ATTN_FUZZ_ORACLE_DIR");
  return dir;
}

void writeStatsFile() {
  if (!statsDir())
    return;
  std::string path =
      (llvm::Twine(statsDir()) + "/stats." + llvm::Twine(getpid())).str();
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (!ec)
    os << oracleStats() << "\n";
}

void atExit() {
  writeStatsFile();
}

/// Keeps an interesting non-mismatch (the raised module fails to lower
/// while the original lowers) for triage, a few per process.
void keepForTriage(llvm::StringRef kind, llvm::StringRef text) {
  static unsigned kept = 0;
  if (!statsDir() || kept >= 20)
    return;
  ++kept;
  std::string path = (llvm::Twine(statsDir()) + "/" + kind + "." +
                      llvm::Twine(getpid()) + "." + llvm::Twine(kept) + ".mlir")
                         .str();
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (!ec)
    os << text;
}

bool isFloatOrMask(Type t) {
  return t.isF32() || t.isF16() || t.isBF16() || t.isInteger(1);
}

/// Static, small, f32/f16/bf16/i1.
bool isOracleTensor(Type t, int64_t &elements) {
  auto rt = dyn_cast<RankedTensorType>(t);
  if (!rt || !rt.hasStaticShape() || !isFloatOrMask(rt.getElementType()))
    return false;
  elements = rt.getNumElements();
  return elements > 0 && elements <= kMaxArgElements;
}

/// Ops whose lowering can trap or run unboundedly on data we do not
/// control (integer division, data-dependent indexing, while loops, calls).
bool isUnsafeOp(Operation *op) {
  static const llvm::StringSet<> banned = {
      "arith.divsi",       "arith.divui",       "arith.remsi",
      "arith.remui",       "arith.ceildivsi",   "arith.ceildivui",
      "arith.floordivsi",  "tensor.extract",    "tensor.insert",
      "tensor.generate",   "tensor.dim",        "tensor.bitcast",
      "tosa.gather",       "tosa.scatter",      "tosa.custom",
      "tosa.while_loop",   "tosa.cond_if",      "tosa.intdiv",
      "tosa.variable",     "tosa.variable_read", "tosa.variable_write",
      "tosa.conv2d",       "tosa.conv3d",       "tosa.depthwise_conv2d",
      "tosa.transpose_conv2d", "tosa.fft2d",    "tosa.rfft2d",
      "tosa.avg_pool2d",   "tosa.max_pool2d",   "tosa.resize",
      "func.call",         "func.call_indirect", "func.constant",
      "linalg.index"};
  static const llvm::StringSet<> dialects = {
      "builtin", "func", "arith", "math", "linalg", "tensor", "tosa", "attn",
      "scf"};
  StringRef name = op->getName().getStringRef();
  if (banned.contains(name) || !dialects.contains(op->getDialect()
                                                      ? op->getDialect()->getNamespace()
                                                      : StringRef("?")))
    return true;
  if (op->getDialect()->getNamespace() == "scf" &&
      !isa<scf::ForOp, scf::YieldOp, scf::IfOp>(op))
    return true;
  // Tensor ops with index operands index by data (dynamic offsets, sizes).
  if (op->getDialect()->getNamespace() == "tensor")
    for (Value v : op->getOperands())
      if (v.getType().isIndex())
        return true;
  return false;
}

/// Whether some use reads a tensor.empty's contents, which are unspecified:
/// the program's numbers are then not defined, and two runs of it (raised
/// or not) may differ without either being wrong. Only a linalg init whose
/// payload never reads it (fill, transpose, an elementwise generic) is a
/// write-only use.
bool readsUnspecifiedValues(tensor::EmptyOp empty) {
  return llvm::any_of(empty->getUses(), [](OpOperand &use) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(use.getOwner());
    return !linalgOp || !linalgOp.isDpsInit(&use) ||
           linalgOp.payloadUsesValueFromOperand(&use);
  });
}

int64_t elementsOf(Type t) {
  auto st = dyn_cast<ShapedType>(t);
  return st && st.hasStaticShape() ? st.getNumElements() : 0;
}

/// Whether `module` is one the oracle runs, with the work its functions do
/// bounded, and the largest extent of any public function's operand (the
/// reduction length bound used by the tolerance).
bool isEligible(ModuleOp module, int64_t &maxExtent, Type &narrowest) {
  maxExtent = 1;
  unsigned publicFuncs = 0;
  for (Operation &op : module.getBody()->getOperations()) {
    auto fn = dyn_cast<func::FuncOp>(&op);
    if (!fn || fn.isDeclaration())
      return false;
    if (!fn.isPublic())
      continue;
    ++publicFuncs;
    int64_t total = 0;
    for (Type t : llvm::concat<const Type>(fn.getArgumentTypes(),
                                           fn.getResultTypes())) {
      int64_t n;
      if (!isOracleTensor(t, n))
        return false;
      total += n;
      for (int64_t d : cast<RankedTensorType>(t).getShape())
        maxExtent = std::max(maxExtent, d);
    }
    if (total > kMaxSignatureElements)
      return false;
  }
  if (publicFuncs == 0)
    return false;

  unsigned ops = 0;
  int64_t work = 0;
  bool ok = true;
  module.walk([&](Operation *op) {
    if (!ok)
      return WalkResult::interrupt();
    if (++ops > kMaxOps || isUnsafeOp(op)) {
      ok = false;
      return WalkResult::interrupt();
    }
    if (auto empty = dyn_cast<tensor::EmptyOp>(op); empty && readsUnspecifiedValues(empty)) {
      ok = false;
      return WalkResult::interrupt();
    }
    // Every value static and bounded; no memrefs or vectors.
    auto checkType = [&](Type t) {
      if (isa<BaseMemRefType, VectorType, UnrankedTensorType>(t))
        return false;
      if (auto rt = dyn_cast<RankedTensorType>(t)) {
        if (!rt.hasStaticShape() || rt.getNumElements() > kMaxValueElements)
          return false;
        Type e = rt.getElementType();
        if (e.isF16() || e.isBF16())
          narrowest = (narrowest && narrowest.isBF16()) ? narrowest : e;
      }
      return true;
    };
    for (Type t : op->getResultTypes())
      if (!checkType(t))
        ok = false;
    for (Value v : op->getOperands())
      if (!checkType(v.getType()))
        ok = false;
    for (Region &r : op->getRegions())
      for (Block &b : r)
        for (BlockArgument a : b.getArguments())
          if (!checkType(a.getType()))
            ok = false;
    if (!ok)
      return WalkResult::interrupt();

    // The iterations this op runs, times those of the loops around it.
    int64_t trips = 1;
    for (Operation *p = op->getParentOp(); p; p = p->getParentOp()) {
      auto forOp = dyn_cast<scf::ForOp>(p);
      if (!forOp)
        continue;
      auto lb = getConstantIntValue(forOp.getLowerBound());
      auto ub = getConstantIntValue(forOp.getUpperBound());
      auto step = getConstantIntValue(forOp.getStep());
      if (!lb || !ub || !step || *step <= 0) {
        ok = false;
        return WalkResult::interrupt();
      }
      int64_t n = *ub > *lb ? (*ub - *lb + *step - 1) / *step : 0;
      if (n > 4096) {
        ok = false;
        return WalkResult::interrupt();
      }
      trips *= std::max<int64_t>(n, 1);
      if (trips > kMaxWork) {
        ok = false;
        return WalkResult::interrupt();
      }
    }
    int64_t own = 0;
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
      for (AffineMap m : linalgOp.getIndexingMapsArray())
        if (!m.isProjectedPermutation(/*allowZeroInResults=*/true)) {
          ok = false;
          return WalkResult::interrupt();
        }
      own = 1;
      for (int64_t r : linalgOp.getStaticLoopRanges()) {
        if (ShapedType::isDynamic(r) || r < 0) {
          ok = false;
          return WalkResult::interrupt();
        }
        own = r == 0 ? 0 : (own > kMaxWork / r ? kMaxWork + 1 : own * r);
      }
    } else if (op->getName().getStringRef() == "tosa.matmul" &&
               op->getNumOperands() >= 2) {
      auto a = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
      own = elementsOf(op->getResult(0).getType()) *
            (a && a.getRank() == 3 ? a.getDimSize(2) : 1);
    } else if (op->getName().getStringRef() == "attn.attention" &&
               op->getNumOperands() >= 3) {
      auto k = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
      own = 2 * elementsOf(op->getOperand(0).getType()) *
            (k && k.getRank() >= 2 ? k.getDimSize(k.getRank() - 2) : 1);
    } else {
      for (Type t : op->getResultTypes())
        own += elementsOf(t);
      for (Value v : op->getOperands())
        own += elementsOf(v.getType());
    }
    work += own * trips;
    if (own > kMaxWork || work > kMaxWork) {
      ok = false;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return ok;
}

unsigned countAttention(ModuleOp module) {
  unsigned n = 0;
  module.walk([&](Operation *op) {
    if (op->getName().getStringRef() == "attn.attention")
      ++n;
  });
  return n;
}

/// splitmix64 and Box-Muller: the same inputs on every platform.
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return (next() >> 11) * 0x1.0p-53; }
  double normal() {
    double u = std::max(uniform(), 1e-300), v = uniform();
    return std::sqrt(-2 * std::log(u)) * std::cos(2 * M_PI * v);
  }
};

unsigned byteWidth(Type e) {
  if (e.isF32())
    return 4;
  if (e.isF16() || e.isBF16())
    return 2;
  return 1; // i1: one byte per element in memory
}

const llvm::fltSemantics &semanticsOf(Type e) {
  if (e.isF16())
    return llvm::APFloat::IEEEhalf();
  if (e.isBF16())
    return llvm::APFloat::BFloat();
  return llvm::APFloat::IEEEsingle();
}

/// Random argument bytes: standard normal values (rounded to the element
/// type), or a keep mask with 80% true and key 0 of every row kept.
std::vector<uint8_t> randomBytes(RankedTensorType t, Rng &rng) {
  Type e = t.getElementType();
  int64_t n = t.getNumElements();
  unsigned w = byteWidth(e);
  std::vector<uint8_t> out(n * w);
  int64_t last = t.getRank() ? t.getShape().back() : 1;
  for (int64_t i = 0; i < n; ++i) {
    if (e.isInteger(1)) {
      out[i] = (i % last == 0) || rng.uniform() < 0.8;
      continue;
    }
    float f = static_cast<float>(rng.normal());
    if (e.isF32()) {
      std::memcpy(&out[i * 4], &f, 4);
      continue;
    }
    llvm::APFloat ap(f);
    bool lost;
    ap.convert(semanticsOf(e), llvm::APFloat::rmNearestTiesToEven, &lost);
    uint16_t bits = ap.bitcastToAPInt().getZExtValue();
    std::memcpy(&out[i * 2], &bits, 2);
  }
  return out;
}

/// `bytes` (a tensor of type `t`) with every float element moved one ulp
/// up or down at random: the smallest change of the inputs, whose effect on
/// the original program's results measures how well they are determined at
/// this precision (see the comparison in checkRaise).
std::vector<uint8_t> nudgeByOneUlp(const std::vector<uint8_t> &bytes, RankedTensorType t,
                                   Rng &rng) {
  Type e = t.getElementType();
  if (e.isInteger(1))
    return bytes;
  unsigned w = byteWidth(e);
  std::vector<uint8_t> out(bytes);
  for (size_t i = 0; i * w < out.size(); ++i) {
    uint64_t raw = 0;
    std::memcpy(&raw, &out[i * w], w);
    llvm::APFloat x(semanticsOf(e), llvm::APInt(8 * w, raw));
    x.next(/*nextDown=*/rng.uniform() < 0.5);
    raw = x.bitcastToAPInt().getZExtValue();
    std::memcpy(&out[i * w], &raw, w);
  }
  return out;
}

double readElement(const uint8_t *p, Type e) {
  if (e.isF32()) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  if (e.isInteger(1))
    return *p ? 1.0 : 0.0;
  uint16_t bits;
  std::memcpy(&bits, p, 2);
  return llvm::APFloat(semanticsOf(e), llvm::APInt(16, bits)).convertToDouble();
}

/// One run of one function: its results as doubles, per result.
struct RunResult {
  std::vector<std::vector<double>> values;
};

/// Calls `name` of `engine` on copies of `argBytes`; returns false (and
/// says why) when the call cannot be made.
bool callFunction(ExecutionEngine &engine, StringRef name,
                  ArrayRef<RankedTensorType> argTypes,
                  ArrayRef<RankedTensorType> resultTypes,
                  ArrayRef<std::vector<uint8_t>> argBytes, RunResult &out) {
  // Argument descriptors: fields[k] is a 64-bit slot.
  std::vector<std::vector<int64_t>> descs;
  std::vector<void *> buffers;
  std::vector<void *> packed;
  for (auto [t, bytes] : llvm::zip(argTypes, argBytes)) {
    void *buf = malloc(std::max<size_t>(bytes.size(), 1));
    std::memcpy(buf, bytes.data(), bytes.size());
    buffers.push_back(buf);
    std::vector<int64_t> d;
    d.push_back(reinterpret_cast<intptr_t>(buf));
    d.push_back(reinterpret_cast<intptr_t>(buf));
    d.push_back(0);
    for (int64_t s : t.getShape())
      d.push_back(s);
    int64_t stride = 1;
    std::vector<int64_t> strides(t.getRank());
    for (int64_t i = t.getRank() - 1; i >= 0; --i) {
      strides[i] = stride;
      stride *= t.getDimSize(i);
    }
    d.insert(d.end(), strides.begin(), strides.end());
    descs.push_back(std::move(d));
  }
  for (auto &d : descs)
    for (int64_t &f : d)
      packed.push_back(&f);
  size_t resultSlots = 0;
  for (RankedTensorType t : resultTypes)
    resultSlots += 3 + 2 * t.getRank();
  std::vector<int64_t> results(std::max<size_t>(resultSlots, 1));
  if (!resultTypes.empty())
    packed.push_back(results.data());

  if (llvm::Error err = engine.invokePacked(name, packed)) {
    llvm::consumeError(std::move(err));
    for (void *b : buffers)
      free(b);
    return false;
  }

  llvm::SmallPtrSet<void *, 8> freed;
  size_t slot = 0;
  for (RankedTensorType t : resultTypes) {
    auto *allocated = reinterpret_cast<uint8_t *>(results[slot]);
    auto *aligned = reinterpret_cast<uint8_t *>(results[slot + 1]);
    int64_t offset = results[slot + 2];
    int64_t rank = t.getRank();
    const int64_t *sizes = &results[slot + 3];
    const int64_t *strides = &results[slot + 3 + rank];
    slot += 3 + 2 * rank;
    Type e = t.getElementType();
    unsigned w = byteWidth(e);
    std::vector<double> vals(t.getNumElements());
    bool shapeOk = true;
    for (int64_t i = 0; i < rank; ++i)
      shapeOk &= sizes[i] == t.getDimSize(i);
    if (!shapeOk) {
      llvm::errs() << "attn-fuzz oracle: @" << name
                   << " returned a memref of the wrong shape\n";
      abort();
    }
    for (int64_t i = 0, n = t.getNumElements(); i < n; ++i) {
      int64_t rem = i, at = offset;
      for (int64_t d = rank - 1; d >= 0; --d) {
        at += (rem % t.getDimSize(d)) * strides[d];
        rem /= t.getDimSize(d);
      }
      vals[i] = readElement(aligned + at * w, e);
    }
    out.values.push_back(std::move(vals));
    // The results are the caller's to free, except views of the arguments
    // and constants (memref.get_global: allocated pointer 0xdeadbeef).
    if (!allocated || reinterpret_cast<uintptr_t>(allocated) == 0xdeadbeef ||
        llvm::is_contained(buffers, allocated) || !freed.insert(allocated).second)
      continue;
#if LLVM_ADDRESS_SANITIZER_BUILD
    if (__sanitizer_get_ownership(allocated))
      free(allocated);
#endif
    // Without ASan there is no safe ownership test: the few results of a
    // replay run are left to the process exit.
  }
  for (void *b : buffers)
    free(b);
  return true;
}

bool lower(ModuleOp module, bool detect) {
  PassManager pm(module.getContext(), ModuleOp::getOperationName());
  pm.enableVerifier(true);
  attn::CpuPipelineOptions options;
  options.detect = detect;
  attn::buildAttnCpuPipeline(pm, options);
  return succeeded(pm.run(module));
}

bool hasAbortCall(ModuleOp module) {
  bool found = false;
  module.walk([&](LLVM::CallOp call) {
    if (auto callee = call.getCallee())
      found |= *callee == "abort";
  });
  return found;
}

std::unique_ptr<ExecutionEngine> jit(ModuleOp module) {
  ExecutionEngineOptions options;
  options.jitCodeGenOptLevel = llvm::CodeGenOptLevel::None;
  options.enableGDBNotificationListener = false;
  options.enablePerfNotificationListener = false;
#ifdef ATTN_MLIR_C_RUNNER_UTILS
  // memrefCopy (memref.copy between non-identity layouts) and friends.
  static const llvm::StringRef libs[] = {ATTN_MLIR_C_RUNNER_UTILS};
  if (llvm::sys::fs::exists(libs[0]))
    options.sharedLibPaths = libs;
#endif
  auto engine = ExecutionEngine::create(module, options);
  if (!engine) {
    llvm::consumeError(engine.takeError());
    return nullptr;
  }
  return std::move(*engine);
}

[[noreturn]] void reportMismatch(StringRef what, ModuleOp original,
                                 const std::string &detected) {
  llvm::errs() << "\n==== attn-fuzz semantic oracle: MISMATCH ====\n"
               << what << "\n---- input ----\n";
  original.print(llvm::errs());
  llvm::errs() << "\n---- after --attn-detect ----\n" << detected << "\n";
  llvm::errs().flush();
  ++stats.mismatches;
  abort();
}

} // namespace

void registerOracle(DialectRegistry &registry) {
  registerAllToLLVMIRTranslations(registry);
  static bool once = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    atexit(atExit);
    return true;
  }();
  (void)once;
}

std::string oracleStats() {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "oracle: " << stats.eligible << " eligible, " << stats.raised
     << " raised, " << stats.duplicate << " duplicate, " << stats.checks
     << " checks (" << stats.values << " values compared, "
     << stats.skippedNonFinite << " non-finite reference values skipped, "
     << stats.illConditioned << " results with a tolerance widened by their conditioning), "
     << stats.mismatches << " mismatches; lowering failures " << stats.refLowerFail
     << " original / " << stats.detLowerFail << " raised only, "
     << stats.refAsserts << " with run-time asserts, " << stats.jitFail
     << " JIT failures; " << llvm::format("%.1f", stats.seconds) << " s";
  return s;
}

void checkDetectionSemantics(ModuleOp module, ArrayRef<uint8_t> input) {
  static const bool off = [] {
    const char *e = getenv("ATTN_FUZZ_ORACLE");
    return e && StringRef(e) == "0";
  }();
  if (off)
    return;
  ++stats.parsed;
  int64_t maxExtent;
  Type narrowest;
  if (!isEligible(module, maxExtent, narrowest))
    return;
  ++stats.eligible;
  auto start = std::chrono::steady_clock::now();
  llvm::scope_exit addTime([&] {
    stats.seconds += std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start)
                         .count();
  });

  // Did detection raise anything?
  unsigned before = countAttention(module);
  OwningOpRef<ModuleOp> detected(module.clone());
  {
    PassManager pm(module.getContext(), ModuleOp::getOperationName());
    pm.enableVerifier(true);
    if (failed(parsePassPipeline("func.func(attn-detect)", pm))) {
      llvm::errs() << "attn-fuzz oracle: cannot build attn-detect\n";
      abort();
    }
    if (failed(pm.run(*detected))) {
      if (getenv("ATTN_FUZZ_VERBOSE"))
        llvm::errs() << "attn-fuzz oracle: attn-detect failed\n";
      return;
    }
  }
  if (countAttention(*detected) <= before) {
    if (getenv("ATTN_FUZZ_VERBOSE"))
      llvm::errs() << "attn-fuzz oracle: nothing raised (" << before
                   << " attn.attention before and after)\n";
    return;
  }
  ++stats.raised;
  std::string detectedText;
  {
    llvm::raw_string_ostream os(detectedText);
    detected->print(os);
  }
  static llvm::DenseSet<uint64_t> seen;
  if (seen.size() >= kDedupeCapacity)
    seen.clear();
  if (!seen.insert(llvm::xxh3_64bits(detectedText)).second) {
    ++stats.duplicate;
    return;
  }

  OwningOpRef<ModuleOp> ref(module.clone()), det(module.clone());
  if (!lower(*ref, /*detect=*/false)) {
    ++stats.refLowerFail;
    return;
  }
  if (!lower(*det, /*detect=*/true)) {
    ++stats.detLowerFail;
    std::string text;
    llvm::raw_string_ostream os(text);
    module.print(os);
    keepForTriage("raised-only-lowering-failure", text);
    return;
  }
  // The original program's own run-time checks (cf.assert) may fail on our
  // inputs; that is the program's business, not detection's.
  if (hasAbortCall(*ref)) {
    ++stats.refAsserts;
    return;
  }
  auto refEngine = jit(*ref), detEngine = jit(*det);
  if (!refEngine || !detEngine) {
    ++stats.jitFail;
    return;
  }

  // Tolerance relative to the largest |reference| of each result, as
  // test/Integration/CPU/detect_semantics.py: f32 1e-5; f16/bf16 (anywhere
  // in the program) their epsilon times 8 + sqrt(longest extent), for the
  // original's rounding of P and its reduced-precision accumulation.
  double eps = !narrowest ? 0x1p-23 : narrowest.isBF16() ? 0x1p-7 : 0x1p-10;
  double tol = std::max(narrowest ? 0.0 : 1e-5,
                        eps * (8 + std::sqrt(double(maxExtent))));

  Rng rng{llvm::xxh3_64bits(input)};
  for (Operation &op : module.getBody()->getOperations()) {
    auto fn = cast<func::FuncOp>(&op);
    if (!fn.isPublic())
      continue;
    SmallVector<RankedTensorType> argTypes, resultTypes;
    for (Type t : fn.getArgumentTypes())
      argTypes.push_back(cast<RankedTensorType>(t));
    for (Type t : fn.getResultTypes())
      resultTypes.push_back(cast<RankedTensorType>(t));
    std::vector<std::vector<uint8_t>> args;
    for (RankedTensorType t : argTypes)
      args.push_back(randomBytes(t, rng));
    std::vector<std::vector<uint8_t>> nudged;
    for (auto [t, bytes] : llvm::zip(argTypes, args))
      nudged.push_back(nudgeByOneUlp(bytes, t, rng));
    RunResult refOut, detOut, nudgedOut;
    if (!callFunction(*refEngine, fn.getName(), argTypes, resultTypes, args,
                      refOut) ||
        !callFunction(*detEngine, fn.getName(), argTypes, resultTypes, args,
                      detOut) ||
        !callFunction(*refEngine, fn.getName(), argTypes, resultTypes, nudged,
                      nudgedOut)) {
      ++stats.jitFail;
      return;
    }
    for (size_t r = 0; r < resultTypes.size(); ++r) {
      const auto &a = refOut.values[r], &b = detOut.values[r];
      bool mask = resultTypes[r].getElementType().isInteger(1);
      double maxRef = 0;
      for (double x : a)
        if (std::isfinite(x))
          maxRef = std::max(maxRef, std::fabs(x));
      // How far the original itself moves when its inputs move by one ulp:
      // a result that rounding does not determine (a softmax whose scores,
      // scaled by 1e35, differ in their last bits, picks another key) can
      // differ as much under any reassociation, detection's included. Such
      // results are compared within 8 times that spread (every difference
      // is allowed when the nudge makes the original non-finite); results
      // that rounding determines keep the fixed tolerance, so a wrong raise
      // (a scale, a mask, an axis) still shows.
      const auto &spreadOut = nudgedOut.values[r];
      double spread = 0;
      for (size_t i = 0; i < a.size(); ++i)
        if (std::isfinite(a[i]))
          spread = std::max(spread, std::isfinite(spreadOut[i])
                                        ? std::fabs(a[i] - spreadOut[i])
                                        : std::numeric_limits<double>::infinity());
      double bound = tol * std::max(maxRef, 1e-30);
      if (!mask && 8 * spread > bound) {
        bound = 8 * spread;
        ++stats.illConditioned;
      }
      std::string report;
      llvm::raw_string_ostream os(report);
      unsigned bad = 0;
      for (size_t i = 0; i < a.size(); ++i) {
        ++stats.values;
        bool wrong;
        if (mask) {
          wrong = a[i] != b[i];
        } else if (!std::isfinite(a[i])) {
          // NaN in the original: a fully masked row (attn.attention gives
          // 0), or a masked key with a non-finite V (it contributes nothing
          // after detection). Both are documented differences.
          ++stats.skippedNonFinite;
          continue;
        } else {
          wrong = !std::isfinite(b[i]) || std::fabs(a[i] - b[i]) > bound;
        }
        if (wrong && ++bad <= 8)
          os << "  [" << i << "] original " << a[i] << ", detected " << b[i]
             << "\n";
      }
      if (bad) {
        std::string what;
        llvm::raw_string_ostream w(what);
        w << "@" << fn.getName() << " result #" << r << ": " << bad << " of "
          << a.size() << " values differ (tolerance " << bound << " = " << tol
          << " x max|original| " << maxRef << ")\n"
          << report;
        reportMismatch(what, module, detectedText);
      }
    }
  }
  ++stats.checks;
  if (stats.checks % 32 == 0)
    writeStatsFile();
}

} // namespace attnfuzz

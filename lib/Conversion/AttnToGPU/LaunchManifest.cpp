//===- LaunchManifest.cpp - Launch manifests and --attn-dump-gpu-kernels --===//
//
// What a runner without MLIR needs to launch a kernel (the Python runtime,
// libattnrt): built as an attribute by the lowering, written as JSON beside
// the PTX by --attn-dump-gpu-kernels; and the parts of a kernel's name that
// keep kernels of different masks or score_mods apart.
//
//===----------------------------------------------------------------------===//
#include "LaunchManifest.h"
#include "attn/Analysis/KernelConfig.h"
#include "attn/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

namespace mlir {
namespace attn {
#define GEN_PASS_DEF_ATTNDUMPGPUKERNELSPASS
#include "attn/Conversion/Passes.h.inc"
} // namespace attn
} // namespace mlir

using namespace mlir;
using namespace mlir::attn;

/// A scalar type as the manifest names it: MLIR's spelling (f16, bf16, f32,
/// i1, i32, ...).
static std::string elementTypeName(Type t) {
  std::string name;
  llvm::raw_string_ostream os(name);
  t.print(os);
  return name;
}

/// The mask in the kernel name: kind and broadcast shape, so that kernels
/// for different masks never share a name.
std::string mlir::attn::maskSuffix(const FlashKernelSpec &s) {
  if (s.mask == FlashKernelSpec::Mask::None)
    return "";
  std::string out = s.mask == FlashKernelSpec::Mask::Keep ? "_keep" : "_add";
  // The generic kernel takes additive masks of any kernel float type.
  if (s.generic() && s.mask == FlashKernelSpec::Mask::Additive)
    llvm::raw_string_ostream(out) << s.maskElementType;
  for (int64_t e : s.maskShape)
    out += "x" + std::to_string(e);
  return out;
}

/// A hash of the score_mod region's text in the kernel name: kernels with
/// different score modifications never share a name, equal ones do.
std::string mlir::attn::scoreModSuffix(const FlashKernelSpec &s) {
  if (!s.scoreMod)
    return "";
  // The block, and the constants it reads from above (their values are not
  // in the block's text; tensors are parameters, their types in the text).
  std::string text;
  llvm::raw_string_ostream os(text);
  s.scoreMod->front().print(os);
  s.scoreMod->walk([&](Operation *op) {
    for (Value operand : op->getOperands())
      if (!s.scoreMod->isAncestor(operand.getParentRegion()) &&
          !llvm::is_contained(s.scoreModTensors, operand))
        operand.getDefiningOp()->print(os, OpPrintingFlags().printGenericOpForm());
  });
  return llvm::formatv("_smod{0:x8}", static_cast<uint32_t>(llvm::xxh3_64bits(text))).str();
}

/// How the grid follows from the problem and the tiles, in the manifest's
/// own keys (Lq is the packed token count Tq when varlen).
static StringRef gridFormula(const FlashKernelSpec &s) {
  // (PersistentSchedule.h: the same three cases.)
  if (s.persistentCTAs && s.pairsCausalItems())
    return "[min(ceil(Lq / block_q) * B * Hq / 2, SMs * CTAs per SM), 1, 1] (persistent, "
           "causal pairs: CTA c runs pairs c, c + grid, ..., each two query tiles of one "
           "head, longest with shortest)";
  if (s.persistentCTAs && s.causal)
    return "[largest count <= min(ceil(Lq / block_q) * B * Hq, SMs * CTAs per SM) coprime "
           "with ceil(Lq / block_q), 1, 1] (persistent: CTA c runs work items c, c + grid, "
           "..., item i = query tile i mod ceil(Lq / block_q) of batch * head i / "
           "ceil(Lq / block_q))";
  if (s.persistentCTAs)
    return "[min(ceil(Lq / block_q) * B * Hq, SMs * CTAs per SM), 1, 1] (persistent: CTA c "
           "runs work items c, c + grid, ..., item i = query tile i mod ceil(Lq / block_q) "
           "of batch * head i / ceil(Lq / block_q))";
  if (s.varlen)
    return s.packKVGroups ? "[floor(Hq / Hkv * Lq / block_q) + B + 2, Hkv, 1]"
                          : "[floor(Lq / block_q) + B + 2, Hq, 1]";
  return s.packKVGroups ? "[ceil(Hq / Hkv * Lq / block_q), B * Hkv, kv_splits]"
                        : "[ceil(Lq / block_q), B * Hq, kv_splits]";
}

/// The launch manifest of the kernel of `s`: what a runner without MLIR
/// needs to launch it (bench/attn_run.py reads it as <kernel>.json). Only
/// booleans, integers, f64 floats, strings, arrays and dictionaries, which
/// --attn-dump-gpu-kernels writes as the JSON numbers, strings, arrays and
/// objects they spell.
DictionaryAttr mlir::attn::manifestFor(Builder &b, const FlashKernelSpec &s) {
  auto i64 = [&](int64_t x) -> Attribute { return b.getI64IntegerAttr(x); };
  auto str = [&](const Twine &x) -> Attribute { return b.getStringAttr(x); };
  auto shape = [&](ArrayRef<int64_t> dims) -> Attribute {
    SmallVector<Attribute> a;
    for (int64_t x : dims)
      a.push_back(i64(x));
    return b.getArrayAttr(a);
  };
  auto dict = [&](ArrayRef<std::pair<StringRef, Attribute>> entries) {
    SmallVector<NamedAttribute> named;
    for (const auto &[key, value] : entries)
      named.push_back(b.getNamedAttr(key, value));
    return b.getDictionaryAttr(named);
  };
  std::string dtype = elementTypeName(s.elementType);
  auto param = [&](StringRef name, StringRef type, Attribute dims) -> Attribute {
    return dict({{"name", str(name)}, {"type", str(type)}, {"shape", dims}});
  };
  SmallVector<Attribute> params{param("q", dtype + "*", shape(s.queryShape(s.headDim))),
                                param("k", dtype + "*", shape(s.keyShape(s.headDim))),
                                param("v", dtype + "*", shape(s.keyShape(s.headDimV))),
                                param("o", elementTypeName(s.outputType) + "*",
                                      shape(s.queryShape(s.headDimV)))};
  // A keep mask is one byte per element (i1 in memory; torch.bool).
  if (s.mask != FlashKernelSpec::Mask::None)
    params.push_back(
        param("mask", elementTypeName(s.maskElementType) + "*", shape(s.maskShape)));
  // A paged KV cache's block table and sequence lengths (int32).
  if (s.paged()) {
    params.push_back(param("block_table", "i32*", shape({s.batch, s.maxPages})));
    params.push_back(param("seq_lens", "i32*", shape({s.batch})));
  }
  // The tensors a score_mod reads (a relative-position bias table, ...),
  // in the order of attn.attention's region; the caller passes them.
  SmallVector<std::string> scoreModArgs;
  // A packed batch's cumulative sequence lengths (int32, B + 1 each).
  if (s.varlen) {
    params.push_back(param("cu_seqlens_q", "i32*", shape({s.batch + 1})));
    params.push_back(param("cu_seqlens_k", "i32*", shape({s.batch + 1})));
  }
  for (auto [i, t] : llvm::enumerate(s.scoreModTensors)) {
    auto type = cast<RankedTensorType>(t.getType());
    scoreModArgs.push_back("score_mod_operand_" + std::to_string(i));
    params.push_back(param(scoreModArgs.back(), elementTypeName(type.getElementType()) + "*",
                           shape(type.getShape())));
  }
  // FP8's descale factors: one f32 each, in device memory.
  SmallVector<StringRef> descaleArgs;
  if (s.descale)
    for (StringRef name : {"q_descale", "k_descale", "v_descale"}) {
      params.push_back(param(name, "f32*", shape({})));
      descaleArgs.push_back(name);
    }
  // Buffers the runner allocates (uninitialized) and passes by name.
  SmallVector<Attribute> workspace;
  if (s.splitKV()) {
    workspace.push_back(param("o_partial", "f32*",
                              shape({s.kvSplits, s.batch, s.headsQ, s.seqQ, s.headDimV})));
    workspace.push_back(param(
        "row_stats", "f32*", shape({s.kvSplits, s.batch, s.headsQ, s.seqQ, kSplitRowStatWords})));
  }
  // 8-bit wgmma: V as Vᵀ tile images (VTransposeKernel.cpp), written by the
  // first launch, read by the attention kernel in V's place.
  if (s.transposesV())
    workspace.push_back(param("v_transposed", dtype + "*", shape(s.transposedVImageShape())));
  auto names = [&](ArrayRef<StringRef> list) {
    SmallVector<Attribute> a;
    for (StringRef n : list)
      a.push_back(str(n));
    return b.getArrayAttr(a);
  };
  SmallVector<StringRef> attentionArgs{"q", "k", s.transposesV() ? "v_transposed" : "v"};
  if (s.splitKV())
    attentionArgs.append({"o_partial", "row_stats"});
  else
    attentionArgs.push_back("o");
  if (s.mask != FlashKernelSpec::Mask::None)
    attentionArgs.push_back("mask");
  if (s.paged())
    attentionArgs.append({"block_table", "seq_lens"});
  if (s.varlen)
    attentionArgs.append({"cu_seqlens_q", "cu_seqlens_k"});
  for (const std::string &name : scoreModArgs)
    attentionArgs.push_back(name);
  attentionArgs.append(descaleArgs.begin(), descaleArgs.end());
  // TMA loads: for each entry the runner encodes a CUtensorMap
  // (cuTensorMapEncodeTiled) over its tensor's address and shape
  // (contiguous, dims innermost first: {d, Lk, Hkv, B}, or a paged pool's
  // {d, Hkv, page_size, pages}), with the box and
  // swizzle and L2 promotion given here and zero fill out of bounds, and passes a pointer to
  // it in global memory (128 bytes, 64-byte aligned) as the argument `arg`.
  SmallVector<Attribute> tensorMaps;
  if (s.tensorMapLoads()) {
    // (Vᵀ images come by bulk copies, not through a map.)
    static constexpr StringLiteral kMapped[] = {"k", "v"};
    for (StringRef tensor : ArrayRef(kMapped).take_front(s.tensorMapCount())) {
      std::string arg = (tensor + "_tensor_map").str();
      tensorMaps.push_back(dict({{"arg", str(arg)},
                                 {"tensor", str(tensor)},
                                 {"box", shape(s.tensorMapBox())},
                                 {"swizzle", str("128B")},
                                 {"l2_promotion", str(kTensorMapL2Promotion)}}));
    }
    for (Attribute map : tensorMaps)
      attentionArgs.push_back(cast<StringAttr>(cast<DictionaryAttr>(map).get("arg")).getValue());
  }
  Attribute grid = shape(s.grid());
  Attribute block = shape({s.numThreads(), 1, 1});
  int64_t dynamicSmem = s.dynamicSharedMemory ? s.sharedMemoryBytes() : 0;
  SmallVector<Attribute> launches;
  if (s.transposesV())
    launches.push_back(dict({{"kernel", str(s.vTransposeName())},
                             {"grid", shape(s.vTransposeGrid())},
                             {"block", shape({s.vTransposeThreads(), 1, 1})},
                             {"dynamic_shared_memory_bytes", i64(0)},
                             {"args", names({"v", "v_transposed"})}}));
  launches.push_back(
      dict({{"kernel", str(s.name)}, {"grid", grid}, {"block", block},
            {"dynamic_shared_memory_bytes", i64(dynamicSmem)}, {"args", names(attentionArgs)}}));
  if (s.splitKV())
    launches.push_back(dict({{"kernel", str(s.combineName())},
                             {"grid", shape({s.batch * s.headsQ * s.seqQ, 1, 1})},
                             {"block", shape({s.headDimV, 1, 1})},
                             {"dynamic_shared_memory_bytes", i64(0)},
                             {"args", names({"o_partial", "row_stats", "o"})}}));
  return dict({
      {"kernel", str(s.name)},
      {"launches", b.getArrayAttr(launches)},
      {"workspace", b.getArrayAttr(workspace)},
      {"tensor_maps", b.getArrayAttr(tensorMaps)},
      {"kv_loads", str(s.producerWarpgroup ? "tma-producer"
                       : s.tmaLoads        ? "tma"
                       : s.generic()       ? "none"
                                           : "cp.async")},
      {"grid", dict({{"formula", str(gridFormula(s))}, {"value", grid}})},
      {"block", dict({{"formula", str(s.producerWarpgroup
                                          ? "[32 * block_q / rows_per_warp + 128, 1, 1]"
                                          : "[32 * block_q / rows_per_warp * kv_warps, 1, 1]")},
                      {"value", shape({s.numThreads(), 1, 1})}})},
      {"dynamic_shared_memory_bytes", i64(s.dynamicSharedMemory ? s.sharedMemoryBytes() : 0)},
      // The launch bound (.minnctapersm) the kernel was compiled for; 0: none.
      {"min_ctas_per_sm", i64(s.minCTAsPerSM)},
      {"static_shared_memory_bytes", i64(s.dynamicSharedMemory ? 0 : s.sharedMemoryBytes())},
      {"params", b.getArrayAttr(params)},
      {"mask", str(s.mask == FlashKernelSpec::Mask::None       ? "none"
                   : s.mask == FlashKernelSpec::Mask::Additive ? "additive"
                                                               : "keep")},
      {"calling_convention",
       str("bare pointers; each launch takes its args, named from params and workspace")},
      {"dtype", str(dtype)},
      // O's type: the inputs' unless they are 8-bit floats.
      {"output_dtype", str(elementTypeName(s.outputType))},
      {"descale", b.getBoolAttr(s.descale)},
      // q, k, v and o must start at a multiple of this many bytes: the
      // tensor-core kernels move Q and O in 16-byte vectors and TMA boxes
      // start on 16-byte addresses; the generic kernel reads elements.
      {"tensor_alignment", i64(s.generic() ? 1 : 16)},
      {"B", i64(s.batch)}, {"Hq", i64(s.headsQ)}, {"Hkv", i64(s.headsKV)},
      {"Lq", i64(s.seqQ)}, {"Lk", i64(s.seqKV)},
      {"d", i64(s.headDim)}, {"dv", i64(s.headDimV)},
      {"block_q", i64(s.blockQ)}, {"block_kv", i64(s.blockKV)},
      {"rows_per_warp", i64(s.rowsPerWarp)},
      {"kv_stages", i64(s.stages())},
      {"kv_splits", i64(s.kvSplits)},
      {"keys_per_split", i64(s.keysPerSplit)},
      {"kv_warps", i64(s.kvWarps)},
      {"pack_kv_groups", b.getBoolAttr(s.packKVGroups)},
      {"smem_layout", str(s.generic()     ? "none"
                          : s.atomTiles() ? "swizzled-128b-atoms"
                          : s.swizzle     ? "swizzled"
                                          : "padded")},
      {"causal", str(s.causal ? (s.causalBottomRight ? "bottom_right" : "top_left") : "none")},
      {"scale", b.getF64FloatAttr(s.scale)},
      {"instruction", str(s.generic() ? "fma.rn.f32 (CUDA cores, no tensor cores)"
                          : s.transposesV() ? "wgmma.mma_async.m64nNk32 (e4m3/e5m2)"
                          : s.wgmma()       ? "wgmma.mma_async.m64nNk16"
                                      : "mma.sync.m16n8k16")},
      {"min_chip", str(s.minimumChip())},
      // The io-cost preset the config was chosen for ("none": not costed).
      {"chosen_for", str(s.chosenFor.empty() ? "none" : s.chosenFor)},
      // The key offsets j − i a score_mod can keep (tiles outside skipped);
      // a missing bound is null.
      {"score_mod", !s.scoreMod ? Attribute(b.getBoolAttr(false))
                    : dict({{"key_offset_min", s.scoreModLowestKey
                                                   ? i64(*s.scoreModLowestKey)
                                                   : Attribute(str("unbounded"))},
                            {"key_offset_max", s.scoreModHighestKey
                                                   ? i64(*s.scoreModHighestKey)
                                                   : Attribute(str("unbounded"))}})},
      // Lk above is the key capacity max_pages · page_size when paged.
      // Lq and Lk above are the packed token counts Tq and Tk when varlen.
      {"varlen", b.getBoolAttr(s.varlen)},
      {"paged", s.paged() ? dict({{"page_size", i64(s.pageSize)},
                                  {"num_pages", i64(s.numPages)},
                                  {"max_pages", i64(s.maxPages)}})
                          : Attribute(b.getBoolAttr(false))}});
}

/// A manifest attribute as JSON: the kinds manifestFor builds; nullopt for
/// any other attribute.
static std::optional<llvm::json::Value> manifestToJSON(Attribute attr) {
  if (auto flag = dyn_cast<BoolAttr>(attr))
    return llvm::json::Value(flag.getValue());
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return llvm::json::Value(i.getInt());
  if (auto f = dyn_cast<FloatAttr>(attr))
    return llvm::json::Value(f.getValueAsDouble());
  if (auto str = dyn_cast<StringAttr>(attr))
    return llvm::json::Value(str.getValue().str());
  if (auto array = dyn_cast<ArrayAttr>(attr)) {
    llvm::json::Array out;
    for (Attribute element : array) {
      std::optional<llvm::json::Value> v = manifestToJSON(element);
      if (!v)
        return std::nullopt;
      out.push_back(std::move(*v));
    }
    return llvm::json::Value(std::move(out));
  }
  if (auto dict = dyn_cast<DictionaryAttr>(attr)) {
    llvm::json::Object out;
    for (NamedAttribute entry : dict) {
      std::optional<llvm::json::Value> v = manifestToJSON(entry.getValue());
      if (!v)
        return std::nullopt;
      out[entry.getName().getValue()] = std::move(*v);
    }
    return llvm::json::Value(std::move(out));
  }
  return std::nullopt;
}

namespace {

struct AttnDumpGPUKernelsPass
    : public attn::impl::AttnDumpGPUKernelsPassBase<AttnDumpGPUKernelsPass> {
  using AttnDumpGPUKernelsPassBase::AttnDumpGPUKernelsPassBase;

  LogicalResult write(StringRef path, StringRef text) {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Text);
    if (ec)
      return getOperation().emitError("attn-dump-gpu-kernels: cannot write '")
             << path << "': " << ec.message();
    os << text;
    os.flush();
    if (std::error_code werr = os.error()) {
      os.clear_error(); // a diagnostic, not an abort in the destructor
      return getOperation().emitError("attn-dump-gpu-kernels: cannot write '")
             << path << "': " << werr.message();
    }
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (dumpDir.empty())
      return;
    if (std::error_code ec = llvm::sys::fs::create_directories(dumpDir)) {
      module.emitError("attn-dump-gpu-kernels: cannot create '") << dumpDir << "': " << ec.message();
      return signalPassFailure();
    }
    auto manifests = module->getAttrOfType<DictionaryAttr>(kLaunchManifestsAttrName);
    WalkResult walk = module.walk([&](gpu::BinaryOp binary) {
      // An attention kernel is named by its manifest; any other gpu.binary
      // by its own symbol.
      DictionaryAttr manifest =
          manifests ? manifests.getAs<DictionaryAttr>(binary.getSymName()) : nullptr;
      StringAttr kernelName = manifest ? manifest.getAs<StringAttr>("kernel") : nullptr;
      std::string kernel = (kernelName ? kernelName : binary.getSymNameAttr()).str();
      // The name becomes a file name inside dump-dir: a symbol's characters
      // only (what the compiler's own names use), never a path.
      auto symbolChar = [](char c) {
        return llvm::isAlnum(c) || llvm::StringRef("_.$").contains(c);
      };
      if (kernel.empty() || kernel.front() == '.' || !llvm::all_of(kernel, symbolChar)) {
        binary.emitError("attn-dump-gpu-kernels: the kernel name '")
            << kernel
            << "' is no file name (letters, digits, '_', '.', '$'; not starting with '.')";
        return WalkResult::interrupt();
      }
      for (Attribute obj : binary.getObjects()) {
        auto object = cast<gpu::ObjectAttr>(obj);
        if (object.getFormat() != gpu::CompilationTarget::Assembly) {
          binary.emitError("attn-dump-gpu-kernels: expected PTX (cubin-format=isa)");
          return WalkResult::interrupt();
        }
        SmallString<256> ptx(dumpDir.getValue());
        llvm::sys::path::append(ptx, kernel + ".ptx");
        if (failed(write(ptx, object.getObject().getValue())))
          return WalkResult::interrupt();
      }
      if (manifest) {
        std::optional<llvm::json::Value> v = manifestToJSON(manifest);
        if (!v) {
          binary.emitError("attn-dump-gpu-kernels: the launch manifest holds an "
                           "attribute that is not a boolean, integer, f64, string, "
                           "array or dictionary");
          return WalkResult::interrupt();
        }
        SmallString<256> json(dumpDir.getValue());
        llvm::sys::path::append(json, kernel + ".json");
        std::string pretty;
        llvm::raw_string_ostream os(pretty);
        os << llvm::formatv("{0:2}", *v) << "\n";
        if (failed(write(json, pretty)))
          return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace

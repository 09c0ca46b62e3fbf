//===- AttnToGPU.cpp - --attn-lower-to-gpu and --attn-dump-gpu-kernels ----===//
//
// The pass fills a kernel spec per op (tiles, tensor-core family: mma.sync or
// Hopper wgmma), builds the kernel (FlashAttentionEmitter.cpp) and replaces
// the op by a launch of it.
//
//===----------------------------------------------------------------------===//
#include "attn/Conversion/AttnToGPU/AttnToGPU.h"
#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/Dialect/Attn/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir {
namespace attn {
#define GEN_PASS_DEF_ATTNLOWERTOGPUPASS
#define GEN_PASS_DEF_ATTNDUMPGPUKERNELSPASS
#include "attn/Dialect/Attn/Transforms/Passes.h.inc"
} // namespace attn
} // namespace mlir

using namespace mlir;
using namespace mlir::attn;

namespace {

/// Tile choices from the pass options; 0 means "choose".
struct TileChoice {
  int64_t blockQ = 0, rowsPerWarp = 0, blockKV = 0;
  bool swizzle = false;
  FlashKernelSpec::TensorCore tensorCore = FlashKernelSpec::TensorCore::MmaSync;
  int64_t kvStages = 0;
};

/// The mask in the kernel name: kind and broadcast shape, so that kernels
/// for different masks never share a name.
std::string maskSuffix(const FlashKernelSpec &s) {
  if (s.mask == FlashKernelSpec::Mask::None)
    return "";
  std::string out = s.mask == FlashKernelSpec::Mask::Keep ? "_keep" : "_add";
  for (int64_t e : s.maskShape)
    out += "x" + std::to_string(e);
  return out;
}

/// Checks the kernel's preconditions (both tensor-core families) and fills
/// the spec: tiles from the options, the io-cost attribute or the measured
/// defaults.
FailureOr<FlashKernelSpec> specFor(AttentionOp op, TileChoice tiles) {
  int64_t blockQ = tiles.blockQ;
  auto q = cast<RankedTensorType>(op.getQuery().getType());
  auto k = cast<RankedTensorType>(op.getKey().getType());
  auto v = cast<RankedTensorType>(op.getValue().getType());
  int64_t r = q.getRank();
  auto fail = [&](const Twine &why) -> FailureOr<FlashKernelSpec> {
    op.emitError("attn-lower-to-gpu: ") << why;
    return failure();
  };
  if (!q.hasStaticShape() || !k.hasStaticShape() || !v.hasStaticShape())
    return fail("the GPU kernel needs static shapes");
  if (r != 3 && r != 4)
    return fail("the GPU kernel takes [H, L, d] or [B, H, L, d], got rank " + Twine(r));
  Type elt = q.getElementType();
  if (!elt.isF16() && !elt.isBF16())
    return fail(FlashKernelSpec::tensorCoreName(tiles.tensorCore) +
                " needs f16 or bf16 inputs, got " + (elt.isF32() ? "f32" : "this element type"));
  // The same shape reading as the cost model's.
  FailureOr<AttentionShape> shape = op.getCostShape();
  if (failed(shape))
    return fail("the GPU kernel needs static shapes");
  FlashKernelSpec s;
  s.tensorCore = tiles.tensorCore;
  s.batch = shape->batch;
  s.headsQ = shape->headsQ;
  s.headsKV = shape->headsKV;
  s.seqQ = shape->seqQ;
  s.seqKV = shape->seqKV;
  s.headDim = shape->headDim;
  s.headDimV = shape->headDimV;
  s.elementType = elt;
  s.scale = op.getScale().convertToDouble();
  s.causal = shape->causal;
  s.causalBottomRight = shape->causalBottomRight;
  if (Value mask = op.getMask()) {
    auto mt = cast<RankedTensorType>(mask.getType());
    if (!mt.hasStaticShape())
      return fail("the GPU kernel needs static shapes");
    // The kernel reads an additive mask in the inputs' element type; a wider
    // bias would have to be rounded, which changes the result.
    if (!mt.getElementType().isInteger(1) && mt.getElementType() != elt)
      return fail(Twine("the GPU kernel reads an additive mask in the inputs' "
                        "element type; cast the mask to it (rounding the "
                        "bias) or run on the CPU"));
    s.mask = mt.getElementType().isInteger(1) ? FlashKernelSpec::Mask::Keep
                                              : FlashKernelSpec::Mask::Additive;
    // As [MB, MH, MQ, MK], like the operands (rank 3 has no batch dim).
    if (mt.getRank() == 3)
      s.maskShape.push_back(1);
    s.maskShape.append(mt.getShape().begin(), mt.getShape().end());
  }
  // Tiles that --attn-io-cost recorded on the op come next after the
  // options, when this kernel family can run them (block-q 64/128;
  // block-kv 32/64, or 128 with wgmma); otherwise a warning, and the
  // measured defaults below.
  if (auto cost = op->getAttrOfType<IOCostAttr>("io_cost")) {
    int64_t costQ = cost.getBlockQ(), costKV = cost.getBlockKv();
    bool qOk = costQ == 64 || costQ == 128;
    bool kvOk = costKV == 32 || costKV == 64 || (costKV == 128 && s.wgmma());
    if (qOk && kvOk) {
      if (blockQ == 0)
        blockQ = costQ;
      if (tiles.blockKV == 0)
        tiles.blockKV = costKV;
    } else if (blockQ == 0 || tiles.blockKV == 0) {
      op.emitWarning("attn-lower-to-gpu: the io-cost tiles ")
          << costQ << "x" << costKV << " do not fit the "
          << FlashKernelSpec::tensorCoreName(s.tensorCore)
          << " kernel (block-q 64 or 128, block-kv 32, 64"
          << (s.wgmma() ? " or 128" : "") << "); using its measured defaults";
    }
  }
  // Defaults measured on the H200 (bench/NOTES.md, v6): 4 warps of 32 rows
  // (128-row CTAs) everywhere; 64-key tiles at d = 64, 32-key tiles at
  // d = 128, where 64 keys of S next to 128 columns of O accumulators per
  // row pair would spill. 64-row CTAs only when Lq is not a multiple of 128.
  const bool wide = std::max(s.headDim, s.headDimV) > 64;
  // A mask that varies along the queries adds per-score loads and index
  // math: at d = 64, 32-key tiles (64 spill 12 bytes); at d = 128, 16 rows
  // per warp in 64-row CTAs (32 rows spill 36 bytes). A padding mask
  // [B, 1, 1, Lk] is read once per key and fits the unmasked layouts
  // (ptxas: 249 / 240 registers, no spills).
  const bool masked =
      s.mask != FlashKernelSpec::Mask::None && s.maskShape[2] != 1;
  // wgmma defaults, measured on the H200 (bench/NOTES.md, v9 tiles): two
  // warpgroups (128 rows) and 128-key tiles, except for causal attention,
  // where one warpgroup per CTA skips the diagonal at a finer grain and
  // lets several CTAs share an SM out of phase (d = 64: 3 per SM, +18..+31%
  // at N >= 4k), with 64-key tiles for short sequences (Lk <= 2048; at
  // d = 128 only there: +2..+9%, slower beyond).
  const bool shortCausal = s.causal && s.seqKV <= 2048;
  const bool wgCausalSmall = s.wgmma() && s.causal && (!wide || shortCausal);
  if (blockQ == 0)
    blockQ = (wide && masked && !s.wgmma()) || wgCausalSmall ? 64 : 128;
  // 64-row CTAs where they divide Lq and 128 do not; otherwise the last
  // query tile is partial.
  s.blockQ = (s.seqQ % blockQ == 0 || s.seqQ % 64 != 0) ? blockQ : 64;
  if (s.wgmma()) {
    // A warpgroup multiplies 64 rows (16 per warp) by a whole K/V tile per
    // instruction; 128-key tiles halve the barriers and waits per key.
    s.blockKV = tiles.blockKV ? tiles.blockKV : (wgCausalSmall && shortCausal ? 64 : 128);
    s.rowsPerWarp = 16;
    // Three stages (the P·V wait deferred by a tile) where the CTA already
    // runs alone on its SM: d = 128 with 128-row CTAs (+3..+6%, v10). At
    // d = 64 the third stage costs the second CTA per SM (128 -> 160
    // registers: -23%), and 64-row CTAs lose one of their three (-7%).
    s.deferPVWait = tiles.kvStages ? tiles.kvStages == 3 : wide && s.blockQ == 128;
  } else {
    s.blockKV = tiles.blockKV ? tiles.blockKV : (wide || masked ? 32 : 64);
    s.rowsPerWarp = tiles.rowsPerWarp ? tiles.rowsPerWarp : (wide && masked ? 16 : 32);
  }
  s.swizzle = tiles.swizzle;
  // Beyond 48 KB (or with the Q tile staged) the tiles live in dynamic
  // shared memory, whose opt-in size the runner sets from the manifest.
  s.dynamicSharedMemory = s.sharedMemoryBytes() > 48 * 1024 || s.qInSharedMemory();
  // The name spells the specialization, so that dumped kernels of different
  // modules never collide and identical attentions share one kernel.
  s.name = llvm::formatv("attn_fa2_{12}_{0}_b{1}_h{2}_kv{3}_q{4}_k{5}_d{6}_v{7}{8}_bq{9}_bk{10}_w{11}",
                         elt.isF16() ? "f16" : "bf16", s.batch, s.headsQ, s.headsKV,
                         s.seqQ, s.seqKV, s.headDim, s.headDimV,
                         (!s.causal ? "" : s.causalBottomRight ? "_causal_br" : "_causal") +
                             maskSuffix(s),
                         s.blockQ, s.blockKV, s.rowsPerWarp, s.wgmma() ? "wgmma" : "mma")
               .str() +
           (s.swizzle ? "_sw" : "") + (s.deferPVWait ? "_s3" : "");
  // The grid is (query tiles, B·Hq): CUDA caps gridDim.y at 65535 (and x at
  // 2^31 - 1). Query tiles run fastest so that the CTAs in flight share K/V
  // in L2; the heads therefore go to y.
  if (s.batch * s.headsQ > 65535)
    return fail("B·Hq = " + Twine(s.batch * s.headsQ) +
                " exceeds the 65535 CTAs CUDA allows along the grid's y axis");
  if (s.numQueryTiles() > 2147483647)
    return fail("Lq needs more than 2^31 - 1 query tiles");
  for (int64_t hd : {s.headDim, s.headDimV})
    if (hd != 64 && hd != 128)
      return fail("head dims must be 64 or 128 for the GPU kernel, got " + Twine(hd));
  // Invariants of the option values the pass accepts (block-q 64/128,
  // rows-per-warp 16/32, block-kv 32/64, d 64/128, all powers of two): the
  // warps split the query tile, and every thread copies the same number of
  // 16-byte chunks of each K/V tile (bkv * d / 8 >= 256 >= threads).
  assert(s.blockQ % s.rowsPerWarp == 0 && "warps must split the query tile");
  assert((s.blockKV * std::min(s.headDim, s.headDimV) / 8) % (32 * s.numWarps()) == 0 &&
         "K/V tile copies must split evenly over the threads");
  return s;
}

/// [H, L, d] -> [1, H, L, d], so that one kernel form serves both ranks.
Value toRank4(OpBuilder &b, Location loc, Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.getRank() == 4)
    return v;
  SmallVector<int64_t> shape{1};
  shape.append(t.getShape().begin(), t.getShape().end());
  return tensor::ExpandShapeOp::create(b, loc, RankedTensorType::get(shape, t.getElementType()),
                                       v, SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}});
}

llvm::json::Object manifestFor(const FlashKernelSpec &s) {
  auto shape = [](std::initializer_list<int64_t> dims) {
    llvm::json::Array a;
    for (int64_t x : dims)
      a.push_back(x);
    return a;
  };
  std::string dtype = s.elementType.isF16() ? "f16" : "bf16";
  auto param = [&](const char *name, llvm::json::Array dims) {
    return llvm::json::Object{{"name", name}, {"type", dtype + "*"}, {"shape", std::move(dims)}};
  };
  llvm::json::Array params{param("q", shape({s.batch, s.headsQ, s.seqQ, s.headDim})),
                           param("k", shape({s.batch, s.headsKV, s.seqKV, s.headDim})),
                           param("v", shape({s.batch, s.headsKV, s.seqKV, s.headDimV})),
                           param("o", shape({s.batch, s.headsQ, s.seqQ, s.headDimV}))};
  if (s.mask != FlashKernelSpec::Mask::None) {
    llvm::json::Array dims;
    for (int64_t e : s.maskShape)
      dims.push_back(e);
    // A keep mask is one byte per element (i1 in memory; torch.bool).
    params.push_back(llvm::json::Object{
        {"name", "mask"},
        {"type", s.mask == FlashKernelSpec::Mask::Keep ? std::string("i1*") : dtype + "*"},
        {"shape", std::move(dims)}});
  }
  return llvm::json::Object{
      {"kernel", s.name},
      {"grid", llvm::json::Object{{"formula", "[ceil(Lq / block_q), B * Hq, 1]"},
                                  {"value", shape({s.numQueryTiles(), s.batch * s.headsQ, 1})}}},
      {"block", llvm::json::Object{{"formula", "[32 * block_q / rows_per_warp, 1, 1]"},
                                   {"value", shape({32 * s.numWarps(), 1, 1})}}},
      {"dynamic_shared_memory_bytes", s.dynamicSharedMemory ? s.sharedMemoryBytes() : 0},
      {"static_shared_memory_bytes", s.dynamicSharedMemory ? 0 : s.sharedMemoryBytes()},
      {"params", std::move(params)},
      {"mask", s.mask == FlashKernelSpec::Mask::None       ? "none"
               : s.mask == FlashKernelSpec::Mask::Additive ? "additive"
                                                           : "keep"},
      {"calling_convention", "bare pointers, in params order"},
      {"dtype", dtype},
      {"B", s.batch}, {"Hq", s.headsQ}, {"Hkv", s.headsKV}, {"Lq", s.seqQ}, {"Lk", s.seqKV},
      {"d", s.headDim}, {"dv", s.headDimV},
      {"block_q", s.blockQ}, {"block_kv", s.blockKV}, {"rows_per_warp", s.rowsPerWarp},
      {"kv_stages", s.stages()},
      {"smem_layout", s.wgmma() ? "swizzled-128b-atoms" : s.swizzle ? "swizzled" : "padded"},
      {"causal", s.causal ? (s.causalBottomRight ? "bottom_right" : "top_left") : "none"},
      {"scale", s.scale},
      {"instruction", s.wgmma() ? "wgmma.mma_async.m64nNk16" : "mma.sync.m16n8k16"},
      {"min_chip", s.wgmma() ? "sm_90a" : "sm_80"}};
}

struct AttnLowerToGPUPass
    : public attn::impl::AttnLowerToGPUPassBase<AttnLowerToGPUPass> {
  using AttnLowerToGPUPassBase::AttnLowerToGPUPassBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (blockQ != 0 && blockQ != 64 && blockQ != 128) {
      module.emitError("attn-lower-to-gpu: block-q must be 0 (auto), 64 or 128, got ")
          << static_cast<int64_t>(blockQ);
      return signalPassFailure();
    }
    if (rowsPerWarp != 0 && rowsPerWarp != 16 && rowsPerWarp != 32) {
      module.emitError("attn-lower-to-gpu: rows-per-warp must be 0 (auto), 16 or 32, got ")
          << static_cast<int64_t>(rowsPerWarp);
      return signalPassFailure();
    }
    if (blockKV != 0 && blockKV != 32 && blockKV != 64 && blockKV != 128) {
      module.emitError("attn-lower-to-gpu: block-kv must be 0 (auto), 32, 64 or 128, got ")
          << static_cast<int64_t>(blockKV);
      return signalPassFailure();
    }
    FlashKernelSpec::TensorCore tensorCore;
    if (mma == "mma.sync") {
      tensorCore = FlashKernelSpec::TensorCore::MmaSync;
    } else if (mma == "wgmma") {
      tensorCore = FlashKernelSpec::TensorCore::Wgmma;
    } else {
      module.emitError("attn-lower-to-gpu: mma must be 'mma.sync' or 'wgmma', got '")
          << mma << "'";
      return signalPassFailure();
    }
    const bool wgmma = tensorCore == FlashKernelSpec::TensorCore::Wgmma;
    if (blockKV == 128 && !wgmma) {
      module.emitError("attn-lower-to-gpu: block-kv=128 needs mma=wgmma (mma.sync would "
                       "spill its score registers)");
      return signalPassFailure();
    }
    if (wgmma && rowsPerWarp != 0 && rowsPerWarp != 16) {
      module.emitError("attn-lower-to-gpu: mma=wgmma gives each warp 16 rows (a warpgroup "
                       "64); rows-per-warp must be 0 or 16, got ")
          << static_cast<int64_t>(rowsPerWarp);
      return signalPassFailure();
    }
    if (kvStages != 0 && kvStages != 2 && kvStages != 3) {
      module.emitError("attn-lower-to-gpu: kv-stages must be 0 (auto), 2 or 3, got ")
          << static_cast<int64_t>(kvStages);
      return signalPassFailure();
    }
    if (kvStages == 3 && !wgmma) {
      module.emitError("attn-lower-to-gpu: kv-stages=3 needs mma=wgmma (the third stage "
                       "holds the V tile of a P·V still in flight)");
      return signalPassFailure();
    }
    if (wgmma && swizzle) {
      module.emitError("attn-lower-to-gpu: mma=wgmma always uses the 128-byte swizzle; "
                       "drop swizzle=true");
      return signalPassFailure();
    }
    SmallVector<AttentionOp> ops;
    module.walk([&](AttentionOp op) { ops.push_back(op); });
    if (ops.empty())
      return;
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), UnitAttr::get(&getContext()));
    SmallVector<Attribute> manifests;
    llvm::StringMap<gpu::GPUFuncOp> kernels;
    for (AttentionOp op : ops) {
      FailureOr<FlashKernelSpec> spec = specFor(op, {blockQ, rowsPerWarp, blockKV, swizzle, tensorCore, kvStages});
      if (failed(spec))
        return signalPassFailure();
      Location loc = op.getLoc();
      OpBuilder b(module.getBodyRegion());
      gpu::GPUFuncOp &kernel = kernels[spec->name];
      if (!kernel) {
        auto gpuModule = gpu::GPUModuleOp::create(b, loc, spec->name + "_module");
        kernel = buildFlashAttentionKernel(b, loc, gpuModule, *spec);
        // The manifest as an attribute: JSON text survives every later pass.
        std::string json;
        llvm::raw_string_ostream os(json);
        os << llvm::json::Value(manifestFor(*spec));
        manifests.push_back(StringAttr::get(&getContext(), json));
      }
      // Host side: tensors -> buffers, launch, buffer -> tensor.
      b.setInsertionPoint(op);
      auto asBuffer = [&](Value t) {
        Value t4 = toRank4(b, loc, t);
        auto tt = cast<RankedTensorType>(t4.getType());
        return bufferization::ToBufferOp::create(
            b, loc, MemRefType::get(tt.getShape(), tt.getElementType()), t4);
      };
      Value q = asBuffer(op.getQuery()), k = asBuffer(op.getKey()), v = asBuffer(op.getValue());
      auto outType = cast<MemRefType>(kernel.getArgumentTypes()[3]);
      Value out = memref::AllocOp::create(b, loc, outType);
      SmallVector<Value> args{q, k, v, out};
      if (Value mask = op.getMask())
        args.push_back(asBuffer(mask));
      auto c = [&](int64_t x) { return arith::ConstantIndexOp::create(b, loc, x).getResult(); };
      // Named first: argument evaluation order is unspecified in C++, and
      // the printed IR should not depend on the host compiler.
      gpu::KernelDim3 grid{c(spec->numQueryTiles()), c(spec->batch * spec->headsQ), c(1)};
      gpu::KernelDim3 block{c(32 * spec->numWarps()), c(1), c(1)};
      Value dynamicSmem;
      if (spec->dynamicSharedMemory)
        dynamicSmem = arith::ConstantIntOp::create(b, loc, b.getI32Type(),
                                                   spec->sharedMemoryBytes());
      gpu::LaunchFuncOp::create(b, loc, kernel, grid, block, dynamicSmem, args);
      Value result = bufferization::ToTensorOp::create(
          b, loc, RankedTensorType::get(outType.getShape(), outType.getElementType()), out,
          /*restrict=*/true, /*writable=*/true);
      auto resultType = cast<RankedTensorType>(op.getResult().getType());
      if (resultType.getRank() == 3)
        result = tensor::CollapseShapeOp::create(b, loc, resultType, result,
                                                 SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}});
      op.replaceAllUsesWith(result);
      op.erase();
    }
    module->setAttr("attn.kernel_manifests", ArrayAttr::get(&getContext(), manifests));
  }
};

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
    // Manifests by kernel name.
    llvm::StringMap<std::string> manifests;
    if (auto arr = module->getAttrOfType<ArrayAttr>("attn.kernel_manifests"))
      for (Attribute a : arr) {
        StringRef text = cast<StringAttr>(a).getValue();
        llvm::Expected<llvm::json::Value> v = llvm::json::parse(text);
        if (!v) {
          llvm::consumeError(v.takeError());
          continue;
        }
        if (auto name = v->getAsObject()->getString("kernel"))
          manifests[*name] = text.str();
      }
    WalkResult walk = module.walk([&](gpu::BinaryOp binary) {
      StringRef moduleName = binary.getSymName();
      std::string kernel = moduleName.str();
      if (StringRef(kernel).ends_with("_module"))
        kernel.resize(kernel.size() - strlen("_module"));
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
      auto it = manifests.find(kernel);
      if (it != manifests.end()) {
        SmallString<256> json(dumpDir.getValue());
        llvm::sys::path::append(json, kernel + ".json");
        llvm::Expected<llvm::json::Value> v = llvm::json::parse(it->second);
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

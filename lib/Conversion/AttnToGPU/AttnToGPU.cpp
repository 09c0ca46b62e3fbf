//===- AttnToGPU.cpp - --attn-lower-to-gpu --------------------------------===//
//
// The pass takes each op's kernel spec (KernelSpecs.cpp: tiles, tensor-core
// family mma.sync or Hopper wgmma, or the generic kernel), builds the kernel
// (FlashAttentionEmitter.cpp, GenericKernel.cpp) and replaces the op by a
// launch of it; each kernel's launch manifest comes from LaunchManifest.cpp.
//
//===----------------------------------------------------------------------===//
#include "attn/Conversion/AttnToGPU/AttnToGPU.h"
#include "KernelSpecs.h"
#include "LaunchManifest.h"
#include "attn/Conversion/Passes.h"
#include "attn/Dialect/Attn/IR/AttnOps.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir {
namespace attn {
#define GEN_PASS_DEF_ATTNLOWERTOGPUPASS
#include "attn/Conversion/Passes.h.inc"
} // namespace attn
} // namespace mlir

using namespace mlir;
using namespace mlir::attn;

namespace {


/// The manifest's L2 promotion names (none, 64B, 128B, 256B) as nvgpu's.
nvgpu::TensorMapL2PromoKind l2PromotionKind(StringRef promotion) {
  return llvm::StringSwitch<nvgpu::TensorMapL2PromoKind>(promotion)
      .Case("64B", nvgpu::TensorMapL2PromoKind::L2PROMO_64B)
      .Case("128B", nvgpu::TensorMapL2PromoKind::L2PROMO_128B)
      .Case("256B", nvgpu::TensorMapL2PromoKind::L2PROMO_256B)
      .Default(nvgpu::TensorMapL2PromoKind::L2PROMO_NONE);
}

/// A TMA tensor map over the K or V buffer `kv` (dense [B, Hkv, L, d] or a
/// paged pool) with the spec's box (FlashKernelSpec::tensorMapBox: one
/// 128-byte atom of a tile's or a page's keys), 128-byte swizzled, zero
/// filled out of bounds, without L2 promotion (kTensorMapL2Promotion):
/// nvgpu's descriptor, built on the host by the CUDA runtime wrappers
/// (cuTensorMapEncodeTiled, the map copied to device memory), passed to the
/// kernel as the generic pointer it lowers to.
Value createTensorMap(OpBuilder &b, Location loc, Value kv, const FlashKernelSpec &spec) {
  auto type = cast<MemRefType>(kv.getType());
  // (nvgpu's box is a memref shape, outermost dim first.)
  SmallVector<int64_t, 4> boxShape(llvm::reverse(spec.tensorMapBox()));
  auto box = MemRefType::get(boxShape, type.getElementType(), MemRefLayoutAttrInterface(),
                             gpu::AddressSpaceAttr::get(b.getContext(),
                                                        gpu::AddressSpace::Workgroup));
  auto descType = nvgpu::TensorMapDescriptorType::get(
      b.getContext(), box, nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
      l2PromotionKind(kTensorMapL2Promotion),
      nvgpu::TensorMapOOBKind::OOB_ZERO,
      nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
  Value unranked = memref::CastOp::create(
      b, loc, UnrankedMemRefType::get(type.getElementType(), type.getMemorySpace()), kv);
  SmallVector<Value> boxDims;
  for (int64_t x : box.getShape())
    boxDims.push_back(arith::ConstantIndexOp::create(b, loc, x));
  Value desc = nvgpu::TmaCreateDescriptorOp::create(b, loc, descType, unranked, boxDims);
  return UnrealizedConversionCastOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()),
                                            desc)
      .getResult(0);
}

/// How an attention tensor of rank 2 or 3 reads as the kernel's rank 4:
/// [L, d] as [1, 1, L, d], [H, L, d] as [1, H, L, d].
SmallVector<ReassociationIndices> rank4Reassociation(int64_t rank) {
  if (rank == 2)
    return {{0, 1, 2}, {3}};
  return {{0, 1}, {2}, {3}};
}

/// An attention operand (Q, K, V, a mask) in the kernel's rank-4 form, so
/// that one kernel serves ranks 2 to 4.
Value toRank4(OpBuilder &b, Location loc, Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.getRank() == 4)
    return v;
  SmallVector<int64_t> shape(4 - t.getRank(), 1);
  shape.append(t.getShape().begin(), t.getShape().end());
  return tensor::ExpandShapeOp::create(b, loc, RankedTensorType::get(shape, t.getElementType()),
                                       v, rank4Reassociation(t.getRank()));
}

struct AttnLowerToGPUPass
    : public attn::impl::AttnLowerToGPUPassBase<AttnLowerToGPUPass> {
  using AttnLowerToGPUPassBase::AttnLowerToGPUPassBase;

  /// The options as a kernel request. Values no kernel takes are errors
  /// here, before any op; combinations (block-kv=128 with mma.sync, ...)
  /// are checked per op by checkKernelConfig, with the shape.
  FailureOr<KernelOptions> kernelOptions() {
    ModuleOp module = getOperation();
    KernelOptions o;
    // The option parser has already rejected mma values other than auto,
    // mma.sync and wgmma; auto leaves the family to the op's kernel_config.
    o.family = getTensorCoreFamily(mma);
    auto domain = [&](StringRef name, int64_t value,
                      std::initializer_list<int64_t> allowed) {
      if (value == 0 || llvm::is_contained(allowed, value))
        return true;
      // "0 (auto), 32, 64 or 128"
      std::string list = "0 (auto)";
      for (auto [i, a] : llvm::enumerate(allowed))
        list += (i + 1 == allowed.size() ? " or " : ", ") + std::to_string(a);
      module.emitError("attn-lower-to-gpu: ")
          << name << " must be " << list << ", got " << value;
      return false;
    };
    if (kvSplits < 0 || kvSplits > 65535) {
      module.emitError("attn-lower-to-gpu: kv-splits must be 0 (auto) or 1 "
                       "(no split) to 65535, got ")
          << kvSplits.getValue();
      return failure();
    }
    if (!domain("block-q", blockQ, {16, 32, 64, 128}) ||
        !domain("rows-per-warp", rowsPerWarp, {16, 32}) ||
        !domain("block-kv", blockKV, {32, 48, 64, 80, 96, 112, 128}) ||
        !domain("kv-stages", kvStages, {2, 3, 4}) ||
        !domain("kv-warps", kvWarps, {1, 2, 4, 8}))
      return failure();
    o.request.blockQ = blockQ;
    o.request.blockKV = blockKV;
    o.request.rowsPerWarp = rowsPerWarp;
    o.request.kvStages = kvStages;
    o.request.swizzle = swizzle;
    o.request.kvSplits = kvSplits;
    o.request.kvWarps = kvWarps;
    if (llvm::Error e = applyLoadOptions(kvLoads, overlapPV, persistent, fp8Mma, o.request)) {
      module.emitError("attn-lower-to-gpu: ") << llvm::toString(std::move(e));
      return failure();
    }
    return o;
  }
  /// An op the kernels do not run: an error (strict, or options that
  /// break an op a kernel could run), else a warning, and the op stays.
  LogicalResult refuse(Operation *op, const Refusal &refusal) {
    if (strict || refusal.byRequest) {
      op->emitError("attn-lower-to-gpu: ") << refusal.why;
      return failure();
    }
    // A correct program is never refused: the op stays as it is, and the
    // GPU pipeline decomposes it for the host like any other computation
    // it does not offload.
    op->emitWarning("attn-lower-to-gpu: ")
        << refusal.why << "; the attention stays unfused (strict=true makes this an error)";
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<KernelOptions> options = kernelOptions();
    if (failed(options))
      return signalPassFailure();
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (isa<AttentionOp, PagedAttentionOp, VarlenAttentionOp>(op))
        ops.push_back(op);
    });
    if (ops.empty())
      return;
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), UnitAttr::get(&getContext()));
    // Kernels of an earlier run of the pass keep their manifests.
    NamedAttrList manifests;
    if (auto earlier = module->getAttrOfType<DictionaryAttr>(kLaunchManifestsAttrName))
      manifests.append(earlier.getValue());
    // The attention kernel, with split-KV its combine kernel, and with
    // 8-bit wgmma its Vᵀ pre-kernel.
    struct Kernels {
      gpu::GPUFuncOp attention, combine, vTranspose;
    };
    llvm::StringMap<Kernels> kernels;
    // The scale is a constant of the kernel but not part of its name:
    // attentions that differ only in scale must not share a kernel. The
    // first scale of a name keeps it; another gets its bits appended.
    llvm::StringMap<double> scaleOfName;
    for (Operation *op : ops) {
      auto attention = dyn_cast<AttentionOp>(op);
      auto paged = dyn_cast<PagedAttentionOp>(op);
      auto varlen = dyn_cast<VarlenAttentionOp>(op);
      Refusal refusal;
      FailureOr<FlashKernelSpec> spec = attention ? specFor(attention, *options, refusal)
                                        : paged   ? specFor(paged, *options, refusal)
                                                  : specFor(varlen, *options, refusal);
      if (failed(spec) && attention && genericKernel && !strict && !refusal.byRequest) {
        Refusal genericRefusal;
        spec = genericSpecFor(attention, genericRefusal);
        if (succeeded(spec))
          op->emitWarning("attn-lower-to-gpu: ")
              << refusal.why
              << "; the generic GPU kernel runs it instead (f32 on the CUDA cores, no tensor "
                 "cores; strict=true makes this an error)";
        else
          refusal = genericRefusal;
      }
      if (failed(spec)) {
        if (failed(refuse(op, refusal)))
          return signalPassFailure();
        continue;
      }
      auto [named, fresh] = scaleOfName.try_emplace(spec->name, spec->scale);
      if (!fresh && named->second != spec->scale)
        spec->name += llvm::formatv("_scale{0:x16}", llvm::bit_cast<uint64_t>(spec->scale)).str();
      Location loc = op->getLoc();
      OpBuilder b(module.getBodyRegion());
      auto &[kernel, combine, vTranspose] = kernels[spec->name];
      if (!kernel) {
        auto gpuModule = gpu::GPUModuleOp::create(b, loc, spec->name + "_module");
        kernel = spec->generic() ? buildGenericAttentionKernel(b, loc, gpuModule, *spec)
                                 : buildFlashAttentionKernel(b, loc, gpuModule, *spec);
        if (spec->splitKV())
          combine = buildSplitKVCombineKernel(b, loc, gpuModule, *spec);
        if (spec->transposesV())
          vTranspose = buildVTransposeKernel(b, loc, gpuModule, *spec);
        // Keyed by the gpu.module's symbol, which its gpu.binary keeps
        // (see kLaunchManifestsAttrName).
        manifests.set(gpuModule.getSymNameAttr(), manifestFor(b, *spec));
      }
      // Host side: tensors -> buffers, launch, buffer -> tensor.
      b.setInsertionPoint(op);
      // Attention operands in rank-4 form (packed ones as they are); the
      // block table and lengths as they are.
      auto asBuffer = [&](Value t, bool attentionOperand = true) {
        Value t4 = attentionOperand && !varlen ? toRank4(b, loc, t) : t;
        auto tt = cast<RankedTensorType>(t4.getType());
        return bufferization::ToBufferOp::create(
            b, loc, MemRefType::get(tt.getShape(), tt.getElementType()), t4);
      };
      // Q, K, V (or the K/V page pools), as the kernel's first parameters.
      SmallVector<Value> inputs = llvm::map_to_vector(
          op->getOperands().take_front(3), [&](Value t) -> Value { return asBuffer(t); });
      auto outType = MemRefType::get(spec->queryShape(spec->headDimV), spec->outputType);
      Value out = memref::AllocOp::create(b, loc, outType);
      // Split-KV: the attention kernel writes the workspace (partial
      // outputs, log-sum-exps), the combine kernel reads it into `out`.
      SmallVector<Value> workspace;
      if (combine)
        for (Type t : combine.getArgumentTypes().take_front(2))
          workspace.push_back(memref::AllocOp::create(b, loc, cast<MemRefType>(t)));
      SmallVector<Value> args(inputs);
      // 8-bit wgmma: the pre-kernel's Vᵀ images in V's place.
      Value vImages;
      if (vTranspose) {
        vImages = memref::AllocOp::create(
            b, loc, cast<MemRefType>(vTranspose.getArgumentTypes()[1]));
        args[2] = vImages;
      }
      if (combine)
        args.append(workspace);
      else
        args.push_back(out);
      if (Value mask = attention ? attention.getMask() : Value())
        args.push_back(asBuffer(mask));
      if (paged) {
        args.push_back(asBuffer(paged.getBlockTable(), /*attentionOperand=*/false));
        args.push_back(asBuffer(paged.getSeqLens(), /*attentionOperand=*/false));
      }
      if (varlen) {
        args.push_back(asBuffer(varlen.getCuSeqlensQ(), /*attentionOperand=*/false));
        args.push_back(asBuffer(varlen.getCuSeqlensK(), /*attentionOperand=*/false));
      }
      for (Value t : spec->scoreModTensors)
        args.push_back(asBuffer(t, /*attentionOperand=*/false));
      if (spec->descale)
        for (Value t : attention.getDescale())
          args.push_back(asBuffer(t, /*attentionOperand=*/false));
      auto c = [&](int64_t x) { return arith::ConstantIndexOp::create(b, loc, x).getResult(); };
      const std::array<Value, 2> mappedKV{inputs[1], inputs[2]};
      for (Value kv : ArrayRef(mappedKV).take_front(spec->tensorMapCount()))
        args.push_back(createTensorMap(b, loc, kv, *spec));
      // Named first: argument evaluation order is unspecified in C++, and
      // the printed IR should not depend on the host compiler.
      std::array<int64_t, 3> dims = spec->grid();
      gpu::KernelDim3 grid{c(dims[0]), c(dims[1]), c(dims[2])};
      gpu::KernelDim3 block{c(spec->numThreads()), c(1), c(1)};
      Value dynamicSmem;
      if (spec->dynamicSharedMemory)
        dynamicSmem = arith::ConstantIntOp::create(b, loc, b.getI32Type(),
                                                   spec->sharedMemoryBytes());
      if (vTranspose) {
        std::array<int64_t, 3> vtGrid = spec->vTransposeGrid();
        gpu::LaunchFuncOp::create(b, loc, vTranspose,
                                  gpu::KernelDim3{c(vtGrid[0]), c(vtGrid[1]), c(vtGrid[2])},
                                  gpu::KernelDim3{c(spec->vTransposeThreads()), c(1), c(1)},
                                  Value(), ValueRange{inputs[2], vImages});
      }
      gpu::LaunchFuncOp::create(b, loc, kernel, grid, block, dynamicSmem, args);
      if (vImages)
        memref::DeallocOp::create(b, loc, vImages);
      if (combine) {
        gpu::KernelDim3 combineGrid{c(spec->batch * spec->headsQ * spec->seqQ), c(1), c(1)};
        gpu::KernelDim3 combineBlock{c(spec->headDimV), c(1), c(1)};
        gpu::LaunchFuncOp::create(b, loc, combine, combineGrid, combineBlock, Value(),
                                  ValueRange{workspace[0], workspace[1], out});
        for (Value buffer : workspace)
          memref::DeallocOp::create(b, loc, buffer);
      }
      Value result = bufferization::ToTensorOp::create(
          b, loc, RankedTensorType::get(outType.getShape(), outType.getElementType()), out,
          /*restrict=*/true, /*writable=*/true);
      auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
      if (resultType.getRank() < outType.getRank())
        result = tensor::CollapseShapeOp::create(b, loc, resultType, result,
                                                 rank4Reassociation(resultType.getRank()));
      op->getResult(0).replaceAllUsesWith(result);
      op->erase();
    }
    module->setAttr(kLaunchManifestsAttrName, manifests.getDictionary(&getContext()));
  }
};

} // namespace

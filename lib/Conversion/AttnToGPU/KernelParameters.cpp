//===- KernelParameters.cpp - the attention kernel's parameter list -------===//
//
// The kernel's parameters in order: Q, K, V (8-bit wgmma: the Vᵀ tile
// images of VTransposeKernel.cpp), O (split-KV: the f32 partial
// outputs, then their rows' (m, ℓ)), the mask tensor, the paged cache's
// block table and lengths, varlen's cumulative lengths, the score_mod's
// tensors, FP8's descale factors, and the TMA tensor maps. LaunchManifest.cpp lists the same
// names for the runtimes; both follow this order.
//
//===----------------------------------------------------------------------===//
#include "KernelBuilder.h"
#include "attn/Analysis/KernelConfig.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::attn;

SmallVector<Type> KernelParameters::types(Builder &b, const FlashKernelSpec &s) {
  Type T = s.elementType, f32 = b.getF32Type();
  auto buffer = [&](ArrayRef<int64_t> shape) { return MemRefType::get(shape, T); };
  // (8-bit wgmma reads V as the pre-kernel's Vᵀ tile images.)
  SmallVector<Type> params{buffer(s.queryShape(s.headDim)), buffer(s.keyShape(s.headDim)),
                           s.transposesV() ? buffer(s.transposedVImageShape())
                                           : buffer(s.keyShape(s.headDimV)),
                           MemRefType::get(s.queryShape(s.headDimV), s.outputType)};
  if (s.splitKV()) {
    params[3] = MemRefType::get({s.kvSplits, s.batch, s.headsQ, s.seqQ, s.headDimV}, f32);
    params.push_back(
        MemRefType::get({s.kvSplits, s.batch, s.headsQ, s.seqQ, kSplitRowStatWords}, f32));
  }
  if (s.mask != FlashKernelSpec::Mask::None)
    params.push_back(MemRefType::get(s.maskShape, s.maskElementType));
  if (s.paged()) {
    params.push_back(MemRefType::get({s.batch, s.maxPages}, b.getI32Type()));
    params.push_back(MemRefType::get({s.batch}, b.getI32Type()));
  }
  if (s.varlen) {
    params.push_back(MemRefType::get({s.batch + 1}, b.getI32Type()));
    params.push_back(MemRefType::get({s.batch + 1}, b.getI32Type()));
  }
  for (Value t : s.scoreModTensors) {
    auto type = cast<RankedTensorType>(t.getType());
    params.push_back(MemRefType::get(type.getShape(), type.getElementType()));
  }
  if (s.descale)
    params.append(3, MemRefType::get({}, f32));
  // The K and V CUtensorMaps (K's alone for Vᵀ images), by generic
  // pointers to global memory.
  params.append(s.tensorMapCount(), LLVM::LLVMPointerType::get(b.getContext()));
  return params;
}

KernelParameters KernelParameters::bind(Block &entry, const FlashKernelSpec &s) {
  // (A gpu.func's block arguments continue with its workgroup buffers.)
  unsigned next = 0;
  auto take = [&] { return entry.getArgument(next++); };
  KernelParameters p;
  p.Q = take();
  p.K = take();
  p.V = take();
  p.O = take();
  if (s.splitKV())
    p.rowStats = take();
  if (s.mask != FlashKernelSpec::Mask::None)
    p.M = take();
  if (s.paged()) {
    p.blockTable = take();
    p.seqLens = take();
  }
  if (s.varlen) {
    p.cuSeqlensQ = take();
    p.cuSeqlensK = take();
  }
  for (size_t i = 0; i < s.scoreModTensors.size(); ++i)
    p.scoreModTensors.push_back(take());
  if (s.descale) {
    p.qDescale = take();
    p.kDescale = take();
    p.vDescale = take();
  }
  if (s.tensorMapCount() > 0)
    p.kTensorMap = take();
  if (s.tensorMapCount() > 1)
    p.vTensorMap = take();
  return p;
}

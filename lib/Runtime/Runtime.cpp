//===- Runtime.cpp - Launch attn-opt kernels with the CUDA driver ---------===//
#include "attn/Runtime/Runtime.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace mlir::attn::runtime;

llvm::Error mlir::attn::runtime::checkCuda(CUresult result, llvm::StringRef what) {
  if (result == CUDA_SUCCESS)
    return llvm::Error::success();
  const char *name = nullptr, *text = nullptr;
  cuGetErrorName(result, &name);
  cuGetErrorString(result, &text);
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 llvm::formatv("{0}: {1}: {2}", what, name ? name : "CUDA error",
                                               text ? text : "unknown"));
}

llvm::Error mlir::attn::runtime::initPrimaryContext(int device) {
  if (llvm::Error e = checkCuda(cuInit(0), "cuInit"))
    return e;
  CUdevice dev;
  if (llvm::Error e = checkCuda(cuDeviceGet(&dev, device), "cuDeviceGet"))
    return e;
  CUcontext context;
  if (llvm::Error e = checkCuda(cuDevicePrimaryCtxRetain(&context, dev), "cuDevicePrimaryCtxRetain"))
    return e;
  return checkCuda(cuCtxSetCurrent(context), "cuCtxSetCurrent");
}

llvm::Expected<std::unique_ptr<LoadedKernel>> LoadedKernel::load(llvm::StringRef manifestJSON,
                                                                 llvm::StringRef ptx) {
  llvm::Expected<LaunchPlan> plan = LaunchPlan::parse(manifestJSON);
  if (!plan)
    return plan.takeError();
  std::unique_ptr<LoadedKernel> k(new LoadedKernel(std::move(*plan)));
  // cuModuleLoadData reads a NUL-terminated image.
  std::string image = ptx.str();
  if (llvm::Error e = checkCuda(cuModuleLoadData(&k->module, image.c_str()), "cuModuleLoadData"))
    return std::move(e);
  for (const Launch &l : k->launchPlan.launches()) {
    CUfunction f;
    if (llvm::Error e = checkCuda(cuModuleGetFunction(&f, k->module, l.kernel.c_str()),
                                  "cuModuleGetFunction(" + l.kernel + ")"))
      return std::move(e);
    // Above 48 KB of static plus dynamic shared memory a kernel must opt in
    // to its dynamic part, and the PTX's dynamic-buffer symbol is itself one
    // static byte (a kernel of exactly 48 KB dynamic failed its launch,
    // bench/NOTES.md v31c): every kernel with a dynamic buffer opts in.
    if (l.dynamicSharedMemoryBytes > 0)
      if (llvm::Error e = checkCuda(
              cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                 int(l.dynamicSharedMemoryBytes)),
              "cuFuncSetAttribute(" + l.kernel + ", max dynamic shared memory)"))
        return std::move(e);
    k->functions.push_back(f);
  }
  for (const TensorSpec &w : k->launchPlan.workspace()) {
    CUdeviceptr buffer;
    if (llvm::Error e = checkCuda(cuMemAlloc(&buffer, w.bytes()), "cuMemAlloc(" + w.name + ")"))
      return std::move(e);
    k->workspace.push_back(buffer);
  }
  for (const TensorMapSpec &m : k->launchPlan.tensorMaps()) {
    CUdeviceptr buffer;
    if (llvm::Error e = checkCuda(cuMemAlloc(&buffer, sizeof(CUtensorMap)),
                                  "cuMemAlloc(" + m.arg + ")"))
      return std::move(e);
    k->tensorMapBuffers.push_back(buffer);
  }
  return k;
}

llvm::Expected<std::unique_ptr<LoadedKernel>>
LoadedKernel::loadFiles(llvm::StringRef manifestPath) {
  llvm::SmallString<256> ptxPath(manifestPath);
  llvm::sys::path::replace_extension(ptxPath, ".ptx");
  auto read = [](llvm::StringRef path) -> llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer = llvm::MemoryBuffer::getFile(path);
    if (!buffer)
      return llvm::createStringError(buffer.getError(),
                                     "cannot read '" + path + "': " + buffer.getError().message());
    return std::move(*buffer);
  };
  auto manifest = read(manifestPath);
  if (!manifest)
    return manifest.takeError();
  auto ptx = read(ptxPath);
  if (!ptx)
    return ptx.takeError();
  return load((*manifest)->getBuffer(), (*ptx)->getBuffer());
}

LoadedKernel::~LoadedKernel() {
  // Errors here have nowhere to go: the context may already be gone.
  for (CUdeviceptr buffer : llvm::concat<const CUdeviceptr>(workspace, tensorMapBuffers))
    (void)cuMemFree(buffer);
  if (module)
    (void)cuModuleUnload(module);
}

/// The CUtensorMap of `m` over the contiguous tensor `t` (dims innermost
/// first, byte strides of the outer ones).
static llvm::Error encodeTensorMap(const TensorMapSpec &m, const TensorArg &t, CUtensorMap &map) {
  const size_t rank = t.shape.size();
  cuuint64_t dims[5], strides[4];
  cuuint32_t box[5], elementStrides[5];
  uint64_t stride = elementBytes(t.type);
  for (size_t i = 0; i < rank; ++i) {
    dims[i] = cuuint64_t(t.shape[rank - 1 - i]);
    box[i] = cuuint32_t(m.box[i]);
    elementStrides[i] = 1;
    if (i + 1 < rank)
      strides[i] = stride *= dims[i];
  }
  auto swizzle = llvm::StringSwitch<CUtensorMapSwizzle>(m.swizzle)
                     .Case("32B", CU_TENSOR_MAP_SWIZZLE_32B)
                     .Case("64B", CU_TENSOR_MAP_SWIZZLE_64B)
                     .Case("128B", CU_TENSOR_MAP_SWIZZLE_128B)
                     .Default(CU_TENSOR_MAP_SWIZZLE_NONE);
  auto promotion = llvm::StringSwitch<CUtensorMapL2promotion>(m.l2Promotion)
                       .Case("64B", CU_TENSOR_MAP_L2_PROMOTION_L2_64B)
                       .Case("128B", CU_TENSOR_MAP_L2_PROMOTION_L2_128B)
                       .Case("256B", CU_TENSOR_MAP_L2_PROMOTION_L2_256B)
                       .Default(CU_TENSOR_MAP_L2_PROMOTION_NONE);
  // 8-bit floats as raw bytes: a box copy does not look at their values.
  CUtensorMapDataType dataType = t.type == ElementType::BF16   ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                 : t.type == ElementType::F16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                               : CU_TENSOR_MAP_DATA_TYPE_UINT8;
  return checkCuda(
      cuTensorMapEncodeTiled(&map, dataType,
                             cuuint32_t(rank), reinterpret_cast<void *>(t.address), dims, strides,
                             box, elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                             promotion, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
      "cuTensorMapEncodeTiled(" + m.arg + ")");
}

llvm::Error LoadedKernel::launch(llvm::ArrayRef<TensorArg> args, CUstream stream) const {
  std::vector<uint64_t> scratch(workspace.begin(), workspace.end());
  std::vector<uint64_t> maps(tensorMapBuffers.begin(), tensorMapBuffers.end());
  llvm::Expected<std::vector<std::vector<uint64_t>>> addresses =
      launchPlan.argumentAddresses(args, scratch, maps);
  if (!addresses)
    return addresses.takeError();
  // (argumentAddresses checked that every param, each map's tensor among
  // them, is in `args`.)
  for (size_t i = 0; i < tensorMapBuffers.size(); ++i) {
    const TensorMapSpec &m = launchPlan.tensorMaps()[i];
    CUdeviceptr buffer = tensorMapBuffers[i];
    const TensorArg &t = *llvm::find_if(args, [&](const TensorArg &a) { return a.name == m.tensor; });
    CUtensorMap map;
    if (llvm::Error e = encodeTensorMap(m, t, map))
      return e;
    // From pageable memory: staged by the driver before this returns.
    if (llvm::Error e = checkCuda(cuMemcpyHtoDAsync(buffer, &map, sizeof(map), stream),
                                  "cuMemcpyHtoDAsync(" + m.arg + ")"))
      return e;
  }
  for (auto [l, f, pointers] : llvm::zip_equal(launchPlan.launches(), functions, *addresses)) {
    // Bare-pointer convention: each parameter is one device address.
    std::vector<CUdeviceptr> values(pointers.begin(), pointers.end());
    std::vector<void *> params;
    for (CUdeviceptr &v : values)
      params.push_back(&v);
    if (llvm::Error e = checkCuda(cuLaunchKernel(f, l.grid[0], l.grid[1], l.grid[2], l.block[0],
                                                 l.block[1], l.block[2],
                                                 l.dynamicSharedMemoryBytes, stream,
                                                 params.data(), nullptr),
                                  "cuLaunchKernel(" + l.kernel + ")"))
      return e;
  }
  return llvm::Error::success();
}

//===- Runtime.cpp - Launch attn-opt kernels with the CUDA driver ---------===//
#include "attn/Runtime/Runtime.h"

#include "llvm/ADT/STLExtras.h"
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
    // Above 48 KB a kernel must opt in to its dynamic shared memory.
    if (l.dynamicSharedMemoryBytes > 48 * 1024)
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
  for (CUdeviceptr buffer : workspace)
    (void)cuMemFree(buffer);
  if (module)
    (void)cuModuleUnload(module);
}

llvm::Error LoadedKernel::launch(llvm::ArrayRef<TensorArg> args, CUstream stream) const {
  std::vector<uint64_t> scratch(workspace.begin(), workspace.end());
  llvm::Expected<std::vector<std::vector<uint64_t>>> addresses =
      launchPlan.argumentAddresses(args, scratch);
  if (!addresses)
    return addresses.takeError();
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

//===- Runtime.h - Launch attn-opt kernels with the CUDA driver -*- C++ -*-===//
//
// libattnrt: loads a kernel's PTX and launch manifest (what
// --attn-dump-gpu-kernels writes) into the current CUDA context and
// launches every kernel the manifest lists, in order, on the caller's
// device pointers and stream. The C++ counterpart of attnopt.runtime, for
// stacks that link the compiler and must run what it produces without
// Python. Built when CMake finds the CUDA toolkit.
//
//   auto kernel = LoadedKernel::loadFiles("kernels/attn_fa2_....json");
//   if (!kernel) ...;
//   llvm::Error e = (*kernel)->launch({{"q", dq, ElementType::BF16, {1, 32, 4096, 128}},
//                                      ...}, stream);
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_RUNTIME_RUNTIME_H
#define ATTN_RUNTIME_RUNTIME_H

#include "attn/Runtime/LaunchPlan.h"

#include <cuda.h>

#include <memory>

namespace mlir {
namespace attn {
namespace runtime {

/// A kernel's module loaded into the context current at load time, with
/// its workspace buffers. Launches on one stream run in order, so they may
/// share the workspace; concurrent launches on different streams may not.
class LoadedKernel {
public:
  /// From a manifest's JSON and the PTX it describes (JIT-compiled by the
  /// driver for the current device).
  static llvm::Expected<std::unique_ptr<LoadedKernel>> load(llvm::StringRef manifestJSON,
                                                            llvm::StringRef ptx);
  /// From <kernel>.json and the <kernel>.ptx beside it.
  static llvm::Expected<std::unique_ptr<LoadedKernel>> loadFiles(llvm::StringRef manifestPath);

  ~LoadedKernel();
  LoadedKernel(const LoadedKernel &) = delete;
  LoadedKernel &operator=(const LoadedKernel &) = delete;

  const LaunchPlan &plan() const { return launchPlan; }

  /// Checks `args` against the manifest (names, shapes, element types),
  /// then enqueues every launch on `stream`; returns without waiting.
  llvm::Error launch(llvm::ArrayRef<TensorArg> args, CUstream stream) const;

private:
  explicit LoadedKernel(LaunchPlan plan) : launchPlan(std::move(plan)) {}

  LaunchPlan launchPlan;
  CUmodule module = nullptr;
  std::vector<CUfunction> functions;    // one per launch
  std::vector<CUdeviceptr> workspace;   // in plan().workspace() order
  /// One 128-byte buffer per tensor map (plan().tensorMaps() order),
  /// rewritten on the launch stream before each launch: like the
  /// workspace, one LoadedKernel serves one stream at a time.
  std::vector<CUdeviceptr> tensorMapBuffers;
};

/// A CUDA driver result as an llvm::Error ("what: CUDA_ERROR_...: text").
llvm::Error checkCuda(CUresult result, llvm::StringRef what);

/// cuInit, then `device`'s primary context made current: what a tool or
/// an example needs before loading kernels (a framework has a context).
llvm::Error initPrimaryContext(int device);

} // namespace runtime
} // namespace attn
} // namespace mlir

#endif // ATTN_RUNTIME_RUNTIME_H

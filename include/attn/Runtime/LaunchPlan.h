//===- LaunchPlan.h - A kernel's launch manifest, read and checked -*- C++ -*-===//
//
// What --attn-dump-gpu-kernels writes beside each kernel's PTX
// (<kernel>.json), read into the launches a runtime performs. No CUDA here:
// the C++ runtime (Runtime.h) is built on it, and its unit tests run
// without a GPU.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_RUNTIME_LAUNCHPLAN_H
#define ATTN_RUNTIME_LAUNCHPLAN_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace mlir {
namespace attn {
namespace runtime {

/// The element types a manifest names ("bf16*", "f16*", "f32*", "i32*",
/// "i1*": a keep mask, one byte per element as torch.bool stores it).
/// What a manifest's pointer types name: the attention operands' floats,
/// and what a score_mod's tensors may hold (any integer or float up to 64
/// bits).
/// F8E4M3FN, F8E5M2: FP8 attention's inputs (one byte each).
enum class ElementType { BF16, F16, F32, F64, F8E4M3FN, F8E5M2, I8, I16, I32, I64, Bool };

size_t elementBytes(ElementType type);
llvm::StringRef elementTypeName(ElementType type);

/// A named tensor of the kernels' calling convention: a bare device
/// pointer to a contiguous row-major array of `shape`.
struct TensorSpec {
  std::string name;
  ElementType type;
  std::vector<int64_t> shape;
  int64_t numElements() const;
  size_t bytes() const;
};

/// One kernel launch: its grid, block, dynamic shared memory, and its
/// pointer arguments by name (a param or a workspace buffer).
struct Launch {
  std::string kernel;
  std::array<uint32_t, 3> grid{1, 1, 1}, block{1, 1, 1};
  uint32_t dynamicSharedMemoryBytes = 0;
  std::vector<std::string> args;
};

/// A tensor the caller passes: a device address and what the caller says
/// it holds, checked against the manifest before anything is launched.
/// A TMA tensor map the runner encodes (kernels whose K/V stages are filled
/// by TMA): over the contiguous param `tensor`, dims innermost first, boxes
/// of `box` elements (innermost first), `swizzle` ("none", "32B", "64B" or
/// "128B"), zero fill out of bounds; passed to the kernel as the launch
/// argument `arg`, a pointer to the 128-byte map in device memory.
struct TensorMapSpec {
  std::string arg, tensor;
  std::vector<int64_t> box;
  std::string swizzle;
  /// none, 64B, 128B or 256B (the manifest's `l2_promotion`; none when absent).
  std::string l2Promotion = "none";
};

struct TensorArg {
  std::string name;
  uint64_t address = 0;
  ElementType type;
  std::vector<int64_t> shape;
};

/// A manifest, validated: every launch argument names a param or a
/// workspace buffer, names are unique, shapes positive, grids and blocks
/// within CUDA's limits.
class LaunchPlan {
public:
  static llvm::Expected<LaunchPlan> parse(llvm::StringRef manifestJSON);

  const std::string &kernelName() const { return kernel; }
  /// The caller's tensors, in the kernels' order (q, k, v, o, then the
  /// mask, or the block table and sequence lengths).
  llvm::ArrayRef<TensorSpec> params() const { return paramSpecs; }
  /// Scratch the runtime allocates (split-KV's partial outputs), f32.
  llvm::ArrayRef<TensorSpec> workspace() const { return workspaceSpecs; }
  /// In order: a later launch reads what an earlier one wrote.
  llvm::ArrayRef<Launch> launches() const { return launchList; }
  /// Tensor maps the runner encodes per launch from the params' addresses.
  llvm::ArrayRef<TensorMapSpec> tensorMaps() const { return tensorMapSpecs; }
  const TensorSpec *findParam(llvm::StringRef name) const;
  /// The bytes q, k, v and o must start at a multiple of (the manifest's
  /// `tensor_alignment`; 1 when it has none): the tensor-core kernels move
  /// Q and O in 16-byte vectors.
  int64_t tensorAlignment() const { return alignment; }

  /// Whether `args` are the params, each once, with the manifest's shape
  /// and element type and a non-null address (q, k, v and o aligned to
  /// tensorAlignment()).
  llvm::Error checkArgs(llvm::ArrayRef<TensorArg> args) const;
  /// Each launch's pointer arguments, in order, from the caller's tensors,
  /// the workspace buffers' addresses (in workspace() order) and the
  /// device addresses of the encoded tensor maps (in tensorMaps() order).
  llvm::Expected<std::vector<std::vector<uint64_t>>>
  argumentAddresses(llvm::ArrayRef<TensorArg> args, llvm::ArrayRef<uint64_t> workspaceAddresses,
                    llvm::ArrayRef<uint64_t> tensorMapAddresses = {}) const;

private:
  std::string kernel;
  int64_t alignment = 1;
  std::vector<TensorSpec> paramSpecs, workspaceSpecs;
  std::vector<Launch> launchList;
  std::vector<TensorMapSpec> tensorMapSpecs;
};

} // namespace runtime
} // namespace attn
} // namespace mlir

#endif // ATTN_RUNTIME_LAUNCHPLAN_H

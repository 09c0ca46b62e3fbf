//===- KernelConfigOptions.cpp - the chooser's option spellings -----------===//
//
// How the passes and the Python binding spell the kernel choices: the
// tensor-core family names, the `mma=`, `kv-loads=`, `overlap-pv=` and
// `persistent=` option values, and applyLoadOptions, which turns the last
// three into a KernelConfigRequest or an error naming the values they take
// (one place for --attn-io-cost, --attn-lower-to-gpu and the GPU pipeline).
//
//===----------------------------------------------------------------------===//
#include "attn/Analysis/KernelConfig.h"

#include "llvm/Support/Error.h"

using namespace mlir;
using namespace mlir::attn;

std::optional<TensorCoreFamily>
mlir::attn::parseTensorCoreFamily(llvm::StringRef name) {
  if (name == "mma.sync")
    return TensorCoreFamily::MmaSync;
  if (name == "wgmma")
    return TensorCoreFamily::Wgmma;
  return std::nullopt;
}

llvm::StringRef mlir::attn::stringifyTensorCoreFamily(TensorCoreFamily family) {
  return family == TensorCoreFamily::Wgmma ? "wgmma" : "mma.sync";
}

TensorCoreFamily mlir::attn::defaultTensorCoreFamily(llvm::StringRef chip) {
  return chip == "sm_90a" ? TensorCoreFamily::Wgmma : TensorCoreFamily::MmaSync;
}

std::optional<TensorCoreFamily>
mlir::attn::getTensorCoreFamily(TensorCoreFamilyOption option) {
  switch (option) {
  case TensorCoreFamilyOption::Auto:
    return std::nullopt;
  case TensorCoreFamilyOption::MmaSync:
    return TensorCoreFamily::MmaSync;
  case TensorCoreFamilyOption::Wgmma:
    return TensorCoreFamily::Wgmma;
  }
  llvm_unreachable("unknown TensorCoreFamilyOption");
}

TensorCoreFamilyOption
mlir::attn::getTensorCoreFamilyOption(TensorCoreFamily family) {
  return family == TensorCoreFamily::Wgmma ? TensorCoreFamilyOption::Wgmma
                                           : TensorCoreFamilyOption::MmaSync;
}

std::optional<KVLoadsRequest> mlir::attn::parseKVLoadsOption(llvm::StringRef value) {
  if (value == "auto")
    return KVLoadsRequest{};
  if (value == "cp.async" || value == "tma" || value == "tma-producer")
    return KVLoadsRequest{value != "cp.async", value == "tma-producer"};
  return std::nullopt;
}

std::optional<std::optional<bool>> mlir::attn::parseAutoOnOffOption(llvm::StringRef value) {
  if (value == "auto")
    return std::optional<bool>();
  if (value == "on" || value == "off")
    return std::optional<bool>(value == "on");
  return std::nullopt;
}

llvm::cl::ValuesClass mlir::attn::tensorCoreFamilyOptionValues() {
  return llvm::cl::values(
      clEnumValN(TensorCoreFamilyOption::Auto, "auto",
                 "chosen (see the option's description)"),
      clEnumValN(TensorCoreFamilyOption::MmaSync, "mma.sync",
                 "mma.sync.m16n8k16 (sm_80 and later)"),
      clEnumValN(TensorCoreFamilyOption::Wgmma, "wgmma",
                 "wgmma.mma_async (sm_90a)"));
}

llvm::Error mlir::attn::applyLoadOptions(llvm::StringRef kvLoads, llvm::StringRef overlapPV,
                                         llvm::StringRef persistent, llvm::StringRef fp8Mma,
                                         KernelConfigRequest &request) {
  auto invalid = [](llvm::StringRef option, llvm::StringRef values, llvm::StringRef got) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   option + " must be " + values + ", got '" + got + "'");
  };
  std::optional<KVLoadsRequest> loads = parseKVLoadsOption(kvLoads);
  if (!loads)
    return invalid("kv-loads", kKVLoadsValues, kvLoads);
  std::optional<std::optional<bool>> overlap = parseAutoOnOffOption(overlapPV);
  if (!overlap)
    return invalid("overlap-pv", kAutoOnOffValues, overlapPV);
  std::optional<std::optional<bool>> persist = parseAutoOnOffOption(persistent);
  if (!persist)
    return invalid("persistent", kAutoOnOffValues, persistent);
  request.tmaLoads = loads->tmaLoads;
  request.producerWarpgroup = loads->producerWarpgroup;
  request.overlapPV = *overlap;
  std::optional<std::optional<bool>> fp8 = parseAutoOnOffOption(fp8Mma);
  if (!fp8)
    return invalid("fp8-mma", kAutoOnOffValues, fp8Mma);
  request.persistent = *persist;
  request.fp8TensorCores = *fp8;
  return llvm::Error::success();
}

//===- KernelConfig.cpp - the fused GPU kernel's configuration ------------===//
#include "attn/Analysis/KernelConfig.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>

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

llvm::cl::ValuesClass mlir::attn::tensorCoreFamilyOptionValues() {
  return llvm::cl::values(
      clEnumValN(TensorCoreFamilyOption::Auto, "auto",
                 "chosen (see the option's description)"),
      clEnumValN(TensorCoreFamilyOption::MmaSync, "mma.sync",
                 "mma.sync.m16n8k16 (sm_80 and later)"),
      clEnumValN(TensorCoreFamilyOption::Wgmma, "wgmma",
                 "wgmma.mma_async (sm_90a)"));
}

int64_t mlir::attn::kernelSharedMemoryBytes(const KernelConfig &c,
                                            const AttentionShape &s) {
  const bool wgmma = c.family == TensorCoreFamily::Wgmma;
  // Padded rows (+8 halves) unless swizzled; wgmma's 128-byte-swizzle atoms
  // are packed.
  auto pitch = [&](int64_t cols) { return c.swizzle || wgmma ? cols : cols + 8; };
  // Q fragments stay in registers when they fit (64 registers: m-tiles x d
  // <= 128); otherwise, and always for wgmma (A from shared memory), the Q
  // tile is staged.
  const bool qStaged = wgmma || (c.rowsPerWarp / 16) * s.headDim > 128;
  int64_t kv = 2 * c.kvStages * c.blockKV * (pitch(s.headDim) + pitch(s.headDimV));
  int64_t q = qStaged ? 2 * c.blockQ * pitch(s.headDim) : 0;
  return kv + q + (wgmma ? 1024 : 0);
}

namespace {

llvm::Error reason(const llvm::Twine &why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), why);
}

bool isOneOf(int64_t x, std::initializer_list<int64_t> set) {
  return llvm::is_contained(set, x);
}

/// The tile sets each family's kernel is written for.
llvm::Error checkFamilyTiles(const KernelConfig &c) {
  const bool wgmma = c.family == TensorCoreFamily::Wgmma;
  if (!isOneOf(c.blockQ, {64, 128}))
    return reason("block-q must be 64 or 128, got " + llvm::Twine(c.blockQ));
  if (c.blockKV == 128 && !wgmma)
    return reason("block-kv=128 needs mma=wgmma (mma.sync would spill its "
                  "score registers)");
  if (!isOneOf(c.blockKV, {32, 64, 128}))
    return reason("block-kv must be 32, 64 or 128, got " + llvm::Twine(c.blockKV));
  if (wgmma && c.rowsPerWarp != 16)
    return reason("mma=wgmma gives each warp 16 rows (a warpgroup 64); "
                  "rows-per-warp must be 0 or 16, got " +
                  llvm::Twine(c.rowsPerWarp));
  if (!isOneOf(c.rowsPerWarp, {16, 32}))
    return reason("rows-per-warp must be 16 or 32, got " + llvm::Twine(c.rowsPerWarp));
  if (c.kvStages == 3 && !wgmma)
    return reason("kv-stages=3 needs mma=wgmma (the third stage holds the V "
                  "tile of a P·V still in flight)");
  if (!isOneOf(c.kvStages, {2, 3}))
    return reason("kv-stages must be 2 or 3, got " + llvm::Twine(c.kvStages));
  if (wgmma && c.swizzle)
    return reason("mma=wgmma always uses the 128-byte swizzle; drop swizzle=true");
  return llvm::Error::success();
}

} // namespace

llvm::Error mlir::attn::checkKernelConfig(const KernelConfig &c,
                                          const AttentionShape &s,
                                          const TargetSpec &target) {
  if (s.dtype != DType::F16 && s.dtype != DType::BF16)
    return reason(stringifyTensorCoreFamily(c.family) +
                  " needs f16 or bf16 inputs, got " + stringifyDType(s.dtype));
  for (int64_t hd : {s.headDim, s.headDimV})
    if (hd != 64 && hd != 128)
      return reason("head dims must be 64 or 128 for the GPU kernel, got " +
                    llvm::Twine(hd));
  if (llvm::Error e = checkFamilyTiles(c))
    return e;
  // The warps split the query tile, and every thread copies the same
  // number of 16-byte chunks of each K/V tile.
  int64_t threads = 32 * c.numWarps();
  if ((c.blockKV * std::min(s.headDim, s.headDimV) / 8) % threads != 0)
    return reason("a " + llvm::Twine(c.blockKV) + "-key tile does not split "
                  "evenly over " + llvm::Twine(threads) + " threads' 16-byte copies");
  int64_t smem = kernelSharedMemoryBytes(c, s);
  if (smem > target.sramBytesPerBlock)
    return reason("the kernel needs " + llvm::Twine(smem) +
                  " bytes of shared memory per CTA; target '" + target.name +
                  "' allows " + llvm::Twine(target.sramBytesPerBlock));
  return llvm::Error::success();
}

namespace {

/// What the measured rules look at.
struct Facts {
  bool wide;         // max(d, dv) > 64
  bool maskPerScore; // a mask read once per score
  bool causal;
  bool shortCausal;  // causal with Lk <= 2048
};

/// The measured defaults of one family: tiles and stages for the facts.
/// Each rule cites the H200 run that chose it (bench/NOTES.md).
KernelConfig measuredWgmmaDefaults(const Facts &f) {
  KernelConfig c;
  c.family = TensorCoreFamily::Wgmma;
  c.rowsPerWarp = 16; // a warpgroup multiplies 64 rows, 16 per warp
  if (f.causal && (!f.wide || f.shortCausal)) {
    // "v9 tiles": one warpgroup per CTA skips the causal diagonal at a
    // finer grain, and several CTAs share an SM out of phase (one's softmax
    // overlaps another's GEMMs): d = 64 +16..+31% at N >= 4k (3 CTAs per
    // SM); 64-key tiles for short sequences, where d = 128 gains +2..+9%
    // and loses beyond 2048 keys.
    c.blockQ = 64;
    c.blockKV = f.shortCausal ? 64 : 128;
  } else {
    // "v9 tiles": nothing beats two warpgroups by 128 keys non-causal: a
    // 128-wide wgmma N and half the barriers and waits per key of 64.
    c.blockQ = 128;
    c.blockKV = 128;
  }
  return c;
}

/// "v10": a third K/V stage (the P·V wait deferred by a tile) +3..+6% where
/// a 128-row wgmma CTA at d = 128 runs alone on its SM anyway; at d = 64 it
/// costs the second CTA per SM (128 -> 160 registers: -23%), and 64-row
/// CTAs lose one of their three (-7%). mma.sync has two stages.
int64_t measuredStages(TensorCoreFamily family, const Facts &f, int64_t blockQ) {
  return family == TensorCoreFamily::Wgmma && f.wide && blockQ == 128 ? 3 : 2;
}

KernelConfig measuredMmaSyncDefaults(const Facts &f) {
  KernelConfig c;
  c.family = TensorCoreFamily::MmaSync;
  // "v6": 4 warps of 32 rows (128-row CTAs), every K/V fragment feeding two
  // mma's. With a per-score mask at d = 128, 32 rows per warp spill 36
  // bytes ("Mask tensors in the GPU kernel"): 16 rows in 64-row CTAs.
  const bool narrowRows = f.wide && f.maskPerScore;
  c.blockQ = narrowRows ? 64 : 128;
  c.rowsPerWarp = narrowRows ? 16 : 32;
  // "v6": 64 keys of S next to 128 columns of O accumulators spill at
  // d = 128; a per-score mask at d = 64 spills 12 bytes with 64 keys.
  c.blockKV = f.wide || f.maskPerScore ? 32 : 64;
  return c;
}

} // namespace

llvm::Expected<KernelConfig>
mlir::attn::chooseKernelConfig(const AttentionShape &s, MaskReads mask,
                               const TargetSpec &target,
                               const KernelConfigRequest &request) {
  Facts f{std::max(s.headDim, s.headDimV) > 64, mask == MaskReads::PerScore,
          s.causal, s.causal && s.seqKV <= 2048};
  TensorCoreFamily family =
      request.family.value_or(defaultTensorCoreFamily(target.chip));
  KernelConfig c = family == TensorCoreFamily::Wgmma ? measuredWgmmaDefaults(f)
                                                     : measuredMmaSyncDefaults(f);
  // 64-row CTAs where they divide Lq and 128 do not: no partial last query
  // tile (a chosen block-q only; an explicit one is kept).
  if (request.blockQ)
    c.blockQ = request.blockQ;
  else if (s.seqQ % c.blockQ != 0 && s.seqQ % 64 == 0)
    c.blockQ = 64;
  if (request.blockKV)
    c.blockKV = request.blockKV;
  if (request.rowsPerWarp)
    c.rowsPerWarp = request.rowsPerWarp;
  c.kvStages = request.kvStages ? request.kvStages
                                : measuredStages(family, f, c.blockQ);
  c.swizzle = request.swizzle;
  if (llvm::Error e = checkKernelConfig(c, s, target))
    return std::move(e);
  return c;
}

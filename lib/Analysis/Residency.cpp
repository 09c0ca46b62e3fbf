//===- Residency.cpp - a CTA's shared memory, and how many share an SM ---===//
//
// What a CTA of a configuration holds (its shared memory) and, from that,
// two sides of one question: how many CTAs of a configuration an SM holds
// at once (the wave and streaming models count with it), and the launch
// bound the kernel asks ptxas for so that that many fit its registers; and
// whether a producer kernel's CTAs, that many per SM, should stay resident
// and loop over the work items (persistent CTAs).
//
//===----------------------------------------------------------------------===//
#include "attn/Analysis/KernelConfig.h"
#include "attn/Analysis/PersistentSchedule.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::attn;

bool mlir::attn::stagesQInSharedMemory(const KernelConfig &c,
                                       const AttentionShape &s) {
  return c.family == TensorCoreFamily::Wgmma || (c.rowsPerWarp / 16) * s.headDim > 128;
}

int64_t mlir::attn::kernelSharedMemoryBytes(const KernelConfig &c,
                                            const AttentionShape &s) {
  const bool atoms = stagesInSwizzledAtoms(c.family == TensorCoreFamily::Wgmma, c.tmaLoads,
                                           kvTilesInTensorBoxes(s.pageSize, s.varlen));
  const int64_t e = elementBytes(s.dtype);
  const bool wgmma = c.family == TensorCoreFamily::Wgmma;
  auto pitch = [&](int64_t cols) { return stagedRowPitch(atoms, c.swizzle, cols, e); };
  // (8-bit wgmma stages Vᵀ in place of V.)
  int64_t kv = e * c.kvStages * c.blockKV * pitch(s.headDim) +
               (stagesTransposedV(wgmma, e) ? transposedVBytes(c.kvStages, c.blockKV, s.headDimV)
                                            : e * c.kvStages * c.blockKV * pitch(s.headDimV));
  int64_t q = stagesQInSharedMemory(c, s) ? e * c.blockQ * pitch(s.headDim) : 0;
  // The key warps combine in the K/V stages (and the Q tile) once the loop
  // is done with them.
  int64_t combine = keyWarpCombineBytes(c.kvWarps, c.blockQ, s.headDimV);
  return std::max(kv + q, combine) + tmaBarrierBytes(c.tmaLoads, c.producerWarpgroup, c.overlapPV,
                                                    c.kvStages) +
         (atoms ? 1024 : 0);
}

/// CTAs of `c` whose shared memory an SM holds at once: the target's
/// per-block budget plus the 1 KB the driver reserves per CTA. (Unsigned:
/// `sram-bytes` may be any positive int64, and the sum must not overflow.)
static int64_t sharedMemoryCTAsPerSM(const KernelConfig &c, const AttentionShape &s,
                                     const TargetSpec &target) {
  const uint64_t reserved = 1024;
  return int64_t((uint64_t(target.sramBytesPerBlock) + reserved) /
                 (uint64_t(kernelSharedMemoryBytes(c, s)) + reserved));
}

int64_t mlir::attn::residentCTAsPerSM(const KernelConfig &c, const AttentionShape &s,
                                      const TargetSpec &target, bool readsMaskTensor) {
  int64_t bySmem = sharedMemoryCTAsPerSM(c, s, target);
  // (A producer warpgroup's consumers take setmaxnreg's 240 registers:
  // one CTA per SM.)
  int64_t byRegisters = c.producerWarpgroup ? 1 : 65536 / (255 * c.numThreads());
  byRegisters = std::max(byRegisters, launchBoundCTAsPerSM(c, s, target, readsMaskTensor));
  return std::max<int64_t>(1, std::min({bySmem, byRegisters, int64_t(32)}));
}

int64_t mlir::attn::launchBoundCTAsPerSM(const KernelConfig &c, const AttentionShape &s,
                                         const TargetSpec &target, bool readsMaskTensor) {
  // A producer's setmaxnreg needs ptxas to know the count at entry: one.
  // Where shared memory holds one CTA per SM, say so too: told nothing,
  // ptxas may give up registers for a second CTA that can never be resident
  // (bench/NOTES.md v62b: a window decode kernel of 132 KB took 128
  // registers and spilled 8 bytes; bounded to one, 157 and no spill).
  const int64_t bySmem = sharedMemoryCTAsPerSM(c, s, target);
  if (c.producerWarpgroup || bySmem <= 1)
    return 1;
  // "v33": ptxas gives two 128-row wgmma warpgroups 150-160 registers at
  // d = 64, one CTA per SM; bounded to two (128 registers), the second
  // CTA's Q load, ramp and epilogue overlap the first's loop: 1.19-1.36x
  // causal, 1.26x at d = 32, 0.99-1.04x non-causal. Only where each
  // thread's f32 accumulators (O and S of its 64-row warpgroup: (dv +
  // block_kv) / 2) leave 32 registers for the rest, shared memory holds
  // two, and no mask tensor, partial key tile (or key counts known at run
  // time: paged, varlen) or split keys adds state: those spilled 36-316
  // bytes at 128 registers in 18 of 60 random draws (else at most 48).
  const bool keyTail = s.seqKV % c.blockKV != 0 || s.pageSize > 0 || s.varlen;
  if (c.family != TensorCoreFamily::Wgmma || c.blockQ != 128 || readsMaskTensor || keyTail ||
      c.kvSplits > 1)
    return 0;
  const int64_t perThread = 65536 / (2 * c.numThreads());
  const bool accumulatorsFit = (s.headDimV + c.blockKV) / 2 + 32 <= perThread;
  return accumulatorsFit && bySmem >= 2 ? 2 : 0;
}

bool mlir::attn::persistentCTAsPay(const KernelConfig &c, const AttentionShape &s,
                                   const TargetSpec &target, bool readsMaskTensor) {
  // "v34/v34b": a producer warpgroup runs its stage ring on into a CTA's
  // next work item (its first tiles load during the previous epilogue, and
  // no CTA launches or fills its pipeline again), but CTAs that take fixed
  // shares of the items end when the slowest does: non-causal grids ran
  // 0.96-0.98x one CTA per item at 1k-16k. Causal grids in pairs of equal
  // work ran 1.01-1.04x (the hardware's in-order dispatch balances the
  // triangle worse); an odd number of query tiles cannot pair and is not
  // measured. Fewer items than CTA slots leave nothing to loop over; split
  // keys take the grid's third axis. The item loop's state costs registers,
  // which random draws found short (v34): with a mask tensor or a score_mod
  // at d = 256, 84-164 bytes spilled; with O over 64 registers (dv > 128)
  // 24-256 bytes, with partial tiles at d = 128 12, and the 2-stage kernel
  // without the overlapped P·V (kv-stages=2 at d = 128) 72.
  const int64_t queryTiles = llvm::divideCeil(s.seqQ, c.blockQ);
  const bool wholeTiles = s.seqQ % c.blockQ == 0 && s.seqKV % c.blockKV == 0;
  if (!c.producerWarpgroup || !c.overlapPV || c.kvSplits > 1 || s.pageSize > 0 || s.varlen ||
      readsMaskTensor || s.headDimV > 128 || !wholeTiles ||
      !pairsCausalWorkItems(s.causal, queryTiles))
    return false;
  const int64_t items = queryTiles * s.batch * s.headsQ;
  return items > target.smCount * residentCTAsPerSM(c, s, target, readsMaskTensor);
}

//===- KernelConfig.cpp - the fused GPU kernel's configuration ------------===//
//
// The one chooser: the checks every config passes (checkKernelConfig), the
// measured rules of each family and of 8-bit inputs, and the fit to the
// register and shared-memory budgets (shrinkToBudgets). One file, past 600
// lines: the rules and the FP8 route share the Facts they read and the
// budget fit, and splitting them would put one decision in two places.
// The streaming model of the decode kernels is KVSplitModels.cpp.
//
//===----------------------------------------------------------------------===//
#include "attn/Analysis/KernelConfig.h"
#include "KVSplitModels.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::attn;

/// The mma.sync loop's registers for copying K/V rows whose key count is
/// known at run time only (paged, varlen). Every copied row past the count
/// is zero-filled: one source size per 16-byte copy of a stage, computed
/// per row. ptxas on the d = 128 decode kernel (one warp): 64-key tiles
/// reach 255 registers and spill, 32-key tiles hold at 234 (bench/NOTES.md
/// v26). Pages that a step of rows may straddle (pagesLookedUpPerRow: 12,
/// 24, 40, 48 tokens) cost more: each of a thread's rows has its own page
/// entry and 64-bit address per tensor, which ptxas holds from the next
/// tile's copies on: 3 registers per row and tensor. Measured with ptxas on
/// 24- and 12-token pages (bench/NOTES.md v60): d = 80 on 128-key tiles
/// over 2 warps (32 rows a thread, as 16 lanes share a row of 10 chunks)
/// reached 255 and spilled 100 bytes in its loop, where one register per
/// copy counted 40; on 64-key tiles (16 rows) it spilled 20 bytes in the
/// loop at ptxas's 168, which 2 per row would still have admitted.
static int64_t rowCopyRegisters(const KernelConfig &c, const AttentionShape &s) {
  const int64_t threads = 32 * c.numWarps();
  int64_t perCopy = c.blockKV * (s.headDim + s.headDimV) / 8 / threads;
  if (s.pageSize == 0)
    return perCopy;
  int64_t rowsLookedUp = 0;
  for (int64_t cols : {s.headDim, s.headDimV}) {
    // Bulk copies take a whole row per thread (TmaProducer::rowsOfThread);
    // cp.async copies 16-byte chunks of 8 two-byte elements (TileCopy).
    int64_t rowsPerStep = c.tmaLoads ? std::min(threads, c.blockKV)
                                     : threads / rowCopyLanes(llvm::divideCeil(cols, 8), threads);
    if (pagesLookedUpPerRow(s.pageSize, rowsPerStep, c.blockKV))
      rowsLookedUp += llvm::divideCeil(c.blockKV, rowsPerStep);
  }
  return std::max(perCopy, 3 * rowsLookedUp);
}

int64_t mlir::attn::loopRegistersPerThread(const KernelConfig &c, const AttentionShape &s,
                                           MaskReads mask) {
  const bool readsMaskTensor = mask == MaskReads::PerKey || mask == MaskReads::PerScore;
  // Per m16 tile of rows a thread holds 4 f32 of every m16n8 C tile: dv/2
  // of O and block_kv/2 of S. wgmma's warpgroup gives each warp one m16
  // tile per 64 rows, as mma.sync with 16 rows per warp does.
  const bool wgmma = c.family == TensorCoreFamily::Wgmma;
  int64_t mTiles = c.rowsPerWarp / 16;
  int64_t o = mTiles * s.headDimV / 2, scores = mTiles * c.warpKeys() / 2;
  if (wgmma) {
    // The whole tile's S arrives at once from the async MMA, and its
    // exponentials and packed P are live beside it: 3 registers per score.
    // A producer kernel's computing warps stop at 240 registers with the
    // default tiles at the budget's edge: a mask tensor's loads, or split
    // keys' range without the overlap (d = 256), spilled 8-36 bytes in 20
    // of 300 random kernels (bench/gen_prefill_random.py, v32e). A window
    // beside the causal diagonal over split keys compares each score with
    // two bounds in one run, and LLVM's loop strength reduction keeps a
    // 64-bit bound per key column live across the loop: the overlapped
    // d = 128 kernel spilled 28-80 bytes (random window draws).
    const bool splitState =
        c.kvSplits > 1 && (!c.overlapPV || (mask == MaskReads::KeyBounds && s.causal));
    const bool loopState = readsMaskTensor || splitState;
    int64_t extra = c.producerWarpgroup ? 24 * (readsMaskTensor + splitState) : 0;
    // Q·Kᵀ's two 64-bit descriptors per k-step of 16 stay live across the
    // loop: d/4; K's alone (d/8) where Q's are rebuilt in it
    // (rebuildsQDescriptorsInLoop), except beside the loop state above,
    // whose charges were fitted beside d/4: with d/8 a d = 256 kernel
    // reading a mask per score spilled 24-36 bytes on 64- and 80-key tiles,
    // causal or over split keys (ptxas, bench/NOTES.md v56).
    bool rebuildsQ =
        rebuildsQDescriptorsInLoop(llvm::divideCeil(s.headDim * elementBytes(s.dtype), 32));
    int64_t descriptors = s.headDim / (rebuildsQ && !loopState ? 8 : 4);
    return o + 3 * scores + descriptors + extra;
  }
  // mma.sync computes S per 8 keys, loading K's B fragments of every
  // k-step first (2 registers each: d/8), and O per 16 keys, V's fragments
  // of every n-tile likewise (dv/8): the larger of the two is live. (With
  // d/8 alone, d = 16 beside dv = 128 at 32 rows per warp spilled 12 bytes:
  // bench/gen_headdim_random.py, seed 3.) Q's A fragments (4 per m-tile
  // and k-step) stay in registers when Q is not staged.
  int64_t regs = o + scores + std::max(s.headDim, s.headDimV) / 8;
  if (!stagesQInSharedMemory(c, s))
    regs += mTiles * llvm::divideCeil(s.headDim, 16) * 4;
  bool rowCopies = !(c.tmaLoads && kvTilesInTensorBoxes(s.pageSize, s.varlen));
  if ((s.pageSize > 0 || s.varlen) && rowCopies)
    regs += rowCopyRegisters(c, s);
  return regs;
}

int64_t mlir::attn::loopRegisterBudget(TensorCoreFamily family) {
  return family == TensorCoreFamily::Wgmma ? 288 : 176;
}

int64_t mlir::attn::loopRegisterBudget(const KernelConfig &c) {
  return c.producerWarpgroup ? 304 : loopRegisterBudget(c.family);
}

namespace {

llvm::Error reason(const llvm::Twine &why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), why);
}

bool isOneOf(int64_t x, std::initializer_list<int64_t> set) {
  return llvm::is_contained(set, x);
}

/// Warps that divide the keys of a tile: the mma.sync kernel's (wgmma's
/// warpgroup multiplies the whole tile), each with whole k-steps of 16
/// keys for P·V, at most 8 warps per CTA (255 registers for each of 256
/// threads fill an SM's 64K), and an equal share of O's 8-column blocks
/// for each to store after the combine.
llvm::Error checkKeyWarps(const KernelConfig &c) {
  if (c.kvWarps == 1)
    return llvm::Error::success();
  if (!isOneOf(c.kvWarps, {2, 4, 8}))
    return reason("kv-warps must be 1, 2, 4 or 8, got " + llvm::Twine(c.kvWarps));
  if (c.family == TensorCoreFamily::Wgmma)
    return reason("kv-warps=" + llvm::Twine(c.kvWarps) +
                  " needs mma=mma.sync (a wgmma warpgroup multiplies the whole K/V tile)");
  if (c.warpKeys() % 16 != 0)
    return reason("kv-warps=" + llvm::Twine(c.kvWarps) + " leaves each warp " +
                  llvm::Twine(c.warpKeys()) + " keys of a " + llvm::Twine(c.blockKV) +
                  "-key tile; P·V needs multiples of 16");
  if (c.numWarps() > 8)
    return reason("kv-warps=" + llvm::Twine(c.kvWarps) + " with block-q=" +
                  llvm::Twine(c.blockQ) + " and rows-per-warp=" + llvm::Twine(c.rowsPerWarp) +
                  " makes " + llvm::Twine(c.numWarps()) +
                  " warps per CTA; at most 8 fit an SM's registers");
  return llvm::Error::success();
}

/// The producer warpgroup feeds two consumer warpgroups whose registers
/// (setmaxnreg) are sized for them: 24 x 128 + 240 x 256 of the SM's 64K.
llvm::Error checkProducerWarpgroup(const KernelConfig &c) {
  if (!c.producerWarpgroup)
    return llvm::Error::success();
  if (c.blockQ != 128)
    return reason("kv-loads=tma-producer needs block-q=128 (two consumer warpgroups "
                  "beside the producer), got " + llvm::Twine(c.blockQ));
  return llvm::Error::success();
}

/// Two tiles' scores and the packed P of one live beside O: the 240
/// registers a producer warpgroup leaves each computing thread.
llvm::Error checkOverlapPV(const KernelConfig &c) {
  if (c.overlapPV && !c.producerWarpgroup)
    return reason("overlap-pv=on needs a producer warpgroup (kv-loads=tma-producer), "
                  "whose computing threads have the registers for two tiles' scores");
  return llvm::Error::success();
}

/// A persistent CTA's producer runs its stage ring on across work items,
/// each one whole key range (a split's partial output would need the grid's
/// z axis).
llvm::Error checkPersistent(const KernelConfig &c) {
  if (c.persistent && (!c.producerWarpgroup || c.kvSplits > 1))
    return reason("persistent=on needs a producer warpgroup (kv-loads=tma-producer) "
                  "and unsplit keys (kv-splits=1)");
  return llvm::Error::success();
}

/// The TMA unit (cp.async.bulk) arrived with sm_90.
bool chipHasTma(llvm::StringRef chip) {
  unsigned version = 0;
  return chip.consume_front("sm_") && !chip.take_while(llvm::isDigit).getAsInteger(10, version) &&
         version >= 90;
}

/// TMA writes whole boxes of a tensor map over a dense [B, Hkv, Lk, d]
/// tensor into 128-byte-swizzled atoms (wgmma's, and the mma.sync stages'
/// then), and on mma.sync over a paged pool whose pages nest with the tiles
/// (a box per page; kvTilesInTensorBoxes). A packed batch or other page
/// sizes are addressed per row through tables no tensor map can follow:
/// there the mma.sync kernels' padded rows take one bulk copy per key row
/// instead. wgmma's stages take dense K/V only (its paged and packed
/// kernels stay with cp.async: no producer zeroes a page's rows past the
/// sequence).
llvm::Error checkTmaLoads(const KernelConfig &c, const AttentionShape &s,
                          const TargetSpec &target) {
  if (!c.tmaLoads)
    return c.producerWarpgroup
               ? reason("a producer warpgroup issues TMA loads; it needs tma_loads")
               : checkOverlapPV(c);
  // (wgmma exists on sm_90a only, which has the TMA unit, whatever chip the
  // cost's target names.)
  if (c.family != TensorCoreFamily::Wgmma) {
    if (!chipHasTma(target.chip))
      return reason("kv-loads=tma needs the TMA unit of sm_90 or later; target '" +
                    target.name + "' is " + target.chip);
    if (c.producerWarpgroup)
      return reason("kv-loads=tma-producer needs mma=wgmma (its computing warpgroups)");
    if (c.swizzle)
      return reason("kv-loads=tma on mma.sync lays out its own stages (swizzled atoms for "
                    "tensor boxes, padded rows for row copies); drop swizzle=true");
    return checkOverlapPV(c);
  }
  if (s.pageSize > 0 || s.varlen)
    return reason(llvm::Twine("kv-loads=tma on mma=wgmma takes dense K/V tensors, not ") +
                  (s.varlen ? "a packed variable-length batch" : "a paged KV cache"));
  if (llvm::Error e = checkProducerWarpgroup(c))
    return e;
  return checkOverlapPV(c);
}

/// The tile sets each family's kernel is written for.
llvm::Error checkFamilyTiles(const KernelConfig &c) {
  const bool wgmma = c.family == TensorCoreFamily::Wgmma;
  if (wgmma && !isOneOf(c.blockQ, {64, 128}))
    return reason("mma=wgmma needs block-q 64 or 128 (a warpgroup's 64 rows), got " +
                  llvm::Twine(c.blockQ));
  if (!isOneOf(c.blockQ, {16, 32, 64, 128}))
    return reason("block-q must be 16, 32, 64 or 128, got " + llvm::Twine(c.blockQ));
  // wgmma's n and P·V's k-steps take any multiple of 16 keys (FlashAttention-3
  // runs d = 256 on 80: bench/NOTES.md v54); mma.sync's key warps split
  // powers of two.
  const bool wgmmaKeys = c.blockKV % 16 == 0 && c.blockKV >= 32 && c.blockKV <= 128;
  if (wgmma ? !wgmmaKeys : !isOneOf(c.blockKV, {32, 64, 128}))
    return reason("block-kv must be 32, 64 or 128 (with mma=wgmma a multiple of 16 from 32 "
                  "to 128), got " + llvm::Twine(c.blockKV));
  if (llvm::Error e = checkKeyWarps(c))
    return e;
  if (c.blockKV == 128 && !wgmma && c.warpKeys() > 64)
    return reason("block-kv=128 needs mma=wgmma or kv-warps of 2 or more (one "
                  "mma.sync warp would spill the scores of 128 keys)");
  if (wgmma && c.rowsPerWarp != 16)
    return reason("mma=wgmma gives each warp 16 rows (a warpgroup 64); "
                  "rows-per-warp must be 0 or 16, got " +
                  llvm::Twine(c.rowsPerWarp));
  if (!isOneOf(c.rowsPerWarp, {16, 32}))
    return reason("rows-per-warp must be 16 or 32, got " + llvm::Twine(c.rowsPerWarp));
  if (c.rowsPerWarp > c.blockQ)
    return reason("rows-per-warp=" + llvm::Twine(c.rowsPerWarp) +
                  " exceeds block-q=" + llvm::Twine(c.blockQ));
  if (wgmma && c.packKVGroups)
    return reason("GQA head packing is built for mma=mma.sync (decode tiles "
                  "of 16 rows); wgmma's warpgroup needs 64");
  if (wgmma && !isOneOf(c.kvStages, {2, 3}))
    return reason("mma=wgmma takes kv-stages 2 or 3 (the third holds the V "
                  "tile of a P·V still in flight), got " + llvm::Twine(c.kvStages));
  if (!isOneOf(c.kvStages, {2, 3, 4}))
    return reason("kv-stages must be 2, 3 or 4, got " + llvm::Twine(c.kvStages));
  if (wgmma && c.swizzle)
    return reason("mma=wgmma always uses the 128-byte swizzle; drop swizzle=true");
  return llvm::Error::success();
}

/// The extents every kernel divides by: positive, and Hq a multiple of Hkv.
llvm::Error checkShapeExtents(const AttentionShape &s) {
  for (auto [name, v] : {std::pair<const char *, int64_t>{"B", s.batch},
                         {"Hq", s.headsQ}, {"Hkv", s.headsKV}, {"Lq", s.seqQ},
                         {"Lk", s.seqKV}, {"d", s.headDim}, {"dv", s.headDimV}})
    if (v <= 0)
      return reason(llvm::Twine("the GPU kernel needs a positive ") + name +
                    ", got " + llvm::Twine(v));
  if (s.headsQ % s.headsKV != 0)
    return reason("Hq (" + llvm::Twine(s.headsQ) + ") must be a multiple of Hkv (" +
                  llvm::Twine(s.headsKV) + ")");
  return checkCountableShape(s);
}

/// Rows are copied in 16-byte chunks of 8 elements and P·V's output
/// columns come in 8-wide C tiles; Q·Kᵀ steps through d by the MMA's
/// k = 16, an odd multiple of 8 padded with zeros in shared memory.
llvm::Error checkHeadDims(const AttentionShape &s) {
  for (auto [name, hd] : {std::pair<const char *, int64_t>{"d", s.headDim},
                          {"dv", s.headDimV}})
    if (hd % 8 != 0 || hd > 256)
      return reason(llvm::Twine("the GPU kernel needs head dims that are "
                                "multiples of 8 up to 256, got ") +
                    name + " = " + llvm::Twine(hd));
  return llvm::Error::success();
}

/// Every split must own at least one key: with the K/V tiles dealt out
/// evenly (kvSplitKeys), S splits cover Lk exactly when ⌈Lk / keys⌉ = S.
llvm::Error checkKVSplits(const KernelConfig &c, const AttentionShape &s) {
  if (c.kvSplits < 1)
    return reason("kv-splits must be 1 (no split) or more, got " +
                  llvm::Twine(c.kvSplits));
  if (c.kvSplits > 65535)
    return reason("kv-splits=" + llvm::Twine(c.kvSplits) +
                  " exceeds the 65535 CTAs CUDA allows along the grid's z axis");
  if (s.varlen && c.kvSplits > 1)
    return reason("a packed variable-length batch is not split along the keys (no combine "
                  "kernel takes packed rows): kv-splits must be 1, got " +
                  llvm::Twine(c.kvSplits));
  int64_t used = llvm::divideCeil(s.seqKV, kvSplitKeys(c, s));
  if (used != c.kvSplits)
    return reason("kv-splits=" + llvm::Twine(c.kvSplits) + " leaves splits "
                  "without keys: Lk = " + llvm::Twine(s.seqKV) + " in " +
                  llvm::Twine(c.blockKV) + "-key tiles splits evenly into " +
                  llvm::Twine(used));
  return llvm::Error::success();
}

/// The 8-bit float kernel (FlashAttention-3's FP8 forward): wgmma with
/// e4m3/e5m2 operands, whose k-steps are 32 elements (d a multiple of 32),
/// whose 8-bit B operands are read K-major only, so that P·V reads Vᵀ,
/// written per tile by a pre-kernel (VTransposeKernel.cpp) and brought by
/// the producer warpgroup beside K's tensor boxes, from dense K/V, with
/// P·V's 32 keys per k-step in whole tiles, over unsplit keys.
llvm::Error checkFP8Kernel(const KernelConfig &c, const AttentionShape &s) {
  auto refuse = [](const llvm::Twine &why) {
    return reason("the 8-bit float tensor-core kernel " + why);
  };
  if (c.family != TensorCoreFamily::Wgmma)
    return refuse("needs mma=wgmma (sm_90a's e4m3/e5m2 wgmma)");
  if (s.pageSize > 0 || s.varlen)
    return refuse("reads dense K/V tensors, not a paged KV cache or a packed batch");
  if (!c.tmaLoads || !c.producerWarpgroup)
    return refuse("needs kv-loads=tma-producer (its producer warpgroup brings Vᵀ)");
  if (c.kvSplits > 1 || c.kvWarps > 1)
    return refuse("runs over unsplit keys (kv-splits=1, kv-warps=1)");
  if (!isOneOf(c.blockKV, {32, 64, 128}))
    return refuse("needs block-kv 32, 64 or 128, got " + llvm::Twine(c.blockKV));
  if (s.headDim % 32 != 0 || s.headDimV % 16 != 0)
    return refuse("needs d a multiple of 32 (its k-steps) and dv of 16, got d = " +
                  llvm::Twine(s.headDim) + ", dv = " + llvm::Twine(s.headDimV));
  return llvm::Error::success();
}

} // namespace

int64_t mlir::attn::kvSplitKeys(const KernelConfig &c, const AttentionShape &s) {
  int64_t tiles = llvm::divideCeil(s.seqKV, c.blockKV);
  return llvm::divideCeil(tiles, std::max<int64_t>(c.kvSplits, 1)) * c.blockKV;
}

llvm::Error mlir::attn::checkKernelConfig(const KernelConfig &c,
                                          const AttentionShape &s,
                                          const TargetSpec &target) {
  if (llvm::Error e = checkShapeExtents(s))
    return e;
  if (s.dtype == DType::F8) {
    if (llvm::Error e = checkFP8Kernel(c, s))
      return e;
  } else if (s.dtype != DType::F16 && s.dtype != DType::BF16) {
    return reason(stringifyTensorCoreFamily(c.family) +
                  (c.family == TensorCoreFamily::Wgmma ? " needs f16, bf16 or 8-bit float"
                                                       : " needs f16 or bf16") +
                  " inputs, got " + stringifyDType(s.dtype));
  }
  if (llvm::Error e = checkHeadDims(s))
    return e;
  if (llvm::Error e = checkFamilyTiles(c))
    return e;
  // The XOR swizzle permutes the eight 16-byte chunks of 64 columns.
  if (c.swizzle && (s.headDim % 64 != 0 || s.headDimV % 64 != 0))
    return reason("swizzle=true permutes 64-column groups; head dims " +
                  llvm::Twine(s.headDim) + "/" + llvm::Twine(s.headDimV) +
                  " are not multiples of 64");
  // After the combine each key warp stores an equal share of O's 8-column
  // blocks.
  if ((s.headDimV / 8) % c.kvWarps != 0)
    return reason("kv-warps=" + llvm::Twine(c.kvWarps) + " must divide dv / 8 = " +
                  llvm::Twine(s.headDimV / 8) +
                  " (each warp stores an equal share of the output's 8-column blocks)");
  if (llvm::Error e = checkKVSplits(c, s))
    return e;
  // (A recorded config that packs one head per group would leave the
  // kernel without a query head: found by fuzzing.)
  if (c.packKVGroups && s.headsQ == s.headsKV)
    return reason("pack_kv_groups packs the query heads of each K/V head into a tile's "
                  "rows; with Hq = Hkv = " + llvm::Twine(s.headsQ) +
                  " every group is one head and there is nothing to pack");
  if (llvm::Error e = llvm::joinErrors(checkTmaLoads(c, s, target), checkPersistent(c)))
    return e;
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
  MaskReads reads;   // what the kernel reads or compares per score
  bool wide;         // max(d, dv) > 64
  bool wideO;        // max(d, dv) > 192: 96+ accumulator registers of O per thread
  bool maskPerScore; // a mask read once per score
  bool maskTensor;   // a mask tensor read at all (per score or per key)
  bool maskedScores; // a mask tensor or a key-bound score_mod: no launch bound, not persistent
  bool keyBounds;    // a score_mod that only bounds the keys (MaskReads::KeyBounds)
  bool causal;
  bool shortCausal;  // causal with Lk <= 2048
  bool denseKV;      // K/V are [B, Hkv, Lk, d] tensors (not paged, not packed)
  bool boxKV;        // tensor boxes can fill the K/V tiles (kvTilesInTensorBoxes)
  bool wholeAtoms;   // d and dv multiples of 64: every TMA box row is 128 bytes
  bool causalTo1k;   // causal with Lk <= 1024
  bool wholeTiles;   // Lq and Lk multiples of 128: no partial 128-row or key tile
  bool twoPerSM;     // two 128 x 128 CTAs may share an SM (launchBoundCTAsPerSM)
};

/// The measured defaults of one family; each rule cites its H200 run.
KernelConfig measuredWgmmaDefaults(const Facts &f, bool tmaLoads) {
  KernelConfig c;
  c.family = TensorCoreFamily::Wgmma;
  c.rowsPerWarp = 16; // a warpgroup multiplies 64 rows, 16 per warp
  c.tmaLoads = tmaLoads;
  if (tmaLoads) {
    // "v28": 64-row CTAs at d = 64 (3 per SM out of phase), 64 x 64 for
    // short causal, 128 x 128 at d = 128; "v28c": 64 rows only where box
    // rows are whole 128-byte atoms (d = 32: 128 x 128 wins 1.28-1.37x).
    // "v31b": d = 128 short causal too. "v32c": d = 64 non-causal in 128 x
    // 128 CTAs, 1.04-1.10x (half the K/V read per score). "v33": two per SM
    // (launchBoundCTAsPerSM) causal too, 1.00-1.11x, but not causal Lk <=
    // 1024 (0.94x); without the bound, causal or partial tiles keep 64 rows.
    const bool oneWarpgroup =
        f.wholeAtoms && !f.wide &&
        (f.causalTo1k || (!f.twoPerSM && (f.causal || !f.wholeTiles)));
    c.blockQ = oneWarpgroup ? 64 : 128;
    c.blockKV = oneWarpgroup && f.shortCausal ? 64 : 128;
    // "v29": a producer warpgroup where the two computing warpgroups hold
    // the SM alone anyway (d = 128): +3 to +11% over TMA from a computing
    // thread at every d = 128 shape; at d = 64 it loses 15-29% (v29, v32c).
    // "v53b": with the overlap below, at d = 72-104 and 160 too
    // (1.02-1.13x); above 192 whole atoms only (d = 256, v29): a d = 240
    // window with the producer spilled 24 bytes in its loop
    // (gen_window_sweep.py seed 4).
    c.producerWarpgroup = c.blockQ == 128 && f.wide && (f.wholeAtoms || !f.wideO);
    // "v29b": and each tile's P·V overlapped with the next tile's softmax:
    // +2 to +17% over the producer alone at d = 128 with 3 stages; "v53":
    // +5 to +13% at d = 160-256 with 2, K and V on barriers of their own
    // (separateKVBarriers; before them -12 to -39%). Not with a mask
    // tensor read per score: its loads stay live across the overlapped P·V
    // and ptxas spills 8 bytes at d = 128 (after v31c).
    c.overlapPV = c.producerWarpgroup && !f.maskPerScore;
    return c;
  }
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
/// "v29": with a producer warpgroup but no overlapped P·V, 2 stages beat 3
/// by 2-8% at every d = 128 shape: the producer refills a stage as soon as
/// both warpgroups release it, and the deferred wait would hold each stage
/// a tile longer. "v29b": the overlapped P·V holds each stage a tile longer
/// by design, and takes the third where it fits (with two, K and V are
/// released apart: separateKVBarriers), then gives it up on short non-causal
/// key runs without persistent CTAs (stagesForSchedule, "v61c").
int64_t measuredStages(TensorCoreFamily family, const Facts &f, const KernelConfig &c) {
  return family == TensorCoreFamily::Wgmma && f.wide && c.blockQ == 128 &&
                 (!c.producerWarpgroup || c.overlapPV)
             ? 3
             : 2;
}

/// "v61c": two stages (K and V on barriers of their own,
/// separateKVBarriers) beat the third only on short key runs: a CTA per
/// non-causal work item of at most 16 key tiles (d = 128: 1.04-1.06x at 8
/// tiles, 1.006-1.007 at 16; from 32 tiles on 0.98-1.01, 64 tiles 0.976).
/// The third stage stays where the ring runs on across items (persistent
/// CTAs: 1.01-1.04x two stages), on the causal diagonal (odd 3000 causal,
/// a CTA per item: two stages 0.97), and beside mask reads or key bounds
/// (the two-stage overlap beside a window's bounds spilled 80 bytes at
/// d = 240, v53c). Applied once persistence and splits are known.
int64_t stagesForSchedule(const KernelConfig &c, const AttentionShape &s, MaskReads mask) {
  const int64_t tilesPerItem = llvm::divideCeil(kvSplitKeys(c, s), c.blockKV);
  bool shortKeyRun = c.producerWarpgroup && c.overlapPV && !c.persistent && !s.causal &&
                     mask == MaskReads::None && tilesPerItem <= 16;
  return shortKeyRun ? 2 : c.kvStages;
}

KernelConfig measuredMmaSyncDefaults(const Facts &f) {
  KernelConfig c;
  c.family = TensorCoreFamily::MmaSync;
  // "v6": 4 warps of 32 rows (128-row CTAs), every K/V fragment feeding two
  // mma's. With a per-score mask at d = 128, 32 rows per warp spill 36
  // bytes ("Mask tensors in the GPU kernel"): 16 rows in 64-row CTAs.
  // A window's comparisons on the tiles that straddle its bounds count as
  // such a mask here (unlike wgmma's: 40 bytes spilled at d = 64, v45b).
  const bool perScore = f.maskPerScore || f.keyBounds;
  const bool narrowRows = f.wide && perScore;
  c.blockQ = narrowRows ? 64 : 128;
  c.rowsPerWarp = narrowRows ? 16 : 32;
  // "v6": 64 keys of S next to 128 columns of O accumulators spill at
  // d = 128; a per-score mask at d = 64 spills 12 bytes with 64 keys.
  c.blockKV = f.wide || perScore ? 32 : 64;
  return c;
}

/// A few query rows per K/V head (decode, speculative decoding with up to
/// 64 draft tokens): the G query heads of a K/V head and their rows packed
/// into one CTA's m16 tiles, 16 rows per warp, 16 to 64 rows per CTA. A
/// 64- or 128-row tile would multiply padding: at Lq = 1 without packing,
/// 127 of 128 rows.
KernelConfig smallQueryDefaults(const AttentionShape &s) {
  KernelConfig c;
  c.family = TensorCoreFamily::MmaSync;
  int64_t group = s.headsQ / s.headsKV;
  c.packKVGroups = group > 1;
  c.rowsPerWarp = 16;
  // The packed rows in the fewest m16 tiles of a legal block-q (16, 32,
  // 64): 33 to 48 rows take 64, not 48.
  c.blockQ = std::clamp<int64_t>(llvm::PowerOf2Ceil(uint64_t(group * s.seqQ)), 16, 64);
  // With one m16 tile per warp, S for 64 keys (32 registers) fits beside
  // the d = 128 O accumulators (64), unlike v6's 32 rows per warp.
  c.blockKV = 64;
  return c;
}

/// The widest key tile narrower than `c`'s that its kernel takes
/// (checkFamilyTiles; 8-bit inputs: checkFP8Kernel), or 0 if none: 16 keys
/// less for a 2-byte wgmma tile, half for mma.sync and 8-bit tiles. The
/// checks keep each key warp whole k-steps of 16 (checkKeyWarps): without
/// them d = 256 beside paged row copies (64 keys on 4 warps) would reach 32
/// keys on 4 warps, and the small-query rule fall back to a 128-row wgmma
/// tile for a few rows. Beside mask reads (`mask`) the tile is halved: the
/// register estimate was fitted between the powers of two on attention
/// without them, and with a mask tensor or a window beside the causal bound
/// the 16-key steps reached tiles that spilled 4-68 bytes (ptxas, v56).
int64_t narrowerKeyTile(KernelConfig c, const AttentionShape &s, MaskReads mask) {
  const int64_t half = c.blockKV / 2;
  for (int64_t keys = c.blockKV - 16; keys >= 32; keys -= 16) {
    if (mask != MaskReads::None && keys != half)
      continue;
    c.blockKV = keys;
    llvm::Error e = checkFamilyTiles(c);
    if (!e && s.dtype == DType::F8)
      e = checkFP8Kernel(c, s);
    if (!e)
      return keys;
    llvm::consumeError(std::move(e));
  }
  return 0;
}

/// Fits the measured defaults, written for d and dv of 64 and 128, to any
/// head dims: while the loop's registers exceed loopRegisterBudget or the
/// CTA's shared memory the target's, give up what costs least first: a
/// third K/V stage, then key-tile width (16 keys at a time where the
/// kernel takes it: narrowerKeyTile), then (mma.sync) rows per warp,
/// then (wgmma) the second warpgroup, then (mma.sync) warps of rows.
/// Fields the request fixes stay.
void shrinkToBudgets(KernelConfig &c, const AttentionShape &s, const TargetSpec &target,
                     const KernelConfigRequest &request, MaskReads mask) {
  // Only tiles of the family's sets and head dims a kernel takes are sized
  // (an option of 2^63 - 1 would overflow the byte count); checkKernelConfig
  // reports the others.
  if (llvm::Error e = llvm::joinErrors(checkFamilyTiles(c), checkHeadDims(s))) {
    llvm::consumeError(std::move(e));
    return;
  }
  auto fits = [&] {
    return loopRegistersPerThread(c, s, mask) <= loopRegisterBudget(c) &&
           kernelSharedMemoryBytes(c, s) <= target.sramBytesPerBlock;
  };
  while (!fits()) {
    // O alone over the budget: no key tile fits beside it at this row count.
    bool oAloneTooLarge = (c.rowsPerWarp / 16) * s.headDimV / 2 >= loopRegisterBudget(c);
    if (!request.kvStages && c.kvStages > 2) {
      --c.kvStages;
      // "v53": the overlapped P·V keeps its two stages (separateKVBarriers),
      // measured on attention without masks. Beside a mask tensor or a
      // score_mod's key bounds, none, as before: a two-stage overlapped d =
      // 240 window spilled 80 bytes in its loop (gen_window_sweep.py seed 4).
      if (!request.overlapPV && mask != MaskReads::None)
        c.overlapPV = false;
    } else if (!request.rowsPerWarp && c.rowsPerWarp > 16 && oAloneTooLarge)
      c.rowsPerWarp = 16;
    else if (!request.blockKV && narrowerKeyTile(c, s, mask))
      c.blockKV = narrowerKeyTile(c, s, mask); // "v56": the widest tile both budgets hold
    else if (!request.rowsPerWarp && c.rowsPerWarp > 16)
      c.rowsPerWarp = 16;
    else if (!request.blockQ && !request.producerWarpgroup &&
             c.family == TensorCoreFamily::Wgmma && c.blockQ > 64) {
      c.blockQ = 64;
      c.producerWarpgroup = false; // it needs two computing warpgroups
      c.overlapPV = false;
    } else if (!request.blockQ && c.family == TensorCoreFamily::MmaSync && c.blockQ > 16 &&
               c.blockQ > c.rowsPerWarp &&
               kernelSharedMemoryBytes(c, s) > target.sramBytesPerBlock) {
      // Fewer warps of rows, for shared memory only (a thread's registers
      // do not depend on them): the staged Q tile shrinks with them (d =
      // 256 on the 99 KB of sm_86/89/120 fits 64 rows, not 128).
      c.blockQ /= 2;
    } else
      return; // checkKernelConfig says why, if the result is illegal
  }
}

/// The chooser for one family: its measured defaults (`fewRows`: the
/// small-query kernel), the request's explicit fields over them, then the
/// wave model's split count unless one is asked for.
llvm::Expected<KernelConfig> chooseForFamily(TensorCoreFamily family, bool fewRows,
                                             const Facts &f, const AttentionShape &s,
                                             const TargetSpec &target,
                                             const KernelConfigRequest &request) {
  // "v28": TMA fills the wgmma stages wherever the K/V are dense tensors
  // (1.03-1.38x cp.async). "v30b/c": and the small-query mma.sync stages,
  // as tensor boxes into swizzled atoms, where the chip has the TMA unit
  // (1.03-1.09x cp.async at B = 1; row copies of paged or packed K/V stream
  // 0.35-0.64x and are never chosen). "v42": paged pools too, one box per
  // page.
  const bool mmaSyncBoxes = family == TensorCoreFamily::MmaSync && fewRows &&
                            chipHasTma(target.chip) && !request.swizzle && f.boxKV;
  bool tmaLoads = request.tmaLoads.value_or((family == TensorCoreFamily::Wgmma && f.denseKV) ||
                                            mmaSyncBoxes);
  KernelConfig c = family == TensorCoreFamily::Wgmma ? measuredWgmmaDefaults(f, tmaLoads)
                   : fewRows                         ? smallQueryDefaults(s)
                                                     : measuredMmaSyncDefaults(f);
  c.tmaLoads = tmaLoads;
  c.producerWarpgroup = tmaLoads && request.producerWarpgroup.value_or(c.producerWarpgroup);
  // 64-row CTAs where they divide Lq and 128 do not: no partial last query
  // tile (a chosen block-q only; an explicit one is kept).
  if (request.blockQ)
    c.blockQ = request.blockQ;
  else if (!fewRows && s.seqQ % c.blockQ != 0 && s.seqQ % 64 == 0)
    c.blockQ = 64;
  if (request.blockKV)
    c.blockKV = request.blockKV;
  if (request.rowsPerWarp)
    c.rowsPerWarp = request.rowsPerWarp;
  // A producer warpgroup feeds two computing ones: asked for, it sets the
  // rows; chosen, it goes where the rows are not 128.
  if (request.producerWarpgroup.value_or(false) && !request.blockQ)
    c.blockQ = 128;
  if (c.blockQ != 128 && !request.producerWarpgroup)
    c.producerWarpgroup = false;
  // (Refused by checkOverlapPV when asked for without a producer.)
  c.overlapPV = request.overlapPV.value_or(c.overlapPV && c.producerWarpgroup);
  c.kvStages = request.kvStages ? request.kvStages : measuredStages(family, f, c);
  c.persistent = request.persistent.value_or(false); // (refused without a producer)
  c.kvWarps = request.kvWarps ? request.kvWarps : 1;
  c.swizzle = request.swizzle;
  // The rows-per-warp default of a family may exceed an explicit block-q.
  if (!request.rowsPerWarp && c.rowsPerWarp > c.blockQ)
    c.rowsPerWarp = 16;
  shrinkToBudgets(c, s, target, request, f.reads);
  // The wave model needs a legal kernel to count its CTAs.
  c.kvSplits = request.kvSplits ? request.kvSplits : 1;
  if (llvm::Error e = checkKernelConfig(c, s, target))
    return std::move(e);
  // Memory-bound small-query kernels: tile and splits by the streaming
  // model; compute-bound ones: splits by the wave model.
  if (fewRows && family == TensorCoreFamily::MmaSync && !request.kvSplits) {
    llvm::Expected<KernelConfig> streamed = detail::chooseStreamingSplits(c, s, target, request);
    if (!streamed)
      return streamed.takeError();
    c = *streamed;
  } else if (!request.kvSplits && !c.persistent) {
    c.kvSplits = detail::waveModelSplits(c, s, target, f.maskedScores);
  }
  // Split keys add loop state (loopRegistersPerThread): fit again.
  if (c.kvSplits > 1)
    shrinkToBudgets(c, s, target, request, f.reads);
  if (!request.persistent)
    c.persistent = persistentCTAsPay(c, s, target, f.maskedScores);
  if (!request.kvStages)
    c.kvStages = std::min(c.kvStages, stagesForSchedule(c, s, f.reads));
  if (llvm::Error e = checkKernelConfig(c, s, target))
    return std::move(e);
  // "v33": split keys lose the two-CTA bound that made 128 rows the pick.
  KernelConfig unsplit = c;
  unsplit.kvSplits = 1;
  if (f.twoPerSM && c.kvSplits > 1 &&
      launchBoundCTAsPerSM(unsplit, s, target, f.maskedScores) == 2) {
    Facts oneCTA = f;
    oneCTA.twoPerSM = false;
    return chooseForFamily(family, fewRows, oneCTA, s, target, request);
  }
  return c;
}

/// 8-bit float inputs: the FP8 kernel wherever the chip has wgmma
/// (checkFP8Kernel), tiled as the d = 128 bf16 picks (128 x 128, a
/// producer warpgroup, the P·V overlapped with the next tile's softmax in
/// three stages) and fitted to the budgets like them. Not measured against
/// a sweep yet (bench/NOTES.md v39, v43).
llvm::Expected<KernelConfig> chooseFP8(const Facts &f, const AttentionShape &s,
                                       const TargetSpec &target,
                                       const KernelConfigRequest &request) {
  if (!request.fp8TensorCores.value_or(kFP8TensorCoresByDefault))
    return reason("fp8-mma=off asks for the generic kernel for 8-bit float inputs");
  TensorCoreFamily family = request.family.value_or(defaultTensorCoreFamily(target.chip));
  if (family != TensorCoreFamily::Wgmma)
    return reason("the 8-bit float tensor-core kernel needs mma=wgmma (sm_90a); the kernel "
                  "here is for " + stringifyTensorCoreFamily(family) + " (target '" +
                  target.name + "', " + target.chip + ")");
  KernelConfig c;
  c.family = TensorCoreFamily::Wgmma;
  c.rowsPerWarp = 16;
  c.tmaLoads = request.tmaLoads.value_or(true);
  c.producerWarpgroup = request.producerWarpgroup.value_or(c.tmaLoads);
  c.blockQ = request.blockQ ? request.blockQ : 128;
  c.blockKV = request.blockKV ? request.blockKV : 128;
  // "v29b": the overlap with three stages where they fit ("v53": two
  // otherwise, separateKVBarriers); "v29": without it, two.
  c.overlapPV = request.overlapPV.value_or(!f.maskPerScore);
  c.kvStages = request.kvStages ? request.kvStages : c.overlapPV ? 3 : 2;
  c.kvSplits = request.kvSplits ? request.kvSplits : 1;
  c.kvWarps = request.kvWarps ? request.kvWarps : 1;
  c.persistent = request.persistent.value_or(false);
  c.swizzle = request.swizzle;
  shrinkToBudgets(c, s, target, request, f.reads);
  // Persistent CTAs where they pay for bf16 (causal pairs of equal work).
  if (!request.persistent)
    c.persistent = persistentCTAsPay(c, s, target, f.maskedScores);
  if (llvm::Error e = checkKernelConfig(c, s, target))
    return std::move(e);
  return c;
}

} // namespace

llvm::Expected<KernelConfig>
mlir::attn::chooseKernelConfig(const AttentionShape &s, MaskReads mask,
                               const TargetSpec &target,
                               const KernelConfigRequest &asked) {
  // A packed batch is never split: no combine kernel takes packed rows.
  KernelConfigRequest request = asked;
  if (s.varlen && !request.kvSplits)
    request.kvSplits = 1;
  if (llvm::Error e = checkShapeExtents(s))
    return std::move(e);
  Facts f{mask, std::max(s.headDim, s.headDimV) > 64, std::max(s.headDim, s.headDimV) > 192,
          mask == MaskReads::PerScore,
          mask == MaskReads::PerKey || mask == MaskReads::PerScore, mask != MaskReads::None,
          mask == MaskReads::KeyBounds,
          s.causal, s.causal && s.seqKV <= 2048, s.pageSize == 0 && !s.varlen,
          kvTilesInTensorBoxes(s.pageSize, s.varlen),
          s.headDim % 64 == 0 && s.headDimV % 64 == 0, s.causal && s.seqKV <= 1024,
          s.seqQ % 128 == 0 && s.seqKV % 128 == 0, /*twoPerSM=*/false};
  KernelConfig twoWarpgroups; // 128 x 128, 2 stages, wgmma
  twoWarpgroups.tmaLoads = f.denseKV;
  f.twoPerSM = launchBoundCTAsPerSM(twoWarpgroups, s, target, f.maskedScores) == 2;
  TensorCoreFamily chipFamily = defaultTensorCoreFamily(target.chip);
  // wgmma multiplies 64 rows per warpgroup: a few query rows per K/V head
  // take mma.sync's 16-row tiles unless a family is asked for.
  // Small-query kernels: fewer rows than a 64-row tile holds, or a GQA
  // group's short queries (speculative decoding), which packing lets share
  // each K/V tile.
  if (s.dtype == DType::F8)
    return chooseFP8(f, s, target, request);
  const int64_t group = s.headsQ / s.headsKV;
  const bool fewRows = s.seqQ <= 64 && (group * s.seqQ < 64 || group > 1);
  if (request.family)
    return chooseForFamily(*request.family, fewRows, f, s, target, request);
  if (!fewRows || chipFamily == TensorCoreFamily::MmaSync)
    return chooseForFamily(chipFamily, fewRows, f, s, target, request);
  llvm::Expected<KernelConfig> small =
      chooseForFamily(TensorCoreFamily::MmaSync, true, f, s, target, request);
  if (small)
    return small;
  // Explicit tiles only the chip's own family takes (block-kv=128,
  // kv-stages=3 on sm_90a): that family, as without the small-query rule.
  llvm::Expected<KernelConfig> chip =
      chooseForFamily(chipFamily, fewRows, f, s, target, request);
  if (chip) {
    llvm::consumeError(small.takeError());
    return chip;
  }
  llvm::consumeError(chip.takeError());
  return small;
}

bool mlir::attn::isRefusedOnlyByRequest(const AttentionShape &shape,
                                        MaskReads mask,
                                        const TargetSpec &target,
                                        const KernelConfigRequest &request) {
  KernelConfigRequest familyOnly;
  familyOnly.family = request.family;
  // (Which kernel 8-bit inputs take is a choice between kernels, not a
  // request of one's tiles.)
  familyOnly.fp8TensorCores = request.fp8TensorCores;
  llvm::Expected<KernelConfig> plain =
      chooseKernelConfig(shape, mask, target, familyOnly);
  if (plain)
    return true;
  llvm::consumeError(plain.takeError());
  return false;
}

//===- Passes.td - attn conversion passes ------------------*- tablegen -*-===//
//
// The passes that leave the attn dialect for the GPU: the lowering of
// attn.attention to a tensor-core kernel and the dump of the compiled
// kernels. They live here, apart from the dialect's own transforms
// (include/attn/Dialect/Attn/Transforms/Passes.td), so that only the code
// that builds GPU/NVVM IR depends on those dialects.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_CONVERSION_PASSES_TD
#define ATTN_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// AttnToGPU (implemented in lib/Conversion/AttnToGPU)
//===----------------------------------------------------------------------===//

def AttnLowerToGPUPass : Pass<"attn-lower-to-gpu", "ModuleOp"> {
  let summary = "Lower attn.attention to a tensor-core FlashAttention-2 GPU kernel";
  let description = [{
    Each `attn.attention` becomes a `gpu.launch_func` of its own kernel in its
    own `gpu.module`, built from mma.sync (m16n8k16) as FlashAttention-2
    does: one CTA per (batch·head, 128 query rows), 4 warps of 32 rows; Q
    fragments in registers (d = 64) or re-read from a staged shared-memory
    tile with ldmatrix (d = 128); K/V tiles of 64 (d = 64) or 32 (d = 128)
    keys staged through shared memory
    with a padded pitch (conflict-free fragment loads), V read with
    `ldmatrix.trans`; S and P in registers, P reused as the A operand of P·V;
    the online softmax in exp2 with the scale folded in; f32 accumulators;
    K/V tiles above the causal diagonal skipped; GQA by index arithmetic.

    The kernel's launch manifest (grid and block as formulas and values,
    parameters, shapes, tiles, causal, scale) is recorded on the module as
    `attn.launch_manifests`, a dictionary from each kernel's `gpu.module`
    symbol to its manifest (a dictionary attribute), for
    `--attn-dump-gpu-kernels`.

    8-bit float inputs (f8E4M3FN, f8E5M2) on sm_90a take the FP8 kernel:
    wgmma m64nNk32 with e4m3/e5m2 operands for both GEMMs, P rounded to
    e4m3; since 8-bit B operands are read K-major only, a pre-kernel in
    the same module (the first launch) writes V as Vᵀ, each K/V tile as the
    bytes of its shared-memory stage with each 32-key group permuted so
    that P's A registers are the lane's own probabilities, into a
    workspace the attention kernel reads in V's place
    (lib/Conversion/AttnToGPU/VTransposeKernel.cpp); the descale factors
    scale the scores and O. It needs d a multiple of 32, dv of 16 and dense K/V;
    other 8-bit attentions take the generic kernel below.

    Preconditions: static shapes of rank 2 to 4 (read as [B, H, L, d]), f16 or bf16, d and dv
    multiples of 8 up to 256 (d != dv allowed: DeepSeek's 192/128; an odd
    multiple of 8 is padded with zeros to Q·Kᵀ's k-step of 16 in shared
    memory and registers), a grid within CUDA's limits. Head dims other than 64 and 128 take the measured
    defaults fitted by the chooser to a per-family register estimate and to
    shared memory (wgmma stages whole 64-column atoms, so d = 80 or 96 stage
    128 columns; its k-steps read only d). An op that violates one is not
    an error: it stays as it is, with a warning at the op giving the reason,
    and the generic GPU kernel runs it instead: one warp per query row, f32
    arithmetic on the CUDA cores, head dims up to 2048, f16/bf16/f32
    inputs, an additive mask of any of these types, the same causal
    alignments, score_mod regions and GQA
    (lib/Conversion/AttnToGPU/GenericKernel.cpp; exact, not fast). What
    even that kernel cannot take (dynamic shapes, f64, head dims above
    2048, a paged cache on f32, a score_mod it cannot copy), or everything
    with `generic-kernel=false`, stays unfused and the GPU pipeline
    decomposes it for the host like any other computation it does not
    offload, so a correct program is never refused. `strict=true` makes
    the warning an error. Explicit tile options that the op's shape
    cannot take, where the chooser's own pick could, stay an error: the
    options ask for a kernel that does not exist. A mask
    tensor (additive, or keep as i1; each dim 1 or full) becomes the
    kernel's fifth parameter, read per score in every K/V tile. Lq and Lk may be any length:
    loads clamp to the last valid row, keys past Lk are masked in the last
    K/V tile, rows past Lq are not stored.

    The kernel configuration (family, tiles, rows per warp, stages) comes
    from one chooser, `chooseKernelConfig` in lib/Analysis/KernelConfig.cpp,
    shared with `--attn-io-cost`: the options win; then the
    `#attn.kernel_config` that `--attn-io-cost` recorded on the op (the
    kernel it costed); then the chooser's measured rules, described below.
    A requested configuration no kernel can run (block-kv=128 with
    mma.sync, a K/V tile whose copies do not split over the threads, more
    shared memory than the target allows, ...) is an error at the op with
    the reason.

    `block-q` sets the query rows per CTA. 128 rows reuse each staged K/V
    tile twice as often as 64 (half the L2->SM bytes per FLOP); 64 rows
    skip causal tiles at a finer grain. `0` (the default) is 128; when Lq is
    not a multiple of 128, 64 is used.

    `rows-per-warp` (16 or 32) sets how many query rows each warp owns. With
    32 (FlashAttention-2's layout), every K and V fragment read from shared
    memory feeds two mma's instead of one, halving shared-memory traffic per
    FLOP, for twice the accumulator registers. `block-kv` (32 or 64) sets the
    keys per staged K/V tile. `0` picks both by measurement on the H200
    (bench/NOTES.md, v6): 32 rows per warp; 64-key tiles at d = 64 and
    32-key tiles at d = 128 (64 would spill registers there).

    `mma=wgmma` selects Hopper's warpgroup MMA (`wgmma.mma_async`, PTX for
    `sm_90a`): each warpgroup of 4 warps owns 64 query rows (two per
    128-row CTA) and computes S = Q·Kᵀ for a whole K/V tile (128 keys by
    default) in d/16 instructions, reading Q and K from shared memory through
    matrix descriptors; P·V takes P from registers (the same fragments as
    mma.sync's) and V from shared memory read MN-major. Tiles are stored in
    64-column atoms with the 128-byte swizzle that the descriptors name.
    Staging, masks, the online softmax and the epilogue are the mma.sync
    kernel's. On dense K/V the stages are filled by TMA (`kv-loads=tma`, the
    default there; TmaProducer.cpp): one thread arms each stage's mbarrier
    with the tile's bytes and issues one `cp.async.bulk.tensor` box per
    64-column atom of K and V against tensor maps (the runtime encodes them;
    the host IR builds them with `nvgpu.tma.create.descriptor`), and every
    thread waits on the stage's phase; TMA writes exactly the swizzled atoms
    the descriptors read. 1.19-1.38x the cp.async kernel at d = 128 with
    128 x 128 tiles (bench/NOTES.md v28). `kv-loads=cp.async` keeps every
    thread copying 16-byte chunks (the paged and packed kernels always do
    on wgmma). On the mma.sync kernels (sm_90 and later) `kv-loads=tma`
    fills dense K/V stages with the same tensor boxes, the tiles then
    staged in 128-byte-swizzled atoms as wgmma's (1.02-1.09x cp.async on
    decode at B = 1, v30b/c), and paged pools whose page size is a power of
    two of at least 8 tokens with one box per page of a tile, from maps over
    the pools, the page read from the block table by the issuing thread and
    the rows past the sequence zeroed once they land (bench/NOTES.md v42:
    the default there; 1.00-1.16x the row-copy kernel at 128-token pages,
    0.79-1.14x at 16-token pages). Packed K/V and other page sizes take one
    bulk copy (cp.async.bulk) per key row into padded rows, each thread
    arming the stage's mbarrier with its rows' bytes (correct, but 256-byte
    requests to the TMA unit stream 0.35-0.94x cp.async, v30); the chooser
    keeps cp.async there (bench/NOTES.md v30d).
    `kv-loads=tma-producer` (block-q 128) issues the TMA boxes from a
    producer warpgroup of their own (warp specialization): the computing
    warpgroups report each stage empty on an mbarrier instead of meeting at
    a CTA barrier per tile, and take the producer's registers (setmaxnreg).
    `overlap-pv=on` (with the producer; the default at d = 128 with three
    stages) issues each tile's P·V behind the next tile's Q·Kᵀ and waits
    for it after that tile's softmax, the two computing warpgroups taking
    turns to issue (FlashAttention-3 §3.1–3.2).
    `persistent=on` (with the producer, unsplit keys) launches one CTA per
    SM instead of one per work item (query tile, batch · head): each CTA
    loops over items c, c + G, ..., both roles counting the K/V tiles their
    stage ring has held so that the producer fills the next item's stages
    while the consumers finish this one, and, reaching an item, brings its
    Q tile into L2 (one `cp.async.bulk.prefetch` per query head of the
    tile), so the consumers' Q load after the previous epilogue reads L2
    rather than DRAM (bench/NOTES.md v63, on an H100: 1.07x at d = 128,
    1k causal, 1.01-1.03x at 2k-16k); causal items run in pairs of
    equal work (a head's query tiles longest, shortest, second longest,
    ...). The default (`auto`) takes it for causal kernels with the
    overlapped P·V whose query tiles pair up (an even number per head) and
    whose items outnumber the SMs, on whole tiles, dv <= 128, without a
    mask tensor or score_mod (bench/NOTES.md v34b: 1.01-1.04x one CTA per
    item; non-causal grids ran 0.96-0.98x, v34, and stay one CTA per item).

    wgmma tiles by default (measured, bench/NOTES.md v9-v33): 128 query
    rows and 128-key tiles. At d <= 64 two such CTAs share an SM: the
    kernel's launch bound (`nvvm.minctasm = 2`, the manifest's
    `min_ctas_per_sm`) makes ptxas fit 128 registers, so one CTA's Q load,
    ramp and epilogue overlap the other's loop (v33: 1.19-1.36x one CTA per
    SM, causal), wherever the accumulators leave room and no mask tensor,
    partial key tile or split keys adds state. A kernel whose shared memory
    holds one CTA per SM says so (`nvvm.minctasm = 1`): told nothing,
    ptxas fitted such kernels in two CTAs' worth of registers and one
    spilled (bench/NOTES.md v62b, v63). Without it (and for causal
    Lk <= 1024, with 64-key tiles) causal d = 64 takes 64-row CTAs (finer
    diagonal, several CTAs per SM out of phase), as v9's cp.async kernels
    do for causal d = 128 with Lk <= 2048. `kv-stages` = 3
    defers each P·V's wait until the next tile's Q·Kᵀ has been issued, so
    the tensor cores keep working across the barriers; its third K/V stage is
    the default at d = 128 with 128-row CTAs, where the CTA is alone on its
    SM anyway, except where a CTA runs one non-causal work item of at most
    16 key tiles: there two stages with K and V on barriers of their own
    ran 1.04-1.06x (bench/NOTES.md v61c).

    Decode and other attentions with few query rows per K/V head
    (Hq/Hkv · Lq <= 64) take mma.sync kernels of 16 to 64 rows whose rows
    are the G = Hq/Hkv query heads of one K/V head times the queries
    (`pack_kv_groups`, row = query · G + head in the group): each K/V tile
    is read once per group, and a decode step fills G rows of the m16 tile
    instead of one of 128. A grid that fills less than a wave of the GPU is
    split along the keys (`kv-splits`, flash-decoding): each of S CTAs per
    query tile runs the online softmax over Lk / S keys and writes its
    normalized partial output (f32) and log-sum-exp to a workspace; a second
    kernel in the same gpu.module combines them exactly,
    O = Σ_s 2^(lse_s - max) O_s / Σ_s 2^(lse_s - max), and gives 0 where
    every split saw only masked keys. S comes from the wave model in
    `chooseKernelConfig` (SMs × resident CTAs per SM against the unsplit
    CTAs, each split keeping two K/V tiles). The launch manifest lists both
    launches, in order, and the workspace buffers the runtime allocates.
    A small-query CTA may also divide each K/V tile's keys among
    `kv-warps` warps (mma.sync): every warp runs the online softmax over
    its block_kv / kv-warps keys of each staged tile, and after the loop
    the warps combine their (O, m, l) exactly through shared memory (the
    K/V stages, no longer needed), each storing an equal share of O's
    columns. One decode warp per CTA is bound by its own issue of copies
    and MMAs; more warps stream the same staged tiles without more shared
    memory.

    `attn.paged_attention` reads K/V through its block table (the pages'
    rows zero-filled past each sequence's length), and
    `attn.varlen_attention` (a packed batch, FlashAttention's varlen) runs
    on the same kernels with [T, H, d] operands and the cumulative lengths
    as the last two parameters. The varlen grid is fixed at compile time,
    ⌊G·Tq/block_q⌋ + B + 2 CTAs per head (G: heads packed per row space):
    each CTA finds its sequence by a binary search over the sequences'
    first tiles (lib/Conversion/AttnToGPU/PackedSequences.cpp says why this
    covers every sequence wherever its boundaries fall), so no host reads
    the lengths and no token is padded; query rows outside every sequence
    are written as 0 by the CTAs of the two end segments. Tiles are chosen
    for the mean sequence (⌈Tq/B⌉ queries, ⌈Tk/B⌉ keys), without a split
    of the keys. Lengths that break the op's contract are clamped into the
    tensors: the result is then wrong, but no access leaves them.
  }];
  let options = [
    Option<"blockQ", "block-q", "int64_t", /*default=*/"0",
           "Query rows per CTA: 16, 32 (mma.sync), 64, 128, or 0 to choose">,
    Option<"rowsPerWarp", "rows-per-warp", "int64_t", /*default=*/"0",
           "Query rows per warp: 16, 32, or 0 to choose by head dim">,
    Option<"blockKV", "block-kv", "int64_t", /*default=*/"0",
           "Keys per staged K/V tile: 32, 48, 64, 80, 96, 112, 128 (48, 80, 96 "
           "and 112 on wgmma with 2-byte inputs only), or 0 to choose">,
    Option<"swizzle", "swizzle", "bool", /*default=*/"false",
           "XOR-swizzled shared-memory tiles instead of padded rows: 2/3 of "
           "the L2->SM bytes, slightly slower on the H200 (bench/NOTES.md)">,
    Option<"mma", "mma", "::mlir::attn::TensorCoreFamilyOption",
           /*default=*/"::mlir::attn::TensorCoreFamilyOption::Auto",
           "Tensor-core instructions: auto (the family of the op's recorded "
           "#attn.kernel_config, else mma.sync), mma.sync (sm_80+) or wgmma "
           "(sm_90a)",
           "::mlir::attn::tensorCoreFamilyOptionValues()">,
    Option<"kvStages", "kv-stages", "int64_t", /*default=*/"0",
           "Shared-memory K/V stages: 2, 3 or 4 (mma.sync: more tiles in "
           "flight; wgmma: at most 3, the third for a deferred P·V wait), "
           "or 0 to choose">,
    Option<"kvSplits", "kv-splits", "int64_t", /*default=*/"0",
           "Split-KV key ranges per query tile, combined by a second "
           "kernel, up to 65535 (zero: chosen by the wave model; one: no split)">,
    Option<"kvWarps", "kv-warps", "int64_t", /*default=*/"0",
           "mma.sync: warps that divide each K/V tile's keys and combine "
           "their results in shared memory: 1, 2, 4, 8, or 0 to choose">,
    Option<"overlapPV", "overlap-pv", "std::string", /*default=*/"\"auto\"",
           "With a producer warpgroup: issue each tile's P·V behind the next "
           "tile's Q·Kᵀ and wait for it after that tile's softmax: auto "
           "(chosen), on or off">,
    Option<"fp8Mma", "fp8-mma", "std::string", /*default=*/"\"auto\"",
           "8-bit float inputs: on (the FP8 tensor-core kernel, sm_90a), off "
           "(the generic CUDA-core kernel), or auto (on: 1.03-1.27x the bf16 "
           "kernel, bench/NOTES.md v43h)">,
    Option<"persistent", "persistent", "std::string", /*default=*/"\"auto\"",
           "With a producer warpgroup: one CTA per SM looping over the work "
           "items (query tile, batch · head), the K/V stage ring running on "
           "across them: auto (chosen), on or off">,
    Option<"kvLoads", "kv-loads", "std::string", /*default=*/"\"auto\"",
           "Who fills the K/V stages: auto (recorded or chosen), cp.async, "
           "tma (wgmma: cp.async.bulk.tensor through tensor maps the "
           "runtime builds, also on mma.sync (sm_90+) over dense K/V; "
           "paged K/V on mma.sync: a box per page of power-of-two pages, "
           "else, and packed K/V, a cp.async.bulk per key row; "
           "mbarriers per stage), or tma-producer (wgmma: the boxes from a "
           "producer warpgroup of its own)">,
    Option<"strict", "strict", "bool", /*default=*/"false",
           "Make an attention the kernel cannot run an error instead of a "
           "warning that leaves it unfused">,
    Option<"genericKernel", "generic-kernel", "bool", /*default=*/"true",
           "Run attentions the tensor-core kernels refuse (f32, head dims "
           "that are no multiple of 8, a wider additive mask) with the "
           "generic CUDA-core kernel; false leaves them unfused for the host">
  ];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::nvgpu::NVGPUDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def AttnDumpGPUKernelsPass : Pass<"attn-dump-gpu-kernels", "ModuleOp"> {
  let summary = "Write each compiled kernel's PTX and launch manifest to a directory";
  let description = [{
    After `gpu-module-to-binary` in isa format, writes `<kernel>.ptx` (the
    gpu.binary's PTX text) and `<kernel>.json` (the launch manifest recorded
    by `--attn-lower-to-gpu`) for every attention kernel, so that a runner on
    a GPU machine without MLIR can load and launch it.
  }];
  let options = [
    Option<"dumpDir", "dump-dir", "std::string", /*default=*/"\"\"",
           "Directory for the .ptx and .json files (created if missing)">
  ];
}

#endif // ATTN_CONVERSION_PASSES_TD

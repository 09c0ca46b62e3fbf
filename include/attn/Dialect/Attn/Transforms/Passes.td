//===- Passes.td - attn dialect passes ---------------------*- tablegen -*-===//
#ifndef ATTN_DIALECT_ATTN_TRANSFORMS_PASSES_TD
#define ATTN_DIALECT_ATTN_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def AttnDetectPass : Pass<"attn-detect", "func::FuncOp"> {
  let summary = "Raise softmax(Q·Kᵀ·s + M)·V in attn, linalg or tosa IR to attn.attention";
  let description = [{
    Frameworks spell attention in many ways: the scale on S, on Q, or split
    as √s on Q and K; mul or div; f16/bf16 cast to f32 around the softmax;
    K stored transposed or transposed on the fly, V stored transposed, O
    written in any order of its dims, K and V broadcast along batch dims
    (MQA as an einsum); softmax as one op, as max/sub/exp/sum/div, with a
    reciprocal (in its own op or in P's payload), with exp2 and log2(e)
    folded in, as the exp of a log-softmax (exp(s − lse)), with the
    normalization deferred past P·V (O = (E·V) / Σ E, FlashAttention's own
    order), or without the max subtraction. Matching each spelling
    separately does not scale (Inductor keeps ~30 patterns and still misses
    new models).

    This pass first *normalizes*: every op of the attn, linalg and tosa
    dialects that can appear in the chain is read as one abstract node
    (matmul, elementwise add/sub/mul/div/exp/exp2/select with its broadcast,
    row reduction max/sum, softmax, cast, transpose), looking through casts
    and tensor.cast. It then matches *one* canonical chain from each
    candidate P·V product backwards:

      P·V  ←  P = softmax_lastdim(X)          (any spelling above)
      X    =  S·s (+ M | select(M, ·, -inf) | causal)  in any order
      S    =  Q·Kᵀ                              (V's keys pair with K's)

    and replaces the P·V result by one `attn.attention`. Causal masks built
    from index comparisons (`linalg.index` i ≥ j) or a constant lower-
    triangular tensor set the causal flag; the Lq×Lk mask tensor is dropped.

    What X holds besides scale and masks, if it is elementwise in the scores
    (soft-capping c·tanh(s/c), ALiBi computed from indices, a sliding
    window, a gathered relative-position bias), is copied into the op's
    `score_mod` region rather than refused: exactly the ops the IR applies
    to one score, other tensors read by `tensor.extract` at the score's
    indices. Code that reads other scores (a row statistic, Sᵀ, a top-k
    threshold) is not a function of one score and stays unraised.

    The max subtracted before exp is dropped however it is spelled (a max
    or a cmpf + select reduction, s + negate(max), subtracted below a mask),
    but only when it is the max of the very values it shifts: softmax
    cancels any row constant in real arithmetic, yet a constant, an
    argument, a min or max(0, ·) lets exp overflow or underflow where the
    softmax is finite, so those stay unraised. (A softmax with no shift at
    all is raised: the textbook spelling; its exp overflows only for
    scores above 88.)

    Look-alikes stay as they are: softmax over another axis than the one
    P·V contracts, a normalizer that is not the row sum of the same exp, a
    max subtracted per column instead of per row, sigmoid or unnormalized
    exp, a V whose length differs from K's, or S/P read by another op (the
    attention weights are returned, say). With `explain=true` each near miss
    gets a remark naming the reason.
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Emit a remark at each near miss saying why it was not raised">
  ];
  let dependentDialects = ["::mlir::attn::AttnDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def AttnIOCostPass : Pass<"attn-io-cost", "ModuleOp"> {
  let summary = "IO cost and roofline of each attention against SRAM size M";
  let description = [{
    Attention is memory-bound when it is computed the textbook way: S = Q·Kᵀ
    and P = softmax(S) are Lq×Lk tensors that go to DRAM and back, so the
    arithmetic intensity is O(1) FLOP/byte. FlashAttention keeps them in SRAM
    and cuts DRAM traffic from Θ(N·d + N²) to Θ(N²·d²/M). This pass says, for
    the target GPU, how many bytes each path moves, which roof bounds it, and
    how long the roofline predicts it takes.

    For every `attn.attention` the pass attaches `io_cost = #attn.io_cost<...>`
    with FLOPs, unfused DRAM bytes, fused SRAM<-L2 bytes and fused DRAM bytes,
    intensities, the ridge point, the bound class of each path, and the tile
    sizes. Fused DRAM bytes have two regimes: when the K/V of the heads in
    flight (SMs x CTAs per SM query tiles) fit in 1/4 of the L2, the K/V
    re-reads of successive query tiles hit L2 and DRAM sees Q, K and V once
    (what the H200's counters show for FlashAttention-2); otherwise each
    wave of CTAs over a head reads its K/V from DRAM again, 1 + (T-1)/C reads
    for T query tiles per head and C CTAs in flight. Both thresholds are
    fitted to H200 counter measurements (bench/NOTES.md).

    The costed kernel's decomposition counts too: with GQA head packing
    (decode kernels) a tile's rows are the query heads of one K/V head, so
    K/V is streamed once per group instead of once per query head; with
    split-KV, each split's f32 partial output and log-sum-exp are written
    and read back by the combine kernel (2·S·B·Hq·Lq·(dv + 1)·4 bytes more
    DRAM traffic). The split count itself comes from the chooser: a
    streaming model for the memory-bound small-query kernels, the wave
    model for the others (lib/Analysis/KernelConfig.cpp).

    For the ops of an unfused chain (`attn.matmul/scale/mask/softmax`, and
    linalg ops on tensors) the report also lists each op's own bytes (operands
    + results) and FLOPs, as if each were one kernel.

    Tile sizes (block_q = Br, block_kv = Bc) follow FlashAttention's
    Bc = ⌈M/4d⌉, Br = min(Bc, d) with M in elements, rounded down to powers
    of two in [16, 128] (MMA granularity; register tiles beyond 128 do not
    fit), then halved (Bc first) until the f32 output and score tiles fit
    255 registers per thread over 4 warps and the Q tile plus two K/V stages
    fit in M bytes of shared memory.

    Options override any field of the target preset; -1 (the default) keeps
    the preset's value, and every other override must be a positive, finite
    number (0, negatives, NaN and inf are errors, as is an SRAM too small for
    a 16x16 tile). `block-q`/`block-kv` cost a kernel with those tiles (0:
    the chosen ones; negative values are errors). `report=FILE` writes a
    JSON report (`-` prints a table to stdout instead), `roofline=FILE` a
    log-log roofline SVG with each fused and unfused op as a point. With
    `remarks=true` each attention also gets a remark with its verdict.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"h200\"",
           "Target preset: a100, h100 or h200">,
    Option<"sramBytes", "sram-bytes", "int64_t", /*default=*/"-1",
           "Override: shared memory per thread block (M), bytes (-1: the preset's value; anything else must be positive and finite)">,
    Option<"smCount", "sm-count", "int64_t", /*default=*/"-1",
           "Override: number of SMs (-1: the preset's value; anything else must be positive and finite)">,
    Option<"ctasPerSm", "ctas-per-sm", "int64_t", /*default=*/"-1",
           "Override: resident CTAs per SM of the fused kernel (default 2) (-1: the preset's value; anything else must be positive and finite)">,
    Option<"l2Bytes", "l2-bytes", "int64_t", /*default=*/"-1",
           "Override: L2 size, bytes (-1: the preset's value; anything else must be positive and finite)">,
    Option<"hbmBandwidth", "hbm-bandwidth", "double", /*default=*/"-1",
           "Override: DRAM bandwidth, bytes/s (-1: the preset's value; anything else must be positive and finite)">,
    Option<"l2Bandwidth", "l2-bandwidth", "double", /*default=*/"-1",
           "Override: L2->SM bandwidth, bytes/s (-1: the preset's value; anything else must be positive and finite)">,
    Option<"peakF16", "peak-f16", "double", /*default=*/"-1",
           "Override: dense f16 tensor FLOP/s (-1: the preset's value; anything else must be positive and finite)">,
    Option<"peakBF16", "peak-bf16", "double", /*default=*/"-1",
           "Override: dense bf16 tensor FLOP/s (-1: the preset's value; anything else must be positive and finite)">,
    Option<"peakF32", "peak-f32", "double", /*default=*/"-1",
           "Override: dense tf32 tensor FLOP/s (-1: the preset's value; anything else must be positive and finite)">,
    Option<"peakF64", "peak-f64", "double", /*default=*/"-1",
           "Override: dense f64 tensor FLOP/s (-1: the preset's value; anything else must be positive and finite)">,
    Option<"peakF8", "peak-f8", "double", /*default=*/"-1",
           "Override: dense FP8 tensor FLOP/s (-1: the preset's value; anything else must be positive and finite)">,
    Option<"peakScalar", "peak-scalar", "double", /*default=*/"-1",
           "Override: non-tensor f32 FLOP/s (-1: the preset's value; anything else must be positive and finite)">,
    Option<"mma", "mma", "::mlir::attn::TensorCoreFamilyOption",
           /*default=*/"::mlir::attn::TensorCoreFamilyOption::Auto",
           "GPU kernel family: auto (the target chip's: wgmma on sm_90a, else "
           "mma.sync), mma.sync or wgmma",
           "::mlir::attn::tensorCoreFamilyOptionValues()">,
    Option<"blockQ", "block-q", "int64_t", /*default=*/"0",
           "Query rows per CTA of the kernel (0: chosen)">,
    Option<"blockKV", "block-kv", "int64_t", /*default=*/"0",
           "Keys per K/V tile of the kernel (0: chosen)">,
    Option<"rowsPerWarp", "rows-per-warp", "int64_t", /*default=*/"0",
           "Query rows per warp of the kernel (0: chosen)">,
    Option<"kvStages", "kv-stages", "int64_t", /*default=*/"0",
           "Shared-memory K/V stages of the kernel (0: chosen)">,
    Option<"swizzle", "swizzle", "bool", /*default=*/"false",
           "mma.sync: XOR-swizzled shared-memory rows">,
    Option<"kvSplits", "kv-splits", "int64_t", /*default=*/"0",
           "Split-KV key ranges per query tile, up to 65535 (zero: chosen "
           "by the wave model; one: no split)">,
    Option<"kvWarps", "kv-warps", "int64_t", /*default=*/"0",
           "mma.sync: warps that divide each K/V tile's keys, 1, 2, 4 or 8 "
           "(0: chosen)">,
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
           "Who fills the K/V stages: auto (chosen), cp.async, tma "
           "(wgmma: cp.async.bulk.tensor through tensor maps), or "
                     "tma-producer (issued by a producer warpgroup)">,
    Option<"report", "report", "std::string", /*default=*/"\"\"",
           "Write a JSON report to this file ('-': a table on stdout)">,
    Option<"roofline", "roofline", "std::string", /*default=*/"\"\"",
           "Write a roofline SVG to this file">,
    Option<"emitRemarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark with the verdict on each attention op">
  ];
}

def AttnGatherPagedKVPass : Pass<"attn-gather-paged-kv", "func::FuncOp"> {
  let summary = "Rewrite attn.paged_attention as contiguous K/V and a keep mask around attn.attention";
  let description = [{
    The CPU path of a paged KV cache. Each `attn.paged_attention` becomes

      K' = gather(K pages) : [B, Hkv, C, d]   (C = max_pages · page_size)
      V' = gather(V pages) : [B, Hkv, C, dv]
      M  = keep(j < L[b] and, causal, j ≤ i + δ_b) : [B, 1, Lq, C]
      O  = attn.attention(Q, K', V', mask M)

    with δ_b = L[b] − Lq for `causal(bottom_right)` and 0 for `top_left`.
    The gathers read a page only for keys inside the sequence (j < L[b]);
    the keys past it are 0 in K' and V' and masked out of the softmax, so
    whatever the pool holds after a sequence (unwritten slots, NaN) never
    reaches the result, and a sequence of length 0 gives 0.

    This materializes the sequences' keys once (B·C·Hkv·(d + dv) elements):
    it is the exact reference the GPU kernel, which reads the pages in
    place, is checked against, and the CPU pipeline's way to run the op.

    `check-bounds=true` first asserts the caller's contract at run time
    (`cf.assert`): 0 ≤ L[b] ≤ C, and every block-table entry a sequence uses
    names a page of the pool. Without it, breaking the contract reads out of
    bounds, as in vLLM.
  }];
  let options = [
    Option<"checkBounds", "check-bounds", "bool", /*default=*/"false",
           "Assert at run time that sequence lengths and block-table entries are in range">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def AttnUnpackVarlenPass : Pass<"attn-unpack-varlen", "func::FuncOp"> {
  let summary = "Rewrite attn.varlen_attention as a loop of per-sequence attn.attention";
  let description = [{
    The CPU path of a packed variable-length batch (and the GPU
    pipeline's, for what `--attn-lower-to-gpu` leaves on the host). Each
    `attn.varlen_attention` becomes

      O = 0 : [Tq, Hq, dv]
      for b in [0, B):
        Qb = transpose(Q[cu_q[b] : cu_q[b+1]])      [Hq, Lq_b, d]
        Kb, Vb likewise from cu_k                   [Hkv, Lk_b, d / dv]
        O[cu_q[b] : cu_q[b+1]] = transpose(attn.attention(Qb, Kb, Vb))

    with the op's scale and causal alignment on each sequence, so that the
    attentions have dynamic Lq and Lk and the CPU pipeline fuses each as it
    fuses any attention (its run-time shape checks included). No token is
    padded and no score of one sequence against another's keys is formed.
    Query rows outside every sequence stay 0.

    `check-bounds=true` first asserts the caller's contract at run time
    (`cf.assert`): the same B + 1 ≥ 1 entries in both (the verifier's check,
    for dynamic extents), 0 ≤ cu[0], cu non-decreasing, cu[B] ≤ the tokens
    of Q (resp. of both K and V). Without it, breaking the contract reads out
    of bounds, as in FlashAttention.
  }];
  let options = [
    Option<"checkBounds", "check-bounds", "bool", /*default=*/"false",
           "Assert at run time that the cumulative sequence lengths are in range and ordered">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def AttnFusePass : Pass<"attn-fuse", "func::FuncOp"> {
  let summary = "Rewrite attn.attention into the tiled online-softmax recurrence";
  let description = [{
    Replaces each `attn.attention` by loops that never materialize the Lq×Lk
    score matrix (FlashAttention-2). For each batch, head and query tile of
    Br rows, with acc = 0, m = -inf, l = 0 (all f32):

      for each K/V tile j of Bc keys:
        S    = score_mod(Q·Kⱼᵀ·scale) (+ mask tile) (Br × Bc, never Lq × Lk;
                                                 score_mod, if any, with
                                                 the tile's global indices)
        m'   = max(m, rowmax S)
        P    = exp(S − m')
        l'   = e^(m − m')·l + rowsum P
        acc' = e^(m − m')·acc + P·Vⱼ
      O = acc / l                                   (0 where l = 0)

    The inner step is one `attn.online_attention`; the loops are `scf.for`
    over tensors, with `tensor.extract_slice`/`insert_slice` for the tiles.

    * Causal: K/V tiles wholly above the diagonal are skipped (the K/V loop
      of each query tile stops at the diagonal); the tiles that cross the
      diagonal are masked element-wise through `causal_diagonal`.
    * GQA/MQA: query head h reads K/V head h / (Hq/Hkv) by index arithmetic.
      K and V are never repeated.
    * Fully masked rows keep m = -inf and l = 0 and give 0, never NaN.
      (PyTorch's math backend gives NaN for them; FlashAttention gives 0.)
    * Accumulation is f32 for f16/bf16 inputs; O is cast back at the end.
    * Sizes that are not a multiple of the tile, and dynamic sizes, use
      remainder tiles of dynamic extent (affine.min).

    Tile sizes: `block-q`/`block-kv` when given; else the `io_cost` attribute
    left by `--attn-io-cost`; else 64×64, a size that is legal for the GPU
    kernel at every supported head dim and keeps CPU tiles in L1/L2.
  }];
  let options = [
    Option<"blockQ", "block-q", "int64_t", /*default=*/"0",
           "Query tile rows Br (0: from io_cost, else 64)">,
    Option<"blockKV", "block-kv", "int64_t", /*default=*/"0",
           "Key/value tile length Bc (0: from io_cost, else 64)">
  ];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def AttnLowerToLoopsPass : Pass<"attn-lower-to-loops", "ModuleOp"> {
  let summary = "Lower attn ops to scf/memref/arith/math loops (CPU reference)";
  let description = [{
    The CPU lowering. First every attn op is decomposed into linalg on
    tensors:

    * `attn.online_attention` into the recurrence's matmul, reductions and
      elementwise updates on its tile (the f32 state never leaves the tile);
    * `attn.attention` into the naive reference (S, softmax, P·V): this
      materializes S and is meant for checking, not speed — run `--attn-fuse`
      first for the tiled form;
    * `attn.paged_attention` into its page gathers and that naive reference
      (`--attn-gather-paged-kv` then `--attn-fuse` first, as the CPU
      pipeline does, for the tiled form);
    * the graph primitives into their linalg equivalents.

    Then the module is bufferized with one-shot bufferization (function
    boundaries included, identity layouts) and linalg is lowered to `scf.for`
    loops over memrefs. The result holds scf, memref, arith and math ops
    only, ready for `--attn-cpu-pipeline`'s conversion to LLVM.
  }];
  let options = [
    Option<"decomposeOnly", "decompose-only", "bool", /*default=*/"false",
           "Stop after decomposing attn ops into linalg on tensors">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def AttnExpandFP8Pass : Pass<"attn-expand-fp8"> {
  let summary = "Expand arith.extf from and arith.truncf to 8-bit floats into integer arithmetic";
  let description = [{
    LLVM has no 8-bit float types, so neither the LLVM nor the NVVM
    conversion lowers `arith.extf` from `f8E4M3FN` or `f8E5M2` (FP8
    attention's inputs; memrefs of them become i8 memory) nor
    `arith.truncf` to them (fake-quantized programs). This pass rewrites
    each, scalar, vector or tensor, into operations both lower, exactly:

    * extf from E5M2: it is the upper byte of an f16 (same exponent width
      and bias): shift the byte into an i16 and bitcast.
    * extf from E4M3FN: its sign and 7 magnitude bits, placed in an f16
      with the magnitude shifted by 7, read as 2⁻⁸ times the E4M3 value
      (bias 15 against 7; subnormals map to subnormals); times 256 in f32
      is exact. The one NaN encoding (magnitude 0x7F; E4M3FN has no
      infinities) gives NaN. The result is then extended or rounded to the
      destination type, exactly: every E4M3/E5M2 value is an f16, bf16,
      f32 and f64 value.
    * truncf from f32 (f16 and bf16 extended to f32 first, exactly):
      round to nearest even as APFloat does — normal results by re-biasing
      the f32 exponent in place and rounding off the dropped mantissa bits
      (a carry runs into the exponent), smaller ones by scaling |x| to units
      of the smallest subnormal (a power of two, exact) and rounding with
      the f32 adder; beyond the largest finite value inf for E5M2 and NaN
      for E4M3FN (no inf); NaN stays NaN and the sign is kept. From f64 it
      would round twice, so it is not expanded.

    Any other arith op on 8-bit float scalars or vectors (arithmetic on
    them, truncf from f64) is an error at the op: LLVM cannot lower it.
    Runs in `--attn-cpu-pipeline` before the conversion to LLVM, and on GPU
    kernels before the conversion to NVVM.

    ```mlir
    %x = arith.extf %b : f8E4M3FN to f32
    // becomes: bitcast to i8, zero-extend, shift and mask into f16 bits,
    // f16 -> f32, times 256, NaN where the magnitude bits are 0x7F.
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

// The GPU passes (--attn-lower-to-gpu, --attn-dump-gpu-kernels) are in
// include/attn/Conversion/Passes.td.

#endif // ATTN_DIALECT_ATTN_TRANSFORMS_PASSES_TD

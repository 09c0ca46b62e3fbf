//===- AttnOps.td - attn dialect operations ----------------*- tablegen -*-===//
#ifndef ATTN_DIALECT_ATTN_IR_ATTNOPS_TD
#define ATTN_DIALECT_ATTN_IR_ATTNOPS_TD

include "attn/Dialect/Attn/IR/AttnBase.td"
include "attn/Dialect/Attn/IR/AttnAttrs.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Attn_FloatTensor : RankedTensorOf<[F16, BF16, F32, F64]>;
def Attn_MaskTensor : RankedTensorOf<[F16, BF16, F32, F64, I1]>;
// What attn.attention reads: the float types above and the two 8-bit floats
// of FP8 inference (OCP's E4M3 without infinities, and E5M2), whose real
// values are the stored ones times a per-tensor descale factor.
def Attn_InputTensor : RankedTensorOf<[F16, BF16, F32, F64, F8E4M3FN, F8E5M2]>;
def Attn_DescaleTensor : 0DTensorOf<[F32]>;

//===----------------------------------------------------------------------===//
// Graph primitives
//===----------------------------------------------------------------------===//

def Attn_MatmulOp : Attn_Op<"matmul", [Pure]> {
  let summary = "batched matrix product, optionally with a transposed rhs";
  let description = [{
    For operands of rank r ≥ 2 whose leading r−2 (batch) dimensions agree:

      result[b…, i, j] = Σₖ lhs[b…, i, k] · rhs[b…, k, j]

    With `transpose_rhs` the right operand is stored as [b…, j, k], which is
    how K is stored in attention: `attn.matmul %q, %k transpose_rhs` is Q·Kᵀ
    with no transpose materialized. The result element type is either the
    operand element type or f32, the usual accumulation type for f16/bf16.

    ```mlir
    %s = attn.matmul %q, %k transpose_rhs
        : tensor<2x64x32xf16>, tensor<2x80x32xf16> -> tensor<2x64x80xf32>
    ```
  }];
  let arguments = (ins Attn_FloatTensor:$lhs, Attn_FloatTensor:$rhs,
                       UnitAttr:$transpose_rhs);
  let results = (outs Attn_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`transpose_rhs` $transpose_rhs^)? attr-dict `:`
    type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Attn_ScaleOp : Attn_Op<"scale", [Pure, SameOperandsAndResultType]> {
  let summary = "multiplies every element by a constant";
  let description = [{
    result = input · factor. In attention the factor is usually 1/√d, applied
    to the scores S = Q·Kᵀ so that their variance does not grow with d.

    ```mlir
    %s2 = attn.scale %s by 1.250000e-01 : tensor<64x80xf32>
    ```
  }];
  let arguments = (ins Attn_FloatTensor:$input, F64Attr:$factor);
  let results = (outs Attn_FloatTensor:$result);
  let assemblyFormat = "$input `by` $factor attr-dict `:` type($input)";
}

def Attn_MaskOp : Attn_Op<"mask", [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "applies an additive, boolean keep, or causal mask to scores";
  let description = [{
    Masks the scores S of shape [b…, Lq, Lk]:

    * `additive`: S + M. M is a float tensor of S's rank whose dimensions are
      each 1 or equal to S's (e.g. a [1, 1, Lq, Lk] mask shared by all heads).
      -inf entries remove a key; finite entries bias it (ALiBi, padding).
    * `keep`: select(M, S, -inf). M is an i1 tensor with the same broadcast
      rule; `true` keeps the score.
    * `causal`: -inf where key j lies above the diagonal of query i. With
      `align top_left` (the default) that is j > i; with `align bottom_right`
      it is j > i + (Lk − Lq). No mask tensor is given.

    A row whose every score is -inf is *fully masked*; the fused kernels give
    0 for it (see `attn.attention`).

    ```mlir
    %m1 = attn.mask additive %s, %bias : tensor<1x1x64x80xf32> : tensor<2x4x64x80xf32>
    %m2 = attn.mask causal %s align bottom_right : tensor<2x4x64x80xf32>
    ```
  }];
  let arguments = (ins Attn_FloatTensor:$input,
                       Optional<Attn_MaskTensor>:$mask,
                       Attn_MaskKind:$kind,
                       OptionalAttr<Attn_CausalAlignment>:$align);
  let results = (outs Attn_FloatTensor:$result);
  let assemblyFormat = [{
    $kind $input (`,` $mask^ `:` type($mask))? (`align` $align^)? attr-dict
    `:` type($input)
  }];
  let hasVerifier = 1;
}

def Attn_SoftmaxOp : Attn_Op<"softmax", [Pure, SameOperandsAndResultType]> {
  let summary = "numerically stable softmax along one dimension";
  let description = [{
    result = exp(x − max_dim x) / Σ_dim exp(x − max_dim x). Subtracting the
    row maximum changes nothing mathematically and keeps exp from overflowing
    for large scores. In attention `dim` is the key axis, the last one: it is
    the axis that the following P·V product contracts.

    ```mlir
    %p = attn.softmax %s dim 1 : tensor<64x80xf32>
    ```
  }];
  let arguments = (ins Attn_FloatTensor:$input, I64Attr:$dim);
  let results = (outs Attn_FloatTensor:$result);
  let assemblyFormat = "$input `dim` $dim attr-dict `:` type($input)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// The exact fused semantic op
//===----------------------------------------------------------------------===//

def Attn_AttentionOp : Attn_Op<"attention", [Pure, AttrSizedOperandSegments]> {
  let summary = "scaled dot-product attention: softmax(Q·Kᵀ·scale + M)·V";
  let description = [{
    The exact fused attention op. With Q: [b…, Hq, Lq, d], K: [b…, Hkv, Lk, d]
    and V: [b…, Hkv, Lk, dv] it computes, for each batch b… and head h,

      S = Q[h] · K[h / (Hq/Hkv)]ᵀ · scale      (Lq × Lk)
      S = S + M  or  select(M, S, -inf)         (optional mask)
      S = -inf where j > i (+ Lk − Lq)          (optional causal)
      O[h] = softmax_row(S) · V[h / (Hq/Hkv)]   (Lq × dv)

    * Rank 2 ([L, d]) has no batch or head dims; rank 3 ([H, L, d]) and up
      treat the dimension before L as the head dimension.
    * Grouped-query / multi-query attention: Hq may be a multiple of Hkv. Each
      group of Hq/Hkv query heads reads one K/V head; no copy of K/V is made.
    * Lq may differ from Lk (cross-attention, decode) and dv from d.
    * The mask has Q's rank; each of its dims is 1 (broadcast) or equal to the
      matching dim of [b…, Hq, Lq, Lk]. A float mask is added, an i1 mask keeps
      where true.
    * `causal(top_left)` / `causal(bottom_right)`: see `attn.mask`.
    * A fully masked row (every score -inf) gives 0, as FlashAttention does.
      PyTorch's math backend gives NaN there; 0 is the useful answer, since
      such rows come from padding and are discarded anyway.

    * `score_mod`: an optional region applied to every scaled score before
      the mask and the causal diagonal, FlexAttention's `score_mod` in IR:

        S[b…, h, i, j] = score_mod(S[b…, h, i, j], b…, h, i, j)

      Its block takes the score (f32; f64 for f64 inputs) and then one index
      per dim of the scores [b…, h, i, j] (batch dims, head, query, key; rank
      2 has only i, j) and ends in `attn.yield` of the new score. It holds
      elementwise code without side effects (Gemma 2's soft-capping
      `c·tanh(s/c)`, ALiBi's `s + slope_h·(j − i)`), and may read tensors
      defined above it with `tensor.extract` (a T5 relative-position bias). A
      score it sets to -inf removes that key.

    * FP8 inputs (`f8E4M3FN`, `f8E5M2`; Q, K and V of one type) with
      `descale(%q_descale, %k_descale, %v_descale : …)`, three 0-d f32 tensors:
      the real Q is q_descale·Q, likewise K and V (FlashAttention-3's FP8
      forward), so that

        S = Q · Kᵀ · (scale · q_descale · k_descale),   O = softmax(S) · V · v_descale

      Without `descale` the factors are 1; only FP8 inputs take them. The
      result is f16, bf16 or f32 (an FP8 result would need a scale of its
      own); for every other input type it is the inputs' type. Products are
      accumulated in f32.

    The op says nothing about *how* to compute: the Lq×Lk matrix S is never a
    value. `--attn-fuse` turns it into the tiled online-softmax recurrence.

    ```mlir
    %o = attn.attention %q, %k, %v scale(1.250000e-01) causal(top_left)
        : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>
        -> tensor<2x8x128x64xf16>
    // Soft-capping at 50 (Gemma 2).
    %g = attn.attention %q, %k, %v scale(1.250000e-01) score_mod {
    ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
      %c = arith.constant 5.000000e+01 : f32
      %x = arith.divf %s, %c : f32
      %t = math.tanh %x : f32
      %y = arith.mulf %c, %t : f32
      attn.yield %y : f32
    } : tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>
        -> tensor<2x8x128x64xf16>
    // FP8 inputs, bf16 output.
    %f = attn.attention %q8, %k8, %v8
        descale(%qs, %ks, %vs : tensor<f32>, tensor<f32>, tensor<f32>) scale(1.250000e-01)
        : tensor<2x8x128x64xf8E4M3FN>, tensor<2x2x128x64xf8E4M3FN>,
          tensor<2x2x128x64xf8E4M3FN> -> tensor<2x8x128x64xbf16>
    ```
  }];
  let arguments = (ins Attn_InputTensor:$query, Attn_InputTensor:$key,
                       Attn_InputTensor:$value,
                       Optional<Attn_MaskTensor>:$mask,
                       Variadic<Attn_DescaleTensor>:$descale,
                       F64Attr:$scale,
                       OptionalAttr<Attn_CausalAlignment>:$causal);
  let results = (outs Attn_FloatTensor:$result);
  let regions = (region AnyRegion:$score_mod);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` `(` $mask^ `:` type($mask) `)`)?
    (`descale` `(` $descale^ `:` type($descale) `)`)?
    `scale` `(` $scale `)` (`causal` `(` $causal^ `)`)?
    (`score_mod` $score_mod^)? attr-dict
    `:` type($query) `,` type($key) `,` type($value) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Rank of Q/K/V/O.
    int64_t getRank() { return getQuery().getType().getRank(); }
    /// Number of leading batch dims, excluding the head dim.
    int64_t getNumBatchDims() { return getRank() > 2 ? getRank() - 3 : 0; }
    /// True when Q has a head dimension (rank >= 3).
    bool hasHeadDim() { return getRank() >= 3; }
    /// Hq / Hkv (1 without GQA).
    int64_t getGroupSize();
    bool isCausal() { return getCausal().has_value(); }
    /// Whether a score_mod region is present.
    bool hasScoreMod() { return !getScoreMod().empty(); }
    /// Whether Q, K and V are 8-bit floats (see `descale`).
    bool hasFP8Inputs();
    /// The descale factors of Q, K and V; null without `descale`.
    ::mlir::Value getQueryDescale() { return getDescale().empty() ? nullptr : getDescale()[0]; }
    ::mlir::Value getKeyDescale() { return getDescale().empty() ? nullptr : getDescale()[1]; }
    ::mlir::Value getValueDescale() { return getDescale().empty() ? nullptr : getDescale()[2]; }
    /// The problem as the cost model sees it; failure for dynamic shapes.
    ::mlir::FailureOr<::mlir::attn::AttentionShape> getCostShape();
    /// The verifier's checks, on the types and the scale alone: for a caller
    /// that must know whether an attention would verify before it creates
    /// one (--attn-detect). On failure, `reportError` gets the message the
    /// verifier emits after "'attn.attention' op ".
    static ::llvm::LogicalResult verifyShapes(
        ::mlir::RankedTensorType query, ::mlir::RankedTensorType key,
        ::mlir::RankedTensorType value, ::mlir::RankedTensorType mask,
        ::mlir::RankedTensorType result, double scale,
        ::llvm::function_ref<void(::llvm::StringRef)> reportError);
  }];
}

def Attn_PagedAttentionOp : Attn_Op<"paged_attention", [Pure]> {
  let summary = "attention over a paged KV cache (vLLM's layout)";
  let description = [{
    Attention for serving, where the keys and values of every sequence of a
    batch live in fixed-size pages of one shared pool instead of one
    contiguous tensor per sequence. With Q: [B, Hq, Lq, d], the pools
    K: [P, S, Hkv, d] and V: [P, S, Hkv, dv] (P pages of S tokens), the block
    table T: [B, N] (i32) and the sequence lengths L: [B] (i32), sequence b
    has L[b] keys, and its key j (0 ≤ j < L[b]) is

      K[T[b, j / S], j mod S, h, :]   and   V[T[b, j / S], j mod S, h, :]

    for K/V head h. The result is, per b and query head h,

      O[b, h] = softmax_row(Q[b, h] · Kbᵀ · scale) · Vb      (Lq × dv)

    over the L[b] keys of sequence b, with query head h reading K/V head
    h / (Hq/Hkv) (GQA). Keys at and past L[b] do not exist: the pages after
    sequence b's last page are never read, and entries of T past them may
    hold anything.

    * `causal(bottom_right)`: the Lq queries are the sequence's last Lq
      tokens (decode, speculative decoding, chunked prefill); query i sees
      keys j ≤ i + L[b] − Lq. `causal(top_left)`: query i sees keys j ≤ i.
    * A query that sees no key (L[b] = 0, or a causal row before the first
      key) gives 0, as `attn.attention`'s fully masked rows do.
    * The caller's contract, as in vLLM: 0 ≤ L[b] ≤ N·S, and every entry of
      T that a sequence's keys use (T[b, p] for p < ⌈L[b] / S⌉) is a page in
      [0, P). Breaking it reads out of bounds; `--attn-gather-paged-kv` with
      `check-bounds=true` asserts it at run time (a debugging aid, not a
      default).

    `--attn-gather-paged-kv` rewrites the op into contiguous K/V and a keep
    mask around an `attn.attention` (the CPU path); `--attn-lower-to-gpu`
    builds a kernel that reads the pages in place through the block table.

    ```mlir
    %o = attn.paged_attention %q, %kc, %vc pages(%table, %lens)
        scale(0.08838834764831845) causal(bottom_right)
        : tensor<8x32x1x128xbf16>, tensor<4096x16x8x128xbf16>,
          tensor<4096x16x8x128xbf16>, tensor<8x512xi32>, tensor<8xi32>
        -> tensor<8x32x1x128xbf16>
    ```
  }];
  let arguments = (ins Attn_FloatTensor:$query, Attn_FloatTensor:$key_cache,
                       Attn_FloatTensor:$value_cache,
                       RankedTensorOf<[I32]>:$block_table,
                       RankedTensorOf<[I32]>:$seq_lens,
                       F64Attr:$scale,
                       OptionalAttr<Attn_CausalAlignment>:$causal);
  let results = (outs Attn_FloatTensor:$result);
  let assemblyFormat = [{
    $query `,` $key_cache `,` $value_cache
    `pages` `(` $block_table `,` $seq_lens `)`
    `scale` `(` $scale `)` (`causal` `(` $causal^ `)`)? attr-dict
    `:` type($query) `,` type($key_cache) `,` type($value_cache) `,`
    type($block_table) `,` type($seq_lens) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Tokens per page (S), or ShapedType::kDynamic.
    int64_t getPageSize() { return getKeyCache().getType().getDimSize(1); }
    /// Keys a sequence can hold: max pages per sequence · page size (the
    /// key extent the kernel is sized for), or ShapedType::kDynamic.
    int64_t getKeyCapacity();
    /// The problem as the cost model and the kernel chooser see it, with
    /// the key capacity as Lk (every sequence full: an upper bound, since
    /// the lengths are known at run time only); failure for dynamic shapes.
    ::mlir::FailureOr<::mlir::attn::AttentionShape> getCostShape();
  }];
}

def Attn_VarlenAttentionOp : Attn_Op<"varlen_attention", [Pure]> {
  let summary = "attention over a packed batch of variable-length sequences";
  let description = [{
    FlashAttention's varlen form: a batch of B sequences of different
    lengths packed without padding. Q: [Tq, Hq, d], K: [Tk, Hkv, d] and
    V: [Tk, Hkv, dv] hold every sequence's tokens back to back; the
    cumulative sequence lengths cu_q: [B + 1] and cu_k: [B + 1] (i32) say
    where each starts: sequence b owns query rows cu_q[b] ≤ t < cu_q[b + 1]
    and key rows cu_k[b] ≤ s < cu_k[b + 1]. For each b and query head h,

      O[cu_q[b] + i, h] = softmax_j(Q[cu_q[b] + i, h] · K[cu_k[b] + j, g]ᵀ · scale)
                          · V[cu_k[b] + j, g]      (g = h / (Hq/Hkv), GQA)

    with i < Lq_b = cu_q[b+1] − cu_q[b] and j < Lk_b = cu_k[b+1] − cu_k[b].
    Sequences never see each other's keys.

    * `causal(top_left)`: query i sees keys j ≤ i; `causal(bottom_right)`:
      j ≤ i + Lk_b − Lq_b, per sequence (prefill with a cached prefix,
      chunked prefill, decode: FlashAttention-2's varlen convention).
    * A query that sees no key (Lk_b = 0, or a causal row before the first
      key) gives 0, as `attn.attention`'s fully masked rows do; so do query
      rows outside every sequence (t < cu_q[0] or t ≥ cu_q[B]).
    * The caller's contract, as in FlashAttention: 0 ≤ cu[0] ≤ cu[1] ≤ … ≤
      cu[B] ≤ T for both. Breaking it reads out of bounds on the CPU path
      (the GPU kernel clamps its accesses into the tensors, and computes
      garbage); `--attn-unpack-varlen` with `check-bounds=true` asserts it
      at run time.

    `--attn-unpack-varlen` rewrites the op into a loop over the sequences,
    each an `attn.attention` on a slice of dynamic length (the CPU path);
    `--attn-lower-to-gpu` runs it in one launch of a tensor-core kernel
    that finds each CTA's sequence from the lengths on the GPU.

    ```mlir
    %o = attn.varlen_attention %q, %k, %v seqlens(%cu_q, %cu_k)
        scale(0.125) causal(bottom_right)
        : tensor<4096x32x64xbf16>, tensor<4096x8x64xbf16>,
          tensor<4096x8x64xbf16>, tensor<9xi32>, tensor<9xi32>
        -> tensor<4096x32x64xbf16>
    ```
  }];
  let arguments = (ins Attn_FloatTensor:$query, Attn_FloatTensor:$key,
                       Attn_FloatTensor:$value,
                       RankedTensorOf<[I32]>:$cu_seqlens_q,
                       RankedTensorOf<[I32]>:$cu_seqlens_k,
                       F64Attr:$scale,
                       OptionalAttr<Attn_CausalAlignment>:$causal);
  let results = (outs Attn_FloatTensor:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value
    `seqlens` `(` $cu_seqlens_q `,` $cu_seqlens_k `)`
    `scale` `(` $scale `)` (`causal` `(` $causal^ `)`)? attr-dict
    `:` type($query) `,` type($key) `,` type($value) `,`
    type($cu_seqlens_q) `,` type($cu_seqlens_k) `->` type($result)
  }];
  let extraClassDeclaration = [{
    /// Sequences in the batch (B), or ShapedType::kDynamic.
    int64_t getNumSequences();
    /// The problem as the cost model and the kernel chooser see it: B
    /// sequences of the mean lengths ⌈Tq/B⌉ and ⌈Tk/B⌉ (the lengths are
    /// known at run time only; with equal query and key lengths this is a
    /// lower bound on the FLOPs, Σ L_b² ≥ (Σ L_b)²/B); failure for dynamic
    /// shapes or an empty batch.
    ::mlir::FailureOr<::mlir::attn::AttentionShape> getCostShape();
  }];
  let hasVerifier = 1;
}

def Attn_YieldOp : Attn_Op<"yield", [Pure, Terminator,
    ParentOneOf<["AttentionOp", "OnlineAttentionOp"]>]> {
  let summary = "the modified score of a score_mod region";
  let description = [{
    Ends the `score_mod` region of `attn.attention` (and of the
    `attn.online_attention` steps it fuses into) with the new score.
  }];
  let arguments = (ins AnyFloat:$score);
  let assemblyFormat = "$score attr-dict `:` type($score)";
}

//===----------------------------------------------------------------------===//
// The tiled online-softmax form
//===----------------------------------------------------------------------===//

def Attn_OnlineAttentionOp : Attn_Op<"online_attention", [
    Pure, AttrSizedOperandSegments,
    AllTypesMatch<["acc", "new_acc"]>, AllTypesMatch<["max", "new_max"]>,
    AllTypesMatch<["sum", "new_sum"]>]> {
  let summary = "one step of the online-softmax recurrence on a Q and K/V tile";
  let description = [{
    One FlashAttention-2 inner step. A query tile Q: [Bq, d] meets one key and
    value tile K: [Bkv, d], V: [Bkv, dv]. The running state of the Q tile is
    the unnormalized output `acc`: [Bq, dv], the row maximum `max`: [Bq] and the
    row sum `sum`: [Bq], all f32 whatever the input precision. The step is

      S    = Q·Kᵀ·scale (+ mask tile) (-inf where c > r + causal_diagonal)
      m'   = max(m, rowmax S)
      P    = exp(S − m')
      l'   = e^(m − m')·l + rowsum P
      acc' = e^(m − m')·acc + P·V

    and returns (acc', m', l'). After the last K/V tile the output is acc / l.
    Starting from acc = 0, m = -inf, l = 0 this equals softmax(S)·V exactly
    (up to rounding), but only a Bq×Bkv tile of S ever exists.

    `score_mod(%b…, %h, %i0, %j0) { … }`: the attention's score_mod region,
    applied after the scale to tile element (r, c) with the indices
    (b…, h, i0 + r, j0 + c): the batch and head of the tile and its global
    query and key offsets, which the fusion pass passes.

    `causal_diagonal` is the offset δ (an index) such that tile element (r, c)
    is kept iff c ≤ r + δ; the fusion pass computes it from the global tile
    offsets. A row that has seen only -inf scores keeps m = -inf; the step
    then uses 0 in place of m' inside exp so that P = 0 instead of NaN, which
    is how fully masked rows end with l = 0 and output 0.

    Tile sizes are the static extents of the operands; remainder tiles at the
    end of a sequence have dynamic extents.

    ```mlir
    %acc1, %m1, %l1 = attn.online_attention %qt, %kt, %vt scale(1.250000e-01)
        outs(%acc, %m, %l)
        : tensor<64x64xf16>, tensor<32x64xf16>, tensor<32x64xf16>
        -> tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>
    ```
  }];
  // The running state precedes the optional operands so that its operand
  // positions are fixed (result type inference reads them by position).
  let arguments = (ins Attn_FloatTensor:$query, Attn_FloatTensor:$key,
                       Attn_FloatTensor:$value,
                       RankedTensorOf<[F32, F64]>:$acc,
                       RankedTensorOf<[F32, F64]>:$max,
                       RankedTensorOf<[F32, F64]>:$sum,
                       Optional<Attn_MaskTensor>:$mask,
                       Optional<Index>:$causal_diagonal,
                       Variadic<Index>:$score_origin,
                       F64Attr:$scale);
  let results = (outs RankedTensorOf<[F32, F64]>:$new_acc,
                      RankedTensorOf<[F32, F64]>:$new_max,
                      RankedTensorOf<[F32, F64]>:$new_sum);
  let regions = (region AnyRegion:$score_mod);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` `(` $mask^ `:` type($mask) `)`)?
    (`causal_diagonal` `(` $causal_diagonal^ `)`)?
    (`score_mod` `(` $score_origin^ `)` $score_mod)?
    `scale` `(` $scale `)` `outs` `(` $acc `,` $max `,` $sum `)` attr-dict
    `:` type($query) `,` type($key) `,` type($value) `->`
    type($acc) `,` type($max) `,` type($sum)
  }];
  let hasVerifier = 1;
}

#endif // ATTN_DIALECT_ATTN_IR_ATTNOPS_TD

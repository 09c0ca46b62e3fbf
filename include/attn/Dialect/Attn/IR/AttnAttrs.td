//===- AttnAttrs.td - attn dialect enums and attributes ----*- tablegen -*-===//
#ifndef ATTN_DIALECT_ATTN_IR_ATTNATTRS_TD
#define ATTN_DIALECT_ATTN_IR_ATTNATTRS_TD

include "attn/Dialect/Attn/IR/AttnBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

// Where the causal diagonal sits when Lq != Lk. With top_left, query i sees
// keys j <= i (PyTorch's `is_causal`). With bottom_right, query i sees keys
// j <= i + (Lk - Lq): the last query sees every key, which is what a decoder
// with a KV cache needs (FlashAttention-2 >= 2.1 semantics).
def Attn_CausalAlignment : I32EnumAttr<"CausalAlignment",
    "alignment of the causal diagonal", [
      I32EnumAttrCase<"top_left", 0>,
      I32EnumAttrCase<"bottom_right", 1>]> {
  let cppNamespace = "::mlir::attn";
}

// How `attn.mask` changes the scores.
def Attn_MaskKind : I32EnumAttr<"MaskKind", "kind of attention mask", [
      // S + M, with M a float tensor broadcastable to S.
      I32EnumAttrCase<"additive", 0>,
      // select(M, S, -inf), with M an i1 tensor: true keeps the score.
      I32EnumAttrCase<"keep", 1>,
      // -inf above the diagonal; no mask tensor.
      I32EnumAttrCase<"causal", 2>]> {
  let cppNamespace = "::mlir::attn";
}

// The cost model's verdict on one attention op, attached by --attn-io-cost.
def Attn_IOCostAttr : AttrDef<Attn_Dialect, "IOCost"> {
  let mnemonic = "io_cost";
  let summary = "IO cost, roofline verdict and chosen tile sizes of an attention";
  let description = [{
    Written by `--attn-io-cost` on each `attn.attention`. Byte counts are for
    the whole op: `naive_hbm_bytes` for the unfused chain (S and P go through
    DRAM), `fused_sram_l2_bytes` for the tiled kernel's traffic between L2 and
    shared memory, `fused_dram_bytes` for its DRAM traffic. Intensities are
    FLOP per DRAM byte; `ridge` is the target's peak / bandwidth. `block_q` and
    `block_kv` are the tile sizes that `--attn-fuse` and the GPU lowering use
    unless told otherwise.
  }];
  let parameters = (ins
    "::mlir::StringAttr":$target,
    "int64_t":$flops,
    "int64_t":$naive_hbm_bytes,
    "int64_t":$fused_sram_l2_bytes,
    "int64_t":$fused_dram_bytes,
    "::mlir::FloatAttr":$intensity_naive,
    "::mlir::FloatAttr":$intensity_fused,
    "::mlir::FloatAttr":$ridge,
    "::mlir::StringAttr":$bound_naive,
    "::mlir::StringAttr":$bound_fused,
    "int64_t":$block_q,
    "int64_t":$block_kv
  );
  let assemblyFormat = "`<` struct(params) `>`";
}

// The fused GPU kernel's configuration, attached by --attn-io-cost.
def Attn_KernelConfigAttr : AttrDef<Attn_Dialect, "KernelConfig"> {
  let mnemonic = "kernel_config";
  let summary = "the configuration of the fused GPU kernel of an attention";
  let description = [{
    Chosen by `--attn-io-cost` (lib/Analysis/KernelConfig.cpp: the one
    chooser, from the target's chip, the shape and the measured rules) and
    costed there; `--attn-lower-to-gpu` builds exactly this kernel unless a
    pass option says otherwise. `family` is the tensor-core instruction
    family (`"mma.sync"`, sm_80+, or `"wgmma"`, sm_90a); `block_q` query rows
    per CTA; `block_kv` keys per staged K/V tile; `rows_per_warp` query rows
    per warp (16 or 32; 16 with wgmma); `kv_stages` shared-memory K/V stages
    (2, or 3 with wgmma: the P·V wait deferred by a tile); `swizzle`
    XOR-swizzled shared-memory rows (mma.sync); `kv_splits` (default 1) the
    number of key ranges each query tile is split into (flash-decoding: a
    second kernel combines the partial outputs by log-sum-exp);
    `pack_kv_groups` (default false) whether the query heads that share a
    K/V head are rows of one CTA (GQA head packing, for decode); `kv_warps`
    (default 1, mma.sync) the warps that divide each K/V tile's keys, each
    with its own online softmax, combined through shared memory after the
    loop (decode: more warps stream the same staged tiles); `tma_loads`
    (default false, wgmma) whether TMA fills the K/V stages (one thread
    issues each tile's boxes against tensor maps the runtime builds, and
    the stage reports full on an mbarrier) instead of cp.async;
    `producer_warpgroup` (default false, with `tma_loads` and block_q 128)
    whether a third warpgroup of the CTA issues them (warp specialization:
    the two computing warpgroups report each stage empty on an mbarrier
    instead of meeting at a CTA barrier per tile, and take the producer's
    registers through setmaxnreg); `overlap_pv` (default false, with
    `producer_warpgroup`) whether each tile's P·V is issued behind the next
    tile's Q·Kᵀ and waited for after that tile's softmax; `persistent`
    (default false, with `producer_warpgroup` and no split) whether the
    grid holds one CTA per SM slot, each looping over work items (query
    tile, batch · head) while its producer fills the K/V stages across
    them, so that the next item's tiles load during this one's epilogue.

    ```mlir
    #attn.kernel_config<family = "wgmma", block_q = 128, block_kv = 128,
                        rows_per_warp = 16, kv_stages = 3, swizzle = false>
    ```
  }];
  let parameters = (ins
    "::mlir::StringAttr":$family,
    "int64_t":$block_q,
    "int64_t":$block_kv,
    "int64_t":$rows_per_warp,
    "int64_t":$kv_stages,
    "bool":$swizzle,
    DefaultValuedParameter<"int64_t", "1">:$kv_splits,
    DefaultValuedParameter<"bool", "false">:$pack_kv_groups,
    DefaultValuedParameter<"int64_t", "1">:$kv_warps,
    DefaultValuedParameter<"bool", "false">:$tma_loads,
    DefaultValuedParameter<"bool", "false">:$producer_warpgroup,
    DefaultValuedParameter<"bool", "false">:$overlap_pv,
    DefaultValuedParameter<"bool", "false">:$persistent
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // ATTN_DIALECT_ATTN_IR_ATTNATTRS_TD

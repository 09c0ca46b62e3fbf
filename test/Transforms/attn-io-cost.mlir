// RUN: attn-opt %s -split-input-file --attn-io-cost | FileCheck %s
// RUN: attn-opt %s -split-input-file --attn-io-cost="target=a100" | FileCheck %s --check-prefix=A100
// RUN: attn-opt %s -split-input-file --attn-io-cost="sram-bytes=16384" | FileCheck %s --check-prefix=SMALL
// RUN: attn-opt %s -split-input-file --attn-io-cost="block-q=128 block-kv=128" | FileCheck %s --check-prefix=FA2
// RUN: attn-opt %s -split-input-file --attn-io-cost="kv-loads=cp.async" | FileCheck %s --check-prefix=CPASYNC

// The ANCHORS.md counter case: B=1, H=16, N=4096, d=64, bf16, on the H200.
// Q+K+V read once (25165824 B) + O written (8388608 B) = 33554432 B of DRAM.
// Tiles: the kernel the GPU lowering builds for the H200 (sm_90a: wgmma
// with TMA loads, 128 x 128 at d = 64 non-causal with whole tiles, the
// chooser's measured rule, v32c), recorded as #attn.kernel_config and
// costed: 32 query tiles per head each stream K/V (64-row tiles, the
// causal rule, would stream them 64 times: twice the L2->SM bytes).
// CHECK-LABEL: func.func @fa2_anchor
// CHECK: attn.attention
// CHECK-SAME: io_cost = #attn.io_cost<target = "h200", flops = 68719476736,
// CHECK-SAME: naive_hbm_bytes = 2181038080, fused_sram_l2_bytes = 553648128,
// CHECK-SAME: fused_dram_bytes = 33554432,
// CHECK-SAME: bound_naive = "memory", bound_fused = "compute", block_q = 128, block_kv = 128>
// CHECK-SAME: kernel_config = #attn.kernel_config<family = "wgmma", block_q = 128, block_kv = 128, rows_per_warp = 16, kv_stages = 2, swizzle = false, tma_loads = true>
// CPASYNC-LABEL: func.func @fa2_anchor
// CPASYNC: fused_sram_l2_bytes = 553648128,
// CPASYNC-SAME: kernel_config = #attn.kernel_config<family = "wgmma", block_q = 128, block_kv = 128, rows_per_warp = 16, kv_stages = 2, swizzle = false>
// SMALL-LABEL: func.func @fa2_anchor
// M = 16 KB holds no GPU kernel's tiles (no kernel_config): the cost is for
// FlashAttention's rule. Bc = ceil(8192/256) = 32, Br = 32; 2·(32·64 +
// 2·32·128) > 16384, so Br halves to 16, then Bc to 16: 2·(16·64 + 2·16·128)
// = 10240.
// SMALL: block_q = 16, block_kv = 16>
// SMALL-NOT: kernel_config
func.func @fa2_anchor(%q: tensor<1x16x4096x64xbf16>) -> tensor<1x16x4096x64xbf16> {
  %o = attn.attention %q, %q, %q scale(0.125)
      : tensor<1x16x4096x64xbf16>, tensor<1x16x4096x64xbf16>, tensor<1x16x4096x64xbf16>
      -> tensor<1x16x4096x64xbf16>
  return %o : tensor<1x16x4096x64xbf16>
}

// -----

// The seeds' example: N = 16384, d = 64, fp16 on the A100 (ridge 161.2).
// A100-LABEL: func.func @seed_n16384
// sm_80: the mma.sync kernel, 128 x 64 with 32 rows per warp at d = 64.
// The fused DRAM bytes are the seeds' Q + K + V + O (8388608) plus the 3
// splits' f32 partial outputs and row statistics (m, ℓ), written and read
// back (2·3·16384·66·4 = 25952256).
// A100: flops = 68719476736, naive_hbm_bytes = 2155872256, fused_sram_l2_bytes = 567017472, fused_dram_bytes = 34340864
// A100-SAME: ridge = 161.2403{{[0-9]*}} : f64, bound_naive = "memory", bound_fused = "compute", block_q = 128, block_kv = 64>
// One head of 128 query tiles fills 128 of the 216 CTAs the A100 holds at
// once: the keys are split 3 ways (1.8 waves instead of 0.6).
// A100-SAME: kernel_config = #attn.kernel_config<family = "mma.sync", block_q = 128, block_kv = 64, rows_per_warp = 32, kv_stages = 2, swizzle = false, kv_splits = 3>
func.func @seed_n16384(%q: tensor<16384x64xf16>) -> tensor<16384x64xf16> {
  %o = attn.attention %q, %q, %q scale(0.125)
      : tensor<16384x64xf16>, tensor<16384x64xf16>, tensor<16384x64xf16> -> tensor<16384x64xf16>
  return %o : tensor<16384x64xf16>
}

// -----

// Decode with GQA: one query token, Hq=64, Hkv=8, L=4096, d=128. Intensity
// is about (Hq/Hkv)·Lq = 8 FLOP/B: memory-bound even when fused. The
// kernel packs the 8 query heads of each K/V head into one 16-row tile and
// splits the keys 8 ways (the streaming model of KVSplitModels.cpp: 8
// CTAs would leave most of the 132 SMs idle; 64, one per TPC, ask the
// H200's DRAM for nearly what it gives; 65-127 double up some TPCs beside
// single ones, which streams slower, and 11 or 16 splits gain less than
// 3% once each split costs the combine a trip per row), each CTA's
// 128-key tiles divided between 4 key warps (a tile pair copies in as long
// on 4 as on 8: bench/NOTES.md v68, v69); the splits' f32 partial outputs
// and (m, ℓ), written and read back (8·64·130·4 B each way), bring the
// intensity to 7.74. On the H200 (sm_90a) TMA boxes fill the stages
// (tma_loads).
// CHECK-LABEL: func.func @decode_gqa
// CHECK: intensity_fused = 7.739{{[0-9]*}} : f64
// CHECK-SAME: bound_naive = "memory", bound_fused = "memory"
// CHECK-SAME: kernel_config = #attn.kernel_config<family = "mma.sync", block_q = 16, block_kv = 128, rows_per_warp = 16, kv_stages = 2, swizzle = false, kv_splits = 8, pack_kv_groups = true, kv_warps = 4, tma_loads = true>
func.func @decode_gqa(%q: tensor<1x64x1x128xbf16>, %kv: tensor<1x8x4096x128xbf16>) -> tensor<1x64x1x128xbf16> {
  %o = attn.attention %q, %kv, %kv scale(0.088)
      : tensor<1x64x1x128xbf16>, tensor<1x8x4096x128xbf16>, tensor<1x8x4096x128xbf16>
      -> tensor<1x64x1x128xbf16>
  return %o : tensor<1x64x1x128xbf16>
}

// -----

// Causal halves the FLOPs (convention) and skips K/V tiles above the diagonal:
// query tile i (128 rows, two CTAs per SM since v33) reads (i+1)·128 keys,
// 67584 in all, so SRAM<-L2 = 2·16·(2·4096·64 + 67584·128) = 293601280.
// CHECK-LABEL: func.func @causal
// CHECK: flops = 34359738368, naive_hbm_bytes = 2181038080, fused_sram_l2_bytes = 293601280
func.func @causal(%q: tensor<1x16x4096x64xbf16>) -> tensor<1x16x4096x64xbf16> {
  %o = attn.attention %q, %q, %q scale(0.125) causal(top_left)
      : tensor<1x16x4096x64xbf16>, tensor<1x16x4096x64xbf16>, tensor<1x16x4096x64xbf16>
      -> tensor<1x16x4096x64xbf16>
  return %o : tensor<1x16x4096x64xbf16>
}

// -----

// Negative: the graph primitives are reported, not annotated; dynamic
// attention is left alone (see attn-io-cost-diagnostics.mlir for its warning).
// CHECK-LABEL: func.func @primitives_untouched
// CHECK-NOT: io_cost
// CHECK: return
func.func @primitives_untouched(%q: tensor<128x64xf32>) -> tensor<128x128xf32> {
  %s = attn.matmul %q, %q transpose_rhs : tensor<128x64xf32>, tensor<128x64xf32> -> tensor<128x128xf32>
  %p = attn.softmax %s dim 1 : tensor<128x128xf32>
  return %p : tensor<128x128xf32>
}

// -----

// Costing a given kernel's tiles (FlashAttention-2 runs 128x128 at d=64):
// SRAM<-L2 = 2·16·(2·4096·64 + 32·4096·128) = 553648128.
// FA2-LABEL: func.func @fixed_tiles
// FA2: fused_sram_l2_bytes = 553648128, {{.*}} block_q = 128, block_kv = 128>
func.func @fixed_tiles(%q: tensor<1x16x4096x64xbf16>) -> tensor<1x16x4096x64xbf16> {
  %o = attn.attention %q, %q, %q scale(0.125)
      : tensor<1x16x4096x64xbf16>, tensor<1x16x4096x64xbf16>, tensor<1x16x4096x64xbf16>
      -> tensor<1x16x4096x64xbf16>
  return %o : tensor<1x16x4096x64xbf16>
}

// -----

// A paged attention is costed as the contiguous one with every sequence
// full (Lk = max_pages · page_size = 128): the same FLOPs and bytes as
// @paged_as_contiguous below. Its 16-token pages are filled by TMA boxes,
// one per page of a tile, as the contiguous K/V's stages are, and its
// kernel is the contiguous one's: 8 key warps on 128-key tiles
// (bench/NOTES.md v42; the unit tests compare the choices, and the row
// copies' with the block-table lookups charged).
// CHECK-LABEL: func.func @paged_decode
// CHECK: attn.paged_attention {{.*}} {io_cost = #attn.io_cost<target = "h200", flops = [[FLOPS:[0-9]+]], naive_hbm_bytes = [[NAIVE:[0-9]+]], fused_sram_l2_bytes = [[SRAM:[0-9]+]],
// CHECK-SAME: kernel_config = #attn.kernel_config<family = "mma.sync", block_q = 16, block_kv = 128, {{.*}} kv_warps = 8, tma_loads = true>}
// CHECK-LABEL: func.func @paged_as_contiguous
// CHECK: attn.attention {{.*}} {io_cost = #attn.io_cost<target = "h200", flops = [[FLOPS]], naive_hbm_bytes = [[NAIVE]], fused_sram_l2_bytes = [[SRAM]],
// CHECK-SAME: kernel_config = #attn.kernel_config<family = "mma.sync", block_q = 16, block_kv = 128, {{.*}} kv_warps = 8, tma_loads = true>
func.func @paged_decode(%q: tensor<2x4x1x64xf16>, %kc: tensor<16x16x2x64xf16>, %vc: tensor<16x16x2x64xf16>, %t: tensor<2x8xi32>, %l: tensor<2xi32>) -> tensor<2x4x1x64xf16> {
  %o = attn.paged_attention %q, %kc, %vc pages(%t, %l) scale(0.125) causal(bottom_right) : tensor<2x4x1x64xf16>, tensor<16x16x2x64xf16>, tensor<16x16x2x64xf16>, tensor<2x8xi32>, tensor<2xi32> -> tensor<2x4x1x64xf16>
  return %o : tensor<2x4x1x64xf16>
}
func.func @paged_as_contiguous(%q: tensor<2x4x1x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>) -> tensor<2x4x1x64xf16> {
  %o = attn.attention %q, %k, %v scale(0.125) causal(bottom_right) : tensor<2x4x1x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16> -> tensor<2x4x1x64xf16>
  return %o : tensor<2x4x1x64xf16>
}

// -----

// A packed batch is costed as B sequences of the mean lengths (4 of 2048
// tokens here, so exactly @varlen_as_contiguous below), and its kernel is
// never split along the keys. (With cp.async loads on both: TMA, the
// default for the dense twin, takes no packed batch.)
// CPASYNC-LABEL: func.func @varlen_prefill
// CPASYNC: attn.varlen_attention {{.*}} {io_cost = #attn.io_cost<target = "h200", flops = [[FLOPS:[0-9]+]], naive_hbm_bytes = [[NAIVE:[0-9]+]], fused_sram_l2_bytes = [[SRAM:[0-9]+]],
// CPASYNC-SAME: kernel_config = #attn.kernel_config<[[CONFIG:.*]]>}
// CPASYNC-LABEL: func.func @varlen_as_contiguous
// CPASYNC: attn.attention {{.*}} {io_cost = #attn.io_cost<target = "h200", flops = [[FLOPS]], naive_hbm_bytes = [[NAIVE]], fused_sram_l2_bytes = [[SRAM]],
// CPASYNC-SAME: kernel_config = #attn.kernel_config<[[CONFIG]]>}
// CHECK-LABEL: func.func @varlen_prefill
// CHECK: kernel_config = #attn.kernel_config<family = "wgmma", {{.*}}swizzle = false>}
// CHECK-LABEL: func.func @varlen_as_contiguous
// CHECK: tma_loads = true>}
func.func @varlen_prefill(%q: tensor<8192x16x64xf16>, %cq: tensor<5xi32>, %ck: tensor<5xi32>) -> tensor<8192x16x64xf16> {
  %o = attn.varlen_attention %q, %q, %q seqlens(%cq, %ck) scale(0.125) : tensor<8192x16x64xf16>, tensor<8192x16x64xf16>, tensor<8192x16x64xf16>, tensor<5xi32>, tensor<5xi32> -> tensor<8192x16x64xf16>
  return %o : tensor<8192x16x64xf16>
}
func.func @varlen_as_contiguous(%q: tensor<4x16x2048x64xf16>) -> tensor<4x16x2048x64xf16> {
  %o = attn.attention %q, %q, %q scale(0.125) : tensor<4x16x2048x64xf16>, tensor<4x16x2048x64xf16>, tensor<4x16x2048x64xf16> -> tensor<4x16x2048x64xf16>
  return %o : tensor<4x16x2048x64xf16>
}

// -----

// Decode over a packed batch: the contiguous decode of the mean shape
// would split its keys (flash-decoding); the packed one is never split.
// CHECK-LABEL: func.func @varlen_decode
// CHECK: attn.varlen_attention {{.*}}kernel_config = #attn.kernel_config<family = "mma.sync",
// CHECK-NOT: kv_splits
// CHECK: return
func.func @varlen_decode(%q: tensor<2x32x128xbf16>, %k: tensor<32768x8x128xbf16>, %cq: tensor<3xi32>, %ck: tensor<3xi32>) -> tensor<2x32x128xbf16> {
  %o = attn.varlen_attention %q, %k, %k seqlens(%cq, %ck) scale(0.088) causal(bottom_right) : tensor<2x32x128xbf16>, tensor<32768x8x128xbf16>, tensor<32768x8x128xbf16>, tensor<3xi32>, tensor<3xi32> -> tensor<2x32x128xbf16>
  return %o : tensor<2x32x128xbf16>
}


// -----

// A sliding window beside the causal diagonal (keys i − 96 .. i, Mistral's
// W = 97) at B = 1, H = 4, N = 777, d = 96: each 128-row query tile visits
// at most two K/V tiles, and the model counts only those (the kernels skip
// the rest). SRAM <- L2: Q and O (2·596736) plus K/V of 4 heads ×
// (128 + 5·256 + 137) visited keys × 192 columns × 2 bytes = 3566592. The
// 28 CTAs would be split 3 ways without the window (the next function);
// with it every split of Lk is wider than a query tile's band, so no split
// shortens a CTA and the keys are not split.
// CHECK-LABEL: func.func @window_band
// CHECK: fused_sram_l2_bytes = 3566592,
// CHECK-NOT: kv_splits
// CHECK-SAME: tma_loads = true, producer_warpgroup = true, overlap_pv = true>
// CHECK-LABEL: func.func @causal_only
// CHECK: fused_sram_l2_bytes = 13825728,
// CHECK-SAME: kv_splits = 3,
func.func @window_band(%q: tensor<1x4x777x96xbf16>) -> tensor<1x4x777x96xbf16> {
  %o = attn.attention %q, %q, %q scale(0.125) causal(top_left) score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %w = arith.constant 97 : index
    %jw = arith.addi %j, %w : index
    %keep = arith.cmpi ugt, %jw, %i : index
    %ninf = arith.constant 0xFF800000 : f32
    %y = arith.select %keep, %s, %ninf : f32
    attn.yield %y : f32
  } : tensor<1x4x777x96xbf16>, tensor<1x4x777x96xbf16>, tensor<1x4x777x96xbf16> -> tensor<1x4x777x96xbf16>
  return %o : tensor<1x4x777x96xbf16>
}

func.func @causal_only(%q: tensor<1x4x777x96xbf16>) -> tensor<1x4x777x96xbf16> {
  %o = attn.attention %q, %q, %q scale(0.125) causal(top_left)
      : tensor<1x4x777x96xbf16>, tensor<1x4x777x96xbf16>, tensor<1x4x777x96xbf16> -> tensor<1x4x777x96xbf16>
  return %o : tensor<1x4x777x96xbf16>
}

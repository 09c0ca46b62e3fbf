// RUN: attn-opt %s -split-input-file --attn-lower-to-gpu | FileCheck %s
// RUN: attn-opt %s -split-input-file --attn-io-cost --attn-lower-to-gpu | FileCheck %s --check-prefix=COSTED
// RUN: not attn-opt %s -split-input-file --attn-lower-to-gpu="kv-splits=2" 2>&1 | FileCheck %s --check-prefix=SPLIT
// Packed variable-length batches (attn.varlen_attention) run on the
// tensor-core kernels with [T, H, d] operands and the cumulative lengths
// as the last two parameters. The grid is fixed at compile time: x holds
// ⌊G·Tq/Br⌋ + B + 2 tiles (G = 4 heads packed per row space, Tq = 96,
// Br = 64: 6 + 3 + 2 = 11), y the K/V heads; each CTA finds its sequence
// by a binary search of ⌈log2(B + 2)⌉ = 3 steps over the sequences' first
// tiles (PackedSequences.cpp).
// SPLIT: error: attn-lower-to-gpu: a packed variable-length batch is not split along the keys (no combine kernel takes packed rows): kv-splits must be 1, got 2

// CHECK-LABEL: gpu.module @attn_fa2_mma_bf16_b3_h8_kv2_q96_k128_d64_v64_causal_br_bq64_bk64_w16_pack_varlen_module
// CHECK: gpu.func @attn_fa2_mma_bf16_b3_h8_kv2_q96_k128_d64_v64_causal_br_bq64_bk64_w16_pack_varlen(
// CHECK-SAME: %[[Q:.*]]: memref<96x8x64xbf16>, %[[K:.*]]: memref<128x2x64xbf16>, %[[V:.*]]: memref<128x2x64xbf16>, %[[O:.*]]: memref<96x8x64xbf16>, %[[CUQ:.*]]: memref<4xi32>, %[[CUK:.*]]: memref<4xi32>)
// Causal: the flat tile index counts down (longest tiles first).
// CHECK: %[[X:.*]] = arith.subi %c10, %block_id_x
// The search: segments [0, B + 2) = [0, 5), 3 halvings.
// CHECK: %[[SEG:.*]]:2 = scf.for %{{.*}} = %{{.*}} to %c3 step %{{.*}} iter_args(%{{.*}} = %c0, %{{.*}} = %c5)
// A segment bound: cu_q read at a clamped index and clamped into [0, Tq].
// CHECK: memref.load %[[CUQ]][%{{.*}}] : memref<4xi32>
// CHECK: arith.maxsi
// CHECK: arith.minsi %{{.*}}, %c96
// first(s) = ⌊4·t_s / 64⌋ + s, compared with the CTA's tile.
// CHECK: arith.muli %{{.*}}, %c4
// CHECK: arith.divui %{{.*}}, %c64
// CHECK: arith.cmpi ule, %{{.*}}, %[[X]]
// CHECK: scf.yield
// The sequence's keys from cu_k (clamped into [0, Tk]).
// CHECK: memref.load %[[CUK]]
// CHECK: arith.minsi %{{.*}}, %c128
// CHECK: memref.load %[[CUK]]
// K rows past the sequence's keys read 0 bytes; every token address is
// clamped into the packed tensor.
// CHECK: %[[N:.*]] = arith.select %{{.*}}, %c8{{.*}}, %c0{{.*}} : index
// CHECK: %[[TOK:.*]] = arith.minui %{{.*}}, %c127
// CHECK: nvgpu.device_async_copy %[[K]][%[[TOK]], %{{.*}}, %{{.*}}], %{{.*}}, 8, %[[N]] {bypassL1}
// O rows go to clamped tokens of the packed output.
// CHECK: %[[OTOK:.*]] = arith.minui %{{.*}}, %c95
// CHECK: vector.store %{{.*}}, %[[O]][%[[OTOK]], %{{.*}}, %{{.*}}] {alignment = 4 : i64} : memref<96x8x64xbf16>
// CHECK: func.func @varlen
// CHECK: gpu.launch_func @attn_fa2_mma_bf16_b3_h8_kv2_q96_k128_d64_v64_causal_br_bq64_bk64_w16_pack_varlen_module::@attn_fa2_mma_bf16_b3_h8_kv2_q96_k128_d64_v64_causal_br_bq64_bk64_w16_pack_varlen blocks in (%c11, %c2, %c1)
// CHECK-SAME: args(%{{.*}} : memref<96x8x64xbf16>, %{{.*}} : memref<128x2x64xbf16>, %{{.*}} : memref<128x2x64xbf16>, %{{.*}} : memref<96x8x64xbf16>, %{{.*}} : memref<4xi32>, %{{.*}} : memref<4xi32>)
// CHECK-NOT: attn.varlen_attention
func.func @varlen(%q: tensor<96x8x64xbf16>, %k: tensor<128x2x64xbf16>, %cq: tensor<4xi32>, %ck: tensor<4xi32>) -> tensor<96x8x64xbf16> {
  %o = attn.varlen_attention %q, %k, %k seqlens(%cq, %ck) scale(0.125) causal(bottom_right) : tensor<96x8x64xbf16>, tensor<128x2x64xbf16>, tensor<128x2x64xbf16>, tensor<4xi32>, tensor<4xi32> -> tensor<96x8x64xbf16>
  return %o : tensor<96x8x64xbf16>
}

// -----

// Prefill-like batches, costed for the H200 (--attn-io-cost: B sequences of
// the mean lengths), take wgmma; MHA is not packed: the heads go to y (16),
// x = ⌊8192/128⌋ + 4 + 2 = 70 tiles. The result keeps the packed rank 3.
// COSTED-LABEL: gpu.module @attn_fa2_wgmma_f16_b4_h16_kv16_q8192_k8192_d64_v64_bq128_bk128_w16_varlen_module
// COSTED: func.func @prefill
// COSTED: gpu.launch_func {{.*}} blocks in (%c70, %c16, %c1)
// COSTED: return %{{.*}} : tensor<8192x16x64xf16>
func.func @prefill(%q: tensor<8192x16x64xf16>, %cq: tensor<5xi32>, %ck: tensor<5xi32>) -> tensor<8192x16x64xf16> {
  %o = attn.varlen_attention %q, %q, %q seqlens(%cq, %ck) scale(0.125) : tensor<8192x16x64xf16>, tensor<8192x16x64xf16>, tensor<8192x16x64xf16>, tensor<5xi32>, tensor<5xi32> -> tensor<8192x16x64xf16>
  return %o : tensor<8192x16x64xf16>
}

// RUN: attn-opt %s -split-input-file --attn-lower-to-gpu | FileCheck %s
// Paged KV cache: attn.paged_attention lowers to the decode kernel with the
// pools, the block table and the lengths as parameters. Per staged tile
// the producer loads one block-table entry per page the tile spans (4 for
// 16-token pages and 64-key tiles), shared by the K and V copies, and every
// copy reads 8 elements only for keys inside the sequence (cp.async zero-
// fills the rest). The kernel is pinned (one warp on 64-key tiles) by its
// recorded configuration.

// CHECK-LABEL: gpu.module @attn_fa2_mma_f16_b2_h4_kv2_q1_k128_d64_v64_causal_br_bq16_bk64_w16_pack_paged16x16_module
// CHECK: gpu.func @attn_fa2_mma_f16_b2_h4_kv2_q1_k128_d64_v64_causal_br_bq16_bk64_w16_pack_paged16x16(
// CHECK-SAME: %[[Q:.*]]: memref<2x4x1x64xf16>, %[[K:.*]]: memref<16x16x2x64xf16>, %[[V:.*]]: memref<16x16x2x64xf16>, %[[O:.*]]: memref<2x4x1x64xf16>, %[[T:.*]]: memref<2x8xi32>, %[[L:.*]]: memref<2xi32>)
// The sequence's length, clamped to [0, capacity].
// CHECK: %[[LEN:.*]] = memref.load %[[L]][%{{.*}}] : memref<2xi32>
// CHECK: arith.index_cast %[[LEN]] : i32 to index
// CHECK: arith.maxsi
// CHECK: arith.minsi %{{.*}}, %c128
// The first tile's first page: the entry clamped to the sequence's last page.
// CHECK: %[[E0:.*]] = memref.load %[[T]][%{{.*}}, %{{.*}}] : memref<2x8xi32>
// CHECK: %[[PAGE0:.*]] = arith.index_cast %[[E0]] : i32 to index
// CHECK: %[[IN:.*]] = arith.cmpi ult
// CHECK: %[[N:.*]] = arith.select %[[IN]], %c8{{.*}}, %c0{{.*}} : index
// CHECK: nvgpu.device_async_copy %[[K]][%[[PAGE0]], %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}}, 8, %[[N]] {bypassL1}
// CHECK-COUNT-3: memref.load %[[T]]
// The V copies reuse the K copies' pages.
// CHECK-NOT: memref.load %[[T]]
// CHECK: nvgpu.device_async_copy %[[V]][%[[PAGE0]],
// CHECK: func.func @decode
// CHECK: gpu.launch_func @attn_fa2_mma_f16_b2_h4_kv2_q1_k128_d64_v64_causal_br_bq16_bk64_w16_pack_paged16x16_module::@attn_fa2_mma_f16_b2_h4_kv2_q1_k128_d64_v64_causal_br_bq16_bk64_w16_pack_paged16x16
// CHECK-SAME: args(%{{.*}} : memref<2x4x1x64xf16>, %{{.*}} : memref<16x16x2x64xf16>, %{{.*}} : memref<16x16x2x64xf16>, %{{.*}} : memref<2x4x1x64xf16>, %{{.*}} : memref<2x8xi32>, %{{.*}} : memref<2xi32>)
// CHECK-NOT: attn.paged_attention
func.func @decode(%q: tensor<2x4x1x64xf16>, %kc: tensor<16x16x2x64xf16>, %vc: tensor<16x16x2x64xf16>, %t: tensor<2x8xi32>, %l: tensor<2xi32>) -> tensor<2x4x1x64xf16> {
  %o = attn.paged_attention %q, %kc, %vc pages(%t, %l) scale(0.125) causal(bottom_right) {kernel_config = #attn.kernel_config<family = "mma.sync", block_q = 16, block_kv = 64, rows_per_warp = 16, kv_stages = 2, swizzle = false, pack_kv_groups = true>} : tensor<2x4x1x64xf16>, tensor<16x16x2x64xf16>, tensor<16x16x2x64xf16>, tensor<2x8xi32>, tensor<2xi32> -> tensor<2x4x1x64xf16>
  return %o : tensor<2x4x1x64xf16>
}

// -----

// Split-KV over a long paged sequence: the workspace and the combine kernel
// as for contiguous K/V; the block table and lengths go to the attention
// kernel only.
// CHECK-LABEL: gpu.module @attn_fa2_mma_bf16_b1_h8_kv1_q1_k16384_d128_v128_bq16_bk{{[0-9]+}}_w16_pack_split{{[0-9]+}}{{(_kw[0-9])?}}_paged128x128_module
// CHECK: gpu.func @{{.*}}_combine(
// CHECK: func.func @long
// CHECK: gpu.launch_func
// CHECK-SAME: memref<1x128xi32>, %{{.*}} : memref<1xi32>)
// CHECK: gpu.launch_func @{{.*}}_combine
func.func @long(%q: tensor<1x8x1x128xbf16>, %kc: tensor<128x128x1x128xbf16>, %vc: tensor<128x128x1x128xbf16>, %t: tensor<1x128xi32>, %l: tensor<1xi32>) -> tensor<1x8x1x128xbf16> {
  %o = attn.paged_attention %q, %kc, %vc pages(%t, %l) scale(0.0883883461) : tensor<1x8x1x128xbf16>, tensor<128x128x1x128xbf16>, tensor<128x128x1x128xbf16>, tensor<1x128xi32>, tensor<1xi32> -> tensor<1x8x1x128xbf16>
  return %o : tensor<1x8x1x128xbf16>
}

// -----

// Pages of 4 tokens are smaller than the 8 rows a 2-warp step of a d = 64
// tile copies: the page is looked up per row, for every K and V chunk
// (4 of each per thread and 32-key tile; 64-key tiles, the pick before the
// register estimate charged the zero-fill sizes, spilled 16 bytes).
// CHECK-LABEL: gpu.func @attn_fa2_mma_f16_b1_h4_kv4_q64_k256_d64_v64_causal_br_bq64_bk32_w32_split4_paged4x64(
// CHECK-COUNT-8: memref.load %{{.*}} : memref<1x64xi32>
// CHECK: nvgpu.device_async_create_group
func.func @small_pages(%q: tensor<1x4x64x64xf16>, %kc: tensor<64x4x4x64xf16>, %vc: tensor<64x4x4x64xf16>, %t: tensor<1x64xi32>, %l: tensor<1xi32>) -> tensor<1x4x64x64xf16> {
  %o = attn.paged_attention %q, %kc, %vc pages(%t, %l) scale(0.125) causal(bottom_right) : tensor<1x4x64x64xf16>, tensor<64x4x4x64xf16>, tensor<64x4x4x64xf16>, tensor<1x64xi32>, tensor<1xi32> -> tensor<1x4x64x64xf16>
  return %o : tensor<1x4x64x64xf16>
}

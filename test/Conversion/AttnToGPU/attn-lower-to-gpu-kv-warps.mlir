// RUN: attn-opt %s -split-input-file --attn-lower-to-gpu | FileCheck %s
// RUN: attn-opt %s -split-input-file --attn-lower-to-gpu="kv-warps=1 kv-splits=1" | FileCheck %s --check-prefix=ONE

// Key warps (kv-warps): the 64-key tiles of this decode kernel are divided
// between 4 warps of 16 keys each (known_block_size 128 = 4 warps of one
// 16-row tile), all of which copy the tiles. Warp w's keys start at
// w · 16 of every tile (warp id / row warps · 16), for the scores (K rows)
// and for P·V (V rows through ldmatrix.trans). After the loop the warps
// combine their (O, m, l) in the K/V stages viewed as f32: [4, 16, 136]
// partial outputs (padded rows), then [2, 4, 16] row maxima and sums, with
// a barrier before each step and one before the shares are summed.
// CHECK-LABEL: gpu.func @attn_fa2_mma_bf16_b1_h8_kv2_q1_k4096_d64_v64_bq16_bk64_w16_pack_kw4(
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK: %[[TID:.+]] = gpu.thread_id  x
// CHECK: %[[WARP:.+]] = arith.divui %[[TID]], %c32
// CHECK: %[[KW:.+]] = arith.divui %[[WARP]], %c1
// CHECK: %[[KEY0:.+]] = arith.muli %[[KW]], %c16
// CHECK: scf.for
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 2 : i32, transpose = true}
// CHECK: } {{.*}}
// CHECK: gpu.barrier
// CHECK: memref.view {{.*}} to memref<4x16x72xf32, #gpu.address_space<workgroup>>
// CHECK: memref.view {{.*}} to memref<2x4x16xf32, #gpu.address_space<workgroup>>
// CHECK: memref.store {{.*}} : memref<2x4x16xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: memref.load {{.*}} : memref<2x4x16xf32, #gpu.address_space<workgroup>>
// CHECK: arith.maximumf
// CHECK: vector.store {{.*}} : memref<4x16x72xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// CHECK: gpu.barrier
// CHECK: vector.load {{.*}} : memref<4x16x72xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// CHECK: vector.store {{.*}} : memref<1x8x1x64xbf16>, vector<2xbf16>
// CHECK: gpu.return
// CHECK-LABEL: func.func @decode
// CHECK: gpu.launch_func {{.*}} threads in (%c128{{.*}}, {{.*}}) dynamic_shared_memory_size
// One warp per row slice (kv-warps=1): no combine.
// ONE: gpu.func @attn_fa2_mma_bf16_b1_h8_kv2_q1_k4096_d64_v64_bq16_bk64_w16_pack(
// ONE-SAME: known_block_size = array<i32: 32, 1, 1>
// ONE-NOT: memref<4x16x72xf32
// ONE: gpu.return
func.func @decode(%q: tensor<1x8x1x64xbf16>, %kv: tensor<1x2x4096x64xbf16>) -> tensor<1x8x1x64xbf16> {
  %o = attn.attention %q, %kv, %kv scale(0.125) {kernel_config = #attn.kernel_config<family = "mma.sync", block_q = 16, block_kv = 64, rows_per_warp = 16, kv_stages = 2, swizzle = false, pack_kv_groups = true, kv_warps = 4>}
      : tensor<1x8x1x64xbf16>, tensor<1x2x4096x64xbf16>, tensor<1x2x4096x64xbf16> -> tensor<1x8x1x64xbf16>
  return %o : tensor<1x8x1x64xbf16>
}

// -----

// With split-KV too: each split's warps combine first, and only the first
// key warp stores the split's (m, l).
// CHECK-LABEL: gpu.func @attn_fa2_mma_bf16_b1_h8_kv2_q1_k4096_d64_v64_bq16_bk128_w16_pack_split4_kw2(
// CHECK-SAME: known_block_size = array<i32: 64, 1, 1>
// CHECK: memref.view {{.*}} to memref<2x16x72xf32, #gpu.address_space<workgroup>>
// CHECK: arith.cmpi eq, %{{.*}}, %c0
// CHECK-NEXT: scf.if
// CHECK: memref.store {{.*}} : memref<4x1x8x1x2xf32>
// CHECK: memref.store {{.*}} : memref<4x1x8x1x2xf32>
// CHECK: gpu.func @{{.*}}_split4_kw2_combine(
func.func @decode_split(%q: tensor<1x8x1x64xbf16>, %kv: tensor<1x2x4096x64xbf16>) -> tensor<1x8x1x64xbf16> {
  %o = attn.attention %q, %kv, %kv scale(0.125) {kernel_config = #attn.kernel_config<family = "mma.sync", block_q = 16, block_kv = 128, rows_per_warp = 16, kv_stages = 2, swizzle = false, kv_splits = 4, pack_kv_groups = true, kv_warps = 2>}
      : tensor<1x8x1x64xbf16>, tensor<1x2x4096x64xbf16>, tensor<1x2x4096x64xbf16> -> tensor<1x8x1x64xbf16>
  return %o : tensor<1x8x1x64xbf16>
}

// -----

// Negative: a prefill kernel the chooser builds keeps one warp per row
// slice (the warps split the rows, not the keys).
// CHECK-LABEL: gpu.func @attn_fa2_mma_bf16_b16_h16_kv16_q1024_k1024_d64_v64_bq128_bk64_w32(
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK-NOT: xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.return
func.func @prefill(%q: tensor<16x16x1024x64xbf16>) -> tensor<16x16x1024x64xbf16> {
  %o = attn.attention %q, %q, %q scale(0.125)
      : tensor<16x16x1024x64xbf16>, tensor<16x16x1024x64xbf16>, tensor<16x16x1024x64xbf16> -> tensor<16x16x1024x64xbf16>
  return %o : tensor<16x16x1024x64xbf16>
}

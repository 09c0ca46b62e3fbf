// RUN: attn-opt %s -split-input-file --attn-lower-to-gpu="kv-splits=1" | FileCheck %s
// RUN: attn-opt %s -split-input-file --attn-lower-to-gpu | FileCheck %s --check-prefix=REC
// RUN: attn-opt %s -split-input-file --attn-lower-to-gpu="block-q=64 kv-splits=1" | FileCheck %s --check-prefix=BQ64
// RUN: attn-opt %s -split-input-file --attn-lower-to-gpu="rows-per-warp=16 block-kv=64 kv-splits=1" | FileCheck %s --check-prefix=W16
// RUN: attn-opt %s -split-input-file --attn-lower-to-gpu="swizzle=true kv-splits=1" | FileCheck %s --check-prefix=SWZ
// RUN: attn-opt %s -split-input-file --attn-lower-to-gpu="mma=wgmma kv-splits=1 kv-loads=cp.async" | FileCheck %s --check-prefix=WG

// Split-KV and GQA head packing have their own test
// (attn-lower-to-gpu-split-kv.mlir); the runs here ask for kv-splits=1,
// where the wave model would split these small grids, but for REC.
// One kernel per attention, in its own gpu.module, launched over
// (Lq / block_q, B * Hq) CTAs of 32 * block_q / rows_per_warp threads. By
// default 4 warps of 32 rows; at d = 64 the Q fragments stay in registers and
// the K/V tiles hold 64 keys.
// The launch manifest, keyed by the kernel's gpu.module symbol (which its
// gpu.binary keeps), for --attn-dump-gpu-kernels.
// CHECK: module attributes {attn.launch_manifests = {attn_fa2_mma_bf16_b2_h8_kv2_q256_k256_d64_v64_bq128_bk64_w32_module = {B = 2 : i64,
// CHECK-SAME: grid = {formula = "[ceil(Lq / block_q), B * Hq, kv_splits]", value = [2, 16, 1]}
// CHECK-SAME: kernel = "attn_fa2_mma_bf16_b2_h8_kv2_q256_k256_d64_v64_bq128_bk64_w32"
// CHECK-SAME: params = [{name = "q", shape = [2, 8, 256, 64], type = "bf16*"},
// CHECK-SAME: scale = 1.250000e-01 : f64
// CHECK-SAME: gpu.container_module}
// CHECK: gpu.module @attn_fa2_mma_bf16_b2_h8_kv2_q256_k256_d64_v64_bq128_bk64_w32_module
// CHECK: gpu.func @attn_fa2_mma_bf16_b2_h8_kv2_q256_k256_d64_v64_bq128_bk64_w32(
// CHECK-SAME: workgroup(%{{.*}} : memref<2x64x72xbf16, #gpu.address_space<workgroup>>, %{{.*}} : memref<2x64x72xbf16, #gpu.address_space<workgroup>>)
// CHECK-SAME: kernel attributes {known_block_size = array<i32: 128, 1, 1>}
// Double-buffered cp.async stages (each iteration waits until only the
// prefetched tile's group is in flight), tensor-core products, V through
// ldmatrix.trans.
// CHECK: nvgpu.device_async_copy
// CHECK: nvvm.cp.async.wait.group 1
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 2 : i32, transpose = true}
// CHECK-LABEL: func.func @gqa
// CHECK: %[[Q:.+]] = bufferization.to_buffer %arg0
// CHECK: %[[O:.+]] = memref.alloc() : memref<2x8x256x64xbf16>
// CHECK: gpu.launch_func @attn_fa2_mma_bf16_b2_h8_kv2_q256_k256_d64_v64_bq128_bk64_w32_module::@attn_fa2_mma_bf16_b2_h8_kv2_q256_k256_d64_v64_bq128_bk64_w32 blocks in (%c2, %c16, %c1) threads in (%c128, %{{.*}}, %{{.*}}) args(%[[Q]] : {{.*}}, %[[O]] : memref<2x8x256x64xbf16>)
// CHECK-NOT: attn.attention
// BQ64: gpu.func @attn_fa2_mma_bf16_b2_h8_kv2_q256_k256_d64_v64_bq64_bk64_w32(
// BQ64: gpu.launch_func {{.*}} blocks in (%c4, %c16, %c1) threads in (%c64,
// 16 rows per warp (the v4 layout): 8 warps for 128 rows.
// W16: gpu.func @attn_fa2_mma_bf16_b2_h8_kv2_q256_k256_d64_v64_bq128_bk64_w16(
// W16: gpu.launch_func {{.*}} blocks in (%c2, %c16, %c1) threads in (%c256,
// swizzle=true: packed 64-element rows (no +8 padding); the 16-byte chunk
// of every shared-memory access is XORed with row % 8.
// SWZ: gpu.func @attn_fa2_mma_bf16_b2_h8_kv2_q256_k256_d64_v64_bq128_bk64_w32_sw(
// SWZ-SAME: workgroup(%{{.*}} : memref<2x64x64xbf16, #gpu.address_space<workgroup>>, %{{.*}} : memref<2x64x64xbf16, #gpu.address_space<workgroup>>)
// SWZ: arith.xori
// SWZ: nvgpu.device_async_copy
// mma=wgmma with cp.async loads (the TMA loads, the default on dense K/V,
// have their own test: attn-lower-to-gpu-tma.mlir): two warpgroups (256
// threads) of 64 rows, 128-key tiles in
// dynamic shared memory as 64-column atoms ([stage, atom, row, 64]) after a
// 1024-byte-aligned base; Q and K/V staged, fenced for the async proxy, S
// from d/16 = 4 wgmma's (both operands by descriptor), P·V from registers.
// WG: gpu.func @attn_fa2_wgmma_bf16_b2_h8_kv2_q256_k256_d64_v64_bq128_bk128_w16(
// WG-SAME: known_block_size = array<i32: 256, 1, 1>
// WG: %[[RAW:.+]] = gpu.dynamic_shared_memory
// WG: memref.extract_aligned_pointer_as_index %[[RAW]]
// WG: %[[BASE:.+]] = arith.andi %{{.*}}, %c1023
// WG: memref.view %[[RAW]][%[[BASE]]][] : {{.*}} to memref<2x1x128x64xbf16, #gpu.address_space<workgroup>>
// WG: nvgpu.device_async_copy
// WG: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// WG: gpu.barrier
// WG: nvvm.wgmma.fence.aligned
// WG: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// WG-COUNT-3: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// WG: nvvm.wgmma.commit.group.sync.aligned
// WG: nvvm.wgmma.wait.group.sync.aligned 0
// WG: nvvm.wgmma.fence.aligned
// WG-COUNT-8: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// WG: nvvm.wgmma.wait.group.sync.aligned 0
// WG: gpu.launch_func {{.*}} blocks in (%c2, %c16, %c1) threads in (%c256,
func.func @gqa(%q: tensor<2x8x256x64xbf16>, %kv: tensor<2x2x256x64xbf16>) -> tensor<2x8x256x64xbf16> {
  %o = attn.attention %q, %kv, %kv scale(0.125)
      : tensor<2x8x256x64xbf16>, tensor<2x2x256x64xbf16>, tensor<2x2x256x64xbf16> -> tensor<2x8x256x64xbf16>
  return %o : tensor<2x8x256x64xbf16>
}

// -----

// f16 uses nvgpu.mma.sync. At d = 128 the K/V tiles hold 32 keys and the
// Q tile is staged in shared memory once and re-read with ldmatrix.x4 (in
// registers, 2 m-tiles x 128 columns of Q would crowd out the O
// accumulators). K, V and Q share one dynamic buffer (69 KB, sized at the
// launch); rank 3 is expanded to [1, H, L, d] around the launch.
// CHECK-LABEL: gpu.module @attn_fa2_mma_f16_b1_h4_kv4_q128_k128_d128_v128_causal_bq128_bk32_w32_module
// CHECK: %[[RAW:.+]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: memref.view %[[RAW]][%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<2x32x136xf16, #gpu.address_space<workgroup>>
// CHECK: memref.view %[[RAW]][%c17408][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<2x32x136xf16, #gpu.address_space<workgroup>>
// CHECK: %[[QT:.+]] = memref.view %[[RAW]][%c34816][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x136xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.ldmatrix %[[QT]]{{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK: nvgpu.mma.sync
// CHECK-LABEL: func.func @causal_rank3
// Causal: CTAs take query tiles from the last (most keys) to the first.
// WG-LABEL: gpu.func @attn_fa2_wgmma_f16_b1_h4_kv4_q128_k128_d128_v128_causal_bq64_bk64_w16(
// WG: %[[BX:.+]] = gpu.block_id x
// WG: arith.subi %c1{{.*}}, %[[BX]]
// CHECK: tensor.expand_shape
// CHECK: %[[SMEM:.+]] = arith.constant 69632 : i32
// CHECK: gpu.launch_func {{.*}} dynamic_shared_memory_size %[[SMEM]]
// CHECK: tensor.collapse_shape
func.func @causal_rank3(%q: tensor<4x128x128xf16>) -> tensor<4x128x128xf16> {
  %o = attn.attention %q, %q, %q scale(0.088) causal(top_left)
      : tensor<4x128x128xf16>, tensor<4x128x128xf16>, tensor<4x128x128xf16> -> tensor<4x128x128xf16>
  return %o : tensor<4x128x128xf16>
}

// -----

// Lengths that are not multiples of the tiles (Lq = 100, Lk = 77, causal
// bottom-right): ceil(100 / 128) = 1 query tile; Q and K/V loads clamp
// their row to the last valid one (arith.minui), the masked loop also drops
// keys past Lk (arith.cmpi sge against 77), and rows past Lq are not stored
// (scf.if around the store).
// CHECK-LABEL: gpu.func @attn_fa2_mma_bf16_b1_h2_kv2_q100_k77_d64_v64_causal_br_bq128_bk64_w32(
// CHECK: arith.minui %{{.*}}, %c99
// CHECK: arith.minui %{{.*}}, %c76
// CHECK: arith.cmpi sge, %{{.*}}, %c77
// CHECK: scf.if
// CHECK: vector.store
// CHECK-LABEL: func.func @remainder
// CHECK: gpu.launch_func {{.*}} blocks in (%c1, %c2, %c1{{.*}}) threads in (%c128,
func.func @remainder(%q: tensor<1x2x100x64xbf16>, %kv: tensor<1x2x77x64xbf16>) -> tensor<1x2x100x64xbf16> {
  %o = attn.attention %q, %kv, %kv scale(0.125) causal(bottom_right)
      : tensor<1x2x100x64xbf16>, tensor<1x2x77x64xbf16>, tensor<1x2x77x64xbf16> -> tensor<1x2x100x64xbf16>
  return %o : tensor<1x2x100x64xbf16>
}

// -----

// Mask tensors: a keep mask (i1) becomes the kernel's fifth parameter, read
// per score with its broadcast dims pinned to 0 and select(-inf) where
// false; every K/V tile goes through the masked loop. At d = 128 with a
// mask: 16 rows per warp, 64-row CTAs, 32-key tiles (registers).
// CHECK-LABEL: gpu.func @attn_fa2_mma_f16_b1_h4_kv4_q128_k128_d128_v128_keepx1x1x128x128_bq64_bk32_w16(
// CHECK-SAME: %{{.*}}: memref<1x1x128x128xi1>)
// CHECK: memref.load %{{.*}}[%c0{{[_0-9]*}}, %c0{{[_0-9]*}}, %{{.*}}, %{{.*}}] : memref<1x1x128x128xi1>
// CHECK: arith.select
// CHECK-LABEL: func.func @keep_mask
// CHECK: %[[M:.+]] = bufferization.to_buffer %{{.*}} : tensor<1x1x128x128xi1>
// CHECK: gpu.launch_func {{.*}} args({{.*}}, %[[M]] : memref<1x1x128x128xi1>)
func.func @keep_mask(%q: tensor<1x4x128x128xf16>, %m: tensor<1x1x128x128xi1>) -> tensor<1x4x128x128xf16> {
  %o = attn.attention %q, %q, %q mask(%m : tensor<1x1x128x128xi1>) scale(0.088)
      : tensor<1x4x128x128xf16>, tensor<1x4x128x128xf16>, tensor<1x4x128x128xf16> -> tensor<1x4x128x128xf16>
  return %o : tensor<1x4x128x128xf16>
}

// -----

// An additive padding mask [B, 1, 1, Lk] (BERT), rank 3 input: the mask is
// added in the exp2 domain (times log2 e). It does not vary along the
// queries, so it is read once per key, and the unmasked tiles are kept.
// CHECK-LABEL: gpu.func @attn_fa2_mma_bf16_b1_h8_kv8_q64_k64_d64_v64_addx1x1x1x64_bq64_bk64_w32(
// CHECK: memref.load %{{.*}}[%c0{{[_0-9]*}}, %c0{{[_0-9]*}}, %c0{{[_0-9]*}}, %{{.*}}] : memref<1x1x1x64xbf16>
// CHECK: arith.extf
// CHECK: arith.constant 1.44269502 : f32
func.func @additive_mask(%q: tensor<8x64x64xbf16>, %m: tensor<1x1x64xbf16>) -> tensor<8x64x64xbf16> {
  %o = attn.attention %q, %q, %q mask(%m : tensor<1x1x64xbf16>) scale(0.125)
      : tensor<8x64x64xbf16>, tensor<8x64x64xbf16>, tensor<8x64x64xbf16> -> tensor<8x64x64xbf16>
  return %o : tensor<8x64x64xbf16>
}

// -----

// The kernel configuration --attn-io-cost recorded is the kernel that is
// built when no option says otherwise (64 x 32, 32 rows per warp here); an
// explicit mma= of the other family chooses anew for that family.
// REC-LABEL: func.func @recorded_kernel_config
// REC: gpu.launch_func @attn_fa2_mma_bf16_b1_h2_kv2_q256_k256_d64_v64_bq64_bk32_w32_module
// WG-LABEL: func.func @recorded_kernel_config
// WG: gpu.launch_func @attn_fa2_wgmma_bf16_b1_h2_kv2_q256_k256_d64_v64_bq128_bk128_w16_module
func.func @recorded_kernel_config(%q: tensor<1x2x256x64xbf16>) -> tensor<1x2x256x64xbf16> {
  %o = attn.attention %q, %q, %q scale(0.125) {kernel_config = #attn.kernel_config<family = "mma.sync", block_q = 64, block_kv = 32, rows_per_warp = 32, kv_stages = 2, swizzle = false>}
      : tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16> -> tensor<1x2x256x64xbf16>
  return %o : tensor<1x2x256x64xbf16>
}

// -----

// Rank 2 ([L, d], the seeds' form) with a keep mask [L, Lk]: both read as
// [1, 1, L, d] and [1, 1, L, Lk] around the launch of the one-head kernel,
// the output collapsed back.
// CHECK-LABEL: func.func @rank2_keep_mask
// CHECK-DAG: tensor.expand_shape %{{.*}} {{\[\[}}0, 1, 2], [3]] output_shape [1, 1, 64, 64] : tensor<64x64xbf16> into tensor<1x1x64x64xbf16>
// CHECK-DAG: tensor.expand_shape %{{.*}} {{\[\[}}0, 1, 2], [3]] output_shape [1, 1, 64, 96] : tensor<64x96xi1> into tensor<1x1x64x96xi1>
// CHECK: gpu.launch_func @attn_fa2_mma_bf16_b1_h1_kv1_q64_k96_d64_v64_keepx1x1x64x96
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2], [3]] : tensor<1x1x64x64xbf16> into tensor<64x64xbf16>
func.func @rank2_keep_mask(%q: tensor<64x64xbf16>, %kv: tensor<96x64xbf16>, %m: tensor<64x96xi1>) -> tensor<64x64xbf16> {
  %o = attn.attention %q, %kv, %kv mask(%m : tensor<64x96xi1>) scale(0.125)
      : tensor<64x64xbf16>, tensor<96x64xbf16>, tensor<96x64xbf16> -> tensor<64x64xbf16>
  return %o : tensor<64x64xbf16>
}

// -----

// Negative: a function without attention is left alone (no container module).
// CHECK-LABEL: func.func @no_attention
// CHECK-NOT: gpu.module
func.func @no_attention(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}


// -----

// The scale is a constant of the kernel: attentions that differ only in it
// get one kernel each (the second name carries the scale's bits; each new
// gpu.module goes first), and equal ones share one.
// CHECK-LABEL: gpu.module @attn_fa2_mma_f16_b1_h2_kv2_q64_k64_d64_v64_bq64_bk64_w{{[0-9]+}}_scale0x3fe0000000000000_module
// CHECK: gpu.module @attn_fa2_mma_f16_b1_h2_kv2_q64_k64_d64_v64_bq64_bk64_w{{[0-9]+}}_module
// CHECK-NOT: gpu.module
// CHECK-LABEL: func.func @scales
// CHECK: gpu.launch_func @attn_fa2_mma_f16_b1_h2_kv2_q64_k64_d64_v64_bq64_bk64_w{{[0-9]+}}_module::
// CHECK: gpu.launch_func @attn_fa2_mma_f16_b1_h2_kv2_q64_k64_d64_v64_bq64_bk64_w{{[0-9]+}}_scale0x3fe0000000000000_module::
// CHECK: gpu.launch_func @attn_fa2_mma_f16_b1_h2_kv2_q64_k64_d64_v64_bq64_bk64_w{{[0-9]+}}_module::
func.func @scales(%q: tensor<1x2x64x64xf16>) -> (tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>) {
  %a = attn.attention %q, %q, %q scale(0.125) : tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16> -> tensor<1x2x64x64xf16>
  %b = attn.attention %q, %q, %q scale(0.5) : tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16> -> tensor<1x2x64x64xf16>
  %c = attn.attention %q, %q, %q scale(0.125) : tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16> -> tensor<1x2x64x64xf16>
  return %a, %b, %c : tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>
}

// RUN: attn-opt %s -split-input-file --attn-lower-to-gpu="mma=wgmma kv-splits=1 kv-loads=tma" | FileCheck %s
// RUN: attn-opt %s -split-input-file --attn-lower-to-gpu="mma=wgmma kv-splits=1 kv-loads=cp.async" | FileCheck %s --check-prefix=CPASYNC
// RUN: attn-opt %s -split-input-file --attn-lower-to-gpu | FileCheck %s --check-prefix=REC

// kv-loads=tma: the wgmma kernel's K/V stages are filled by TMA. The kernel
// takes the K and V tensor maps as two more (generic pointer) parameters,
// which the host builds with nvgpu.tma.create.descriptor (boxes of one
// 64-column atom by block_kv keys, 128-byte swizzle). Thread 0 initializes
// one mbarrier per stage (three here: d = 128 defers each P·V's wait), a
// barrier publishes them and the staged Q tile, then thread 0 arms each
// stage with the tile's bytes (4 boxes of 64 x 128 bf16 = 64 KB) and
// issues a box per atom of K and of V; in the loop every thread waits on
// the stage's phase parity, and no cp.async copies K or V.
// CHECK-LABEL: gpu.func @attn_fa2_wgmma_bf16_b1_h2_kv2_q256_k1024_d128_v128_bq128_bk128_w16_s3_tma(
// CHECK-SAME: %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr
// CHECK-COUNT-3: nvvm.mbarrier.init
// CHECK: nvvm.fence.mbarrier.init
// CHECK: nvvm.fence.proxy
// CHECK: gpu.barrier
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c65536_i32
// CHECK-COUNT-4: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: scf.for
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK-COUNT-4: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.wgmma.mma_async
// CHECK: gpu.barrier
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: gpu.return
// CHECK-LABEL: func.func @prefill
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c1{{.*}}, %c1{{.*}}, %c128{{.*}}, %c64{{.*}}] : memref<*xbf16> -> <tensor = memref<1x1x128x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
// CHECK: nvgpu.tma.create.descriptor
// CHECK: gpu.launch_func {{.*}} : !llvm.ptr, {{.*}} : !llvm.ptr)
// cp.async: no maps, no mbarriers, each thread's copies.
// CPASYNC-LABEL: gpu.func @attn_fa2_wgmma_bf16_b1_h2_kv2_q256_k1024_d128_v128_bq128_bk128_w16_s3(
// CPASYNC-NOT: mbarrier
// CPASYNC: nvgpu.device_async_copy
// CPASYNC-NOT: nvgpu.tma.create.descriptor
func.func @prefill(%q: tensor<1x2x256x128xbf16>, %kv: tensor<1x2x1024x128xbf16>) -> tensor<1x2x256x128xbf16> {
  %o = attn.attention %q, %kv, %kv scale(0.088) : tensor<1x2x256x128xbf16>, tensor<1x2x1024x128xbf16>, tensor<1x2x1024x128xbf16> -> tensor<1x2x256x128xbf16>
  return %o : tensor<1x2x256x128xbf16>
}

// -----

// d = 88, dv = 64 (d ≠ dv, d an odd multiple of 8), from a recorded
// kernel_config with tma_loads = true: K's tile is two atoms (the second
// read past d = 88, zero-filled by TMA, so the K stages' padding columns
// are not zeroed by stores: only the staged Q tile's are), V's one: 3 boxes
// of 64 x 64 = 24 KB per tile. With kv-loads=tma the chooser re-picks the
// tiles (an explicit option), without options the recorded ones are kept.
// CHECK-LABEL: gpu.func @attn_fa2_wgmma_f16_b2_h4_kv4_q128_k256_d88_v64_bq128_bk128_w16_s3_tma(
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c49152_i32
// REC-LABEL: gpu.func @attn_fa2_wgmma_f16_b2_h4_kv4_q128_k256_d88_v64_bq64_bk64_w16_tma(
// REC-COUNT-1: vector.store %cst{{.*}} : memref<2x64x64xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// REC-NOT: vector.store %cst{{.*}} : memref<2x2x64x64xf16
// REC: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c24576_i32
// REC-COUNT-3: nvvm.cp.async.bulk.tensor.shared.cluster.global
// REC: scf.for
func.func @head_dims(%q: tensor<2x4x128x88xf16>, %k: tensor<2x4x256x88xf16>, %v: tensor<2x4x256x64xf16>) -> tensor<2x4x128x64xf16> {
  %o = attn.attention %q, %k, %v scale(0.1) {kernel_config = #attn.kernel_config<family = "wgmma", block_q = 64, block_kv = 64, rows_per_warp = 16, kv_stages = 2, swizzle = false, tma_loads = true>} : tensor<2x4x128x88xf16>, tensor<2x4x256x88xf16>, tensor<2x4x256x64xf16> -> tensor<2x4x128x64xf16>
  return %o : tensor<2x4x128x64xf16>
}

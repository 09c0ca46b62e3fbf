// RUN: attn-opt %s -split-input-file --attn-lower-to-gpu="mma=wgmma kv-splits=1" | FileCheck %s
// RUN: attn-opt %s -split-input-file --attn-lower-to-gpu="mma=mma.sync rows-per-warp=32 kv-splits=1" | FileCheck %s --check-prefix=MMA
// RUN: attn-opt %s -split-input-file --attn-lower-to-gpu="mma=wgmma kv-splits=2" | FileCheck %s --check-prefix=SPLIT
// RUN: attn-opt %s -split-input-file --attn-lower-to-gpu="mma=mma.sync rows-per-warp=16 kv-splits=1" | FileCheck %s --check-prefix=QREG
// RUN: attn-opt %s -split-input-file --attn-lower-to-gpu="mma=wgmma kv-splits=1 kv-loads=cp.async" | FileCheck %s --check-prefix=CPASYNC

// Q and O cross global memory in whole vectors: the staged Q tile is read
// in 16-byte loads and O is written in 16-byte row chunks (every access
// states its alignment, which LLVM cannot know of a kernel parameter).
// The epilogue writes each warp's O pairs into the warp's own rows of the
// Q tile (its last Q·Kᵀ has read them), a warp barrier orders the reads
// after the writes, and the lanes store whole rows from there.
// CHECK-LABEL: gpu.func @attn_fa2_wgmma_bf16_b1_h2_kv2_q256_k1024_d128_v128_
// CHECK: vector.load %arg0[{{.*}}] {alignment = 16 : i64} : memref<1x2x256x128xbf16>, vector<8xbf16>
// With TMA the prologue's barrier already ordered every thread's Q stores
// before the loops: no CTA barrier from the loops to the O writes.
// CHECK: scf.for
// CHECK: nvvm.mbarrier.arrive
// CHECK-NOT: gpu.barrier
// CHECK: vector.store %{{.*}}, %[[QTILE:.*]][{{.*}}] {alignment = 4 : i64} : memref<2x128x64xbf16, #gpu.address_space<workgroup>>, vector<2xbf16>
// CHECK: nvvm.bar.warp.sync
// CHECK: %[[ROW:.*]] = vector.load %[[QTILE]][{{.*}}] {alignment = 16 : i64} : memref<2x128x64xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// CHECK: vector.store %[[ROW]], %arg3[{{.*}}] {alignment = 16 : i64} : memref<1x2x256x128xbf16>, vector<8xbf16>
// CHECK-NOT: vector.store {{.*}} %arg3{{.*}} vector<2xbf16>
// CHECK: gpu.return

// With cp.async only the first K/V iteration's barrier orders the Q
// stores, and a CTA with no K/V tile (a varlen sequence without keys)
// never passes it: the epilogue's own barrier precedes the O writes.
// CPASYNC-LABEL: gpu.func @attn_fa2_wgmma_bf16_b1_h2_kv2_q256_k1024_d128_v128_
// CPASYNC: %[[LOOP:[0-9]+]]:{{[0-9]+}} = scf.for
// CPASYNC: vector.extract %[[LOOP]]#
// CPASYNC: gpu.barrier
// CPASYNC-NEXT: arith.constant 1 : i32
// CPASYNC-NEXT: arith.constant 32 : i32
// CPASYNC-NEXT: gpu.shuffle xor
// CPASYNC-NOT: nvvm.bar.warp.sync
// CPASYNC: vector.store %{{.*}}, %{{.*}}[{{.*}}] {alignment = 4 : i64} : memref<2x128x64xbf16, #gpu.address_space<workgroup>>, vector<2xbf16>
// CPASYNC: nvvm.bar.warp.sync

// mma.sync with Q staged in shared memory (32 rows per warp at d = 128):
// the same epilogue over the padded rows.
// MMA-LABEL: gpu.func @attn_fa2_mma_bf16_b1_h2_kv2_q256_k1024_d128_v128_
// MMA: nvvm.bar.warp.sync
// MMA: vector.store %{{.*}}, %arg3[{{.*}}] {alignment = 16 : i64} : memref<1x2x256x128xbf16>, vector<8xbf16>
// MMA-NOT: vector.store {{.*}} %arg3{{.*}} vector<2xbf16>
// MMA: gpu.return

// Split-KV partial outputs are f32 pairs, stored directly (8 bytes).
// SPLIT-LABEL: gpu.func @attn_fa2_wgmma_bf16_b1_h2_kv2_q256_k1024_d128_v128_
// SPLIT-NOT: nvvm.bar.warp.sync
// SPLIT: vector.store %{{.*}}, %arg3[{{.*}}] {alignment = 8 : i64} : memref<2x1x2x256x128xf32>, vector<2xf32>
// SPLIT: gpu.return

// mma.sync with 16 rows per warp keeps Q in registers (no Q tile to
// reuse): its fragments load 4-byte pairs and O leaves as 4-byte pairs.
// QREG-LABEL: gpu.func @attn_fa2_mma_bf16_b1_h2_kv2_q256_k1024_d128_v128_
// QREG: vector.load %arg0[{{.*}}] {alignment = 4 : i64} : memref<1x2x256x128xbf16>, vector<2xbf16>
// QREG-NOT: nvvm.bar.warp.sync
// QREG: vector.store %{{.*}}, %arg3[{{.*}}] {alignment = 4 : i64} : memref<1x2x256x128xbf16>, vector<2xbf16>
// QREG: gpu.return
func.func @prefill(%q: tensor<1x2x256x128xbf16>, %kv: tensor<1x2x1024x128xbf16>) -> tensor<1x2x256x128xbf16> {
  %o = attn.attention %q, %kv, %kv scale(0.088) : tensor<1x2x256x128xbf16>, tensor<1x2x1024x128xbf16>, tensor<1x2x1024x128xbf16> -> tensor<1x2x256x128xbf16>
  return %o : tensor<1x2x256x128xbf16>
}

// RUN: attn-opt %s -split-input-file --attn-lower-to-gpu="mma=wgmma kv-splits=1 kv-loads=tma-producer overlap-pv=off" | FileCheck %s
// RUN: attn-opt %s -split-input-file --attn-lower-to-gpu="mma=wgmma kv-splits=1 kv-stages=3" | FileCheck %s --check-prefix=OVERLAP
// RUN: attn-opt %s -split-input-file --attn-lower-to-gpu="mma=wgmma kv-splits=1 kv-loads=tma" | FileCheck %s --check-prefix=ONE
// RUN: attn-opt %s -split-input-file --attn-lower-to-gpu | FileCheck %s --check-prefix=REC

// kv-loads=tma-producer: a producer warpgroup (threads 256-383, after the
// two computing warpgroups) issues the TMA boxes. Thread 0 initializes a
// "full" mbarrier (1 arrival) and an "empty" one (256 arrivals) per stage;
// a CTA barrier publishes them, then the roles split: the producer keeps
// 24 registers and walks every tile of the CTA, waiting on the stage's
// empty barrier before arming and filling it; the computing warps take 240
// registers, publish their staged Q tile among themselves (named barrier
// 1, 256 threads), wait on each stage's full barrier and arrive on its
// empty one once the tile's P·V is waited for, instead of meeting at a CTA
// barrier per tile. Two stages (the chooser's, with a producer). One CTA
// per SM is the launch bound ptxas needs to honour setmaxnreg.
// CHECK-LABEL: gpu.func @attn_fa2_wgmma_bf16_b1_h2_kv2_q256_k1024_d128_v128_bq128_bk128_w16_tma_ws(
// CHECK-SAME: known_block_size = array<i32: 384, 1, 1>
// CHECK-SAME: nvvm.minctasm = 1 : i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %c256_i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %c256_i32
// CHECK-NOT: nvvm.mbarrier.init
// CHECK: nvvm.fence.mbarrier.init
// CHECK: gpu.barrier
// CHECK: %[[PRODUCER:.*]] = arith.cmpi uge, %{{.*}}, %c256
// CHECK: cf.cond_br %[[PRODUCER]], ^bb1, ^bb2
// CHECK: ^bb1:
// CHECK-NEXT: nvvm.setmaxregister decrease 24
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c65536_i32
// CHECK-COUNT-4: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: gpu.return
// CHECK: ^bb2:
// CHECK-NEXT: nvvm.setmaxregister increase 240
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: nvvm.fence.proxy
// CHECK: nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// CHECK: scf.for
// CHECK-NOT: gpu.barrier
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// CHECK-NEXT: scf.yield
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
// CHECK-LABEL: func.func @prefill
// CHECK: gpu.launch_func {{.*}} threads in (%c384{{.*}}, %c1{{.*}}, %c1{{.*}})
// The chooser's kernel at d = 128 (v29b): the producer and the overlapped
// P·V, 3 stages. The work item's first tile is peeled out of the loop: it
// issues S_0 alone and waits for it (wait_group 0), so no P·V of a zero P
// costs tensor time; the loop starts one tile later (max(·, kvBegin + 128)
// on every run's bounds). Iteration j issues S_j, then P_{j-1}·V_{j-1},
// waits for S_j alone (wait_group 1),
// runs the softmax, waits for the P·V (wait_group 0), rescales O and
// releases tile j-1's stage; the last tile's P·V follows the loop, under a
// branch for a CTA that visited no tile.
// OVERLAP-LABEL: gpu.func @attn_fa2_wgmma_bf16_b1_h2_kv2_q256_k1024_d128_v128_bq128_bk128_w16_s3_tma_ws_ov(
// The two computing warpgroups take turns to issue (ping-pong): warpgroup
// 1 first hands warpgroup 0 its turn (named barrier 2); each waits on its
// own (2 + w) before issuing and arrives on the other's after.
// OVERLAP: nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// OVERLAP: scf.if
// OVERLAP: nvvm.barrier.arrive id = %{{.*}} number_of_threads = %c256_i32
// OVERLAP: %{{.*}}:52 = scf.if
// OVERLAP: nvvm.mbarrier.try_wait.parity
// OVERLAP-NOT: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// OVERLAP: nvvm.wgmma.commit.group.sync.aligned
// OVERLAP-NOT: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// OVERLAP: nvvm.barrier.arrive id = %{{.*}} number_of_threads = %c256_i32
// OVERLAP-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// OVERLAP: ex2.approx.ftz.f32
// OVERLAP-NOT: wgmma.mma_async
// OVERLAP: scf.yield
// OVERLAP: arith.maxui
// OVERLAP: %{{.*}}:52 = scf.for
// OVERLAP-SAME: -> (vector<2x2xf32>, {{.*}}, f32, i32, i32
// OVERLAP: nvvm.mbarrier.try_wait.parity
// OVERLAP: %[[FIRST:.*]] = arith.cmpi ugt
// OVERLAP: arith.select %[[FIRST]]
// OVERLAP: nvvm.barrier id = %{{.*}} number_of_threads = %c256_i32
// OVERLAP: nvvm.wgmma.fence.aligned
// OVERLAP: nvvm.wgmma.mma_async
// OVERLAP: nvvm.wgmma.commit.group.sync.aligned
// OVERLAP: llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// OVERLAP: nvvm.wgmma.commit.group.sync.aligned
// OVERLAP: nvvm.barrier.arrive id = %{{.*}} number_of_threads = %c256_i32
// OVERLAP-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// OVERLAP: ex2.approx.ftz.f32
// OVERLAP: nvvm.wgmma.wait.group.sync.aligned 0
// OVERLAP: scf.if
// OVERLAP: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// OVERLAP: scf.yield
// OVERLAP: %[[VISITED:.*]] = arith.cmpi ult
// OVERLAP: scf.if %[[VISITED]]
// OVERLAP: nvvm.wgmma.wait.group.sync.aligned 0
// OVERLAP: gpu.return
// kv-loads=tma: thread 0 issues, a CTA barrier per tile (3 stages: the
// chooser's without a producer).
// ONE-LABEL: gpu.func @attn_fa2_wgmma_bf16_b1_h2_kv2_q256_k1024_d128_v128_bq128_bk128_w16_s3_tma(
// ONE-SAME: known_block_size = array<i32: 256, 1, 1>
// ONE-NOT: setmaxregister
// ONE-NOT: cf.cond_br
// ONE: gpu.barrier
// ONE: scf.for
// ONE: gpu.barrier
// ONE: gpu.return
func.func @prefill(%q: tensor<1x2x256x128xbf16>, %kv: tensor<1x2x1024x128xbf16>) -> tensor<1x2x256x128xbf16> {
  %o = attn.attention %q, %kv, %kv scale(0.088) : tensor<1x2x256x128xbf16>, tensor<1x2x1024x128xbf16>, tensor<1x2x1024x128xbf16> -> tensor<1x2x256x128xbf16>
  return %o : tensor<1x2x256x128xbf16>
}

// -----

// d = 64, 3 stages, causal, from a recorded kernel_config with
// producer_warpgroup = true: each P·V is waited for in the next tile's
// Q·Kᵀ wait, so a computing thread releases the previous tile's stage, if
// the CTA had one. The causal diagonal tiles are a second loop, which
// releases the same way (its first tile's previous one is the first loop's
// last).
// REC-LABEL: gpu.func @attn_fa2_wgmma_f16_b2_h4_kv4_q512_k512_d64_v64_causal_bq128_bk128_w16_s3_tma_ws(
// REC: nvvm.setmaxregister decrease 24
// REC: nvvm.setmaxregister increase 240
// REC: scf.for
// REC: %[[HAS_PREVIOUS:.*]] = arith.cmpi ugt
// REC-NEXT: scf.if %[[HAS_PREVIOUS]]
// REC: arith.subi %{{.*}}, %c128
// REC: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// REC: scf.for
// REC: scf.if
// REC: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
func.func @causal(%q: tensor<2x4x512x64xf16>, %kv: tensor<2x4x512x64xf16>) -> tensor<2x4x512x64xf16> {
  %o = attn.attention %q, %kv, %kv scale(0.125) causal(top_left) {kernel_config = #attn.kernel_config<family = "wgmma", block_q = 128, block_kv = 128, rows_per_warp = 16, kv_stages = 3, swizzle = false, tma_loads = true, producer_warpgroup = true>} : tensor<2x4x512x64xf16>, tensor<2x4x512x64xf16>, tensor<2x4x512x64xf16> -> tensor<2x4x512x64xf16>
  return %o : tensor<2x4x512x64xf16>
}

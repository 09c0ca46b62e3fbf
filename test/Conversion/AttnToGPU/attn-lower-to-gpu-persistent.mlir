// RUN: attn-opt %s -split-input-file --attn-io-cost=target=h200 --attn-lower-to-gpu="persistent=on" | FileCheck %s
// RUN: attn-opt %s -split-input-file --attn-io-cost=target=h200 --attn-lower-to-gpu="persistent=off" | FileCheck %s --check-prefix=OFF
// RUN: attn-opt %s -split-input-file --attn-io-cost="target=h200 persistent=on" --attn-lower-to-gpu | FileCheck %s --check-prefix=RECORDED
// RUN: attn-opt %s -split-input-file --attn-io-cost=target=h200 --attn-lower-to-gpu | FileCheck %s --check-prefix=AUTO

// persistent=on (with the chooser's producer warpgroup at d = 128): the grid
// is the CTAs the H200 holds at once (one per SM, 132), not 8 query tiles x
// 64 heads. Causal items pair up (FlashKernelSpec::pairsCausalItems): a
// head's tiles in the order 7, 0, 6, 1, 5, 2, 4, 3 (each pair 9 key tiles),
// CTA c running pairs c, c + 132, ... < 256, items 2p and 2p + 1 in turn:
// n < 2 ceil((256 - c) / 132), item 2 (c + (n / 2) 132) + n mod 2. Each role
// carries the count of K/V tiles its stage ring has held (iter_args from
// 0; the item's tiles added at its end), from which both derive each
// tile's stage and mbarrier parity.
// CHECK-LABEL: gpu.func @attn_fa2_wgmma_bf16_b4_h16_kv16_q1024_k1024_d128_v128_causal_bq128_bk128_w16_s3_tma_ws_ov_pst132(
// CHECK-SAME: known_block_size = array<i32: 384, 1, 1>
// CHECK-SAME: nvvm.minctasm = 1 : i32
// The producer warpgroup's first thread: every item's tiles.
// CHECK: nvvm.setmaxregister decrease 24
// CHECK: %[[PX:.*]] = gpu.block_id x
// CHECK: %[[PLEFT:.*]] = arith.subi %c256{{.*}}, %[[PX]]
// CHECK: %[[PPAIRS:.*]] = arith.ceildivui %[[PLEFT]], %c132
// CHECK: %[[PN:.*]] = arith.muli %[[PPAIRS]], %c2
// CHECK: scf.for %[[PITEM:.*]] = %c0{{.*}} to %[[PN]] step %c1{{.*}} iter_args(%[[PRING:.*]] = %c0{{.*}}) -> (index) {
// CHECK: arith.remui %{{.*}}, %c8
// CHECK: arith.select
// Reaching an item ahead of the computing warps, it brings the item's Q
// tile into L2 (its queries are consecutive rows of 256 bytes: one bulk
// prefetch of (min(qEnd, 1024) - qFirst) x 256 bytes, 32 KB), so their
// stageQ reads L2 (bench/NOTES.md v63).
// CHECK: %[[QROWS:.*]] = llvm.addrspacecast %{{.*}} : !llvm.ptr to !llvm.ptr<1>
// CHECK-NEXT: nvvm.cp.async.bulk.prefetch %[[QROWS]], %{{.*}} : <1>
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: scf.yield %{{.*}} : index
// CHECK: gpu.return
// The computing warps prefetch nothing.
// CHECK-NOT: nvvm.cp.async.bulk.prefetch
// The computing warpgroups: the issue turns start once, before the items
// (each item leaves the first warpgroup's turn pending, as at the start).
// CHECK: nvvm.setmaxregister increase 240
// CHECK: nvvm.barrier.arrive id
// CHECK: %[[ITEMS:.*]] = scf.for %[[ITEM:.*]] = %c0{{.*}} to %{{.*}} step %c1{{.*}} iter_args(%[[RING:.*]] = %c0{{.*}}) -> (index) {
// CHECK: arith.remui %{{.*}}, %c8
// Q staged, published by named barrier 1, then the K/V loops.
// CHECK: nvvm.barrier id = %c1_i32
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: scf.yield
// After the last overlapped P·V, the last tile's stage is released (the
// producer refills it for a later item), the O rows leave through the Q
// tile, and named barrier 1 frees the tile for the next item's Q.
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvvm.mbarrier.arrive
// CHECK: nvvm.barrier id = %c1_i32{{.*}} number_of_threads = %c256_i32
// CHECK: arith.ceildivui
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[RING]],
// CHECK-NEXT: scf.yield %[[NEXT]] : index
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return
// CHECK: gpu.launch_func @{{.*}}_pst132_module::@{{.*}}_pst132 blocks in (%c132, %c1{{.*}}, %c1{{.*}}) threads in (%c384,
// persistent=off: one CTA per (query tile, batch · head), no item loop;
// causal keeps the third stage (bench/NOTES.md v61c).
// OFF-LABEL: gpu.func @attn_fa2_wgmma_bf16_b4_h16_kv16_q1024_k1024_d128_v128_causal_bq128_bk128_w16_s3_tma_ws_ov(
// OFF-NOT: iter_args({{.*}}) -> (index)
// OFF-NOT: nvvm.cp.async.bulk.prefetch
// OFF: gpu.launch_func @{{.*}} blocks in (%c8, %c64{{.*}}, %c1{{.*}})
// io-cost records the request in the kernel_config, and the lowering builds it.
// Chosen (auto, persistentCTAsPay): a causal producer kernel whose 8 query
// tiles per head pair up, 512 items (bench/NOTES.md v34b: 1.01-1.04x one
// CTA per item).
// AUTO: gpu.launch_func @{{.*}}_pst132_module::{{.*}} blocks in (%c132,
// RECORDED: gpu.launch_func @{{.*}}_pst132_module::{{.*}} blocks in (%c132,
func.func @persistent_causal(%q: tensor<4x16x1024x128xbf16>) -> tensor<4x16x1024x128xbf16> {
  %o = attn.attention %q, %q, %q scale(0.125) causal(top_left) : tensor<4x16x1024x128xbf16>, tensor<4x16x1024x128xbf16>, tensor<4x16x1024x128xbf16> -> tensor<4x16x1024x128xbf16>
  return %o : tensor<4x16x1024x128xbf16>
}

// -----

// Fewer work items (2 query tiles x 8 heads) than SMs: one CTA per item,
// each looping once. (Recorded here, so every RUN line builds it.) Asked for, persistence keeps the keys whole; without
// it the wave model splits them 7 ways to fill the GPU, in two stages
// (v61c: 5 key tiles per split, a short non-causal key run).
// CHECK-LABEL: gpu.func @attn_fa2_wgmma_bf16_b2_h4_kv4_q256_k4096_d128_v128_bq128_bk128_w16_s3_tma_ws_ov_pst16(
// CHECK: gpu.launch_func @{{.*}} blocks in (%c16, %c1{{.*}}, %c1{{.*}})
// OFF-LABEL: gpu.func @attn_fa2_wgmma_bf16_b2_h4_kv4_q256_k4096_d128_v128_bq128_bk128_w16_split7_tma_ws_ov(
// OFF: gpu.launch_func @{{.*}} blocks in (%c2, %c8{{.*}}, %c7{{.*}})
func.func @persistent_few_items(%q: tensor<2x4x256x128xbf16>, %kv: tensor<2x4x4096x128xbf16>) -> tensor<2x4x256x128xbf16> {
  %o = attn.attention %q, %kv, %kv scale(0.125) {kernel_config = #attn.kernel_config<family = "wgmma", block_q = 128, block_kv = 128, rows_per_warp = 16, kv_stages = 3, swizzle = false, tma_loads = true, producer_warpgroup = true, overlap_pv = true>} : tensor<2x4x256x128xbf16>, tensor<2x4x4096x128xbf16>, tensor<2x4x4096x128xbf16> -> tensor<2x4x256x128xbf16>
  return %o : tensor<2x4x256x128xbf16>
}

// -----

// Non-causal items are all alike: every SM's CTA, 132, item c, c + 132, ...
// Not chosen for them (v34: 0.96-0.98x one CTA per item; a CTA's fixed
// share of the items ends with the slowest).
// AUTO: gpu.launch_func @{{.*}} blocks in (%c8, %c64{{.*}}, %c1{{.*}})
// CHECK-LABEL: gpu.func @attn_fa2_wgmma_bf16_b4_h16_kv16_q1024_k1024_d128_v128_bq128_bk128_w16_s3_tma_ws_ov_pst132(
// CHECK: %[[X:.*]] = gpu.block_id x
// CHECK: scf.for %{{.*}} = %[[X]] to %c512{{.*}} step %c132{{.*}} iter_args(
// CHECK: gpu.launch_func @{{.*}} blocks in (%c132, %c1{{.*}}, %c1{{.*}})
func.func @persistent_noncausal(%q: tensor<4x16x1024x128xbf16>) -> tensor<4x16x1024x128xbf16> {
  %o = attn.attention %q, %q, %q scale(0.125) : tensor<4x16x1024x128xbf16>, tensor<4x16x1024x128xbf16>, tensor<4x16x1024x128xbf16> -> tensor<4x16x1024x128xbf16>
  return %o : tensor<4x16x1024x128xbf16>
}

// -----

// An odd number of query tiles per head (9, x 15 heads) cannot pair: the
// CTAs take items c, c + G, ... with G coprime to the 9 tiles (131, not 132,
// whose common factor 3 would hold each CTA to a third of the tile lengths).
// CHECK-LABEL: gpu.func @attn_fa2_wgmma_bf16_b1_h15_kv15_q1152_k1152_d128_v128_causal_bq128_bk128_w16_s3_tma_ws_ov_pst131(
// CHECK: %[[X:.*]] = gpu.block_id x
// CHECK: scf.for %{{.*}} = %[[X]] to %c135{{.*}} step %c131{{.*}} iter_args(
// CHECK: gpu.launch_func @{{.*}} blocks in (%c131, %c1{{.*}}, %c1{{.*}})
func.func @persistent_causal_odd(%q: tensor<1x15x1152x128xbf16>) -> tensor<1x15x1152x128xbf16> {
  %o = attn.attention %q, %q, %q scale(0.125) causal(top_left) : tensor<1x15x1152x128xbf16>, tensor<1x15x1152x128xbf16>, tensor<1x15x1152x128xbf16> -> tensor<1x15x1152x128xbf16>
  return %o : tensor<1x15x1152x128xbf16>
}

// RUN: attn-opt %s -split-input-file --attn-io-cost=target=h200 --attn-lower-to-gpu="persistent=on" | FileCheck %s
// RUN: attn-opt %s -split-input-file --attn-io-cost=target=h200 --attn-lower-to-gpu="persistent=off" | FileCheck %s --check-prefix=OFF
// RUN: attn-opt %s -split-input-file --attn-io-cost="target=h200 persistent=on" --attn-lower-to-gpu | FileCheck %s --check-prefix=RECORDED
// RUN: attn-opt %s -split-input-file --attn-io-cost=target=h200 --attn-lower-to-gpu | FileCheck %s --check-prefix=AUTO

// persistent=on (with the chooser's producer warpgroup at d = 128): the grid
// is the CTAs the H200 holds at once (one per SM, 132), not 8 query tiles x
// 64 heads, and each CTA takes work items (query tile, batch · head) from
// the counter `tile_counter` (the last parameter) until none is left
// (PersistentSchedule.h). The producer's thread takes a ticket (atomic add)
// and hands it to the computing warps through slot n mod 2, after waiting
// until they have read the slot's previous ticket; ticket t names the items
// of sections of 30 heads (causalSectionHeads: 512 KB of K/V per head, a
// quarter of L2 holds 25, and 30 are needed for a section's work to
// outlast its longest item on 132 CTAs), longest query tile first: 240
// tickets per section, the last section of 4 heads. Each role carries the
// count of K/V tiles its stage ring has held, from which both derive each
// tile's stage and mbarrier parity.
// CHECK-LABEL: gpu.func @attn_fa2_wgmma_bf16_b4_h16_kv16_q1024_k1024_d128_v128_causal_bq128_bk128_w16_s3_tma_ws_ov_pst132(
// CHECK-SAME: %[[COUNTER:[a-z0-9]+]]: memref<1xi32>) kernel
// CHECK-SAME: known_block_size = array<i32: 384, 1, 1>
// CHECK-SAME: nvvm.minctasm = 1 : i32
// CHECK: %[[SLOTS:.*]] = memref.view {{.*}} to memref<2xi32, #gpu.address_space<workgroup>>
// The slots' mbarriers: "full" (the producer's one arrival), "empty" (the
// 256 computing threads').
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %c256_i32
// The producer warpgroup's first thread: a ticket per item, then its tiles.
// CHECK: nvvm.setmaxregister decrease 24
// CHECK: scf.while (%[[PN:.*]] = %c0{{.*}}, %[[PRING:.*]] = %c0{{.*}}) : (index, index) -> (index, index, index)
// CHECK: %[[PSLOT:.*]] = arith.remui %[[PN]], %c2
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: %[[TICKET:.*]] = memref.atomic_rmw addi %c1_i32{{.*}}, %[[COUNTER]][%c0{{.*}}] : (i32, memref<1xi32>) -> i32
// CHECK: memref.store %[[TICKET]], %[[SLOTS]][%[[PSLOT]]]
// CHECK: nvvm.mbarrier.arrive
// CHECK: %[[PT:.*]] = arith.index_castui %[[TICKET]]
// CHECK: %[[PMORE:.*]] = arith.cmpi ult, %[[PT]], %c512
// CHECK: scf.condition(%[[PMORE]]) %[[PN]], %[[PRING]], %[[PT]]
// CHECK: ^bb0(%{{.*}}: index, %{{.*}}: index, %[[PITEM:.*]]: index):
// CHECK: arith.divui %[[PITEM]], %c240
// CHECK: arith.remui %[[PITEM]], %c240
// CHECK: arith.minui %c30
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: scf.yield %{{.*}}, %{{.*}} : index, index
// CHECK: gpu.return
// The computing warpgroups: the issue turns start once, before the items
// (each item leaves the first warpgroup's turn pending, as at the start);
// each ticket is read from its slot and the slot reported read.
// CHECK: nvvm.setmaxregister increase 240
// CHECK: nvvm.barrier.arrive id
// CHECK: scf.while (%[[N:.*]] = %c0{{.*}}, %[[RING:.*]] = %c0{{.*}}) : (index, index) -> (index, index, index)
// CHECK: %[[SLOT:.*]] = arith.remui %[[N]], %c2
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: %[[READ:.*]] = memref.load %[[SLOTS]][%[[SLOT]]]
// CHECK: nvvm.mbarrier.arrive
// CHECK: %[[T:.*]] = arith.index_castui %[[READ]]
// CHECK: scf.condition(%{{.*}}) %[[N]], %[[RING]], %[[T]]
// CHECK: arith.divui %{{.*}}, %c240
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
// CHECK: %[[NEXTN:.*]] = arith.addi %{{.*}}, %c1
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %{{.*}},
// CHECK-NEXT: scf.yield %[[NEXTN]], %[[NEXT]] : index, index
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return
// The host zeroes the counter before the launch.
// CHECK: %[[HOSTCOUNTER:.*]] = memref.alloc() : memref<1xi32>
// CHECK: memref.store %c0_i32, %[[HOSTCOUNTER]][%c0]
// CHECK: gpu.launch_func @{{.*}}_pst132_module::@{{.*}}_pst132 blocks in (%c132, %c1{{.*}}, %c1{{.*}}) threads in (%c384,{{.*}} %[[HOSTCOUNTER]] : memref<1xi32>)
// CHECK-NEXT: memref.dealloc %[[HOSTCOUNTER]]
// persistent=off: one CTA per (query tile, batch · head), no item loop.
// OFF-LABEL: gpu.func @attn_fa2_wgmma_bf16_b4_h16_kv16_q1024_k1024_d128_v128_causal_bq128_bk128_w16_s3_tma_ws_ov(
// OFF-NOT: iter_args({{.*}}) -> (index)
// OFF: gpu.launch_func @{{.*}} blocks in (%c8, %c64{{.*}}, %c1{{.*}})
// io-cost records the request in the kernel_config, and the lowering builds it.
// Chosen (auto, persistentCTAsPay): a causal producer kernel with 512
// items, more than the SMs.
// AUTO: gpu.launch_func @{{.*}}_pst132_module::{{.*}} blocks in (%c132,
// RECORDED: gpu.launch_func @{{.*}}_pst132_module::{{.*}} blocks in (%c132,
func.func @persistent_causal(%q: tensor<4x16x1024x128xbf16>) -> tensor<4x16x1024x128xbf16> {
  %o = attn.attention %q, %q, %q scale(0.125) causal(top_left) : tensor<4x16x1024x128xbf16>, tensor<4x16x1024x128xbf16>, tensor<4x16x1024x128xbf16> -> tensor<4x16x1024x128xbf16>
  return %o : tensor<4x16x1024x128xbf16>
}

// -----

// Fewer work items (2 query tiles x 8 heads) than SMs: one CTA per item,
// each looping once. (Recorded here, so every RUN line builds it.) Asked for, persistence keeps the keys whole; without
// it the wave model splits them 7 ways to fill the GPU.
// CHECK-LABEL: gpu.func @attn_fa2_wgmma_bf16_b2_h4_kv4_q256_k4096_d128_v128_bq128_bk128_w16_s3_tma_ws_ov_pst16(
// CHECK: gpu.launch_func @{{.*}} blocks in (%c16, %c1{{.*}}, %c1{{.*}})
// OFF-LABEL: gpu.func @attn_fa2_wgmma_bf16_b2_h4_kv4_q256_k4096_d128_v128_bq128_bk128_w16_s3_split7_tma_ws_ov(
// OFF: gpu.launch_func @{{.*}} blocks in (%c2, %c8{{.*}}, %c7{{.*}})
func.func @persistent_few_items(%q: tensor<2x4x256x128xbf16>, %kv: tensor<2x4x4096x128xbf16>) -> tensor<2x4x256x128xbf16> {
  %o = attn.attention %q, %kv, %kv scale(0.125) {kernel_config = #attn.kernel_config<family = "wgmma", block_q = 128, block_kv = 128, rows_per_warp = 16, kv_stages = 3, swizzle = false, tma_loads = true, producer_warpgroup = true, overlap_pv = true>} : tensor<2x4x256x128xbf16>, tensor<2x4x4096x128xbf16>, tensor<2x4x4096x128xbf16> -> tensor<2x4x256x128xbf16>
  return %o : tensor<2x4x256x128xbf16>
}

// -----

// Non-causal items are all alike: sections of one head, ticket t = query
// tile t mod 8 of head t / 8 (a head's tiles in a row, its K/V in L2).
// Not chosen for them (v34: 0.96-0.98x one CTA per item).
// AUTO: gpu.launch_func @{{.*}} blocks in (%c8, %c64{{.*}}, %c1{{.*}})
// CHECK-LABEL: gpu.func @attn_fa2_wgmma_bf16_b4_h16_kv16_q1024_k1024_d128_v128_bq128_bk128_w16_s3_tma_ws_ov_pst132(
// CHECK: scf.condition
// CHECK: ^bb0(%{{.*}}: index, %{{.*}}: index, %[[NITEM:.*]]: index):
// CHECK-NEXT: arith.constant 8
// CHECK-NEXT: arith.remui %[[NITEM]], %c8
// CHECK: arith.divui %[[NITEM]], %c8
// CHECK: gpu.launch_func @{{.*}} blocks in (%c132, %c1{{.*}}, %c1{{.*}})
func.func @persistent_noncausal(%q: tensor<4x16x1024x128xbf16>) -> tensor<4x16x1024x128xbf16> {
  %o = attn.attention %q, %q, %q scale(0.125) : tensor<4x16x1024x128xbf16>, tensor<4x16x1024x128xbf16>, tensor<4x16x1024x128xbf16> -> tensor<4x16x1024x128xbf16>
  return %o : tensor<4x16x1024x128xbf16>
}

// -----

// An odd number of query tiles per head (9, x 15 heads): the tickets need
// no pairing; 135 items on 132 CTAs, in one section of all 15 heads (each
// head's 0.6 MB of K/V: L2's quarter holds 22, the work needs 27, clamped
// to the 15 there are), so the heads divide it evenly: no run-time width.
// CHECK-LABEL: gpu.func @attn_fa2_wgmma_bf16_b1_h15_kv15_q1152_k1152_d128_v128_causal_bq128_bk128_w16_s3_tma_ws_ov_pst132(
// CHECK: ^bb0(%{{.*}}: index, %{{.*}}: index, %[[OITEM:.*]]: index):
// CHECK: arith.divui %[[OITEM]], %c135
// CHECK-NOT: arith.minui
// CHECK: arith.divui %{{.*}}, %c15
// CHECK: gpu.launch_func @{{.*}} blocks in (%c132, %c1{{.*}}, %c1{{.*}})
// AUTO: gpu.launch_func @{{.*}}_pst132_module::{{.*}} blocks in (%c132,
func.func @persistent_causal_odd(%q: tensor<1x15x1152x128xbf16>) -> tensor<1x15x1152x128xbf16> {
  %o = attn.attention %q, %q, %q scale(0.125) causal(top_left) : tensor<1x15x1152x128xbf16>, tensor<1x15x1152x128xbf16>, tensor<1x15x1152x128xbf16> -> tensor<1x15x1152x128xbf16>
  return %o : tensor<1x15x1152x128xbf16>
}

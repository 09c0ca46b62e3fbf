// RUN: attn-opt %s -split-input-file --attn-io-cost=target=h200 --attn-lower-to-gpu="mma=mma.sync kv-loads=tma kv-splits=1" | FileCheck %s
// RUN: attn-opt %s -split-input-file --attn-io-cost=target=h200 --attn-lower-to-gpu="mma=mma.sync kv-loads=cp.async kv-splits=1" | FileCheck %s --check-prefix=CPASYNC

// kv-loads=tma on the mma.sync kernels (sm_90+; the default for decode on
// dense K/V and on pools of power-of-two pages). A page size that is not a
// power of two (24): the padded rows are filled by one bulk copy per key
// row (cp.async.bulk, not a tensor box: no tensor maps), and each stage's
// mbarrier counts one arrival per thread (32: one warp). Every row's page
// comes from the block table, and rows past the sequence's run-time length
// are zeroed by the thread's stores before it arrives, armed with its
// copied rows' bytes.
// CHECK-LABEL: gpu.func @attn_fa2_mma_bf16_b2_h8_kv2_q1_k264_d64_v64_causal_br_bq16_bk64_w16_pack_tma_paged24x22(
// CHECK-NOT: !llvm.ptr
// CHECK: gpu.dynamic_shared_memory
// CHECK-COUNT-2: nvvm.mbarrier.init %{{.*}}, %c32_i32
// CHECK: nvvm.fence.mbarrier.init
// CHECK: gpu.barrier
// CHECK: memref.load %arg4
// CHECK: scf.if
// CHECK: vector.store %cst{{.*}} : memref<2x64x72xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK: scf.if
// CHECK: nvvm.cp.async.bulk.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, %c128_i32{{.*}} : !llvm.ptr<7>, <1>
// CHECK: scf.for
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK: nvvm.cp.async.bulk.shared.cluster.global
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mma.sync
// CHECK: gpu.barrier
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: gpu.return
// Without it: cp.async chunks, no mbarriers, on 32-key tiles: the 64-key
// tile's 16-byte chunks put 16 rows of each tensor on the one warp's
// threads, each row with its own page entry and address (254 registers in
// ptxas), which the chooser charges per row (bench/NOTES.md v60).
// CPASYNC-LABEL: gpu.func @attn_fa2_mma_bf16_b2_h8_kv2_q1_k264_d64_v64_causal_br_bq16_bk32_w16_pack_paged24x22(
// CPASYNC-NOT: mbarrier
// CPASYNC: nvgpu.device_async_copy
// CPASYNC-NOT: cp.async.bulk
// CPASYNC: gpu.return
func.func @paged_decode_odd_pages(%q: tensor<2x8x1x64xbf16>, %kc: tensor<22x24x2x64xbf16>, %vc: tensor<22x24x2x64xbf16>, %t: tensor<2x11xi32>, %l: tensor<2xi32>) -> tensor<2x8x1x64xbf16> {
  %o = attn.paged_attention %q, %kc, %vc pages(%t, %l) scale(0.125) causal(bottom_right) : tensor<2x8x1x64xbf16>, tensor<22x24x2x64xbf16>, tensor<22x24x2x64xbf16>, tensor<2x11xi32>, tensor<2xi32> -> tensor<2x8x1x64xbf16>
  return %o : tensor<2x8x1x64xbf16>
}

// -----

// 16-token pages (a power of two): tensor boxes, as for dense K/V, from
// maps over the pools seen as {d, Hkv, page_size, pages}: per 64-key tile
// thread 0 arms the stage with its 16 KB, reads the tile's 4 pages from the
// block table page by page, issuing one 16-row box per page and tensor at
// {column, head, row in page, page}. One arrival per stage. Only the loop over the
// masked tiles (the last one) zeroes the rows past the sequence once the
// boxes have landed (whole rows per thread, then a barrier).
// The manifest: the stages' swizzled atoms and the pools' 16-row boxes
// ({d, Hkv, page_size, pages} innermost first).
// CHECK: kernel = "attn_fa2_mma_bf16_b2_h8_kv2_q1_k256_d64_v64_causal_br_bq16_bk64_w16_pack_tma_paged16x32"{{.*}}smem_layout = "swizzled-128b-atoms"{{.*}}tensor_maps = [{arg = "k_tensor_map", box = [64, 1, 16, 1]
// CHECK-LABEL: gpu.func @attn_fa2_mma_bf16_b2_h8_kv2_q1_k256_d64_v64_causal_br_bq16_bk64_w16_pack_tma_paged16x32(
// CHECK-SAME: %{{.*}}: memref<2x16xi32>, %{{.*}}: memref<2xi32>, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr
// CHECK: memref.view {{.*}} to memref<2x1x64x64xbf16, #gpu.address_space<workgroup>>
// CHECK-COUNT-2: nvvm.mbarrier.init %{{.*}}, %c1_i32
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c16384_i32
// CHECK: memref.load %arg4
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: memref.load %arg4
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: memref.load %arg4
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: memref.load %arg4
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NOT: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: scf.for
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c16384_i32
// CHECK-COUNT-8: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NOT: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: vector.store %cst
// CHECK: nvvm.mma.sync
// CHECK: scf.yield
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: %[[PAST:.*]] = arith.cmpi ugt
// CHECK-NEXT: scf.if %[[PAST]]
// CHECK: arith.cmpi uge, %thread_id_x
// CHECK: scf.if
// CHECK-COUNT-8: vector.store %cst{{.*}} : memref<2x1x64x64xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// CHECK-COUNT-8: vector.store %cst{{.*}} : memref<2x1x64x64xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// CHECK: gpu.barrier
// CHECK: nvvm.mma.sync
// CHECK-NOT: cp.async.bulk.shared.cluster.global
// CHECK: gpu.return
// CHECK-LABEL: func.func @paged_decode
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%{{.*}}] : memref<*xbf16> -> <tensor = memref<1x16x1x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK: nvgpu.tma.create.descriptor
// CHECK: gpu.launch_func
// The row copies of the same kernel are cp.async's.
// CPASYNC-LABEL: gpu.func @attn_fa2_mma_bf16_b2_h8_kv2_q1_k256_d64_v64_causal_br_bq16_bk64_w16_pack_paged16x32(
// CPASYNC-NOT: mbarrier
// CPASYNC: nvgpu.device_async_copy
func.func @paged_decode(%q: tensor<2x8x1x64xbf16>, %kc: tensor<32x16x2x64xbf16>, %vc: tensor<32x16x2x64xbf16>, %t: tensor<2x16xi32>, %l: tensor<2xi32>) -> tensor<2x8x1x64xbf16> {
  %o = attn.paged_attention %q, %kc, %vc pages(%t, %l) scale(0.125) causal(bottom_right) : tensor<2x8x1x64xbf16>, tensor<32x16x2x64xbf16>, tensor<32x16x2x64xbf16>, tensor<2x16xi32>, tensor<2xi32> -> tensor<2x8x1x64xbf16>
  return %o : tensor<2x8x1x64xbf16>
}

// -----

// 128-token pages, larger than the 64-key tile: one box per tensor inside
// the tile's page, at its row start % 128.
// CHECK-LABEL: gpu.func @attn_fa2_mma_bf16_b2_h8_kv2_q1_k256_d64_v64_causal_br_bq16_bk64_w16_pack_tma_paged128x4(
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c16384_i32
// CHECK: memref.load %arg4
// CHECK: %[[ROW:.*]] = arith.remui %{{.*}}, %c128
// CHECK-NEXT: %[[ROW32:.*]] = arith.index_castui %[[ROW]] : index to i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg6, %{{.*}}, box[%{{.*}}, %{{.*}}, %[[ROW32]], %{{.*}}]
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg7, %{{.*}}, box[%{{.*}}, %{{.*}}, %[[ROW32]], %{{.*}}]
// CHECK: scf.for
// CHECK-LABEL: func.func @paged_decode_large_pages
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%{{.*}}] : memref<*xbf16> -> <tensor = memref<1x64x1x64xbf16
func.func @paged_decode_large_pages(%q: tensor<2x8x1x64xbf16>, %kc: tensor<4x128x2x64xbf16>, %vc: tensor<4x128x2x64xbf16>, %t: tensor<2x2xi32>, %l: tensor<2xi32>) -> tensor<2x8x1x64xbf16> {
  %o = attn.paged_attention %q, %kc, %vc pages(%t, %l) scale(0.125) causal(bottom_right) : tensor<2x8x1x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4x128x2x64xbf16>, tensor<2x2xi32>, tensor<2xi32> -> tensor<2x8x1x64xbf16>
  return %o : tensor<2x8x1x64xbf16>
}

// -----

// Dense decode: the stages are swizzled atoms ([stages, atoms, keys, 64],
// with the 1024-byte-aligned base), which thread 0 fills with one TMA box
// per atom of K and V (2 x 8 KB) through the two tensor maps the kernel
// takes, as the wgmma kernels do; one arrival per stage. The fragment
// loads read the atoms.
// CHECK-LABEL: gpu.func @attn_fa2_mma_f16_b1_h8_kv2_q1_k256_d64_v64_bq16_bk64_w16_pack_tma(
// CHECK-SAME: %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr
// CHECK: memref.view {{.*}} to memref<2x1x64x64xf16, #gpu.address_space<workgroup>>
// CHECK-COUNT-2: nvvm.mbarrier.init %{{.*}}, %c1_i32
// CHECK: nvvm.fence.mbarrier.init
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c16384_i32
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: scf.for
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c16384_i32
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: vector.load %{{.*}} : memref<2x1x64x64xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// CHECK-NOT: cp.async.bulk.shared.cluster.global
// CHECK: gpu.return
// CHECK-LABEL: func.func @dense_decode
// CHECK-COUNT-2: nvgpu.tma.create.descriptor
func.func @dense_decode(%q: tensor<1x8x1x64xf16>, %kv: tensor<1x2x256x64xf16>) -> tensor<1x8x1x64xf16> {
  %o = attn.attention %q, %kv, %kv scale(0.125) : tensor<1x8x1x64xf16>, tensor<1x2x256x64xf16>, tensor<1x2x256x64xf16> -> tensor<1x8x1x64xf16>
  return %o : tensor<1x8x1x64xf16>
}

// -----

// mma.sync prefill at d = 128 (the explicit options re-pick the recorded
// tiles): the staged Q tile is in atoms too ([2 atoms, 128 rows, 64]),
// read by ldmatrix.x4 through the swizzle, and V by ldmatrix.trans; Lk =
// 100 leaves the last tile's rows past 100 to the boxes' zero fill.
// CHECK-LABEL: gpu.func @attn_fa2_mma_bf16_b1_h2_kv2_q128_k100_d128_v128_bq128_bk{{[0-9]+}}_w32_tma(
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: scf.for
// CHECK: nvgpu.ldmatrix %{{.*}} : memref<2x128x64xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 2 : i32, transpose = true} : memref<2x2x{{[0-9]+}}x64xbf16, #gpu.address_space<workgroup>> -> vector<2x2xbf16>
// CHECK: gpu.return
func.func @prefill(%q: tensor<1x2x128x128xbf16>, %kv: tensor<1x2x100x128xbf16>) -> tensor<1x2x128x128xbf16> {
  %o = attn.attention %q, %kv, %kv scale(0.088) {kernel_config = #attn.kernel_config<family = "mma.sync", block_q = 64, block_kv = 32, rows_per_warp = 32, kv_stages = 2, swizzle = false, tma_loads = true>} : tensor<1x2x128x128xbf16>, tensor<1x2x100x128xbf16>, tensor<1x2x100x128xbf16> -> tensor<1x2x128x128xbf16>
  return %o : tensor<1x2x128x128xbf16>
}

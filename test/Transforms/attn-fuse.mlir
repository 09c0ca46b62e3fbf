// RUN: attn-opt %s -split-input-file --attn-fuse --canonicalize | FileCheck %s
// RUN: attn-opt %s -split-input-file --attn-fuse="block-q=32 block-kv=16" --canonicalize | FileCheck %s --check-prefix=OPT

// Static sizes that the 64x64 default divides: static tiles, loops over
// batch, heads, query tiles and K/V tiles, f32 state, no 256x256 tensor.
// CHECK-LABEL: func.func @static_default_tiles
// CHECK-NOT: tensor<{{.*}}256x256
// CHECK: scf.for %[[B:.+]] = %c0 to %c2 step %c1
// CHECK: scf.for %[[H:.+]] = %c0 to %c4 step %c1
// CHECK: scf.for %[[QS:.+]] = %c0 to %c256 step %c64
// CHECK: %[[QT:.+]] = tensor.extract_slice %{{.*}}[%[[B]], %[[H]], %[[QS]], 0] [1, 1, 64, 32] [1, 1, 1, 1] : tensor<2x4x256x32xf16> to tensor<64x32xf16>
// CHECK: linalg.fill {{.*}} -> tensor<64x32xf32>
// CHECK: linalg.fill ins(%cst{{.*}} -> tensor<64xf32>
// CHECK: scf.for %[[KS:.+]] = %c0 to %c256 step %c64 iter_args
// CHECK: tensor.extract_slice %{{.*}}[%[[B]], %[[H]], %[[KS]], 0] [1, 1, 64, 32]
// CHECK: attn.online_attention %[[QT]], %{{.*}}, %{{.*}} scale(1.250000e-01) outs
// CHECK-SAME: -> tensor<64x32xf32>, tensor<64xf32>, tensor<64xf32>
// CHECK: linalg.generic
// CHECK: arith.divf
// CHECK: arith.truncf {{.*}} : f32 to f16
// CHECK: tensor.insert_slice {{.*}} into %{{.*}}[%[[B]], %[[H]], %[[QS]], 0] [1, 1, 64, 32]
// CHECK-NOT: attn.attention
// OPT-LABEL: func.func @static_default_tiles
// OPT: scf.for %{{.*}} = %c0 to %c256 step %c32
// OPT: scf.for %{{.*}} = %c0 to %c256 step %c16
// OPT: attn.online_attention {{.*}} : tensor<32x32xf16>, tensor<16x32xf16>, tensor<16x32xf16>
func.func @static_default_tiles(%q: tensor<2x4x256x32xf16>) -> tensor<2x4x256x32xf16> {
  %o = attn.attention %q, %q, %q scale(0.125)
      : tensor<2x4x256x32xf16>, tensor<2x4x256x32xf16>, tensor<2x4x256x32xf16> -> tensor<2x4x256x32xf16>
  return %o : tensor<2x4x256x32xf16>
}

// -----

// Tile sizes from the io-cost attribute; the options still win (OPT).
// CHECK-LABEL: func.func @tiles_from_io_cost
// CHECK: scf.for %{{.*}} = %c0 to %c128 step %c16
// CHECK: scf.for %{{.*}} = %c0 to %c128 step %c32
// OPT-LABEL: func.func @tiles_from_io_cost
// OPT: step %c32
// OPT: step %c16
func.func @tiles_from_io_cost(%q: tensor<128x32xf32>) -> tensor<128x32xf32> {
  %o = attn.attention %q, %q, %q scale(0.125) {io_cost = #attn.io_cost<target = "h200", flops = 0, naive_hbm_bytes = 0, fused_sram_l2_bytes = 0, fused_dram_bytes = 0, intensity_naive = 0.0 : f64, intensity_fused = 0.0 : f64, ridge = 0.0 : f64, bound_naive = "memory", bound_fused = "memory", block_q = 16, block_kv = 32>}
      : tensor<128x32xf32>, tensor<128x32xf32>, tensor<128x32xf32> -> tensor<128x32xf32>
  return %o : tensor<128x32xf32>
}

// -----

// Remainder tiles: 100 query rows and 70 keys with 64-wide tiles give a
// dynamic min(64, L - start) extent.
// CHECK-LABEL: func.func @remainder
// CHECK: scf.for %[[QS:.+]] = %c0 to %c100 step %c64
// CHECK: %[[LEFT:.+]] = arith.subi %c100, %[[QS]]
// CHECK: %[[BQ:.+]] = arith.minsi %[[LEFT]], %c64
// CHECK: tensor.extract_slice %{{.*}}[%[[QS]], 0] [%[[BQ]], 16] [1, 1] : tensor<100x16xf32> to tensor<?x16xf32>
// CHECK: scf.for %[[KS:.+]] = %c0 to %c70 step %c64
// CHECK: arith.minsi %{{.*}}, %c64
// CHECK: attn.online_attention {{.*}} : tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x8xf32> -> tensor<?x8xf32>, tensor<?xf32>, tensor<?xf32>
func.func @remainder(%q: tensor<100x16xf32>, %k: tensor<70x16xf32>, %v: tensor<70x8xf32>) -> tensor<100x8xf32> {
  %o = attn.attention %q, %k, %v scale(0.25) : tensor<100x16xf32>, tensor<70x16xf32>, tensor<70x8xf32> -> tensor<100x8xf32>
  return %o : tensor<100x8xf32>
}

// -----

// Causal: the K/V loop of query tile qs stops at min(L, qs + Bq): tiles
// wholly above the diagonal are never visited. The diagonal offset
// qs - ks masks the tiles that cross it.
// CHECK-LABEL: func.func @causal_skips_tiles
// CHECK: scf.for %[[QS:.+]] = %c0 to %c256 step %c64
// CHECK: %[[END:.+]] = arith.addi %[[QS]], %c64
// CHECK: %[[POS:.+]] = arith.maxsi %[[END]], %c0
// CHECK: %[[CLAMP:.+]] = arith.minsi %[[POS]], %c256
// CHECK: scf.for %[[KS:.+]] = %c0 to %[[CLAMP]] step %c64
// CHECK: %[[DIAG:.+]] = arith.subi %[[QS]], %[[KS]]
// CHECK: attn.online_attention {{.*}} causal_diagonal(%[[DIAG]])
func.func @causal_skips_tiles(%q: tensor<256x32xf32>) -> tensor<256x32xf32> {
  %o = attn.attention %q, %q, %q scale(0.125) causal(top_left)
      : tensor<256x32xf32>, tensor<256x32xf32>, tensor<256x32xf32> -> tensor<256x32xf32>
  return %o : tensor<256x32xf32>
}

// -----

// GQA: query head h reads K/V head h / 4; K and V are sliced, never copied.
// The [B, 1, 1, Lk] padding mask broadcasts over heads and query rows.
// CHECK-LABEL: func.func @gqa_padding_mask
// CHECK: scf.for %[[B:.+]] = %c0 to %c2
// CHECK: scf.for %[[H:.+]] = %c0 to %c8
// CHECK: %[[KVH:.+]] = arith.divui %[[H]], %c4
// CHECK: scf.for %[[KS:.+]] = %c0 to %c128 step %c64
// CHECK: tensor.extract_slice %{{.*}}[%[[B]], %[[KVH]], %[[KS]], 0] [1, 1, 64, 16] [1, 1, 1, 1] : tensor<2x2x128x16xbf16> to tensor<64x16xbf16>
// CHECK: %[[MT:.+]] = tensor.extract_slice %{{.*}}[%[[B]], 0, 0, %[[KS]]] [1, 1, 1, 64] [1, 1, 1, 1] : tensor<2x1x1x128xi1> to tensor<1x64xi1>
// CHECK: %[[MB:.+]] = linalg.generic {{.*}} ins(%[[MT]] : tensor<1x64xi1>) outs(%{{.*}} : tensor<64x64xi1>)
// CHECK: attn.online_attention {{.*}} mask(%[[MB]] : tensor<64x64xi1>)
// CHECK-NOT: tensor<2x8x64x16xbf16> to tensor<2x8x64x16xbf16>
func.func @gqa_padding_mask(%q: tensor<2x8x64x16xbf16>, %kv: tensor<2x2x128x16xbf16>,
                            %m: tensor<2x1x1x128xi1>) -> tensor<2x8x64x16xbf16> {
  %o = attn.attention %q, %kv, %kv mask(%m : tensor<2x1x1x128xi1>) scale(0.25)
      : tensor<2x8x64x16xbf16>, tensor<2x2x128x16xbf16>, tensor<2x2x128x16xbf16> -> tensor<2x8x64x16xbf16>
  return %o : tensor<2x8x64x16xbf16>
}

// -----

// Dynamic sequence length: the verifier's shape relations checked at run
// time first, then loop bounds from tensor.dim, remainder tiles.
// CHECK-LABEL: func.func @dynamic_length
// CHECK: cf.assert %{{.*}}, "attn.attention: query has an empty dim 0"
// CHECK: cf.assert %{{.*}}, "attn.attention: value sequence length differs from key length"
// CHECK-NOT: cf.assert
// CHECK: %[[L:.+]] = tensor.dim %{{.*}}, %c0 : tensor<?x16xf32>
// CHECK-NOT: cf.assert
// CHECK: scf.for %{{.*}} = %c0 to %[[L]] step %c64
// CHECK: attn.online_attention
func.func @dynamic_length(%q: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %o = attn.attention %q, %q, %q scale(0.25) : tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32> -> tensor<?x16xf32>
  return %o : tensor<?x16xf32>
}

// -----

// Negative: graph primitives and an existing online step are not touched.
// CHECK-LABEL: func.func @primitives_untouched
// CHECK-NOT: scf.for
// CHECK: attn.matmul
// CHECK: attn.softmax
// CHECK: attn.online_attention
func.func @primitives_untouched(%q: tensor<64x16xf32>, %acc: tensor<64x16xf32>, %m: tensor<64xf32>)
    -> (tensor<64x64xf32>, tensor<64x16xf32>) {
  %s = attn.matmul %q, %q transpose_rhs : tensor<64x16xf32>, tensor<64x16xf32> -> tensor<64x64xf32>
  %p = attn.softmax %s dim 1 : tensor<64x64xf32>
  %a, %b, %c = attn.online_attention %q, %q, %q scale(1.0) outs(%acc, %m, %m)
      : tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32> -> tensor<64x16xf32>, tensor<64xf32>, tensor<64xf32>
  return %p, %a : tensor<64x64xf32>, tensor<64x16xf32>
}

// -----

// f64 inputs accumulate in f64 (scores, row max, row sum and output), so
// that the fused result is as exact as the f64 program it came from.
// Static shapes: nothing is checked at run time (the verifier has).
// CHECK-LABEL: func.func @f64_accumulates_in_f64
// CHECK-NOT: cf.assert
// CHECK: attn.online_attention {{.*}} : tensor<8x16xf64>, tensor<8x16xf64>, tensor<8x16xf64> -> tensor<8x16xf64>, tensor<8xf64>, tensor<8xf64>
// CHECK-NOT: arith.truncf
// CHECK: return
func.func @f64_accumulates_in_f64(%q: tensor<2x8x16xf64>, %k: tensor<2x8x16xf64>, %v: tensor<2x8x16xf64>) -> tensor<2x8x16xf64> {
  %o = attn.attention %q, %k, %v scale(0.25) causal(top_left) : tensor<2x8x16xf64>, tensor<2x8x16xf64>, tensor<2x8x16xf64> -> tensor<2x8x16xf64>
  return %o : tensor<2x8x16xf64>
}

// -----

// A score_mod goes into every online-softmax step with the tile's origin in
// the scores: the batch and head loops' indices, the query tile's first row
// and the K/V tile's first key.
// CHECK-LABEL: func.func @score_mod
// CHECK: scf.for %[[B:[a-z0-9]+]] =
// CHECK: scf.for %[[H:[a-z0-9]+]] =
// CHECK: scf.for %[[I0:[a-z0-9]+]] =
// CHECK: scf.for %[[J0:[a-z0-9]+]] =
// CHECK: attn.online_attention {{.*}} score_mod(%[[B]], %[[H]], %[[I0]], %[[J0]]) {
// CHECK: math.tanh
// CHECK: attn.yield
// CHECK-NOT: attn.attention
func.func @score_mod(%q: tensor<2x4x256x16xf32>) -> tensor<2x4x256x16xf32> {
  %o = attn.attention %q, %q, %q scale(0.25) score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %t = math.tanh %s : f32
    attn.yield %t : f32
  } : tensor<2x4x256x16xf32>, tensor<2x4x256x16xf32>, tensor<2x4x256x16xf32> -> tensor<2x4x256x16xf32>
  return %o : tensor<2x4x256x16xf32>
}

// -----

// FP8 inputs: each Q tile (once per query tile) and each K/V tile
// dequantized to f32 (extended, times its descale factor) before the step,
// which never sees an 8-bit float; the output rounded to the result type.
// CHECK-LABEL: func.func @fp8_descale
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x64x32xf8E4M3FN>, %[[K:[^:]+]]: tensor<2x64x32xf8E4M3FN>, %[[V:[^:]+]]: tensor<2x64x32xf8E4M3FN>, %[[QS:[^:]+]]: tensor<f32>, %[[KS:[^:]+]]: tensor<f32>, %[[VS:[^:]+]]: tensor<f32>
// CHECK: %[[QT:.+]] = tensor.extract_slice %[[Q]]
// CHECK: %[[QF:.+]] = tensor.extract %[[QS]][]
// CHECK: %[[QD:.+]] = linalg.generic {{.*}} ins(%[[QT]] : tensor<64x32xf8E4M3FN>)
// CHECK:   arith.extf %{{.*}} : f8E4M3FN to f32
// CHECK:   arith.mulf %{{.*}}, %[[QF]] : f32
// CHECK: %[[KT:.+]] = tensor.extract_slice %[[K]]
// CHECK: %[[VT:.+]] = tensor.extract_slice %[[V]]
// CHECK: tensor.extract %[[KS]][]
// CHECK: %[[KD:.+]] = linalg.generic {{.*}} ins(%[[KT]] : tensor<64x32xf8E4M3FN>)
// CHECK: tensor.extract %[[VS]][]
// CHECK: %[[VD:.+]] = linalg.generic {{.*}} ins(%[[VT]] : tensor<64x32xf8E4M3FN>)
// CHECK: attn.online_attention %[[QD]], %[[KD]], %[[VD]] scale(1.250000e-01) {{.*}} : tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @fp8_descale(%q: tensor<2x64x32xf8E4M3FN>, %k: tensor<2x64x32xf8E4M3FN>, %v: tensor<2x64x32xf8E4M3FN>,
                       %qs: tensor<f32>, %ks: tensor<f32>, %vs: tensor<f32>) -> tensor<2x64x32xbf16> {
  %o = attn.attention %q, %k, %v descale(%qs, %ks, %vs : tensor<f32>, tensor<f32>, tensor<f32>) scale(0.125)
     : tensor<2x64x32xf8E4M3FN>, tensor<2x64x32xf8E4M3FN>, tensor<2x64x32xf8E4M3FN> -> tensor<2x64x32xbf16>
  return %o : tensor<2x64x32xbf16>
}

// Without descale: extended only.
// CHECK-LABEL: func.func @fp8_no_descale
// CHECK: arith.extf %{{.*}} : f8E5M2 to f32
// CHECK-NOT: arith.mulf
// CHECK: linalg.yield
// CHECK: attn.online_attention {{.*}} : tensor<64x32xf32>
func.func @fp8_no_descale(%q: tensor<64x32xf8E5M2>) -> tensor<64x32xf32> {
  %o = attn.attention %q, %q, %q scale(0.125) : tensor<64x32xf8E5M2>, tensor<64x32xf8E5M2>, tensor<64x32xf8E5M2> -> tensor<64x32xf32>
  return %o : tensor<64x32xf32>
}

// -----

// A result type less static than Q and V make it: the loops' result is
// cast back to the op's type (the function's return stays valid).
// CHECK-LABEL: func.func @result_more_dynamic
// CHECK: %[[R:.+]] = scf.for
// CHECK: %[[C:.+]] = tensor.cast %[[R]] : tensor<?x3xf16> to tensor<?x?xf16>
// CHECK: return %[[C]] : tensor<?x?xf16>
func.func @result_more_dynamic(%q: tensor<?x17xf16>, %k: tensor<8x17xf16>, %v: tensor<8x3xf16>) -> tensor<?x?xf16> {
  %o = attn.attention %q, %k, %v scale(0.125) : tensor<?x17xf16>, tensor<8x17xf16>, tensor<8x3xf16> -> tensor<?x?xf16>
  return %o : tensor<?x?xf16>
}

// RUN: attn-opt %s -split-input-file --attn-gather-paged-kv | FileCheck %s
// RUN: attn-opt %s -split-input-file --attn-gather-paged-kv=check-bounds=true | FileCheck %s --check-prefix=BOUNDS
// The pass's diagnostics: attn-gather-paged-kv-diagnostics.mlir.

// Decode over a paged cache: K and V gathered into [B, Hkv, N·S, d], a page
// read only for keys inside the sequence (else 0), and a keep mask of the
// sequence's keys with the bottom-right diagonal shifted by its length.
// CHECK-LABEL: func.func @decode_bottom_right
// CHECK-NOT: cf.assert
// CHECK: %[[K:.*]] = tensor.generate
// CHECK: ^bb0(%[[B:.*]]: index, %[[H:.*]]: index, %[[J:.*]]: index, %[[C:.*]]: index):
// CHECK:   %[[LEN:.*]] = tensor.extract %{{.*}}[%[[B]]] : tensor<2xi32>
// CHECK:   %[[LENI:.*]] = arith.index_cast %[[LEN]] : i32 to index
// CHECK:   %[[IN:.*]] = arith.cmpi slt, %[[J]], %[[LENI]] : index
// CHECK:   scf.if %[[IN]] -> (f16)
// CHECK:     arith.divui %[[J]], %c16
// CHECK:     tensor.extract %{{.*}}[%[[B]], %{{.*}}] : tensor<2x4xi32>
// CHECK:     arith.remui %[[J]], %c16
// CHECK:     tensor.extract %{{.*}} : tensor<10x16x2x64xf16>
// CHECK:   } else {
// CHECK:     scf.yield %{{.*}} : f16
// CHECK: } : tensor<2x2x64x64xf16>
// CHECK: %[[V:.*]] = tensor.generate
// CHECK: } : tensor<2x2x64x32xf16>
// CHECK: %[[M:.*]] = tensor.generate
// CHECK:   arith.cmpi slt
// CHECK:   arith.subi %{{.*}}, %c3
// CHECK:   arith.addi
// CHECK:   arith.cmpi sle
// CHECK:   arith.andi
// CHECK: } : tensor<2x1x3x64xi1>
// CHECK: attn.attention %{{.*}}, %[[K]], %[[V]] mask(%[[M]] : tensor<2x1x3x64xi1>) scale(1.250000e-01) :
// CHECK-NOT: causal
// CHECK-SAME: -> tensor<2x8x3x32xf16>

// check-bounds: per sequence, 0 <= L <= N·S, and the entries of its
// ceil(L / S) pages name pages of the pool.
// BOUNDS-LABEL: func.func @decode_bottom_right
// BOUNDS: scf.for %[[SEQ:.*]] = %c0 to %c2 step %c1 {
// BOUNDS:   cf.assert %{{.*}}, "attn.paged_attention: a sequence length is outside [0, max_pages * page_size]"
// BOUNDS:   arith.ceildivui %{{.*}}, %c16
// BOUNDS:   scf.for
// BOUNDS:     arith.cmpi slt, %{{.*}}, %c10
// BOUNDS:     cf.assert %{{.*}}, "attn.paged_attention: a block-table entry is not a page of the pool"
// BOUNDS: tensor.generate
func.func @decode_bottom_right(%q: tensor<2x8x3x64xf16>, %kc: tensor<10x16x2x64xf16>, %vc: tensor<10x16x2x32xf16>, %t: tensor<2x4xi32>, %l: tensor<2xi32>) -> tensor<2x8x3x32xf16> {
  %o = attn.paged_attention %q, %kc, %vc pages(%t, %l) scale(0.125) causal(bottom_right) : tensor<2x8x3x64xf16>, tensor<10x16x2x64xf16>, tensor<10x16x2x32xf16>, tensor<2x4xi32>, tensor<2xi32> -> tensor<2x8x3x32xf16>
  return %o : tensor<2x8x3x32xf16>
}

// -----

// Without a causal mask the keep mask is the sequence's keys alone.
// CHECK-LABEL: func.func @no_mask
// CHECK: tensor.generate
// CHECK: tensor.generate
// CHECK: tensor.generate
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tensor.extract
// CHECK-NEXT: arith.index_cast
// CHECK-NEXT: arith.cmpi slt
// CHECK-NEXT: tensor.yield
// CHECK: attn.attention
func.func @no_mask(%q: tensor<1x2x1x8xf32>, %kc: tensor<3x4x2x8xf32>, %vc: tensor<3x4x2x8xf32>, %t: tensor<1x3xi32>, %l: tensor<1xi32>) -> tensor<1x2x1x8xf32> {
  %o = attn.paged_attention %q, %kc, %vc pages(%t, %l) scale(1.0) : tensor<1x2x1x8xf32>, tensor<3x4x2x8xf32>, tensor<3x4x2x8xf32>, tensor<1x3xi32>, tensor<1xi32> -> tensor<1x2x1x8xf32>
  return %o : tensor<1x2x1x8xf32>
}

// -----

// Top-left: query i sees keys j <= i, whatever the length.
// CHECK-LABEL: func.func @top_left
// CHECK: } : tensor<1x1x2x8xi1>
// CHECK: attn.attention
func.func @top_left(%q: tensor<1x2x2x8xf32>, %kc: tensor<3x4x2x8xf32>, %vc: tensor<3x4x2x8xf32>, %t: tensor<1x2xi32>, %l: tensor<1xi32>) -> tensor<1x2x2x8xf32> {
  %o = attn.paged_attention %q, %kc, %vc pages(%t, %l) scale(1.0) causal(top_left) : tensor<1x2x2x8xf32>, tensor<3x4x2x8xf32>, tensor<3x4x2x8xf32>, tensor<1x2xi32>, tensor<1xi32> -> tensor<1x2x2x8xf32>
  return %o : tensor<1x2x2x8xf32>
}

// -----

// Negative: an attention over contiguous K/V is not the pass's to touch.
// CHECK-LABEL: func.func @contiguous_untouched
// CHECK-NOT: tensor.generate
// CHECK: attn.attention %{{.*}} causal(bottom_right)
func.func @contiguous_untouched(%q: tensor<1x2x1x8xf32>, %k: tensor<1x2x12x8xf32>, %v: tensor<1x2x12x8xf32>) -> tensor<1x2x1x8xf32> {
  %o = attn.attention %q, %k, %v scale(1.0) causal(bottom_right) : tensor<1x2x1x8xf32>, tensor<1x2x12x8xf32>, tensor<1x2x12x8xf32> -> tensor<1x2x1x8xf32>
  return %o : tensor<1x2x1x8xf32>
}

// RUN: attn-opt %s -split-input-file --attn-unpack-varlen | FileCheck %s
// RUN: attn-opt %s -split-input-file --attn-unpack-varlen=check-bounds=true | FileCheck %s --check-prefix=BOUNDS

// One attention per sequence of the packed batch, on [Hq, Lq_b, d] slices
// of dynamic length, written back into a zero-filled output; the op's scale
// and causal alignment go to each.
// CHECK-LABEL: func.func @varlen
// CHECK-NOT: cf.assert
// CHECK: %[[ZERO:.*]] = linalg.fill
// CHECK: scf.for %[[SEQ:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (tensor<24x4x8xf32>)
// CHECK:   tensor.extract %{{.*}}[%[[SEQ]]] : tensor<4xi32>
// CHECK:   %[[Q:.*]] = tensor.extract_slice %{{.*}} : tensor<24x4x16xf32> to tensor<?x4x16xf32>
// CHECK:   linalg.transpose ins(%[[Q]] : tensor<?x4x16xf32>) outs(%{{.*}} : tensor<4x?x16xf32>) permutation = [1, 0, 2]
// CHECK:   tensor.extract_slice %{{.*}} : tensor<30x2x16xf32> to tensor<?x2x16xf32>
// CHECK:   tensor.extract_slice %{{.*}} : tensor<30x2x8xf32> to tensor<?x2x8xf32>
// CHECK:   %[[O:.*]] = attn.attention {{.*}} scale(2.500000e-01) causal(bottom_right) : tensor<4x?x16xf32>, tensor<2x?x16xf32>, tensor<2x?x8xf32> -> tensor<4x?x8xf32>
// CHECK:   %[[ROWS:.*]] = linalg.transpose ins(%[[O]] : tensor<4x?x8xf32>)
// CHECK:   tensor.insert_slice %[[ROWS]] into %[[ACC]]
// CHECK-NOT: attn.varlen_attention
// BOUNDS-LABEL: func.func @varlen
// BOUNDS: cf.assert %{{.*}}, "attn.varlen_attention: cu_seqlens_q and cu_seqlens_k need the same B + 1 >= 1 entries"
// BOUNDS: arith.minsi
// BOUNDS: cf.assert %{{.*}}, "attn.varlen_attention: cu_seqlens_q leaves [0, tokens]"
// BOUNDS: cf.assert %{{.*}}, "attn.varlen_attention: cu_seqlens_q decreases"
// BOUNDS: cf.assert %{{.*}}, "attn.varlen_attention: cu_seqlens_k leaves [0, tokens]"
// BOUNDS: cf.assert %{{.*}}, "attn.varlen_attention: cu_seqlens_k decreases"
func.func @varlen(%q: tensor<24x4x16xf32>, %k: tensor<30x2x16xf32>, %v: tensor<30x2x8xf32>, %cq: tensor<4xi32>, %ck: tensor<4xi32>) -> tensor<24x4x8xf32> {
  %o = attn.varlen_attention %q, %k, %v seqlens(%cq, %ck) scale(0.25) causal(bottom_right) : tensor<24x4x16xf32>, tensor<30x2x16xf32>, tensor<30x2x8xf32>, tensor<4xi32>, tensor<4xi32> -> tensor<24x4x8xf32>
  return %o : tensor<24x4x8xf32>
}

// -----

// Dynamic token counts and batch: the same loop, bounded by the run-time
// number of sequences.
// CHECK-LABEL: func.func @varlen_dynamic
// CHECK: tensor.dim %{{.*}}, %{{.*}} : tensor<?xi32>
// CHECK: scf.for
// CHECK:   attn.attention {{.*}} : tensor<4x?x16xbf16>, tensor<4x?x16xbf16>, tensor<4x?x16xbf16> -> tensor<4x?x16xbf16>
func.func @varlen_dynamic(%q: tensor<?x4x16xbf16>, %k: tensor<?x4x16xbf16>, %cq: tensor<?xi32>, %ck: tensor<?xi32>) -> tensor<?x4x16xbf16> {
  %o = attn.varlen_attention %q, %k, %k seqlens(%cq, %ck) scale(0.25) : tensor<?x4x16xbf16>, tensor<?x4x16xbf16>, tensor<?x4x16xbf16>, tensor<?xi32>, tensor<?xi32> -> tensor<?x4x16xbf16>
  return %o : tensor<?x4x16xbf16>
}

// -----

// Other attentions are not the pass's business.
// CHECK-LABEL: func.func @contiguous
// CHECK-NEXT: attn.attention
// CHECK-NOT: scf.for
func.func @contiguous(%q: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  %o = attn.attention %q, %q, %q scale(0.25) : tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32> -> tensor<2x8x16xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

// A result type more static than the operands': the loop's result is cast
// to it.
// CHECK-LABEL: func.func @varlen_result_cast
// CHECK: %[[LOOP:.*]] = scf.for
// CHECK: tensor.cast %[[LOOP]] : tensor<?x2x8xf32> to tensor<5x2x8xf32>
func.func @varlen_result_cast(%q: tensor<?x2x8xf32>, %k: tensor<6x2x8xf32>, %cq: tensor<3xi32>, %ck: tensor<3xi32>) -> tensor<5x2x8xf32> {
  %o = attn.varlen_attention %q, %k, %k seqlens(%cq, %ck) scale(0.25) : tensor<?x2x8xf32>, tensor<6x2x8xf32>, tensor<6x2x8xf32>, tensor<3xi32>, tensor<3xi32> -> tensor<5x2x8xf32>
  return %o : tensor<5x2x8xf32>
}

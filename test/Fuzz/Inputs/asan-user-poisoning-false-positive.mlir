// RUN: attn-opt %s -split-input-file | FileCheck %s
// Round trip: the printed form parses back to the same IR.
// RUN: attn-opt %s -split-input-file | attn-opt -split-input-file | FileCheck %s
// CHECK-LABEL: func.func @primitives
func.func @primitives(%q: tensor<2x64x32xf16>, %k: tensor<2x80x32xf16>,
                      %v: tensor<2x80x16xf16>, %bias: tensor<1x1x80xf32>,
                      %keep: tensor<2x64x80xi1>) -> tensor<2x64x16xf32> {
  // CHECK: %[[S:.+]] = attn.matmul %{{.*}}, %{{.*}} transpose_rhs : tensor<2x64x32xf16>, tensor<2x80x32xf16> -> tensor<2x64x80xf32>
  %s = attn.matmul %q, %k transpose_rhs : tensor<2x64x32xf16>, tensor<2x80x32xf16> -> tensor<2x64x80xf32>
  // CHECK: attn.scale %[[S]] by 1.250000e-01 : tensor<2x64x80xf32>
  %s1 = attn.scale %s by 0.125 : tensor<2x64x80xf32>
 nvg // CHECK: attn.mask additive %{{.*}}, %{{.*}} : tensor<1x1x80xf32> : tensor<2x64x80xf32>
  %s2 = attn.mask additive %s1, %bias : tensor<1x1x80xf32> : tensor<2x64x80xf32>
  // CHECK: attn.mask keep %{{.*}}, %{{.*}} : tensor<2x64x80xi1> : tensor<2x64x80xf32>
  %s3 = attn.mask keep %s2, %keep : tensor<2x64x80xi1> : tensor<2x64x80xf32>
  // CHECK: attn.mask causal %{{.*}} align bottom_right : tensor<2x64x80xf32>
  %s4 = attn.mask causal %s3 align bottom_right : tensor<2x64x80xf32>
  // CHECK: attn.mask causal %{{[^ ]*}} : tensor<2x64x80xf32>
  %s5 = attn.mask causal %s4 : tensor<2x64x80xf32>
  // CHECK: attn.softmax %{{.*}} dim 2 : tensor<2x64x80xf32>
  %p = attn.softmax %s5 dim 2 : tensor<2x64x80xf32>
  %vf = arith.extf %v : tensor<2x80x16xf16> to tensor<2x80x16xf32>
  // CHECK: attn.matmul %{{.*}}, %{{.*}} : tensor<2x64x80xf32>, tensor<2x80x16xf32> -> tensor<2x64x16xf32>
  %o = attn.matmul %p, %vf : tensor<2x64x80xf32>, tensor<2x8scf0x16xf32> -> tensor<2x64x16xf32>
  return %o : tensor<2x64x16xf32>
}

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
  // CHECK: attn.mask additive %{{.*}}, %{{.*}} : tensor<1x1x80xf32> : tensor<2x64x80xf32>
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
  %o = attn.matmul %p, %vf : tensor<2x64x80xf32>, tensor<2x80x16xf32> -> tensor<2x64x16xf32>
  return %o : tensor<2x64x16xf32>
}

// -----

// CHECK-LABEL: func.func @attention_gqa_causal
func.func @attention_gqa_causal(%q: tensor<2x8x128x64xbf16>, %k: tensor<2x2x128x64xbf16>,
                                %v: tensor<2x2x128x32xbf16>) -> tensor<2x8x128x32xbf16> {
  // CHECK: attn.attention %{{.*}}, %{{.*}}, %{{.*}} scale(1.250000e-01) causal(top_left) : tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x32xbf16> -> tensor<2x8x128x32xbf16>
  %o = attn.attention %q, %k, %v scale(0.125) causal(top_left)
      : tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x32xbf16> -> tensor<2x8x128x32xbf16>
  return %o : tensor<2x8x128x32xbf16>
}

// -----

// CHECK-LABEL: func.func @attention_masks
func.func @attention_masks(%q: tensor<16x8xf32>, %k: tensor<24x8xf32>, %v: tensor<24x8xf32>,
                           %m: tensor<1x24xf32>, %keep: tensor<16x24xi1>)
    -> (tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>) {
  // CHECK: attn.attention %{{.*}} mask(%{{.*}} : tensor<1x24xf32>) scale(1.000000e+00) :
  %a = attn.attention %q, %k, %v mask(%m : tensor<1x24xf32>) scale(1.0)
      : tensor<16x8xf32>, tensor<24x8xf32>, tensor<24x8xf32> -> tensor<16x8xf32>
  // CHECK: attn.attention %{{.*}} mask(%{{.*}} : tensor<16x24xi1>) scale(5.000000e-01) causal(bottom_right) :
  %b = attn.attention %q, %k, %v mask(%keep : tensor<16x24xi1>) scale(0.5) causal(bottom_right)
      : tensor<16x8xf32>, tensor<24x8xf32>, tensor<24x8xf32> -> tensor<16x8xf32>
  // Dynamic sizes are allowed on the semantic op.
  %qd = tensor.cast %q : tensor<16x8xf32> to tensor<?x8xf32>
  // CHECK: attn.attention {{.*}} : tensor<?x8xf32>, tensor<24x8xf32>, tensor<24x8xf32> -> tensor<?x8xf32>
  %c = attn.attention %qd, %k, %v scale(1.0)
      : tensor<?x8xf32>, tensor<24x8xf32>, tensor<24x8xf32> -> tensor<?x8xf32>
  %cs = tensor.cast %c : tensor<?x8xf32> to tensor<16x8xf32>
  return %a, %b, %cs : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>
}

// -----

// CHECK-LABEL: func.func @online_step
func.func @online_step(%q: tensor<64x64xf16>, %k: tensor<32x64xf16>, %v: tensor<32x16xf16>,
                       %acc: tensor<64x16xf32>, %m: tensor<64xf32>, %l: tensor<64xf32>,
                       %mask: tensor<64x32xi1>, %diag: index)
    -> (tensor<64x16xf32>, tensor<64xf32>, tensor<64xf32>) {
  // CHECK: attn.online_attention %{{.*}}, %{{.*}}, %{{.*}} mask(%{{.*}} : tensor<64x32xi1>) causal_diagonal(%{{.*}}) scale(1.250000e-01) outs(%{{.*}}, %{{.*}}, %{{.*}}) : tensor<64x64xf16>, tensor<32x64xf16>, tensor<32x16xf16> -> tensor<64x16xf32>, tensor<64xf32>, tensor<64xf32>
  %a, %b, %c = attn.online_attention %q, %k, %v mask(%mask : tensor<64x32xi1>) causal_diagonal(%diag)
      scale(0.125) outs(%acc, %m, %l)
      : tensor<64x64xf16>, tensor<32x64xf16>, tensor<32x16xf16> -> tensor<64x16xf32>, tensor<64xf32>, tensor<64xf32>
  return %a, %b, %c : tensor<64x16xf32>, tensor<64xf32>, tensor<64xf32>
}

// -----

// CHECK-LABEL: func.func @paged_decode
// CHECK: attn.paged_attention %{{.*}}, %{{.*}}, %{{.*}} pages(%{{.*}}, %{{.*}}) scale(1.250000e-01) causal(bottom_right) : tensor<2x8x1x64xbf16>, tensor<32x16x2x64xbf16>, tensor<32x16x2x64xbf16>, tensor<2x16xi32>, tensor<2xi32> -> tensor<2x8x1x64xbf16>
func.func @paged_decode(%q: tensor<2x8x1x64xbf16>, %kc: tensor<32x16x2x64xbf16>, %vc: tensor<32x16x2x64xbf16>, %t: tensor<2x16xi32>, %l: tensor<2xi32>) -> tensor<2x8x1x64xbf16> {
  %o = attn.paged_attention %q, %kc, %vc pages(%t, %l) scale(0.125) causal(bottom_right) : tensor<2x8x1x64xbf16>, tensor<32x16x2x64xbf16>, tensor<32x16x2x64xbf16>, tensor<2x16xi32>, tensor<2xi32> -> tensor<2x8x1x64xbf16>
  return %o : tensor<2x8x1x64xbf16>
}

// CHECK-LABEL: func.func @paged_dynamic_dv
// CHECK: attn.paged_attention {{.*}} scale(1.000000e+00) :
func.func @paged_dynamic_dv(%q: tensor<?x4x3x32xf32>, %kc: tensor<?x8x4x32xf32>, %vc: tensor<?x8x4x16xf32>, %t: tensor<?x?xi32>, %l: tensor<?xi32>) -> tensor<?x4x3x16xf32> {
  %o = attn.paged_attention %q, %kc, %vc pages(%t, %l) scale(1.0) : tensor<?x4x3x32xf32>, tensor<?x8x4x32xf32>, tensor<?x8x4x16xf32>, tensor<?x?xi32>, tensor<?xi32> -> tensor<?x4x3x16xf32>
  return %o : tensor<?x4x3x16xf32>
}

// -----

// CHECK-LABEL: func.func @varlen_prefill
// CHECK: attn.varlen_attention %{{.*}}, %{{.*}}, %{{.*}} seqlens(%{{.*}}, %{{.*}}) scale(1.250000e-01) causal(bottom_right) : tensor<96x8x64xbf16>, tensor<128x2x64xbf16>, tensor<128x2x32xbf16>, tensor<4xi32>, tensor<4xi32> -> tensor<96x8x32xbf16>
func.func @varlen_prefill(%q: tensor<96x8x64xbf16>, %k: tensor<128x2x64xbf16>, %v: tensor<128x2x32xbf16>, %cq: tensor<4xi32>, %ck: tensor<4xi32>) -> tensor<96x8x32xbf16> {
  %o = attn.varlen_attention %q, %k, %v seqlens(%cq, %ck) scale(0.125) causal(bottom_right) : tensor<96x8x64xbf16>, tensor<128x2x64xbf16>, tensor<128x2x32xbf16>, tensor<4xi32>, tensor<4xi32> -> tensor<96x8x32xbf16>
  return %o : tensor<96x8x32xbf16>
}

// CHECK-LABEL: func.func @varlen_dynamic
// CHECK: attn.varlen_attention {{.*}} scale(1.000000e+00) :
func.func @varlen_dynamic(%q: tensor<?x4x16xf32>, %k: tensor<?x?x16xf32>, %v: tensor<?x?x8xf32>, %cq: tensor<?xi32>, %ck: tensor<?xi32>) -> tensor<?x4x8xf32> {
  %o = attn.varlen_attention %q, %k, %v seqlens(%cq, %ck) scale(1.0) : tensor<?x4x16xf32>, tensor<?x?x16xf32>, tensor<?x?x8xf32>, tensor<?xi32>, tensor<?xi32> -> tensor<?x4x8xf32>
  return %o : tensor<?x4x8xf32>
}

// -----

// A score_mod region: soft-capping, then a bias read from a tensor above.
// CHECK-LABEL: func.func @score_mod
// CHECK: attn.attention %{{.*}}, %{{.*}}, %{{.*}} scale(1.250000e-01) causal(bottom_right) score_mod {
// CHECK-NEXT: ^bb0(%[[S:.*]]: f32, %[[B:.*]]: index, %[[H:.*]]: index, %[[I:.*]]: index, %[[J:.*]]: index):
// CHECK: math.tanh
// CHECK: tensor.extract %{{.*}}[%[[B]], %[[H]], %[[I]], %[[J]]] : tensor<2x8x16x32xf32>
// CHECK: attn.yield %{{.*}} : f32
// CHECK-NEXT: } : tensor<2x8x16x64xbf16>
func.func @score_mod(%q: tensor<2x8x16x64xbf16>, %k: tensor<2x2x32x64xbf16>, %bias: tensor<2x8x16x32xf32>) -> tensor<2x8x16x64xbf16> {
  %o = attn.attention %q, %k, %k scale(0.125) causal(bottom_right) score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %c = arith.constant 3.0e+01 : f32
    %x = arith.divf %s, %c : f32
    %t = math.tanh %x : f32
    %y = arith.mulf %c, %t : f32
    %e = tensor.extract %bias[%b, %h, %i, %j] : tensor<2x8x16x32xf32>
    %z = arith.addf %y, %e : f32
    attn.yield %z : f32
  } : tensor<2x8x16x64xbf16>, tensor<2x2x32x64xbf16>, tensor<2x2x32x64xbf16> -> tensor<2x8x16x64xbf16>
  return %o : tensor<2x8x16x64xbf16>
}

// -----

// FP8 inputs with their descale factors, a mask and causal; a bf16 result.
// CHECK-LABEL: func.func @fp8
// CHECK: attn.attention %{{.*}}, %{{.*}}, %{{.*}} mask(%{{.*}} : tensor<1x1x16x32xi1>) descale(%{{.*}}, %{{.*}}, %{{.*}} : tensor<f32>, tensor<f32>, tensor<f32>) scale(1.250000e-01) causal(top_left) : tensor<2x8x16x64xf8E4M3FN>, tensor<2x2x32x64xf8E4M3FN>, tensor<2x2x32x64xf8E4M3FN> -> tensor<2x8x16x64xbf16>
// Without descale the factors are 1; E5M2 inputs, an f32 result.
// CHECK: attn.attention %{{.*}}, %{{.*}}, %{{.*}} scale(1.250000e-01) : tensor<16x64xf8E5M2>, tensor<32x64xf8E5M2>, tensor<32x64xf8E5M2> -> tensor<16x64xf32>
func.func @fp8(%q: tensor<2x8x16x64xf8E4M3FN>, %k: tensor<2x2x32x64xf8E4M3FN>, %m: tensor<1x1x16x32xi1>,
               %qs: tensor<f32>, %ks: tensor<f32>, %vs: tensor<f32>,
               %q2: tensor<16x64xf8E5M2>, %k2: tensor<32x64xf8E5M2>) -> (tensor<2x8x16x64xbf16>, tensor<16x64xf32>) {
  %o = attn.attention %q, %k, %k mask(%m : tensor<1x1x16x32xi1>) descale(%qs, %ks, %vs : tensor<f32>, tensor<f32>, tensor<f32>) scale(0.125) causal(top_left)
      : tensor<2x8x16x64xf8E4M3FN>, tensor<2x2x32x64xf8E4M3FN>, tensor<2x2x32x64xf8E4M3FN> -> tensor<2x8x16x64xbf16>
  %o2 = attn.attention %q2, %k2, %k2 scale(0.125) : tensor<16x64xf8E5M2>, tensor<32x64xf8E5M2>, tensor<32x64xf8E5M2> -> tensor<16x64xf32>
  return %o, %o2 : tensor<2x8x16x64xbf16>, tensor<16x64xf32>
}

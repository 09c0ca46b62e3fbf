// RUN: attn-opt %s -split-input-file --attn-detect="explain=true" -verify-diagnostics | FileCheck %s
// Detection on the attn graph primitives.

// Scale on S, additive [1, 1, Lq, Lk] mask, bottom-right causal, Lq != Lk.
// CHECK-LABEL: func.func @primitives_4d
// CHECK: attn.attention %arg0, %arg1, %arg2 mask(%arg3 : tensor<1x1x64x48xf32>) scale(2.500000e-01) causal(bottom_right) : tensor<2x4x64x16xf32>, tensor<2x4x48x16xf32>, tensor<2x4x48x8xf32> -> tensor<2x4x64x8xf32>
// CHECK-NOT: attn.softmax
func.func @primitives_4d(%q: tensor<2x4x64x16xf32>, %k: tensor<2x4x48x16xf32>, %v: tensor<2x4x48x8xf32>, %m: tensor<1x1x64x48xf32>) -> tensor<2x4x64x8xf32> {
  %s = attn.matmul %q, %k transpose_rhs : tensor<2x4x64x16xf32>, tensor<2x4x48x16xf32> -> tensor<2x4x64x48xf32>
  %s1 = attn.scale %s by 0.25 : tensor<2x4x64x48xf32>
  %s2 = attn.mask additive %s1, %m : tensor<1x1x64x48xf32> : tensor<2x4x64x48xf32>
  %s3 = attn.mask causal %s2 align bottom_right : tensor<2x4x64x48xf32>
  %p = attn.softmax %s3 dim 3 : tensor<2x4x64x48xf32>
  %o = attn.matmul %p, %v : tensor<2x4x64x48xf32>, tensor<2x4x48x8xf32> -> tensor<2x4x64x8xf32>
  return %o : tensor<2x4x64x8xf32>
}

// -----

// Scale split as √ on Q and K, K stored pre-transposed ([d, Lk]), a keep
// mask, 2-D. The rewrite transposes K back.
// CHECK-LABEL: func.func @split_scale_pretransposed_k
// CHECK: %[[KT:.+]] = linalg.transpose ins(%arg1 : tensor<16x40xf32>) outs(%{{.*}} : tensor<40x16xf32>) permutation = [1, 0]
// CHECK: attn.attention %arg0, %[[KT]], %arg2 mask(%arg3 : tensor<24x40xi1>) scale(2.500000e-01)
func.func @split_scale_pretransposed_k(%q: tensor<24x16xf32>, %kt: tensor<16x40xf32>, %v: tensor<40x8xf32>, %keep: tensor<24x40xi1>) -> tensor<24x8xf32> {
  %qs = attn.scale %q by 0.5 : tensor<24x16xf32>
  %ks = attn.scale %kt by 0.5 : tensor<16x40xf32>
  %s = attn.matmul %qs, %ks : tensor<24x16xf32>, tensor<16x40xf32> -> tensor<24x40xf32>
  %s1 = attn.mask keep %s, %keep : tensor<24x40xi1> : tensor<24x40xf32>
  %p = attn.softmax %s1 dim 1 : tensor<24x40xf32>
  %o = attn.matmul %p, %v : tensor<24x40xf32>, tensor<40x8xf32> -> tensor<24x8xf32>
  return %o : tensor<24x8xf32>
}

// -----

// Two attention blocks and an output projection: both blocks are raised,
// the projection is not.
// CHECK-LABEL: func.func @two_blocks_and_projection
// CHECK: %[[A:.+]] = attn.attention %arg0, %arg0, %arg0 scale(1.250000e-01) causal(top_left)
// CHECK: %[[B:.+]] = attn.attention %[[A]], %[[A]], %[[A]] scale(1.250000e-01)
// CHECK: attn.matmul %[[B]], %arg1 : tensor<3x32x16xf32>, tensor<3x16x16xf32> -> tensor<3x32x16xf32>
func.func @two_blocks_and_projection(%x: tensor<3x32x16xf32>, %w: tensor<3x16x16xf32>) -> tensor<3x32x16xf32> {
  %s = attn.matmul %x, %x transpose_rhs : tensor<3x32x16xf32>, tensor<3x32x16xf32> -> tensor<3x32x32xf32>
  %s1 = attn.scale %s by 0.125 : tensor<3x32x32xf32>
  %s2 = attn.mask causal %s1 : tensor<3x32x32xf32>
  %p = attn.softmax %s2 dim 2 : tensor<3x32x32xf32>
  %a = attn.matmul %p, %x : tensor<3x32x32xf32>, tensor<3x32x16xf32> -> tensor<3x32x16xf32>
  %t = attn.matmul %a, %a transpose_rhs : tensor<3x32x16xf32>, tensor<3x32x16xf32> -> tensor<3x32x32xf32>
  %t1 = attn.scale %t by 0.125 : tensor<3x32x32xf32>
  %pt = attn.softmax %t1 dim 2 : tensor<3x32x32xf32>
  %b = attn.matmul %pt, %a : tensor<3x32x32xf32>, tensor<3x32x16xf32> -> tensor<3x32x16xf32>
  %o = attn.matmul %b, %w : tensor<3x32x16xf32>, tensor<3x16x16xf32> -> tensor<3x32x16xf32>
  return %o : tensor<3x32x16xf32>
}

// -----

// Look-alike: softmax over the query axis.
// CHECK-LABEL: func.func @softmax_over_queries
// CHECK-NOT: attn.attention
func.func @softmax_over_queries(%q: tensor<2x4x32x16xf32>, %v: tensor<2x4x32x16xf32>) -> tensor<2x4x32x16xf32> {
  %s = attn.matmul %q, %q transpose_rhs : tensor<2x4x32x16xf32>, tensor<2x4x32x16xf32> -> tensor<2x4x32x32xf32>
  %p = attn.softmax %s dim 2 : tensor<2x4x32x32xf32>
  // expected-remark @+1 {{attn-detect: not raised: softmax reduces over dim 2 but P·V contracts dim 3}}
  %o = attn.matmul %p, %v : tensor<2x4x32x32xf32>, tensor<2x4x32x16xf32> -> tensor<2x4x32x16xf32>
  return %o : tensor<2x4x32x16xf32>
}

// -----

// Look-alike: exp without normalization.
// CHECK-LABEL: func.func @unnormalized_exp
// CHECK-NOT: attn.attention
func.func @unnormalized_exp(%q: tensor<32x16xf32>) -> tensor<32x16xf32> {
  %s = attn.matmul %q, %q transpose_rhs : tensor<32x16xf32>, tensor<32x16xf32> -> tensor<32x32xf32>
  %e = math.exp %s : tensor<32x32xf32>
  // expected-remark @+1 {{attn-detect: not raised: P is exp(S) without normalization, not a softmax}}
  %o = attn.matmul %e, %q : tensor<32x32xf32>, tensor<32x16xf32> -> tensor<32x16xf32>
  return %o : tensor<32x16xf32>
}

// -----

// Look-alike: the scores S are also returned.
// CHECK-LABEL: func.func @scores_escape
// CHECK-NOT: attn.attention
func.func @scores_escape(%q: tensor<32x16xf32>) -> (tensor<32x16xf32>, tensor<32x32xf32>) {
  %s = attn.matmul %q, %q transpose_rhs : tensor<32x16xf32>, tensor<32x16xf32> -> tensor<32x32xf32>
  %p = attn.softmax %s dim 1 : tensor<32x32xf32>
  // expected-remark @+1 {{attn-detect: not raised: an intermediate of the chain ('attn.matmul') is also used outside it}}
  %o = attn.matmul %p, %q : tensor<32x32xf32>, tensor<32x16xf32> -> tensor<32x16xf32>
  return %o, %s : tensor<32x16xf32>, tensor<32x32xf32>
}

// -----

// A causal pattern filled with -1e4 is a bias, not a mask: scores can
// outgrow it (the fuzzer's oracle found one under a scale of 8.5e35, where
// the original kept every key). It is raised as the additive mask it is.
// CHECK-LABEL: func.func @causal_pattern_filled_with_minus_1e4
// CHECK: attn.attention %{{.*}}, %{{.*}}, %{{.*}} mask(%{{.*}} : tensor<4x4xf32>) scale(1.000000e+00) :
// CHECK-NOT: causal
func.func @causal_pattern_filled_with_minus_1e4(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = arith.constant dense<[[0.0, -1.0e4, -1.0e4, -1.0e4], [0.0, 0.0, -1.0e4, -1.0e4], [0.0, 0.0, 0.0, -1.0e4], [0.0, 0.0, 0.0, 0.0]]> : tensor<4x4xf32>
  %s = attn.matmul %q, %k transpose_rhs : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x4xf32>
  %s1 = attn.mask additive %s, %m : tensor<4x4xf32> : tensor<4x4xf32>
  %p = attn.softmax %s1 dim 1 : tensor<4x4xf32>
  %o = attn.matmul %p, %v : tensor<4x4xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}

// -----

// The same pattern filled with finfo.min absorbs every score below 1e31:
// causal.
// CHECK-LABEL: func.func @causal_pattern_filled_with_finfo_min
// CHECK: attn.attention %{{.*}}, %{{.*}}, %{{.*}} scale(1.000000e+00) causal(top_left) :
func.func @causal_pattern_filled_with_finfo_min(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = arith.constant dense<[[0.0, -3.40282347E+38, -3.40282347E+38, -3.40282347E+38], [0.0, 0.0, -3.40282347E+38, -3.40282347E+38], [0.0, 0.0, 0.0, -3.40282347E+38], [0.0, 0.0, 0.0, 0.0]]> : tensor<4x4xf32>
  %s = attn.matmul %q, %k transpose_rhs : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x4xf32>
  %s1 = attn.mask additive %s, %m : tensor<4x4xf32> : tensor<4x4xf32>
  %p = attn.softmax %s1 dim 1 : tensor<4x4xf32>
  %o = attn.matmul %p, %v : tensor<4x4xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}

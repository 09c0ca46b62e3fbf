// RUN: attn-opt %s -split-input-file --attn-lower-to-loops="decompose-only" | FileCheck %s --check-prefix=LINALG
// RUN: attn-opt %s -split-input-file --attn-lower-to-loops | FileCheck %s --check-prefix=LOOPS
// RUN: attn-opt %s -split-input-file --attn-fuse --canonicalize --attn-lower-to-loops | FileCheck %s --check-prefix=FUSED

// One online step decomposes into the recurrence on its tile: S = Q·Kᵀ,
// row max, exp against the safe max, α rescaling, row sum, P·V.
// LINALG-LABEL: func.func @online_step
// LINALG: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// LINALG: arith.mulf
// LINALG: linalg.generic
// LINALG: arith.select
// LINALG: arith.maximumf
// LINALG: math.exp
// LINALG: math.exp
// LINALG-NOT: attn.
// LOOPS-LABEL: func.func @online_step
// LOOPS-NOT: attn.
// LOOPS-NOT: linalg.
// LOOPS: scf.for
// LOOPS: math.exp
// LOOPS: memref.store
func.func @online_step(%q: tensor<16x8xf16>, %k: tensor<32x8xf16>, %v: tensor<32x4xf16>,
                       %acc: tensor<16x4xf32>, %m: tensor<16xf32>, %l: tensor<16xf32>, %d: index)
    -> (tensor<16x4xf32>, tensor<16xf32>, tensor<16xf32>) {
  %a, %b, %c = attn.online_attention %q, %k, %v causal_diagonal(%d) scale(0.35) outs(%acc, %m, %l)
      : tensor<16x8xf16>, tensor<32x8xf16>, tensor<32x4xf16> -> tensor<16x4xf32>, tensor<16xf32>, tensor<16xf32>
  return %a, %b, %c : tensor<16x4xf32>, tensor<16xf32>, tensor<16xf32>
}

// -----

// attn.attention without --attn-fuse is the naive reference: it does
// materialize the 256x256 scores (the positive twin of FUSED below).
// LOOPS-LABEL: func.func @naive_vs_fused
// LOOPS: memref.alloc() {{.*}} : memref<2x256x256xf32>
// The fused form allocates tiles only: no buffer of Lq x Lk elements.
// FUSED-LABEL: func.func @naive_vs_fused
// FUSED-NOT: 256x256
// FUSED: memref.alloc() {{.*}} : memref<64x64xf32>
// FUSED-NOT: 256x256
// FUSED: return
func.func @naive_vs_fused(%q: tensor<2x256x32xf32>) -> tensor<2x256x32xf32> {
  %o = attn.attention %q, %q, %q scale(0.17) causal(top_left)
      : tensor<2x256x32xf32>, tensor<2x256x32xf32>, tensor<2x256x32xf32> -> tensor<2x256x32xf32>
  return %o : tensor<2x256x32xf32>
}

// -----

// Primitives lower one by one; softmax keeps its textbook form.
// LINALG-LABEL: func.func @primitives
// LINALG: linalg.generic
// LINALG: arith.maximumf
// LINALG: math.exp
// LINALG: arith.divf
// LOOPS-LABEL: func.func @primitives
// LOOPS-NOT: attn.
// LOOPS: scf.for
func.func @primitives(%s: tensor<4x8xf32>, %m: tensor<1x8xf32>) -> tensor<4x8xf32> {
  %a = attn.scale %s by 2.0 : tensor<4x8xf32>
  %b = attn.mask additive %a, %m : tensor<1x8xf32> : tensor<4x8xf32>
  %c = attn.mask causal %b align bottom_right : tensor<4x8xf32>
  %p = attn.softmax %c dim 1 : tensor<4x8xf32>
  return %p : tensor<4x8xf32>
}

// -----

// Negative: a function without attn ops passes through bufferized but
// otherwise unchanged.
// LINALG-LABEL: func.func @no_attention
// LINALG-NEXT: arith.addf
// LOOPS-LABEL: func.func @no_attention
// LOOPS: arith.addf
func.func @no_attention(%x: f32) -> f32 {
  %y = arith.addf %x, %x : f32
  return %y : f32
}

// -----

// A paged attention that was not gathered first: gathered and decomposed
// like the attention it becomes (naive reference).
// LINALG-LABEL: func.func @paged
// LINALG: tensor.generate
// LINALG-NOT: attn.paged_attention
// LINALG: linalg.generic
// LOOPS-LABEL: func.func @paged
// LOOPS-NOT: attn.
// LOOPS: scf.for
// LOOPS-NOT: attn.
// FUSED-LABEL: func.func @paged
// FUSED-NOT: attn.
// FUSED: scf.for
func.func @paged(%q: tensor<1x2x1x8xf32>, %kc: tensor<3x4x2x8xf32>, %vc: tensor<3x4x2x8xf32>, %t: tensor<1x3xi32>, %l: tensor<1xi32>) -> tensor<1x2x1x8xf32> {
  %o = attn.paged_attention %q, %kc, %vc pages(%t, %l) scale(1.0) causal(bottom_right) : tensor<1x2x1x8xf32>, tensor<3x4x2x8xf32>, tensor<3x4x2x8xf32>, tensor<1x3xi32>, tensor<1xi32> -> tensor<1x2x1x8xf32>
  return %o : tensor<1x2x1x8xf32>
}

// -----

// A score_mod that yields a value from above as it is (every score
// replaced by the function argument %c): the lowerings use %c itself
// (it was a crash, found by fuzzing).
// LINALG-LABEL: func.func @score_mod_from_above
// LINALG-SAME: %[[C:[a-z0-9]+]]: f32
// LINALG: linalg.generic
// LINALG: linalg.yield %[[C]] : f32
// LOOPS-LABEL: func.func @score_mod_from_above
// LOOPS-NOT: attn.
// LOOPS: scf.for
// FUSED-LABEL: func.func @score_mod_from_above
// FUSED-NOT: attn.
// FUSED: scf.for
func.func @score_mod_from_above(%q: tensor<1x1x2x8xf32>, %k: tensor<1x1x4x8xf32>, %c: f32) -> tensor<1x1x2x8xf32> {
  %o = attn.attention %q, %k, %k scale(1.0) score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    attn.yield %c : f32
  } : tensor<1x1x2x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32> -> tensor<1x1x2x8xf32>
  return %o : tensor<1x1x2x8xf32>
}

// -----

// The naive form, likewise cast back to a less static result type.
// LINALG-LABEL: func.func @result_more_dynamic
// LINALG: %[[C:.+]] = tensor.cast %{{.*}} : tensor<?x3xf16> to tensor<?x?xf16>
// LINALG: return %[[C]] : tensor<?x?xf16>
func.func @result_more_dynamic(%q: tensor<?x17xf16>, %k: tensor<8x17xf16>, %v: tensor<8x3xf16>) -> tensor<?x?xf16> {
  %o = attn.attention %q, %k, %v scale(0.125) : tensor<?x17xf16>, tensor<8x17xf16>, tensor<8x3xf16> -> tensor<?x?xf16>
  return %o : tensor<?x?xf16>
}

// -----

// FP8: the scores scaled by scale·q_descale·k_descale; O times v_descale
// before the fully masked rows are set to 0 (so they stay 0 even for a
// v_descale of inf or NaN).
// LINALG-LABEL: func.func @fp8_descale
// LINALG: tensor.extract %{{.*}}[] : tensor<f32>
// LINALG: tensor.extract %{{.*}}[] : tensor<f32>
// LINALG: %[[QK:.+]] = arith.mulf %{{.*}}, %{{.*}} : f32
// LINALG: %[[S:.+]] = arith.mulf %{{.*}}, %[[QK]] : f32
// LINALG: arith.mulf %{{.*}}, %[[S]] : f32
// LINALG: %[[VD:.+]] = tensor.extract %{{.*}}[] : tensor<f32>
// LINALG: %[[DIV:.+]] = arith.divf
// LINALG-NEXT: %[[Y:.+]] = arith.mulf %[[DIV]], %[[VD]] : f32
// LINALG-NEXT: arith.select %{{.*}}, %{{.*}}, %[[Y]] : f32
func.func @fp8_descale(%q: tensor<4x8xf8E4M3FN>, %a: tensor<f32>, %b: tensor<f32>, %c: tensor<f32>) -> tensor<4x8xf32> {
  %o = attn.attention %q, %q, %q descale(%a, %b, %c : tensor<f32>, tensor<f32>, tensor<f32>) scale(0.125) : tensor<4x8xf8E4M3FN>, tensor<4x8xf8E4M3FN>, tensor<4x8xf8E4M3FN> -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}

// RUN: attn-opt %s -split-input-file --attn-detect="explain=true" -verify-diagnostics | FileCheck %s
// Detection is exact or does not happen: look-alikes whose raise would
// change the result (found by an adversarial campaign over spellings the
// fixtures did not have). Each either stays as written or keeps what
// differs in a score_mod region, copied op for op.

// A causal-looking compare of indices cast to i1 (a parity test, not the
// diagonal) stays a score_mod, copied as written.
// CHECK-LABEL: func.func @causal_index_cast_i1
// CHECK: attn.attention
// CHECK-NOT: causal(
// CHECK-SAME: score_mod
// CHECK: arith.index_cast {{.*}} to i1
#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mo = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
func.func @causal_index_cast_i1(%q: tensor<4x4xf32>, %k: tensor<4x4xf32>, %v: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %s = linalg.matmul indexing_maps = [#mq, #mk, #mo] ins(%q, %k : tensor<4x4xf32>, tensor<4x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  %sm = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %i1 = arith.index_cast %i : index to i1
    %j1 = arith.index_cast %j : index to i1
    %c = arith.cmpi ule, %j1, %i1 : i1
    %y = arith.select %c, %a, %ninf : f32
    linalg.yield %y : f32
  } -> tensor<4x4xf32>
  %p = linalg.softmax dimension(1) ins(%sm : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %oi = linalg.fill ins(%z : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %o = linalg.matmul ins(%p, %v : tensor<4x4xf32>, tensor<4x4xf32>) outs(%oi : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %o : tensor<4x4xf32>
}

// -----

// j ule i - 1 in index: i - 1 wraps at i = 0, where every key is kept.
// CHECK-LABEL: func.func @causal_unsigned_negative_offset
// CHECK: attn.attention
// CHECK-NOT: causal(
// CHECK-SAME: score_mod
// CHECK: arith.cmpi ule
#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mo = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
func.func @causal_unsigned_negative_offset(%q: tensor<3x4xf32>, %k: tensor<2x4xf32>, %v: tensor<2x4xf32>) -> tensor<3x4xf32> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %cm1 = arith.constant -1 : index
  %e = tensor.empty() : tensor<3x2xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  %s = linalg.matmul indexing_maps = [#mq, #mk, #mo] ins(%q, %k : tensor<3x4xf32>, tensor<2x4xf32>) outs(%acc : tensor<3x2xf32>) -> tensor<3x2xf32>
  %sm = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<3x2xf32>) outs(%e : tensor<3x2xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %im1 = arith.addi %i, %cm1 : index
    %c = arith.cmpi ule, %j, %im1 : index
    %y = arith.select %c, %a, %ninf : f32
    linalg.yield %y : f32
  } -> tensor<3x2xf32>
  %p = linalg.softmax dimension(1) ins(%sm : tensor<3x2xf32>) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  %eo = tensor.empty() : tensor<3x4xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<3x4xf32>) -> tensor<3x4xf32>
  %o = linalg.matmul ins(%p, %v : tensor<3x2xf32>, tensor<2x4xf32>) outs(%oi : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %o : tensor<3x4xf32>
}

// -----

// select(j <= i, s, -1e4): the fill is a score the kept ones can fall
// below, not -inf; no causal diagonal.
// CHECK-LABEL: func.func @causal_select_fill_m1e4
// CHECK: attn.attention
// CHECK-NOT: causal(
// CHECK-SAME: score_mod
// CHECK: arith.select {{.*}} : f32
#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mo = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
func.func @causal_select_fill_m1e4(%v: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %q = arith.constant dense<[[-10.0], [1.0]]> : tensor<2x1xf32>
  %k = arith.constant dense<[[3000.0], [3000.0]]> : tensor<2x1xf32>
  %z = arith.constant 0.0 : f32
  %fill = arith.constant -1.0e+04 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %s = linalg.matmul indexing_maps = [#mq, #mk, #mo] ins(%q, %k : tensor<2x1xf32>, tensor<2x1xf32>) outs(%acc : tensor<2x2xf32>) -> tensor<2x2xf32>
  %sm = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c = arith.cmpi ule, %j, %i : index
    %y = arith.select %c, %a, %fill : f32
    linalg.yield %y : f32
  } -> tensor<2x2xf32>
  %p = linalg.softmax dimension(1) ins(%sm : tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %oi = linalg.fill ins(%z : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %o = linalg.matmul ins(%p, %v : tensor<2x2xf32>, tensor<2x2xf32>) outs(%oi : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %o : tensor<2x2xf32>
}

// -----

// select(keep, s, -1e4) replaces masked scores; an additive 0/-1e4 mask
// would add to them.
// CHECK-LABEL: func.func @keep_select_fill_m1e4
// CHECK: attn.attention
// CHECK-NOT: mask(
// CHECK-SAME: score_mod
// CHECK: tensor.extract
// CHECK: arith.select
#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mo = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
func.func @keep_select_fill_m1e4(%q: tensor<2x4xf32>, %k: tensor<3x4xf32>, %v: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %z = arith.constant 0.0 : f32
  %fill = arith.constant -1.0e+04 : f32
  %keep = arith.constant dense<[[true, false, true], [false, false, false]]> : tensor<2x3xi1>
  %e = tensor.empty() : tensor<2x3xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = linalg.matmul indexing_maps = [#mq, #mk, #mo] ins(%q, %k : tensor<2x4xf32>, tensor<3x4xf32>) outs(%acc : tensor<2x3xf32>) -> tensor<2x3xf32>
  %sm = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %keep : tensor<2x3xf32>, tensor<2x3xi1>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%a: f32, %kk: i1, %o: f32):
    %y = arith.select %kk, %a, %fill : f32
    linalg.yield %y : f32
  } -> tensor<2x3xf32>
  %p = linalg.softmax dimension(1) ins(%sm : tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %eo = tensor.empty() : tensor<2x4xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<2x4xf32>) -> tensor<2x4xf32>
  %o = linalg.matmul ins(%p, %v : tensor<2x3xf32>, tensor<3x4xf32>) outs(%oi : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %o : tensor<2x4xf32>
}

// -----

// Q rounded through i8 by tosa.cast: the op reads the rounded Q.
// CHECK-LABEL: func.func @tosa_q_quantized_to_i8
// CHECK: %[[QI:.*]] = tosa.cast %arg0 {{.*}} -> tensor<1x2x4xi8>
// CHECK: %[[QF:.*]] = tosa.cast %[[QI]] {{.*}} -> tensor<1x2x4xf32>
// CHECK: attn.attention %[[QF]],
func.func @tosa_q_quantized_to_i8(%q: tensor<1x2x4xf32>, %kt: tensor<1x4x3xf32>, %v: tensor<1x3x4xf32>) -> tensor<1x2x4xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %qi = tosa.cast %q : (tensor<1x2x4xf32>) -> tensor<1x2x4xi8>
  %qf = tosa.cast %qi : (tensor<1x2x4xi8>) -> tensor<1x2x4xf32>
  %s = tosa.matmul %qf, %kt, %zp, %zp : (tensor<1x2x4xf32>, tensor<1x4x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x3xf32>
  %ex = tosa.exp %s : (tensor<1x2x3xf32>) -> tensor<1x2x3xf32>
  %sum = tosa.reduce_sum %ex {axis = 2 : i32} : (tensor<1x2x3xf32>) -> tensor<1x2x1xf32>
  %r = tosa.reciprocal %sum : (tensor<1x2x1xf32>) -> tensor<1x2x1xf32>
  %p = tosa.mul %ex, %r, %shift : (tensor<1x2x3xf32>, tensor<1x2x1xf32>, tensor<1xi8>) -> tensor<1x2x3xf32>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<1x2x3xf32>, tensor<1x3x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x4xf32>
  return %o : tensor<1x2x4xf32>
}

// -----

// An f32 program that rounds its scores to bf16 and back: the raised op
// would not round them.
#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mo = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
func.func @f32_scores_rounded_to_bf16(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x4xf32>) -> tensor<4x4xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x6xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
  %s = linalg.matmul indexing_maps = [#mq, #mk, #mo] ins(%q, %k : tensor<4x8xf32>, tensor<6x8xf32>) outs(%acc : tensor<4x6xf32>) -> tensor<4x6xf32>
  %sr = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<4x6xf32>) outs(%e : tensor<4x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.truncf %a : f32 to bf16
    %y = arith.extf %t : bf16 to f32
    linalg.yield %y : f32
  } -> tensor<4x6xf32>
  %p = linalg.softmax dimension(1) ins(%sr : tensor<4x6xf32>) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
  %eo = tensor.empty() : tensor<4x4xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<4x4xf32>) -> tensor<4x4xf32>
  // expected-remark @+1 {{attn-detect: not raised: the chain rounds an intermediate to a type narrower than Q, K or V; the raised op would not round it}}
  %o = linalg.matmul ins(%p, %v : tensor<4x6xf32>, tensor<6x4xf32>) outs(%oi : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %o : tensor<4x4xf32>
}

// -----

// Integer Q·Kᵀ cast to f32: no float attention to raise (used to crash).
func.func @tosa_int8_scores(%q: tensor<1x2x4xi8>, %kt: tensor<1x4x3xi8>, %v: tensor<1x3x4xf32>) -> tensor<1x2x4xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %zi = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %si = tosa.matmul %q, %kt, %zi, %zi : (tensor<1x2x4xi8>, tensor<1x4x3xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x2x3xi32>
  %s = tosa.cast %si : (tensor<1x2x3xi32>) -> tensor<1x2x3xf32>
  %ex = tosa.exp %s : (tensor<1x2x3xf32>) -> tensor<1x2x3xf32>
  %sum = tosa.reduce_sum %ex {axis = 2 : i32} : (tensor<1x2x3xf32>) -> tensor<1x2x1xf32>
  %r = tosa.reciprocal %sum : (tensor<1x2x1xf32>) -> tensor<1x2x1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %p = tosa.mul %ex, %r, %shift : (tensor<1x2x3xf32>, tensor<1x2x1xf32>, tensor<1xi8>) -> tensor<1x2x3xf32>
  // expected-remark @+1 {{attn-detect: not raised: the softmax input is not a scaled, masked Q·Kᵀ}}
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<1x2x3xf32>, tensor<1x3x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x4xf32>
  return %o : tensor<1x2x4xf32>
}

// -----

// A bf16 program that stores P as bf16 for P·V (FlashAttention's own
// rounding): raised, its storage precision the op's to keep.
// CHECK-LABEL: func.func @bf16_weights_stored_as_bf16
// CHECK: attn.attention {{.*}} : tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x4xf32> -> tensor<2x4x4xf32>
#mq = affine_map<(b, i, j, k) -> (b, i, k)>
#mk = affine_map<(b, i, j, k) -> (b, j, k)>
#ms = affine_map<(b, i, j, k) -> (b, i, j)>
#id = affine_map<(b, i, j) -> (b, i, j)>
func.func @bf16_weights_stored_as_bf16(%q: tensor<2x4x8xbf16>, %k: tensor<2x6x8xbf16>, %v: tensor<2x6x4xbf16>) -> tensor<2x4x4xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x6xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<2x4x6xf32>) -> tensor<2x4x6xf32>
  %s = linalg.batch_matmul indexing_maps = [#mq, #mk, #ms] ins(%q, %k : tensor<2x4x8xbf16>, tensor<2x6x8xbf16>) outs(%acc : tensor<2x4x6xf32>) -> tensor<2x4x6xf32>
  %p = linalg.softmax dimension(2) ins(%s : tensor<2x4x6xf32>) outs(%e : tensor<2x4x6xf32>) -> tensor<2x4x6xf32>
  %eb = tensor.empty() : tensor<2x4x6xbf16>
  %pb = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p : tensor<2x4x6xf32>) outs(%eb : tensor<2x4x6xbf16>) {
  ^bb0(%a: f32, %x: bf16):
    %t = arith.truncf %a : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<2x4x6xbf16>
  %eo = tensor.empty() : tensor<2x4x4xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %o = linalg.batch_matmul ins(%pb, %v : tensor<2x4x6xbf16>, tensor<2x6x4xbf16>) outs(%oi : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  return %o : tensor<2x4x4xf32>
}

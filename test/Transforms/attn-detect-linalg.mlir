// RUN: attn-opt %s -split-input-file --attn-detect="explain=true" -verify-diagnostics | FileCheck %s
// Detection on linalg on tensors, in the forms torch-mlir and hand-written
// pipelines emit. Positive cases first, then look-alikes with their remark.

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#qk = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#kt = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#s = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// Decomposed softmax (max/sub/exp/sum/div), scale on S by division, K
// transposed on the fly by linalg.transpose, bf16 cast sandwich.
// CHECK-LABEL: func.func @decomposed_softmax_bf16
// CHECK-SAME: (%[[Q:.+]]: tensor<8x128x64xbf16>, %[[K:.+]]: tensor<8x128x64xbf16>, %[[V:.+]]: tensor<8x128x64xbf16>)
// CHECK: %[[O:.+]] = attn.attention %[[Q]], %[[K]], %[[V]] scale(1.250000e-01) : tensor<8x128x64xbf16>, tensor<8x128x64xbf16>, tensor<8x128x64xbf16> -> tensor<8x128x64xbf16>
// CHECK-NOT: linalg.batch_matmul
// CHECK-NOT: math.exp
// CHECK: return
func.func @decomposed_softmax_bf16(%q: tensor<8x128x64xbf16>, %k: tensor<8x128x64xbf16>, %v: tensor<8x128x64xbf16>) -> tensor<8x128x64xbf16> {
  %e0 = tensor.empty() : tensor<8x64x128xbf16>
  %kt = linalg.transpose ins(%k : tensor<8x128x64xbf16>) outs(%e0 : tensor<8x64x128xbf16>) permutation = [0, 2, 1]
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x128x128xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x128x128xf32>) -> tensor<8x128x128xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<8x128x64xbf16>, tensor<8x64x128xbf16>) outs(%acc : tensor<8x128x128xf32>) -> tensor<8x128x128xf32>
  %c8 = arith.constant 8.0 : f32
  %s1 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<8x128x128xf32>) outs(%e1 : tensor<8x128x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.divf %in, %c8 : f32
    linalg.yield %d : f32
  } -> tensor<8x128x128xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e2 = tensor.empty() : tensor<8x128xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<8x128xf32>) -> tensor<8x128xf32>
  %max = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s1 : tensor<8x128x128xf32>) outs(%minit : tensor<8x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<8x128xf32>
  %ex = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s1, %max : tensor<8x128x128xf32>, tensor<8x128xf32>) outs(%e1 : tensor<8x128x128xf32>) {
  ^bb0(%in: f32, %mx: f32, %out: f32):
    %d = arith.subf %in, %mx : f32
    %x = math.exp %d : f32
    linalg.yield %x : f32
  } -> tensor<8x128x128xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x128xf32>) -> tensor<8x128xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ex : tensor<8x128x128xf32>) outs(%sinit : tensor<8x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<8x128xf32>
  %e3 = tensor.empty() : tensor<8x128x128xbf16>
  %p = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ex, %sum : tensor<8x128x128xf32>, tensor<8x128xf32>) outs(%e3 : tensor<8x128x128xbf16>) {
  ^bb0(%in: f32, %sm: f32, %out: bf16):
    %d = arith.divf %in, %sm : f32
    %t = arith.truncf %d : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<8x128x128xbf16>
  %zb = arith.constant 0.0 : bf16
  %e4 = tensor.empty() : tensor<8x128x64xbf16>
  %oinit = linalg.fill ins(%zb : bf16) outs(%e4 : tensor<8x128x64xbf16>) -> tensor<8x128x64xbf16>
  %o = linalg.batch_matmul ins(%p, %v : tensor<8x128x128xbf16>, tensor<8x128x64xbf16>) outs(%oinit : tensor<8x128x64xbf16>) -> tensor<8x128x64xbf16>
  return %o : tensor<8x128x64xbf16>
}

// -----

#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mo = affine_map<(m, n, k) -> (m, n)>

// linalg.softmax; Q·Kᵀ as linalg.matmul with transposed indexing maps; the
// 1/√d scale split as d^-1/4 on Q and on K; cross-attention, dv != d.
// CHECK-LABEL: func.func @named_softmax_transposed_maps
// CHECK: attn.attention %arg0, %arg1, %arg2 scale(2.500000e-01) : tensor<32x16xf32>, tensor<48x16xf32>, tensor<48x8xf32> -> tensor<32x8xf32>
// CHECK-NOT: linalg.softmax
func.func @named_softmax_transposed_maps(%q: tensor<32x16xf32>, %k: tensor<48x16xf32>, %v: tensor<48x8xf32>) -> tensor<32x8xf32> {
  %half = arith.constant dense<0.5> : tensor<32x16xf32>
  %halfk = arith.constant dense<0.5> : tensor<48x16xf32>
  %eq = tensor.empty() : tensor<32x16xf32>
  %ek = tensor.empty() : tensor<48x16xf32>
  %qs = linalg.mul ins(%q, %half : tensor<32x16xf32>, tensor<32x16xf32>) outs(%eq : tensor<32x16xf32>) -> tensor<32x16xf32>
  %ks = linalg.mul ins(%k, %halfk : tensor<48x16xf32>, tensor<48x16xf32>) outs(%ek : tensor<48x16xf32>) -> tensor<48x16xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x48xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<32x48xf32>) -> tensor<32x48xf32>
  %s = linalg.matmul indexing_maps = [#mq, #mk, #mo]
      ins(%qs, %ks : tensor<32x16xf32>, tensor<48x16xf32>) outs(%acc : tensor<32x48xf32>) -> tensor<32x48xf32>
  %p = linalg.softmax dimension(1) ins(%s : tensor<32x48xf32>) outs(%e : tensor<32x48xf32>) -> tensor<32x48xf32>
  %eo = tensor.empty() : tensor<32x8xf32>
  %oacc = linalg.fill ins(%zero : f32) outs(%eo : tensor<32x8xf32>) -> tensor<32x8xf32>
  %o = linalg.matmul ins(%p, %v : tensor<32x48xf32>, tensor<48x8xf32>) outs(%oacc : tensor<32x8xf32>) -> tensor<32x8xf32>
  return %o : tensor<32x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>

// Causal mask from an index comparison (GPT-2's `where(i >= j, s, -inf)`),
// maxnumf with the lowest finite init, exp2 with log2(e) folded into the
// scale, and reciprocal-then-multiply. The 64x64 mask is never built.
// scale: 0.18033688 · ln 2 = 0.125.
// CHECK-LABEL: func.func @causal_index_exp2_reciprocal
// CHECK: attn.attention %arg0, %arg1, %arg2 scale(0.12499999{{[0-9]*}}) causal(top_left) : tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32> -> tensor<64x32xf32>
// CHECK-NOT: linalg.index
func.func @causal_index_exp2_reciprocal(%q: tensor<64x32xf32>, %k: tensor<64x32xf32>, %v: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %s = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%q, %k : tensor<64x32xf32>, tensor<64x32xf32>) outs(%acc : tensor<64x64xf32>) -> tensor<64x64xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %c = arith.constant 0.18033688 : f32
  %sm = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %keep = arith.cmpi sge, %i, %j : index
    %x = arith.mulf %in, %c : f32
    %y = arith.select %keep, %x, %ninf : f32
    linalg.yield %y : f32
  } -> tensor<64x64xf32>
  %lowest = arith.constant -3.40282347E+38 : f32
  %er = tensor.empty() : tensor<64xf32>
  %mi = linalg.fill ins(%lowest : f32) outs(%er : tensor<64xf32>) -> tensor<64xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%sm : tensor<64x64xf32>) outs(%mi : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maxnumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<64xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sm, %mx : tensor<64x64xf32>, tensor<64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %x = math.exp2 %d : f32
    linalg.yield %x : f32
  } -> tensor<64x64xf32>
  %si = linalg.fill ins(%zero : f32) outs(%er : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<64x64xf32>) outs(%si : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<64xf32>
  %one = arith.constant 1.0 : f32
  %rcp = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%sum : tensor<64xf32>) outs(%er : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.divf %one, %in : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %rcp : tensor<64x64xf32>, tensor<64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%in: f32, %r: f32, %out: f32):
    %x = arith.mulf %in, %r : f32
    linalg.yield %x : f32
  } -> tensor<64x64xf32>
  %eo = tensor.empty() : tensor<64x32xf32>
  %oacc = linalg.fill ins(%zero : f32) outs(%eo : tensor<64x32xf32>) -> tensor<64x32xf32>
  %o = linalg.matmul ins(%p, %v : tensor<64x64xf32>, tensor<64x32xf32>) outs(%oacc : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %o : tensor<64x32xf32>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#pad = affine_map<(d0, d1, d2) -> (d0, d2)>

// BERT-style additive padding mask [B, Lk] broadcast over queries by the
// map; masked_fill-style boolean mask (drop where true); no max subtraction.
// CHECK-LABEL: func.func @padding_masks_no_max
// CHECK-DAG: %[[PAD:.+]] = tensor.expand_shape %arg3 {{\[\[}}0], [1, 2]] output_shape [2, 1, 40] : tensor<2x40xf32> into tensor<2x1x40xf32>
// CHECK: attn.attention %arg0, %arg1, %arg2 mask(%[[PAD]] : tensor<2x1x40xf32>) scale(1.000000e+00)
func.func @padding_masks_no_max(%q: tensor<2x24x16xf32>, %k: tensor<2x40x16xf32>, %v: tensor<2x40x16xf32>, %bias: tensor<2x40xf32>) -> tensor<2x24x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x24x40xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<2x24x40xf32>) -> tensor<2x24x40xf32>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%q, %k : tensor<2x24x16xf32>, tensor<2x40x16xf32>) outs(%acc : tensor<2x24x40xf32>) -> tensor<2x24x40xf32>
  %sb = linalg.generic {indexing_maps = [#id3, #pad, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %bias : tensor<2x24x40xf32>, tensor<2x40xf32>) outs(%e : tensor<2x24x40xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %x = arith.addf %in, %b : f32
    linalg.yield %x : f32
  } -> tensor<2x24x40xf32>
  %ex = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%sb : tensor<2x24x40xf32>) outs(%e : tensor<2x24x40xf32>) {
  ^bb0(%in: f32, %out: f32):
    %x = math.exp %in : f32
    linalg.yield %x : f32
  } -> tensor<2x24x40xf32>
  %er = tensor.empty() : tensor<2x24xf32>
  %si = linalg.fill ins(%zero : f32) outs(%er : tensor<2x24xf32>) -> tensor<2x24xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ex : tensor<2x24x40xf32>) outs(%si : tensor<2x24xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<2x24xf32>
  %p = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ex, %sum : tensor<2x24x40xf32>, tensor<2x24xf32>) outs(%e : tensor<2x24x40xf32>) {
  ^bb0(%in: f32, %sm: f32, %out: f32):
    %x = arith.divf %in, %sm : f32
    linalg.yield %x : f32
  } -> tensor<2x24x40xf32>
  %eo = tensor.empty() : tensor<2x24x16xf32>
  %oacc = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x24x16xf32>) -> tensor<2x24x16xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x24x40xf32>, tensor<2x40x16xf32>) outs(%oacc : tensor<2x24x16xf32>) -> tensor<2x24x16xf32>
  return %o : tensor<2x24x16xf32>
}

// -----
// Look-alikes: each stays as it is, with a remark saying why.

#mt = affine_map<(m, n, k) -> (n, k)>
#mq = affine_map<(m, n, k) -> (m, k)>
#mo = affine_map<(m, n, k) -> (m, n)>

// CHECK-LABEL: func.func @softmax_over_query_axis
// CHECK-NOT: attn.attention
// CHECK: linalg.softmax dimension(0)
func.func @softmax_over_query_axis(%q: tensor<32x16xf32>, %v: tensor<32x16xf32>) -> tensor<32x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %s = linalg.matmul indexing_maps = [#mq, #mt, #mo] ins(%q, %q : tensor<32x16xf32>, tensor<32x16xf32>) outs(%acc : tensor<32x32xf32>) -> tensor<32x32xf32>
  %p = linalg.softmax dimension(0) ins(%s : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %eo = tensor.empty() : tensor<32x16xf32>
  %oacc = linalg.fill ins(%zero : f32) outs(%eo : tensor<32x16xf32>) -> tensor<32x16xf32>
  // expected-remark @+1 {{attn-detect: not raised: softmax reduces over dim 0 but P·V contracts dim 1}}
  %o = linalg.matmul ins(%p, %v : tensor<32x32xf32>, tensor<32x16xf32>) outs(%oacc : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %o : tensor<32x16xf32>
}

// -----

#mt = affine_map<(m, n, k) -> (n, k)>
#mq = affine_map<(m, n, k) -> (m, k)>
#mo = affine_map<(m, n, k) -> (m, n)>

// The attention weights are returned too: raising would lose nothing, but
// the chain would have to stay for them; it is left alone.
// CHECK-LABEL: func.func @weights_returned
// CHECK-NOT: attn.attention
func.func @weights_returned(%q: tensor<32x16xf32>, %v: tensor<32x16xf32>) -> (tensor<32x16xf32>, tensor<32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %s = linalg.matmul indexing_maps = [#mq, #mt, #mo] ins(%q, %q : tensor<32x16xf32>, tensor<32x16xf32>) outs(%acc : tensor<32x32xf32>) -> tensor<32x32xf32>
  %p = linalg.softmax dimension(1) ins(%s : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %eo = tensor.empty() : tensor<32x16xf32>
  %oacc = linalg.fill ins(%zero : f32) outs(%eo : tensor<32x16xf32>) -> tensor<32x16xf32>
  // expected-remark @+1 {{attn-detect: not raised: an intermediate of the chain ('linalg.softmax') is also used outside it}}
  %o = linalg.matmul ins(%p, %v : tensor<32x32xf32>, tensor<32x16xf32>) outs(%oacc : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %o, %p : tensor<32x16xf32>, tensor<32x32xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>

// A max taken per column (over the query axis) and subtracted: not a
// per-row shift, so exp(x - c) / sum is not softmax(x).
// CHECK-LABEL: func.func @max_over_wrong_axis
// CHECK-NOT: attn.attention
func.func @max_over_wrong_axis(%s: tensor<16x16xf32>, %v: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %er = tensor.empty() : tensor<16xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%er : tensor<16xf32>) -> tensor<16xf32>
  %mx = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%s : tensor<16x16xf32>) outs(%mi : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<16xf32>
  %ex = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s, %mx : tensor<16x16xf32>, tensor<16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %x = math.exp %d : f32
    linalg.yield %x : f32
  } -> tensor<16x16xf32>
  %si = linalg.fill ins(%zero : f32) outs(%er : tensor<16xf32>) -> tensor<16xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<16x16xf32>) outs(%si : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<16xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %sum : tensor<16x16xf32>, tensor<16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%in: f32, %sm: f32, %out: f32):
    %x = arith.divf %in, %sm : f32
    linalg.yield %x : f32
  } -> tensor<16x16xf32>
  %eo = tensor.empty() : tensor<16x8xf32>
  %oacc = linalg.fill ins(%zero : f32) outs(%eo : tensor<16x8xf32>) -> tensor<16x8xf32>
  // expected-remark @+1 {{attn-detect: not raised: the value subtracted before exp varies along the key axis (a per-column max is not a softmax shift)}}
  %o = linalg.matmul ins(%p, %v : tensor<16x16xf32>, tensor<16x8xf32>) outs(%oacc : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %o : tensor<16x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// Sigmoid attention: P = 1 / (1 + exp(-S)). Not a softmax.
// CHECK-LABEL: func.func @sigmoid_attention
// CHECK-NOT: attn.attention
func.func @sigmoid_attention(%s: tensor<16x16xf32>, %v: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    %x = math.exp %n : f32
    %d = arith.addf %one, %x : f32
    %r = arith.divf %one, %d : f32
    linalg.yield %r : f32
  } -> tensor<16x16xf32>
  %eo = tensor.empty() : tensor<16x8xf32>
  %oacc = linalg.fill ins(%zero : f32) outs(%eo : tensor<16x8xf32>) -> tensor<16x8xf32>
  // expected-remark @+1 {{attn-detect: not raised: P is computed from an exp but is not a softmax (sigmoid or log_softmax attention?)}}
  %o = linalg.matmul ins(%p, %v : tensor<16x16xf32>, tensor<16x8xf32>) outs(%oacc : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %o : tensor<16x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// The normalizer sums a different exp than the one it divides.
// CHECK-LABEL: func.func @normalizer_of_another_exp
// CHECK-NOT: attn.attention
func.func @normalizer_of_another_exp(%s: tensor<16x16xf32>, %t: tensor<16x16xf32>, %v: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %er = tensor.empty() : tensor<16xf32>
  %es = linalg.exp ins(%s : tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %et = linalg.exp ins(%t : tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %si = linalg.fill ins(%zero : f32) outs(%er : tensor<16xf32>) -> tensor<16xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%et : tensor<16x16xf32>) outs(%si : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<16xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%es, %sum : tensor<16x16xf32>, tensor<16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%in: f32, %sm: f32, %out: f32):
    %x = arith.divf %in, %sm : f32
    linalg.yield %x : f32
  } -> tensor<16x16xf32>
  %eo = tensor.empty() : tensor<16x8xf32>
  %oacc = linalg.fill ins(%zero : f32) outs(%eo : tensor<16x8xf32>) -> tensor<16x8xf32>
  // expected-remark @+1 {{attn-detect: not raised: the normalizer is not the sum of the same exp}}
  %o = linalg.matmul ins(%p, %v : tensor<16x16xf32>, tensor<16x8xf32>) outs(%oacc : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %o : tensor<16x8xf32>
}

// -----

// Two plain matmuls (an MLP): no softmax, no remark, unchanged.
// CHECK-LABEL: func.func @mlp_untouched
// CHECK-COUNT-2: linalg.matmul
func.func @mlp_untouched(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %h = linalg.matmul ins(%x, %w : tensor<16x16xf32>, tensor<16x16xf32>) outs(%acc : tensor<16x16xf32>) -> tensor<16x16xf32>
  %o = linalg.matmul ins(%h, %w : tensor<16x16xf32>, tensor<16x16xf32>) outs(%acc : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %o : tensor<16x16xf32>
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// The torch-mlir shape of a Llama-style GQA block: 4-D [B, H, L, d] tensors
// collapsed to [B·H, L, d] around each batch_matmul and expanded back, and
// K/V repeated from 2 to 8 heads by broadcast + collapse. The repeat is
// folded (attn.attention reads head h from K/V head h/4) and the reshape
// round trips vanish.
// CHECK-LABEL: func.func @gqa_collapse_round_trip
// CHECK-NOT: linalg.broadcast
// CHECK: attn.attention %arg0, %arg1, %arg2 scale(1.250000e-01) causal(top_left) : tensor<1x8x32x64xf32>, tensor<1x2x32x64xf32>, tensor<1x2x32x64xf32> -> tensor<1x8x32x64xf32>
// CHECK-NOT: linalg.batch_matmul
func.func @gqa_collapse_round_trip(%q: tensor<1x8x32x64xf32>, %k: tensor<1x2x32x64xf32>, %v: tensor<1x2x32x64xf32>) -> tensor<1x8x32x64xf32> {
  %eb = tensor.empty() : tensor<1x2x4x32x64xf32>
  %kb = linalg.broadcast ins(%k : tensor<1x2x32x64xf32>) outs(%eb : tensor<1x2x4x32x64xf32>) dimensions = [2]
  %vb = linalg.broadcast ins(%v : tensor<1x2x32x64xf32>) outs(%eb : tensor<1x2x4x32x64xf32>) dimensions = [2]
  %kr = tensor.collapse_shape %kb [[0], [1, 2], [3], [4]] : tensor<1x2x4x32x64xf32> into tensor<1x8x32x64xf32>
  %vr = tensor.collapse_shape %vb [[0], [1, 2], [3], [4]] : tensor<1x2x4x32x64xf32> into tensor<1x8x32x64xf32>
  %et = tensor.empty() : tensor<1x8x64x32xf32>
  %kt = linalg.transpose ins(%kr : tensor<1x8x32x64xf32>) outs(%et : tensor<1x8x64x32xf32>) permutation = [0, 1, 3, 2]
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<1x8x32x64xf32> into tensor<8x32x64xf32>
  %k3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<1x8x64x32xf32> into tensor<8x64x32xf32>
  %zero = arith.constant 0.0 : f32
  %e3 = tensor.empty() : tensor<8x32x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e3 : tensor<8x32x32xf32>) -> tensor<8x32x32xf32>
  %s3 = linalg.batch_matmul ins(%q3, %k3 : tensor<8x32x64xf32>, tensor<8x64x32xf32>) outs(%acc : tensor<8x32x32xf32>) -> tensor<8x32x32xf32>
  %s = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [1, 8, 32, 32] : tensor<8x32x32xf32> into tensor<1x8x32x32xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %c = arith.constant 0.125 : f32
  %e4 = tensor.empty() : tensor<1x8x32x32xf32>
  %sm = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<1x8x32x32xf32>) outs(%e4 : tensor<1x8x32x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %drop = arith.cmpi sgt, %j, %i : index
    %x = arith.mulf %in, %c : f32
    %y = arith.select %drop, %ninf, %x : f32
    linalg.yield %y : f32
  } -> tensor<1x8x32x32xf32>
  %p = linalg.softmax dimension(3) ins(%sm : tensor<1x8x32x32xf32>) outs(%e4 : tensor<1x8x32x32xf32>) -> tensor<1x8x32x32xf32>
  %p3 = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<1x8x32x32xf32> into tensor<8x32x32xf32>
  %v3 = tensor.collapse_shape %vr [[0, 1], [2], [3]] : tensor<1x8x32x64xf32> into tensor<8x32x64xf32>
  %eo = tensor.empty() : tensor<8x32x64xf32>
  %oacc = linalg.fill ins(%zero : f32) outs(%eo : tensor<8x32x64xf32>) -> tensor<8x32x64xf32>
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x32x32xf32>, tensor<8x32x64xf32>) outs(%oacc : tensor<8x32x64xf32>) -> tensor<8x32x64xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [1, 8, 32, 64] : tensor<8x32x64xf32> into tensor<1x8x32x64xf32>
  return %o : tensor<1x8x32x64xf32>
}

// -----

// A causal mask built at run time from arange tensors, the way torch-mlir
// spells tril/is_causal: keep iff j - i <= Lk - Lq. The mask is folded to
// its values, found to be the bottom-right causal pattern and dropped.
// CHECK-LABEL: func.func @iota_mask_causal_bottom_right
// CHECK: attn.attention %arg0, %arg1, %arg2 scale(1.000000e+00) causal(bottom_right) : tensor<4x16xf32>, tensor<12x16xf32>, tensor<12x16xf32> -> tensor<4x16xf32>
// CHECK-NOT: arith.cmpi
// CHECK: return
func.func @iota_mask_causal_bottom_right(%q: tensor<4x16xf32>, %k: tensor<12x16xf32>, %v: tensor<12x16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %bound = arith.constant 8 : i64
  %erows = tensor.empty() : tensor<4xi64>
  %rows = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%erows : tensor<4xi64>) {
  ^bb0(%out: i64):
    %x = linalg.index 0 : index
    %y = arith.index_cast %x : index to i64
    linalg.yield %y : i64
  } -> tensor<4xi64>
  %ecols = tensor.empty() : tensor<12xi64>
  %cols = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%ecols : tensor<12xi64>) {
  ^bb0(%out: i64):
    %x = linalg.index 0 : index
    %y = arith.index_cast %x : index to i64
    linalg.yield %y : i64
  } -> tensor<12xi64>
  %rows2 = tensor.expand_shape %rows [[0, 1]] output_shape [4, 1] : tensor<4xi64> into tensor<4x1xi64>
  %cols2 = tensor.expand_shape %cols [[0, 1]] output_shape [1, 12] : tensor<12xi64> into tensor<1x12xi64>
  %ek = tensor.empty() : tensor<4x12xi1>
  %keep = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%cols2, %rows2 : tensor<1x12xi64>, tensor<4x1xi64>) outs(%ek : tensor<4x12xi1>) {
  ^bb0(%j: i64, %i: i64, %out: i1):
    %diff = arith.subi %j, %i : i64
    %b = arith.cmpi sle, %diff, %bound : i64
    linalg.yield %b : i1
  } -> tensor<4x12xi1>
  %em = tensor.empty() : tensor<4x12xf32>
  %mask = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%keep : tensor<4x12xi1>) outs(%em : tensor<4x12xf32>) {
  ^bb0(%b: i1, %out: f32):
    %m = arith.select %b, %zero, %ninf : f32
    linalg.yield %m : f32
  } -> tensor<4x12xf32>
  %es = tensor.empty() : tensor<4x12xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%es : tensor<4x12xf32>) -> tensor<4x12xf32>
  %s = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%q, %k : tensor<4x16xf32>, tensor<12x16xf32>) outs(%acc : tensor<4x12xf32>) -> tensor<4x12xf32>
  %sm = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%s, %mask : tensor<4x12xf32>, tensor<4x12xf32>) outs(%es : tensor<4x12xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %c = arith.addf %a, %b : f32
    linalg.yield %c : f32
  } -> tensor<4x12xf32>
  %p = linalg.softmax dimension(1) ins(%sm : tensor<4x12xf32>) outs(%es : tensor<4x12xf32>) -> tensor<4x12xf32>
  %eo = tensor.empty() : tensor<4x16xf32>
  %oacc = linalg.fill ins(%zero : f32) outs(%eo : tensor<4x16xf32>) -> tensor<4x16xf32>
  %o = linalg.matmul ins(%p, %v : tensor<4x12xf32>, tensor<12x16xf32>) outs(%oacc : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %o : tensor<4x16xf32>
}

// -----

// The same with a strict comparison: j - i < 1 is j <= i.
// CHECK-LABEL: func.func @iota_mask_causal_strict
// CHECK: attn.attention %arg0, %arg1, %arg2 scale(1.000000e+00) causal(top_left) :
// CHECK-NOT: arith.cmpi
func.func @iota_mask_causal_strict(%q: tensor<8x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %bound = arith.constant 1 : i64
  %erows = tensor.empty() : tensor<8xi64>
  %rows = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%erows : tensor<8xi64>) {
  ^bb0(%out: i64):
    %x = linalg.index 0 : index
    %y = arith.index_cast %x : index to i64
    linalg.yield %y : i64
  } -> tensor<8xi64>
  %ecols = tensor.empty() : tensor<8xi64>
  %cols = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%ecols : tensor<8xi64>) {
  ^bb0(%out: i64):
    %x = linalg.index 0 : index
    %y = arith.index_cast %x : index to i64
    linalg.yield %y : i64
  } -> tensor<8xi64>
  %rows2 = tensor.expand_shape %rows [[0, 1]] output_shape [8, 1] : tensor<8xi64> into tensor<8x1xi64>
  %cols2 = tensor.expand_shape %cols [[0, 1]] output_shape [1, 8] : tensor<8xi64> into tensor<1x8xi64>
  %ek = tensor.empty() : tensor<8x8xi1>
  %keep = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%cols2, %rows2 : tensor<1x8xi64>, tensor<8x1xi64>) outs(%ek : tensor<8x8xi1>) {
  ^bb0(%j: i64, %i: i64, %out: i1):
    %diff = arith.subi %j, %i : i64
    %b = arith.cmpi slt, %diff, %bound : i64
    linalg.yield %b : i1
  } -> tensor<8x8xi1>
  %em = tensor.empty() : tensor<8x8xf32>
  %mask = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%keep : tensor<8x8xi1>) outs(%em : tensor<8x8xf32>) {
  ^bb0(%b: i1, %out: f32):
    %m = arith.select %b, %zero, %ninf : f32
    linalg.yield %m : f32
  } -> tensor<8x8xf32>
  %es = tensor.empty() : tensor<8x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%es : tensor<8x8xf32>) -> tensor<8x8xf32>
  %s = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%q, %k : tensor<8x16xf32>, tensor<8x16xf32>) outs(%acc : tensor<8x8xf32>) -> tensor<8x8xf32>
  %sm = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%s, %mask : tensor<8x8xf32>, tensor<8x8xf32>) outs(%es : tensor<8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %c = arith.addf %a, %b : f32
    linalg.yield %c : f32
  } -> tensor<8x8xf32>
  %p = linalg.softmax dimension(1) ins(%sm : tensor<8x8xf32>) outs(%es : tensor<8x8xf32>) -> tensor<8x8xf32>
  %eo = tensor.empty() : tensor<8x16xf32>
  %oacc = linalg.fill ins(%zero : f32) outs(%eo : tensor<8x16xf32>) -> tensor<8x16xf32>
  %o = linalg.matmul ins(%p, %v : tensor<8x8xf32>, tensor<8x16xf32>) outs(%oacc : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

// -----

// Look-alike: keep iff j >= i (the upper triangle). Not causal: the mask
// stays a mask operand, computed as before.
// CHECK-LABEL: func.func @iota_mask_anti_causal
// CHECK: arith.cmpi sge
// CHECK: attn.attention %arg0, %arg1, %arg2 mask(%{{.*}} : tensor<8x8xf32>) scale(1.000000e+00) :
// CHECK-NOT: causal(
func.func @iota_mask_anti_causal(%q: tensor<8x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %bound = arith.constant 0 : i64
  %erows = tensor.empty() : tensor<8xi64>
  %rows = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%erows : tensor<8xi64>) {
  ^bb0(%out: i64):
    %x = linalg.index 0 : index
    %y = arith.index_cast %x : index to i64
    linalg.yield %y : i64
  } -> tensor<8xi64>
  %ecols = tensor.empty() : tensor<8xi64>
  %cols = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%ecols : tensor<8xi64>) {
  ^bb0(%out: i64):
    %x = linalg.index 0 : index
    %y = arith.index_cast %x : index to i64
    linalg.yield %y : i64
  } -> tensor<8xi64>
  %rows2 = tensor.expand_shape %rows [[0, 1]] output_shape [8, 1] : tensor<8xi64> into tensor<8x1xi64>
  %cols2 = tensor.expand_shape %cols [[0, 1]] output_shape [1, 8] : tensor<8xi64> into tensor<1x8xi64>
  %ek = tensor.empty() : tensor<8x8xi1>
  %keep = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%cols2, %rows2 : tensor<1x8xi64>, tensor<8x1xi64>) outs(%ek : tensor<8x8xi1>) {
  ^bb0(%j: i64, %i: i64, %out: i1):
    %diff = arith.subi %j, %i : i64
    %b = arith.cmpi sge, %diff, %bound : i64
    linalg.yield %b : i1
  } -> tensor<8x8xi1>
  %em = tensor.empty() : tensor<8x8xf32>
  %mask = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%keep : tensor<8x8xi1>) outs(%em : tensor<8x8xf32>) {
  ^bb0(%b: i1, %out: f32):
    %m = arith.select %b, %zero, %ninf : f32
    linalg.yield %m : f32
  } -> tensor<8x8xf32>
  %es = tensor.empty() : tensor<8x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%es : tensor<8x8xf32>) -> tensor<8x8xf32>
  %s = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%q, %k : tensor<8x16xf32>, tensor<8x16xf32>) outs(%acc : tensor<8x8xf32>) -> tensor<8x8xf32>
  %sm = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%s, %mask : tensor<8x8xf32>, tensor<8x8xf32>) outs(%es : tensor<8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %c = arith.addf %a, %b : f32
    linalg.yield %c : f32
  } -> tensor<8x8xf32>
  %p = linalg.softmax dimension(1) ins(%sm : tensor<8x8xf32>) outs(%es : tensor<8x8xf32>) -> tensor<8x8xf32>
  %eo = tensor.empty() : tensor<8x16xf32>
  %oacc = linalg.fill ins(%zero : f32) outs(%eo : tensor<8x16xf32>) -> tensor<8x16xf32>
  %o = linalg.matmul ins(%p, %v : tensor<8x8xf32>, tensor<8x16xf32>) outs(%oacc : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

// -----

// Look-alike: the column indices come from an argument (positions a caller
// passes in), so the mask depends on the inputs and cannot be folded.
// CHECK-LABEL: func.func @arg_mask_not_folded
// CHECK: attn.attention %arg0, %arg1, %arg2 mask(%{{.*}} : tensor<8x8xf32>) scale(1.000000e+00) :
// CHECK-NOT: causal(
func.func @arg_mask_not_folded(%q: tensor<8x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>, %cols: tensor<8xi64>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %bound = arith.constant 0 : i64
  %erows = tensor.empty() : tensor<8xi64>
  %rows = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%erows : tensor<8xi64>) {
  ^bb0(%out: i64):
    %x = linalg.index 0 : index
    %y = arith.index_cast %x : index to i64
    linalg.yield %y : i64
  } -> tensor<8xi64>
  %rows2 = tensor.expand_shape %rows [[0, 1]] output_shape [8, 1] : tensor<8xi64> into tensor<8x1xi64>
  %cols2 = tensor.expand_shape %cols [[0, 1]] output_shape [1, 8] : tensor<8xi64> into tensor<1x8xi64>
  %ek = tensor.empty() : tensor<8x8xi1>
  %keep = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%cols2, %rows2 : tensor<1x8xi64>, tensor<8x1xi64>) outs(%ek : tensor<8x8xi1>) {
  ^bb0(%j: i64, %i: i64, %out: i1):
    %diff = arith.subi %j, %i : i64
    %b = arith.cmpi sle, %diff, %bound : i64
    linalg.yield %b : i1
  } -> tensor<8x8xi1>
  %em = tensor.empty() : tensor<8x8xf32>
  %mask = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%keep : tensor<8x8xi1>) outs(%em : tensor<8x8xf32>) {
  ^bb0(%b: i1, %out: f32):
    %m = arith.select %b, %zero, %ninf : f32
    linalg.yield %m : f32
  } -> tensor<8x8xf32>
  %es = tensor.empty() : tensor<8x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%es : tensor<8x8xf32>) -> tensor<8x8xf32>
  %s = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%q, %k : tensor<8x16xf32>, tensor<8x16xf32>) outs(%acc : tensor<8x8xf32>) -> tensor<8x8xf32>
  %sm = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%s, %mask : tensor<8x8xf32>, tensor<8x8xf32>) outs(%es : tensor<8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %c = arith.addf %a, %b : f32
    linalg.yield %c : f32
  } -> tensor<8x8xf32>
  %p = linalg.softmax dimension(1) ins(%sm : tensor<8x8xf32>) outs(%es : tensor<8x8xf32>) -> tensor<8x8xf32>
  %eo = tensor.empty() : tensor<8x16xf32>
  %oacc = linalg.fill ins(%zero : f32) outs(%eo : tensor<8x16xf32>) -> tensor<8x16xf32>
  %o = linalg.matmul ins(%p, %v : tensor<8x8xf32>, tensor<8x16xf32>) outs(%oacc : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

// -----

// [B, S, H, D] activations (the layout projections produce), permuted to
// [B, H, S, D] and merged to [B·H, S, D] around batch matmuls, the output
// permuted back. The permutes stay outside; the attention between them is
// raised.
// CHECK-LABEL: func.func @bshd_permutes
// CHECK-COUNT-3: linalg.transpose {{.*}} permutation = [0, 2, 1, 3]
// CHECK: %[[O:.+]] = attn.attention %{{.*}}, %{{.*}}, %{{.*}} scale(0.353552{{[0-9]*}}) : tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
// CHECK-NOT: linalg.batch_matmul
// CHECK: linalg.transpose {{.*}} permutation = [0, 2, 1, 3]
func.func @bshd_permutes(%q: tensor<1x16x2x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>) -> tensor<1x16x2x8xf32> {
  %e4 = tensor.empty() : tensor<1x2x16x8xf32>
  %qh = linalg.transpose ins(%q : tensor<1x16x2x8xf32>) outs(%e4 : tensor<1x2x16x8xf32>) permutation = [0, 2, 1, 3]
  %kh = linalg.transpose ins(%k : tensor<1x16x2x8xf32>) outs(%e4 : tensor<1x2x16x8xf32>) permutation = [0, 2, 1, 3]
  %vh = linalg.transpose ins(%v : tensor<1x16x2x8xf32>) outs(%e4 : tensor<1x2x16x8xf32>) permutation = [0, 2, 1, 3]
  %q3 = tensor.collapse_shape %qh [[0, 1], [2], [3]] : tensor<1x2x16x8xf32> into tensor<2x16x8xf32>
  %k3 = tensor.collapse_shape %kh [[0, 1], [2], [3]] : tensor<1x2x16x8xf32> into tensor<2x16x8xf32>
  %v3 = tensor.collapse_shape %vh [[0, 1], [2], [3]] : tensor<1x2x16x8xf32> into tensor<2x16x8xf32>
  %ekt = tensor.empty() : tensor<2x8x16xf32>
  %kt = linalg.transpose ins(%k3 : tensor<2x16x8xf32>) outs(%ekt : tensor<2x8x16xf32>) permutation = [0, 2, 1]
  %zero = arith.constant 0.0 : f32
  %es = tensor.empty() : tensor<2x16x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%es : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.batch_matmul ins(%q3, %kt : tensor<2x16x8xf32>, tensor<2x8x16xf32>) outs(%acc : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %c = arith.constant 0.353553 : f32
  %ss = linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (a, b, c)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<2x16x16xf32>) outs(%es : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %c : f32
    linalg.yield %y : f32
  } -> tensor<2x16x16xf32>
  %p = linalg.softmax dimension(2) ins(%ss : tensor<2x16x16xf32>) outs(%es : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %eo = tensor.empty() : tensor<2x16x8xf32>
  %oacc = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x16x8xf32>) -> tensor<2x16x8xf32>
  %o3 = linalg.batch_matmul ins(%p, %v3 : tensor<2x16x16xf32>, tensor<2x16x8xf32>) outs(%oacc : tensor<2x16x8xf32>) -> tensor<2x16x8xf32>
  %o4 = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [1, 2, 16, 8] : tensor<2x16x8xf32> into tensor<1x2x16x8xf32>
  %eb = tensor.empty() : tensor<1x16x2x8xf32>
  %o = linalg.transpose ins(%o4 : tensor<1x2x16x8xf32>) outs(%eb : tensor<1x16x2x8xf32>) permutation = [0, 2, 1, 3]
  return %o : tensor<1x16x2x8xf32>
}

// -----
// Spellings found by test/Integration/CPU/detect_spellings.py.

// torch-style 4-D softmax whose reductions keep the reduced dim as a size-1
// dim addressed by a constant-0 output expr, the max with its argmax (two
// results); f16 inputs extended into an f32 chain that returns f32: the
// raised op computes and returns f32 (no f16 rounding, no trailing extf).
// CHECK-LABEL: func.func @keepdim_argmax_f16_to_f32
// CHECK: attn.attention {{.*}} : tensor<1x2x4x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x4xf32> -> tensor<1x2x4x4xf32>
// CHECK-NEXT: return
func.func @keepdim_argmax_f16_to_f32(%arg0: tensor<1x2x4x8xf16>, %arg1: tensor<1x2x6x8xf16>, %arg2: tensor<1x2x6x4xf16>) -> (tensor<1x2x4x4xf32>) {
  %v1 = arith.constant 0.0 : f32
  %v2 = tensor.empty() : tensor<1x2x4x6xf32>
  %v3 = linalg.fill ins(%v1 : f32) outs(%v2 : tensor<1x2x4x6xf32>) -> tensor<1x2x4x6xf32>
  %v4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<1x2x4x8xf16>, tensor<1x2x6x8xf16>) outs(%v3 : tensor<1x2x4x6xf32>) {
  ^bb0(%b0: f16, %b1: f16, %b2: f32):
    %s4_1 = arith.extf %b0 : f16 to f32
    %s4_2 = arith.extf %b1 : f16 to f32
    %s4_3 = arith.mulf %s4_1, %s4_2 : f32
    %s4_4 = arith.addf %b2, %s4_3 : f32
    linalg.yield %s4_4 : f32
  } -> tensor<1x2x4x6xf32>
  %v5 = arith.constant 0.353553385 : f32
  %v6 = tensor.empty() : tensor<1x2x4x6xf32>
  %v7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v4 : tensor<1x2x4x6xf32>) outs(%v6 : tensor<1x2x4x6xf32>) {
  ^bb0(%b0: f32, %b1: f32):
    %s7_1 = arith.mulf %b0, %v5 : f32
    linalg.yield %s7_1 : f32
  } -> tensor<1x2x4x6xf32>
  %v8 = arith.constant 0xFF800000 : f32
  %v9 = tensor.empty() : tensor<1x2x4x1xf32>
  %v10 = linalg.fill ins(%v8 : f32) outs(%v9 : tensor<1x2x4x1xf32>) -> tensor<1x2x4x1xf32>
  %v11 = arith.constant 0 : i64
  %v12 = tensor.empty() : tensor<1x2x4x1xi64>
  %v13 = linalg.fill ins(%v11 : i64) outs(%v12 : tensor<1x2x4x1xi64>) -> tensor<1x2x4x1xi64>
  %v14:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%v7 : tensor<1x2x4x6xf32>) outs(%v10, %v13 : tensor<1x2x4x1xf32>, tensor<1x2x4x1xi64>) {
  ^bb0(%b0: f32, %b1: f32, %b2: i64):
    %s14_1 = linalg.index 3 : index
    %s14_2 = arith.index_cast %s14_1 : index to i64
    %s14_3 = arith.maximumf %b0, %b1 : f32
    %s14_4 = arith.cmpf ogt, %b0, %b1 : f32
    %s14_5 = arith.select %s14_4, %s14_2, %b2 : i64
    linalg.yield %s14_3, %s14_5 : f32, i64
  } -> (tensor<1x2x4x1xf32>, tensor<1x2x4x1xi64>)
  %v15 = tensor.empty() : tensor<1x2x4x6xf32>
  %v16 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v7, %v14#0 : tensor<1x2x4x6xf32>, tensor<1x2x4x1xf32>) outs(%v15 : tensor<1x2x4x6xf32>) {
  ^bb0(%b0: f32, %b1: f32, %b2: f32):
    %s16_1 = arith.subf %b0, %b1 : f32
    %s16_2 = math.exp %s16_1 : f32
    linalg.yield %s16_2 : f32
  } -> tensor<1x2x4x6xf32>
  %v17 = arith.constant 0.0 : f32
  %v18 = tensor.empty() : tensor<1x2x4x1xf32>
  %v19 = linalg.fill ins(%v17 : f32) outs(%v18 : tensor<1x2x4x1xf32>) -> tensor<1x2x4x1xf32>
  %v20 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%v16 : tensor<1x2x4x6xf32>) outs(%v19 : tensor<1x2x4x1xf32>) {
  ^bb0(%b0: f32, %b1: f32):
    %s20_1 = arith.addf %b0, %b1 : f32
    linalg.yield %s20_1 : f32
  } -> tensor<1x2x4x1xf32>
  %v21 = tensor.empty() : tensor<1x2x4x6xf32>
  %v22 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v16, %v20 : tensor<1x2x4x6xf32>, tensor<1x2x4x1xf32>) outs(%v21 : tensor<1x2x4x6xf32>) {
  ^bb0(%b0: f32, %b1: f32, %b2: f32):
    %s22_1 = arith.divf %b0, %b1 : f32
    linalg.yield %s22_1 : f32
  } -> tensor<1x2x4x6xf32>
  %v23 = tensor.empty() : tensor<1x2x6x4xf32>
  %v24 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg2 : tensor<1x2x6x4xf16>) outs(%v23 : tensor<1x2x6x4xf32>) {
  ^bb0(%b0: f16, %b1: f32):
    %s24_1 = arith.extf %b0 : f16 to f32
    linalg.yield %s24_1 : f32
  } -> tensor<1x2x6x4xf32>
  %v25 = arith.constant 0.0 : f32
  %v26 = tensor.empty() : tensor<1x2x4x4xf32>
  %v27 = linalg.fill ins(%v25 : f32) outs(%v26 : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %v28 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%v22, %v24 : tensor<1x2x4x6xf32>, tensor<1x2x6x4xf32>) outs(%v27 : tensor<1x2x4x4xf32>) {
  ^bb0(%b0: f32, %b1: f32, %b2: f32):
    %s28_1 = arith.mulf %b0, %b1 : f32
    %s28_2 = arith.addf %b2, %s28_1 : f32
    linalg.yield %s28_2 : f32
  } -> tensor<1x2x4x4xf32>
  return %v28 : tensor<1x2x4x4xf32>
}

// -----

// Softmax in upstream named ops (linalg.reduce, linalg.broadcast,
// linalg.sub/exp/div), a 2-D [Lq, Lk] additive mask broadcast over the batch.
// CHECK-LABEL: func.func @named_op_softmax_2d_mask
// CHECK: %[[M:.+]] = tensor.expand_shape %arg3 {{\[\[}}0, 1], [2]] output_shape [1, 4, 6]
// CHECK: attn.attention %arg0, %arg1, %arg2 mask(%[[M]] : tensor<1x4x6xf32>) scale(1.000000e+00)
// CHECK-NOT: linalg.reduce
func.func @named_op_softmax_2d_mask(%arg0: tensor<2x4x8xf32>, %arg1: tensor<2x6x8xf32>, %arg2: tensor<2x6x4xf32>, %arg3: tensor<4x6xf32>) -> (tensor<2x4x4xf32>) {
  %v1 = arith.constant 0.0 : f32
  %v2 = tensor.empty() : tensor<2x4x6xf32>
  %v3 = linalg.fill ins(%v1 : f32) outs(%v2 : tensor<2x4x6xf32>) -> tensor<2x4x6xf32>
  %v4 = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>] ins(%arg0, %arg1 : tensor<2x4x8xf32>, tensor<2x6x8xf32>) outs(%v3 : tensor<2x4x6xf32>) -> tensor<2x4x6xf32>
  %v5 = tensor.empty() : tensor<2x4x6xf32>
  %v6 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%v4, %arg3 : tensor<2x4x6xf32>, tensor<4x6xf32>) outs(%v5 : tensor<2x4x6xf32>) {
  ^bb0(%b0: f32, %b1: f32, %b2: f32):
    %s6_1 = arith.addf %b0, %b1 : f32
    linalg.yield %s6_1 : f32
  } -> tensor<2x4x6xf32>
  %v7 = arith.constant 0xFF800000 : f32
  %v8 = tensor.empty() : tensor<2x4xf32>
  %v9 = linalg.fill ins(%v7 : f32) outs(%v8 : tensor<2x4xf32>) -> tensor<2x4xf32>
  %v10 = linalg.reduce ins(%v6 : tensor<2x4x6xf32>) outs(%v9 : tensor<2x4xf32>) dimensions = [2]
    (%in: f32, %init: f32) {
    %r = arith.maximumf %in, %init : f32
    linalg.yield %r : f32
  }
  %v11 = tensor.empty() : tensor<2x4x6xf32>
  %v12 = linalg.broadcast ins(%v10 : tensor<2x4xf32>) outs(%v11 : tensor<2x4x6xf32>) dimensions = [2]
  %v13 = tensor.empty() : tensor<2x4x6xf32>
  %v14 = linalg.sub ins(%v6, %v12 : tensor<2x4x6xf32>, tensor<2x4x6xf32>) outs(%v13 : tensor<2x4x6xf32>) -> tensor<2x4x6xf32>
  %v15 = tensor.empty() : tensor<2x4x6xf32>
  %v16 = linalg.exp ins(%v14 : tensor<2x4x6xf32>) outs(%v15 : tensor<2x4x6xf32>) -> tensor<2x4x6xf32>
  %v17 = arith.constant 0.0 : f32
  %v18 = tensor.empty() : tensor<2x4xf32>
  %v19 = linalg.fill ins(%v17 : f32) outs(%v18 : tensor<2x4xf32>) -> tensor<2x4xf32>
  %v20 = linalg.reduce ins(%v16 : tensor<2x4x6xf32>) outs(%v19 : tensor<2x4xf32>) dimensions = [2]
    (%in: f32, %init: f32) {
    %r = arith.addf %in, %init : f32
    linalg.yield %r : f32
  }
  %v21 = tensor.empty() : tensor<2x4x6xf32>
  %v22 = linalg.broadcast ins(%v20 : tensor<2x4xf32>) outs(%v21 : tensor<2x4x6xf32>) dimensions = [2]
  %v23 = tensor.empty() : tensor<2x4x6xf32>
  %v24 = linalg.div ins(%v16, %v22 : tensor<2x4x6xf32>, tensor<2x4x6xf32>) outs(%v23 : tensor<2x4x6xf32>) -> tensor<2x4x6xf32>
  %v25 = arith.constant 0.0 : f32
  %v26 = tensor.empty() : tensor<2x4x4xf32>
  %v27 = linalg.fill ins(%v25 : f32) outs(%v26 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %v28 = linalg.batch_matmul ins(%v24, %arg2 : tensor<2x4x6xf32>, tensor<2x6x4xf32>) outs(%v27 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  return %v28 : tensor<2x4x4xf32>
}

// -----

// The stabilizer is the max of all of S, not the row max: softmax is
// invariant to any shift constant along the key axis.
// CHECK-LABEL: func.func @global_max_exp2
// CHECK: attn.attention %arg0, %arg1, %arg2 scale(0.3535
// CHECK-NOT: linalg.generic
func.func @global_max_exp2(%arg0: tensor<4x8xf32>, %arg1: tensor<6x8xf32>, %arg2: tensor<6x4xf32>) -> (tensor<4x4xf32>) {
  %v1 = arith.constant 0.0 : f32
  %v2 = tensor.empty() : tensor<4x6xf32>
  %v3 = linalg.fill ins(%v1 : f32) outs(%v2 : tensor<4x6xf32>) -> tensor<4x6xf32>
  %v4 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<6x8xf32>) outs(%v3 : tensor<4x6xf32>) -> tensor<4x6xf32>
  %v5 = arith.constant 2.82842708 : f32
  %v6 = tensor.empty() : tensor<4x6xf32>
  %v7 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v4 : tensor<4x6xf32>) outs(%v6 : tensor<4x6xf32>) {
  ^bb0(%b0: f32, %b1: f32):
    %s7_1 = arith.divf %b0, %v5 : f32
    linalg.yield %s7_1 : f32
  } -> tensor<4x6xf32>
  %v8 = arith.constant 0xFF800000 : f32
  %v9 = tensor.empty() : tensor<f32>
  %v10 = linalg.fill ins(%v8 : f32) outs(%v9 : tensor<f32>) -> tensor<f32>
  %v11 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%v7 : tensor<4x6xf32>) outs(%v10 : tensor<f32>) {
  ^bb0(%b0: f32, %b1: f32):
    %s11_1 = arith.maximumf %b0, %b1 : f32
    linalg.yield %s11_1 : f32
  } -> tensor<f32>
  %v12 = tensor.empty() : tensor<4x6xf32>
  %v13 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v7, %v11 : tensor<4x6xf32>, tensor<f32>) outs(%v12 : tensor<4x6xf32>) {
  ^bb0(%b0: f32, %b1: f32, %b2: f32):
    %s13_1 = arith.subf %b0, %b1 : f32
    %s13_2 = math.exp %s13_1 : f32
    linalg.yield %s13_2 : f32
  } -> tensor<4x6xf32>
  %v14 = arith.constant 0.0 : f32
  %v15 = tensor.empty() : tensor<4xf32>
  %v16 = linalg.fill ins(%v14 : f32) outs(%v15 : tensor<4xf32>) -> tensor<4xf32>
  %v17 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%v13 : tensor<4x6xf32>) outs(%v16 : tensor<4xf32>) {
  ^bb0(%b0: f32, %b1: f32):
    %s17_1 = arith.addf %b0, %b1 : f32
    linalg.yield %s17_1 : f32
  } -> tensor<4xf32>
  %v18 = tensor.expand_shape %v17 [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
  %v19 = tensor.empty() : tensor<4x6xf32>
  %v20 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v13, %v18 : tensor<4x6xf32>, tensor<4x1xf32>) outs(%v19 : tensor<4x6xf32>) {
  ^bb0(%b0: f32, %b1: f32, %b2: f32):
    %s20_1 = arith.divf %b0, %b1 : f32
    linalg.yield %s20_1 : f32
  } -> tensor<4x6xf32>
  %v21 = arith.constant 0.0 : f32
  %v22 = tensor.empty() : tensor<4x4xf32>
  %v23 = linalg.fill ins(%v21 : f32) outs(%v22 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %v24 = linalg.matmul ins(%v20, %arg2 : tensor<4x6xf32>, tensor<6x4xf32>) outs(%v23 : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %v24 : tensor<4x4xf32>
}

// -----

// exp2((x - max)·log2 e) and an all-zero tensor added to the scores
// (torch-mlir's baddbmm(zeros, Q, Kᵀ)): no mask, scale 1.
// CHECK-LABEL: func.func @exp2_log2e_zero_add
// CHECK: attn.attention %arg0, %arg1, %arg2 scale(0.99999{{[0-9]*}}) :
// CHECK-NOT: mask(
func.func @exp2_log2e_zero_add(%arg0: tensor<2x4x8xf32>, %arg1: tensor<2x6x8xf32>, %arg2: tensor<2x6x4xf32>) -> (tensor<2x4x4xf32>) {
  %v1 = arith.constant 0.0 : f32
  %v2 = tensor.empty() : tensor<2x4x6xf32>
  %v3 = linalg.fill ins(%v1 : f32) outs(%v2 : tensor<2x4x6xf32>) -> tensor<2x4x6xf32>
  %v4 = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>] ins(%arg0, %arg1 : tensor<2x4x8xf32>, tensor<2x6x8xf32>) outs(%v3 : tensor<2x4x6xf32>) -> tensor<2x4x6xf32>
  %v5 = arith.constant dense<0.0> : tensor<2x4x6xf32>
  %v6 = tensor.empty() : tensor<2x4x6xf32>
  %v7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%v4, %v5 : tensor<2x4x6xf32>, tensor<2x4x6xf32>) outs(%v6 : tensor<2x4x6xf32>) {
  ^bb0(%b0: f32, %b1: f32, %b2: f32):
    %s7_1 = arith.addf %b0, %b1 : f32
    linalg.yield %s7_1 : f32
  } -> tensor<2x4x6xf32>
  %v8 = arith.constant 0xFF800000 : f32
  %v9 = tensor.empty() : tensor<2x4xf32>
  %v10 = linalg.fill ins(%v8 : f32) outs(%v9 : tensor<2x4xf32>) -> tensor<2x4xf32>
  %v11 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%v7 : tensor<2x4x6xf32>) outs(%v10 : tensor<2x4xf32>) {
  ^bb0(%b0: f32, %b1: f32):
    %s11_1 = arith.maximumf %b0, %b1 : f32
    linalg.yield %s11_1 : f32
  } -> tensor<2x4xf32>
  %v12 = tensor.expand_shape %v11 [[0], [1, 2]] output_shape [2, 4, 1] : tensor<2x4xf32> into tensor<2x4x1xf32>
  %v13 = tensor.empty() : tensor<2x4x6xf32>
  %v14 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%v7, %v12 : tensor<2x4x6xf32>, tensor<2x4x1xf32>) outs(%v13 : tensor<2x4x6xf32>) {
  ^bb0(%b0: f32, %b1: f32, %b2: f32):
    %s14_1 = arith.subf %b0, %b1 : f32
  %v15 = arith.constant 1.44269502 : f32
    %s15_2 = arith.mulf %s14_1, %v15 : f32
    %s15_3 = math.exp2 %s15_2 : f32
    linalg.yield %s15_3 : f32
  } -> tensor<2x4x6xf32>
  %v16 = arith.constant 0.0 : f32
  %v17 = tensor.empty() : tensor<2x4xf32>
  %v18 = linalg.fill ins(%v16 : f32) outs(%v17 : tensor<2x4xf32>) -> tensor<2x4xf32>
  %v19 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%v14 : tensor<2x4x6xf32>) outs(%v18 : tensor<2x4xf32>) {
  ^bb0(%b0: f32, %b1: f32):
    %s19_1 = arith.addf %b0, %b1 : f32
    linalg.yield %s19_1 : f32
  } -> tensor<2x4xf32>
  %v20 = tensor.expand_shape %v19 [[0], [1, 2]] output_shape [2, 4, 1] : tensor<2x4xf32> into tensor<2x4x1xf32>
  %v21 = tensor.empty() : tensor<2x4x6xf32>
  %v22 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%v14, %v20 : tensor<2x4x6xf32>, tensor<2x4x1xf32>) outs(%v21 : tensor<2x4x6xf32>) {
  ^bb0(%b0: f32, %b1: f32, %b2: f32):
    %s22_1 = arith.divf %b0, %b1 : f32
    linalg.yield %s22_1 : f32
  } -> tensor<2x4x6xf32>
  %v23 = arith.constant 0.0 : f32
  %v24 = tensor.empty() : tensor<2x4x4xf32>
  %v25 = linalg.fill ins(%v23 : f32) outs(%v24 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %v26 = linalg.batch_matmul ins(%v22, %arg2 : tensor<2x4x6xf32>, tensor<2x6x4xf32>) outs(%v25 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  return %v26 : tensor<2x4x4xf32>
}

// -----

// select(drop, finfo.min, S) with the row max subtracted: the dropped
// keys' logit is the fill itself (a fully dropped row is a uniform
// average, not 0), which no mask of the op is exactly (-inf gives 0;
// S + finfo.min is not finfo.min for scores near it, nor in f16 programs:
// @f16_finfo_min_drop_mask below). The select goes into the score_mod
// region as written.
// CHECK-LABEL: func.func @finfo_min_drop_mask
// CHECK: %[[FILL:.*]] = arith.constant -3.40282347E+38 : f32
// CHECK: attn.attention %arg0, %arg1, %arg2 scale(1.000000e+00) score_mod {
// CHECK-NEXT: ^bb0(%[[S:.*]]: f32, %[[I:.*]]: index, %[[J:.*]]: index):
// CHECK-NEXT: %[[DROP:.*]] = tensor.extract %arg3[%[[I]], %[[J]]] : tensor<4x6xi1>
// CHECK-NEXT: %[[X:.*]] = arith.select %[[DROP]], %[[FILL]], %[[S]] : f32
// CHECK-NEXT: attn.yield %[[X]] : f32
// CHECK-NOT: mask(
func.func @finfo_min_drop_mask(%arg0: tensor<4x8xf32>, %arg1: tensor<6x8xf32>, %arg2: tensor<6x4xf32>, %arg3: tensor<4x6xi1>) -> (tensor<4x4xf32>) {
  %v1 = arith.constant 0.0 : f32
  %v2 = tensor.empty() : tensor<4x6xf32>
  %v3 = linalg.fill ins(%v1 : f32) outs(%v2 : tensor<4x6xf32>) -> tensor<4x6xf32>
  %v4 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<6x8xf32>) outs(%v3 : tensor<4x6xf32>) -> tensor<4x6xf32>
  %v5 = arith.constant -3.40282347E+38 : f32
  %v6 = tensor.empty() : tensor<4x6xf32>
  %v7 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v4, %arg3 : tensor<4x6xf32>, tensor<4x6xi1>) outs(%v6 : tensor<4x6xf32>) {
  ^bb0(%b0: f32, %b1: i1, %b2: f32):
    %s7_1 = arith.select %b1, %v5, %b0 : f32
    linalg.yield %s7_1 : f32
  } -> tensor<4x6xf32>
  %v8 = arith.constant 0xFF800000 : f32
  %v9 = tensor.empty() : tensor<4x1xf32>
  %v10 = linalg.fill ins(%v8 : f32) outs(%v9 : tensor<4x1xf32>) -> tensor<4x1xf32>
  %v11 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%v7 : tensor<4x6xf32>) outs(%v10 : tensor<4x1xf32>) {
  ^bb0(%b0: f32, %b1: f32):
    %s11_1 = arith.maximumf %b0, %b1 : f32
    linalg.yield %s11_1 : f32
  } -> tensor<4x1xf32>
  %v12 = tensor.empty() : tensor<4x6xf32>
  %v13 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v7, %v11 : tensor<4x6xf32>, tensor<4x1xf32>) outs(%v12 : tensor<4x6xf32>) {
  ^bb0(%b0: f32, %b1: f32, %b2: f32):
    %s13_1 = arith.subf %b0, %b1 : f32
    %s13_2 = math.exp %s13_1 : f32
    linalg.yield %s13_2 : f32
  } -> tensor<4x6xf32>
  %v14 = arith.constant 0.0 : f32
  %v15 = tensor.empty() : tensor<4x1xf32>
  %v16 = linalg.fill ins(%v14 : f32) outs(%v15 : tensor<4x1xf32>) -> tensor<4x1xf32>
  %v17 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%v13 : tensor<4x6xf32>) outs(%v16 : tensor<4x1xf32>) {
  ^bb0(%b0: f32, %b1: f32):
    %s17_1 = arith.addf %b0, %b1 : f32
    linalg.yield %s17_1 : f32
  } -> tensor<4x1xf32>
  %v18 = tensor.empty() : tensor<4x6xf32>
  %v19 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v13, %v17 : tensor<4x6xf32>, tensor<4x1xf32>) outs(%v18 : tensor<4x6xf32>) {
  ^bb0(%b0: f32, %b1: f32, %b2: f32):
    %s19_1 = arith.divf %b0, %b1 : f32
    linalg.yield %s19_1 : f32
  } -> tensor<4x6xf32>
  %v20 = arith.constant 0.0 : f32
  %v21 = tensor.empty() : tensor<4x4xf32>
  %v22 = linalg.fill ins(%v20 : f32) outs(%v21 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %v23 = linalg.matmul ins(%v19, %arg2 : tensor<4x6xf32>, tensor<6x4xf32>) outs(%v22 : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %v23 : tensor<4x4xf32>
}

// -----
// Look-alikes of the generalized reads.

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#kd3 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#swap3 = affine_map<(d0, d1, d2) -> (d1, d0, 0)>

// The row sums are computed keepdim, then read for other rows (batch and
// query swapped): per row, but not each row's own sum. Not a softmax.
// CHECK-LABEL: func.func @row_sum_read_for_other_rows
// CHECK-NOT: attn.attention
func.func @row_sum_read_for_other_rows(%s: tensor<4x4x4xf32>, %v: tensor<4x4x8xf32>) -> tensor<4x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4x4xf32>
  %ex = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<4x4x4xf32>) outs(%e : tensor<4x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %x = math.exp %in : f32
    linalg.yield %x : f32
  } -> tensor<4x4x4xf32>
  %er = tensor.empty() : tensor<4x4x1xf32>
  %si = linalg.fill ins(%zero : f32) outs(%er : tensor<4x4x1xf32>) -> tensor<4x4x1xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #kd3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ex : tensor<4x4x4xf32>) outs(%si : tensor<4x4x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<4x4x1xf32>
  %p = linalg.generic {indexing_maps = [#id3, #swap3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ex, %sum : tensor<4x4x4xf32>, tensor<4x4x1xf32>) outs(%e : tensor<4x4x4xf32>) {
  ^bb0(%in: f32, %sm: f32, %out: f32):
    %x = arith.divf %in, %sm : f32
    linalg.yield %x : f32
  } -> tensor<4x4x4xf32>
  %eo = tensor.empty() : tensor<4x4x8xf32>
  %oacc = linalg.fill ins(%zero : f32) outs(%eo : tensor<4x4x8xf32>) -> tensor<4x4x8xf32>
  // expected-remark @+1 {{attn-detect: not raised: the row sums are read for other rows than the ones they divide}}
  %o = linalg.batch_matmul ins(%p, %v : tensor<4x4x4xf32>, tensor<4x4x8xf32>) outs(%oacc : tensor<4x4x8xf32>) -> tensor<4x4x8xf32>
  return %o : tensor<4x4x8xf32>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#kd3 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#tr3 = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
#mq = affine_map<(b, m, n, k) -> (b, m, k)>
#mk = affine_map<(b, m, n, k) -> (b, n, k)>
#mo = affine_map<(b, m, n, k) -> (b, m, n)>

// The scores are read transposed by the exp: softmax over the query axis in
// disguise. Every chain read must be element for element.
// CHECK-LABEL: func.func @exp_reads_scores_transposed
// CHECK-NOT: attn.attention
func.func @exp_reads_scores_transposed(%q: tensor<2x8x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %s = linalg.batch_matmul indexing_maps = [#mq, #mk, #mo] ins(%q, %k : tensor<2x8x16xf32>, tensor<2x8x16xf32>) outs(%acc : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %ex = linalg.generic {indexing_maps = [#tr3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x8x8xf32>) outs(%e : tensor<2x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %x = math.exp %in : f32
    linalg.yield %x : f32
  } -> tensor<2x8x8xf32>
  %er = tensor.empty() : tensor<2x8x1xf32>
  %si = linalg.fill ins(%zero : f32) outs(%er : tensor<2x8x1xf32>) -> tensor<2x8x1xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #kd3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ex : tensor<2x8x8xf32>) outs(%si : tensor<2x8x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<2x8x1xf32>
  %p = linalg.generic {indexing_maps = [#id3, #kd3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ex, %sum : tensor<2x8x8xf32>, tensor<2x8x1xf32>) outs(%e : tensor<2x8x8xf32>) {
  ^bb0(%in: f32, %sm: f32, %out: f32):
    %x = arith.divf %in, %sm : f32
    linalg.yield %x : f32
  } -> tensor<2x8x8xf32>
  %eo = tensor.empty() : tensor<2x8x16xf32>
  %oacc = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  // expected-remark @+1 {{attn-detect: not raised: the exp reads the scores through a broadcast or transpose}}
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x8x8xf32>, tensor<2x8x16xf32>) outs(%oacc : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#tr2 = affine_map<(d0, d1) -> (d1, d0)>
#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mo = affine_map<(m, n, k) -> (m, n)>

// A tril keep-mask read transposed is anti-causal: neither taken for causal
// nor kept as a mask (attn.attention only broadcasts masks).
// CHECK-LABEL: func.func @tril_read_transposed
// CHECK-NOT: attn.attention
func.func @tril_read_transposed(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %tril = arith.constant dense<[[true, false, false, false], [true, true, false, false], [true, true, true, false], [true, true, true, true]]> : tensor<4x4xi1>
  %e = tensor.empty() : tensor<4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %s = linalg.matmul indexing_maps = [#mq, #mk, #mo] ins(%q, %k : tensor<4x8xf32>, tensor<4x8xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  %sm = linalg.generic {indexing_maps = [#id2, #tr2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%s, %tril : tensor<4x4xf32>, tensor<4x4xi1>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%in: f32, %keep: i1, %out: f32):
    %x = arith.select %keep, %in, %ninf : f32
    linalg.yield %x : f32
  } -> tensor<4x4xf32>
  %p = linalg.softmax dimension(1) ins(%sm : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %eo = tensor.empty() : tensor<4x8xf32>
  %oacc = linalg.fill ins(%zero : f32) outs(%eo : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{attn-detect: not raised: the mask is read transposed or diagonally; only broadcasts are supported}}
  %o = linalg.matmul ins(%p, %v : tensor<4x4xf32>, tensor<4x8xf32>) outs(%oacc : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#h0 = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
#qk_q = affine_map<(b, h, m, n, k) -> (b, h, m, k)>
#qk_k = affine_map<(b, h, m, n, k) -> (b, h, n, k)>
#qk_o = affine_map<(b, h, m, n, k) -> (b, h, m, n)>
#pv_v = affine_map<(b, h, m, n, k) -> (b, h, k, n)>

// MQA as torch's expand: one K/V head broadcast to every head by a map that
// reads the head dim at 0. attn.attention takes the single head as is.
// CHECK-LABEL: func.func @mqa_expand
// CHECK: attn.attention %arg0, %arg1, %arg2 scale(1.000000e+00) : tensor<1x2x4x8xf32>, tensor<1x1x6x8xf32>, tensor<1x1x6x8xf32> -> tensor<1x2x4x8xf32>
func.func @mqa_expand(%q: tensor<1x2x4x8xf32>, %k: tensor<1x1x6x8xf32>, %v: tensor<1x1x6x8xf32>) -> tensor<1x2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ekv = tensor.empty() : tensor<1x2x6x8xf32>
  %kx = linalg.generic {indexing_maps = [#h0, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%k : tensor<1x1x6x8xf32>) outs(%ekv : tensor<1x2x6x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x2x6x8xf32>
  %vx = linalg.generic {indexing_maps = [#h0, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%v : tensor<1x1x6x8xf32>) outs(%ekv : tensor<1x2x6x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x2x6x8xf32>
  %es = tensor.empty() : tensor<1x2x4x6xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%es : tensor<1x2x4x6xf32>) -> tensor<1x2x4x6xf32>
  %s = linalg.generic {indexing_maps = [#qk_q, #qk_k, #qk_o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %kx : tensor<1x2x4x8xf32>, tensor<1x2x6x8xf32>) outs(%acc : tensor<1x2x4x6xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4x6xf32>
  %p = linalg.softmax dimension(3) ins(%s : tensor<1x2x4x6xf32>) outs(%es : tensor<1x2x4x6xf32>) -> tensor<1x2x4x6xf32>
  %eo = tensor.empty() : tensor<1x2x4x8xf32>
  %oacc = linalg.fill ins(%zero : f32) outs(%eo : tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  %o = linalg.generic {indexing_maps = [#qk_q, #pv_v, #qk_o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %vx : tensor<1x2x4x6xf32>, tensor<1x2x6x8xf32>) outs(%oacc : tensor<1x2x4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4x8xf32>
  return %o : tensor<1x2x4x8xf32>
}

// -----

// Position arithmetic in i8 with L = 200: j - i wraps (199 - 0 is -57 in
// i8), so the keep mask is not the causal pattern. The evaluator follows
// the IR's integer semantics (width, wrap, signedness), so the mask stays.
// CHECK-LABEL: func.func @iota_mask_i8_wraps
// CHECK: attn.attention %arg0, %arg1, %arg2 mask(%{{.*}} : tensor<200x200xf32>) scale(1.000000e+00) :
// CHECK-NOT: causal(
func.func @iota_mask_i8_wraps(%q: tensor<200x4xf32>, %k: tensor<200x4xf32>, %v: tensor<200x4xf32>) -> tensor<200x4xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %bound = arith.constant 0 : i8
  %erows = tensor.empty() : tensor<200xi8>
  %rows = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%erows : tensor<200xi8>) {
  ^bb0(%out: i8):
    %x = linalg.index 0 : index
    %y = arith.index_cast %x : index to i8
    linalg.yield %y : i8
  } -> tensor<200xi8>
  %rows2 = tensor.expand_shape %rows [[0, 1]] output_shape [200, 1] : tensor<200xi8> into tensor<200x1xi8>
  %cols2 = tensor.expand_shape %rows [[0, 1]] output_shape [1, 200] : tensor<200xi8> into tensor<1x200xi8>
  %ek = tensor.empty() : tensor<200x200xi1>
  %keep = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%cols2, %rows2 : tensor<1x200xi8>, tensor<200x1xi8>) outs(%ek : tensor<200x200xi1>) {
  ^bb0(%j: i8, %i: i8, %out: i1):
    %diff = arith.subi %j, %i : i8
    %b = arith.cmpi sle, %diff, %bound : i8
    linalg.yield %b : i1
  } -> tensor<200x200xi1>
  %em = tensor.empty() : tensor<200x200xf32>
  %mask = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%keep : tensor<200x200xi1>) outs(%em : tensor<200x200xf32>) {
  ^bb0(%b: i1, %out: f32):
    %m = arith.select %b, %zero, %ninf : f32
    linalg.yield %m : f32
  } -> tensor<200x200xf32>
  %es = tensor.empty() : tensor<200x200xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%es : tensor<200x200xf32>) -> tensor<200x200xf32>
  %s = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%q, %k : tensor<200x4xf32>, tensor<200x4xf32>) outs(%acc : tensor<200x200xf32>) -> tensor<200x200xf32>
  %sm = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%s, %mask : tensor<200x200xf32>, tensor<200x200xf32>) outs(%es : tensor<200x200xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %c = arith.addf %a, %b : f32
    linalg.yield %c : f32
  } -> tensor<200x200xf32>
  %p = linalg.softmax dimension(1) ins(%sm : tensor<200x200xf32>) outs(%es : tensor<200x200xf32>) -> tensor<200x200xf32>
  %eo = tensor.empty() : tensor<200x4xf32>
  %o0 = linalg.fill ins(%zero : f32) outs(%eo : tensor<200x4xf32>) -> tensor<200x4xf32>
  %o = linalg.matmul ins(%p, %v : tensor<200x200xf32>, tensor<200x4xf32>) outs(%o0 : tensor<200x4xf32>) -> tensor<200x4xf32>
  return %o : tensor<200x4xf32>
}

// -----

// The same in i1 with L = 2: index 1 is -1 as a signed i1.
// CHECK-LABEL: func.func @iota_mask_i1_wraps
// CHECK: attn.attention %arg0, %arg1, %arg2 mask(%{{.*}} : tensor<2x2xf32>) scale(1.000000e+00) :
// CHECK-NOT: causal(
func.func @iota_mask_i1_wraps(%q: tensor<2x4xf32>, %k: tensor<2x4xf32>, %v: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %bound = arith.constant 0 : i1
  %erows = tensor.empty() : tensor<2xi1>
  %rows = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%erows : tensor<2xi1>) {
  ^bb0(%out: i1):
    %x = linalg.index 0 : index
    %y = arith.index_cast %x : index to i1
    linalg.yield %y : i1
  } -> tensor<2xi1>
  %rows2 = tensor.expand_shape %rows [[0, 1]] output_shape [2, 1] : tensor<2xi1> into tensor<2x1xi1>
  %cols2 = tensor.expand_shape %rows [[0, 1]] output_shape [1, 2] : tensor<2xi1> into tensor<1x2xi1>
  %ek = tensor.empty() : tensor<2x2xi1>
  %keep = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%cols2, %rows2 : tensor<1x2xi1>, tensor<2x1xi1>) outs(%ek : tensor<2x2xi1>) {
  ^bb0(%j: i1, %i: i1, %out: i1):
    %diff = arith.subi %j, %i : i1
    %b = arith.cmpi sle, %diff, %bound : i1
    linalg.yield %b : i1
  } -> tensor<2x2xi1>
  %em = tensor.empty() : tensor<2x2xf32>
  %mask = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%keep : tensor<2x2xi1>) outs(%em : tensor<2x2xf32>) {
  ^bb0(%b: i1, %out: f32):
    %m = arith.select %b, %zero, %ninf : f32
    linalg.yield %m : f32
  } -> tensor<2x2xf32>
  %es = tensor.empty() : tensor<2x2xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%es : tensor<2x2xf32>) -> tensor<2x2xf32>
  %s = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%q, %k : tensor<2x4xf32>, tensor<2x4xf32>) outs(%acc : tensor<2x2xf32>) -> tensor<2x2xf32>
  %sm = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%s, %mask : tensor<2x2xf32>, tensor<2x2xf32>) outs(%es : tensor<2x2xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %c = arith.addf %a, %b : f32
    linalg.yield %c : f32
  } -> tensor<2x2xf32>
  %p = linalg.softmax dimension(1) ins(%sm : tensor<2x2xf32>) outs(%es : tensor<2x2xf32>) -> tensor<2x2xf32>
  %eo = tensor.empty() : tensor<2x4xf32>
  %o0 = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x4xf32>) -> tensor<2x4xf32>
  %o = linalg.matmul ins(%p, %v : tensor<2x2xf32>, tensor<2x4xf32>) outs(%o0 : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %o : tensor<2x4xf32>
}

// -----

// In i8 with L = 100 nothing wraps (|j - i| <= 99): causal.
// CHECK-LABEL: func.func @iota_mask_i8_fits
// CHECK: attn.attention %arg0, %arg1, %arg2 scale(1.000000e+00) causal(top_left) : tensor<100x4xf32>
func.func @iota_mask_i8_fits(%q: tensor<100x4xf32>, %k: tensor<100x4xf32>, %v: tensor<100x4xf32>) -> tensor<100x4xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %bound = arith.constant 0 : i8
  %erows = tensor.empty() : tensor<100xi8>
  %rows = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%erows : tensor<100xi8>) {
  ^bb0(%out: i8):
    %x = linalg.index 0 : index
    %y = arith.index_cast %x : index to i8
    linalg.yield %y : i8
  } -> tensor<100xi8>
  %rows2 = tensor.expand_shape %rows [[0, 1]] output_shape [100, 1] : tensor<100xi8> into tensor<100x1xi8>
  %cols2 = tensor.expand_shape %rows [[0, 1]] output_shape [1, 100] : tensor<100xi8> into tensor<1x100xi8>
  %ek = tensor.empty() : tensor<100x100xi1>
  %keep = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%cols2, %rows2 : tensor<1x100xi8>, tensor<100x1xi8>) outs(%ek : tensor<100x100xi1>) {
  ^bb0(%j: i8, %i: i8, %out: i1):
    %diff = arith.subi %j, %i : i8
    %b = arith.cmpi sle, %diff, %bound : i8
    linalg.yield %b : i1
  } -> tensor<100x100xi1>
  %em = tensor.empty() : tensor<100x100xf32>
  %mask = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%keep : tensor<100x100xi1>) outs(%em : tensor<100x100xf32>) {
  ^bb0(%b: i1, %out: f32):
    %m = arith.select %b, %zero, %ninf : f32
    linalg.yield %m : f32
  } -> tensor<100x100xf32>
  %es = tensor.empty() : tensor<100x100xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%es : tensor<100x100xf32>) -> tensor<100x100xf32>
  %s = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%q, %k : tensor<100x4xf32>, tensor<100x4xf32>) outs(%acc : tensor<100x100xf32>) -> tensor<100x100xf32>
  %sm = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%s, %mask : tensor<100x100xf32>, tensor<100x100xf32>) outs(%es : tensor<100x100xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %c = arith.addf %a, %b : f32
    linalg.yield %c : f32
  } -> tensor<100x100xf32>
  %p = linalg.softmax dimension(1) ins(%sm : tensor<100x100xf32>) outs(%es : tensor<100x100xf32>) -> tensor<100x100xf32>
  %eo = tensor.empty() : tensor<100x4xf32>
  %o0 = linalg.fill ins(%zero : f32) outs(%eo : tensor<100x4xf32>) -> tensor<100x4xf32>
  %o = linalg.matmul ins(%p, %v : tensor<100x100xf32>, tensor<100x4xf32>) outs(%o0 : tensor<100x4xf32>) -> tensor<100x4xf32>
  return %o : tensor<100x4xf32>
}

// -----

// An infinite scale: the chain matches, but attn.attention requires a finite
// scale. A near miss (a remark with explain=true), not an error.
func.func @detect_inf_is_near_miss(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %inf = arith.constant 0x7F800000 : f32
  %es = tensor.empty() : tensor<4x6xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%es : tensor<4x6xf32>) -> tensor<4x6xf32>
  %s = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%q, %k : tensor<4x8xf32>, tensor<6x8xf32>) outs(%acc : tensor<4x6xf32>) -> tensor<4x6xf32>
  %ss = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<4x6xf32>) outs(%es : tensor<4x6xf32>) {
  ^bb0(%a: f32, %out: f32):
    %c = arith.mulf %a, %inf : f32
    linalg.yield %c : f32
  } -> tensor<4x6xf32>
  %p = linalg.softmax dimension(1) ins(%ss : tensor<4x6xf32>) outs(%es : tensor<4x6xf32>) -> tensor<4x6xf32>
  %eo = tensor.empty() : tensor<4x8xf32>
  %o0 = linalg.fill ins(%zero : f32) outs(%eo : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{not raised: the matched shapes do not form a valid attention: 'attn.attention' op scale must be finite}}
  %o = linalg.matmul ins(%p, %v : tensor<4x6xf32>, tensor<6x8xf32>) outs(%o0 : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}

// -----

// An empty query (Lq = 0): attn.attention requires non-empty extents.
// A near miss, not an error.
func.func @detect_empty_is_near_miss(%q: tensor<0x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>) -> tensor<0x8xf32> {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %es = tensor.empty() : tensor<0x6xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%es : tensor<0x6xf32>) -> tensor<0x6xf32>
  %s = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%q, %k : tensor<0x8xf32>, tensor<6x8xf32>) outs(%acc : tensor<0x6xf32>) -> tensor<0x6xf32>
  %ss = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<0x6xf32>) outs(%es : tensor<0x6xf32>) {
  ^bb0(%a: f32, %out: f32):
    %c = arith.mulf %a, %two : f32
    linalg.yield %c : f32
  } -> tensor<0x6xf32>
  %p = linalg.softmax dimension(1) ins(%ss : tensor<0x6xf32>) outs(%es : tensor<0x6xf32>) -> tensor<0x6xf32>
  %eo = tensor.empty() : tensor<0x8xf32>
  %o0 = linalg.fill ins(%zero : f32) outs(%eo : tensor<0x8xf32>) -> tensor<0x8xf32>
  // expected-remark @+1 {{not raised: the matched shapes do not form a valid attention: 'attn.attention' op query has an empty dim 0}}
  %o = linalg.matmul ins(%p, %v : tensor<0x6xf32>, tensor<6x8xf32>) outs(%o0 : tensor<0x8xf32>) -> tensor<0x8xf32>
  return %o : tensor<0x8xf32>
}

// -----

// Attention B reads attention A's output as V and returns its own P: A is
// raised, B is a near miss with exactly one remark (the driver revisits B
// when A's P·V is replaced; remarks are not emitted from the pattern).
// CHECK-LABEL: func.func @detect_near_miss_reads_raised_output
// CHECK: %[[A:.+]] = attn.attention
// CHECK: linalg.softmax
// CHECK: linalg.matmul ins(%{{.+}}, %[[A]] :
func.func @detect_near_miss_reads_raised_output(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %es = tensor.empty() : tensor<4x4xf32>
  %eo = tensor.empty() : tensor<4x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%es : tensor<4x4xf32>) -> tensor<4x4xf32>
  %s = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%q, %k : tensor<4x8xf32>, tensor<4x8xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  %p = linalg.softmax dimension(1) ins(%s : tensor<4x4xf32>) outs(%es : tensor<4x4xf32>) -> tensor<4x4xf32>
  %o0 = linalg.fill ins(%zero : f32) outs(%eo : tensor<4x8xf32>) -> tensor<4x8xf32>
  %a = linalg.matmul ins(%p, %v : tensor<4x4xf32>, tensor<4x8xf32>) outs(%o0 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %acc2 = linalg.fill ins(%zero : f32) outs(%es : tensor<4x4xf32>) -> tensor<4x4xf32>
  %s2 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%q, %k : tensor<4x8xf32>, tensor<4x8xf32>) outs(%acc2 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %es2 = tensor.empty() : tensor<4x4xf32>
  %p2 = linalg.softmax dimension(1) ins(%s2 : tensor<4x4xf32>) outs(%es2 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %o2 = linalg.fill ins(%zero : f32) outs(%eo : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{not raised: an intermediate of the chain ('linalg.softmax') is also used outside it}}
  %b = linalg.matmul ins(%p2, %a : tensor<4x4xf32>, tensor<4x8xf32>) outs(%o2 : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %b, %p2 : tensor<4x8xf32>, tensor<4x4xf32>
}

// -----

// A matmul nobody reads is no candidate: it stays (the rewrite driver would
// otherwise erase it as dead).
// CHECK-LABEL: func.func @detect_keeps_unused_matmul
// CHECK: linalg.matmul
func.func @detect_keeps_unused_matmul(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %unused = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %a : tensor<4x8xf32>
}

// -----

// Look-alike: the P·V contraction accumulates into 1.0, not 0 (init + P·V),
// found by the fuzzer's semantic oracle. A contraction is a matmul only
// with an all-zero init; nothing is raised.
// CHECK-LABEL: func.func @pv_nonzero_accumulator
// CHECK-NOT: attn.attention
// CHECK: linalg.softmax
#pvq = affine_map<(m, n, k) -> (m, k)>
#pvk = affine_map<(m, n, k) -> (n, k)>
#pvo = affine_map<(m, n, k) -> (m, n)>
#pvid = affine_map<(m, n) -> (m, n)>
func.func @pv_nonzero_accumulator(%q: tensor<16x8xf32>, %k: tensor<16x8xf32>, %v: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %s = linalg.matmul indexing_maps = [#pvq, #pvk, #pvo] ins(%q, %k : tensor<16x8xf32>, tensor<16x8xf32>) outs(%acc : tensor<16x16xf32>) -> tensor<16x16xf32>
  %c = arith.constant 0.35 : f32
  %s1 = linalg.generic {indexing_maps = [#pvid, #pvid], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %c : f32
    linalg.yield %m : f32
  } -> tensor<16x16xf32>
  %p = linalg.softmax dimension(1) ins(%s1 : tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %e2 = tensor.empty() : tensor<16x8xf32>
  %one = arith.constant 1.0 : f32
  %oinit = linalg.fill ins(%one : f32) outs(%e2 : tensor<16x8xf32>) -> tensor<16x8xf32>
  %o = linalg.matmul ins(%p, %v : tensor<16x16xf32>, tensor<16x8xf32>) outs(%oinit : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %o : tensor<16x8xf32>
}

// -----

// Look-alike (found by the fuzzer's semantic oracle): exp2(S + M) is
// exp(ln 2·S + ln 2·M); the raised op would add M unscaled. Refused.
#e2id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#e2row3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#e2pad = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @exp2_additive_mask_not_rescaled
// CHECK-NOT: attn.attention
// CHECK: math.exp2
func.func @exp2_additive_mask_not_rescaled(%q: tensor<2x24x16xf32>, %k: tensor<2x40x16xf32>, %v: tensor<2x40x16xf32>, %bias: tensor<2x40xf32>) -> tensor<2x24x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x24x40xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<2x24x40xf32>) -> tensor<2x24x40xf32>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%q, %k : tensor<2x24x16xf32>, tensor<2x40x16xf32>) outs(%acc : tensor<2x24x40xf32>) -> tensor<2x24x40xf32>
  %sb = linalg.generic {indexing_maps = [#e2id3, #e2pad, #e2id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %bias : tensor<2x24x40xf32>, tensor<2x40xf32>) outs(%e : tensor<2x24x40xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %x = arith.addf %in, %b : f32
    linalg.yield %x : f32
  } -> tensor<2x24x40xf32>
  %ex = linalg.generic {indexing_maps = [#e2id3, #e2id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%sb : tensor<2x24x40xf32>) outs(%e : tensor<2x24x40xf32>) {
  ^bb0(%in: f32, %out: f32):
    %x = math.exp2 %in : f32
    linalg.yield %x : f32
  } -> tensor<2x24x40xf32>
  %er = tensor.empty() : tensor<2x24xf32>
  %si = linalg.fill ins(%zero : f32) outs(%er : tensor<2x24xf32>) -> tensor<2x24xf32>
  %sum = linalg.generic {indexing_maps = [#e2id3, #e2row3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ex : tensor<2x24x40xf32>) outs(%si : tensor<2x24xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<2x24xf32>
  %p = linalg.generic {indexing_maps = [#e2id3, #e2row3, #e2id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ex, %sum : tensor<2x24x40xf32>, tensor<2x24xf32>) outs(%e : tensor<2x24x40xf32>) {
  ^bb0(%in: f32, %sm: f32, %out: f32):
    %x = arith.divf %in, %sm : f32
    linalg.yield %x : f32
  } -> tensor<2x24x40xf32>
  %eo = tensor.empty() : tensor<2x24x16xf32>
  %oacc = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x24x16xf32>) -> tensor<2x24x16xf32>
  // expected-remark @+1 {{not raised: an additive mask is scaled with the scores by 0.69 (exp2 or a factor outside the mask); the raised op would add it unscaled}}
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x24x40xf32>, tensor<2x40x16xf32>) outs(%oacc : tensor<2x24x16xf32>) -> tensor<2x24x16xf32>
  return %o : tensor<2x24x16xf32>
}

// -----

// Look-alike (fuzz finding, test/Fuzz/Inputs/detect-scores-plus-constant-
// null-chain.mlir): a constant added to a product with a non-zero init,
// which is not Q·Kᵀ. The matcher followed the constant side of the addition
// as the scores and crashed on its missing value; now it is refused.
#nc = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: func.func @scores_plus_constant_no_matmul
// CHECK-NOT: attn.attention
func.func @scores_plus_constant_no_matmul(%q: tensor<8x16xf32>, %k: tensor<16x8xf32>, %v: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.125 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %acc = linalg.fill ins(%one : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %s = linalg.matmul ins(%q, %k : tensor<8x16xf32>, tensor<16x8xf32>) outs(%acc : tensor<8x8xf32>) -> tensor<8x8xf32>
  %x = linalg.generic {indexing_maps = [#nc, #nc], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = arith.addf %in, %c : f32
    linalg.yield %y : f32
  } -> tensor<8x8xf32>
  %p = linalg.softmax dimension(1) ins(%x : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %eo = tensor.empty() : tensor<8x16xf32>
  %oacc = linalg.fill ins(%zero : f32) outs(%eo : tensor<8x16xf32>) -> tensor<8x16xf32>
  // expected-remark @+1 {{not raised}}
  %o = linalg.matmul ins(%p, %v : tensor<8x8xf32>, tensor<8x16xf32>) outs(%oacc : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

// -----

// Look-alike (adversarial helper): an additive mask under a factor a
// program wrote, 1.00000095 (1 + 8 f32 ulps). exp(k·(S + M)) is not
// exp(k·S + M): the two differ by (k − 1)·M, ~1 in the exponent at
// M = 1e6. Only exp2's f32 log2 e (k = 1 − 1.3e-8, under half an ulp of 1)
// counts as k = 1 (@exp2_log2e_zero_add above, and the spellings test).
#nk_id = affine_map<(b, i, j) -> (b, i, j)>
#nk_m2 = affine_map<(b, i, j) -> (i, j)>
#nk_q = affine_map<(b, i, j, k) -> (b, i, k)>
#nk_k = affine_map<(b, i, j, k) -> (b, j, k)>
#nk_s = affine_map<(b, i, j, k) -> (b, i, j)>
// CHECK-LABEL: func.func @mask_under_factor_near_one
// CHECK-NOT: attn.attention
func.func @mask_under_factor_near_one(%q: tensor<1x4x8xf32>, %k: tensor<1x6x8xf32>, %v: tensor<1x6x8xf32>, %mask: tensor<4x6xf32>) -> tensor<1x4x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x6xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<1x4x6xf32>) -> tensor<1x4x6xf32>
  %s = linalg.batch_matmul indexing_maps = [#nk_q, #nk_k, #nk_s] ins(%q, %k : tensor<1x4x8xf32>, tensor<1x6x8xf32>) outs(%acc : tensor<1x4x6xf32>) -> tensor<1x4x6xf32>
  %x = linalg.generic {indexing_maps = [#nk_id, #nk_m2, #nk_id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %mask : tensor<1x4x6xf32>, tensor<4x6xf32>) outs(%e : tensor<1x4x6xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %y = arith.addf %a, %m : f32
    %kk = arith.constant 1.00000095 : f32
    %y2 = arith.mulf %y, %kk : f32
    linalg.yield %y2 : f32
  } -> tensor<1x4x6xf32>
  %p = linalg.softmax dimension(2) ins(%x : tensor<1x4x6xf32>) outs(%e : tensor<1x4x6xf32>) -> tensor<1x4x6xf32>
  %eo = tensor.empty() : tensor<1x4x8xf32>
  %oacc = linalg.fill ins(%z : f32) outs(%eo : tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  // expected-remark @+1 {{not raised: an additive mask is scaled with the scores by 1 + 9.54e-07 (exp2 or a factor outside the mask); the raised op would add it unscaled}}
  %o = linalg.batch_matmul ins(%p, %v : tensor<1x4x6xf32>, tensor<1x6x8xf32>) outs(%oacc : tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  return %o : tensor<1x4x8xf32>
}

// -----

// A finite fill (finfo.min) on the bottom-right causal diagonal, Lq < Lk
// (keep j <= i + 1): every row keeps a key, so under the row max the fill
// drops keys as -inf does; raised as the causal mask (block skipping).
// CHECK-LABEL: func.func @finite_fill_bottom_right_rows_keep_keys
// CHECK: attn.attention %{{.*}} causal(bottom_right) : tensor<2x8xf32>, tensor<3x8xf32>, tensor<3x8xf32> -> tensor<2x8xf32>
func.func @finite_fill_bottom_right_rows_keep_keys(%q: tensor<2x8xf32>, %k: tensor<3x8xf32>, %v: tensor<3x8xf32>) -> tensor<2x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%q, %k : tensor<2x8xf32>, tensor<3x8xf32>) outs(%acc : tensor<2x3xf32>) -> tensor<2x3xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %one = arith.constant 1 : index
    %i1 = arith.addi %i, %one : index
    %c = arith.cmpi ule, %j, %i1 : index
    %fill = arith.constant -3.40282347E+38 : f32
    %y = arith.select %c, %a, %fill : f32
    linalg.yield %y : f32
  } -> tensor<2x3xf32>
  %p = linalg.softmax dimension(1) ins(%x : tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %eo = tensor.empty() : tensor<2x8xf32>
  %oacc = linalg.fill ins(%z : f32) outs(%eo : tensor<2x8xf32>) -> tensor<2x8xf32>
  %o = linalg.matmul ins(%p, %v : tensor<2x3xf32>, tensor<3x8xf32>) outs(%oacc : tensor<2x8xf32>) -> tensor<2x8xf32>
  return %o : tensor<2x8xf32>
}

// -----

// The same fill on the bottom-right diagonal with Lq > Lk (keep j < i,
// Lq = 3, Lk = 2): row 0 keeps no key. Every logit of it is the fill, so
// the program averages V uniformly, where the causal op gives 0: not the
// causal mask; the select goes into the score_mod region as written
// (executed in test/Integration/CPU/detect-finite-fill-causal.mlir).
// CHECK-LABEL: func.func @finite_fill_bottom_right_empty_first_row
// CHECK: attn.attention %{{.*}} score_mod {
// CHECK: arith.cmpi ult
// CHECK: arith.select
// CHECK-NOT: causal(
// CHECK: return
func.func @finite_fill_bottom_right_empty_first_row(%q: tensor<3x8xf32>, %k: tensor<2x8xf32>, %v: tensor<2x8xf32>) -> tensor<3x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x2xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  %s = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%q, %k : tensor<3x8xf32>, tensor<2x8xf32>) outs(%acc : tensor<3x2xf32>) -> tensor<3x2xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<3x2xf32>) outs(%e : tensor<3x2xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c = arith.cmpi ult, %j, %i : index
    %fill = arith.constant -3.40282347E+38 : f32
    %y = arith.select %c, %a, %fill : f32
    linalg.yield %y : f32
  } -> tensor<3x2xf32>
  %p = linalg.softmax dimension(1) ins(%x : tensor<3x2xf32>) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  %eo = tensor.empty() : tensor<3x8xf32>
  %oacc = linalg.fill ins(%z : f32) outs(%eo : tensor<3x8xf32>) -> tensor<3x8xf32>
  %o = linalg.matmul ins(%p, %v : tensor<3x2xf32>, tensor<2x8xf32>) outs(%oacc : tensor<3x8xf32>) -> tensor<3x8xf32>
  return %o : tensor<3x8xf32>
}

// -----

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#mqk = affine_map<(m, n, k) -> (m, k)>
#mkk = affine_map<(m, n, k) -> (n, k)>
#mmn = affine_map<(m, n, k) -> (m, n)>

// An additive causal pattern of 0 and finfo.min under a factor applied
// after it, (S + M)·k: with a finite fill, k·fill need not absorb the
// scores (k = 1.2e-38 makes it -4), so the pattern is an additive mask
// under the factor, not the causal diagonal (an adversarial helper's case;
// with -inf fills any k > 0 keeps the diagonal).
// CHECK-LABEL: func.func @finite_causal_constant_scaled_after
// CHECK-NOT: attn.attention
func.func @finite_causal_constant_scaled_after(%q: tensor<3x1xf32>, %k: tensor<3x1xf32>, %v: tensor<3x1xf32>) -> tensor<3x1xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x3xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<3x3xf32>) -> tensor<3x3xf32>
  %s = linalg.matmul indexing_maps = [#mqk, #mkk, #mmn] ins(%q, %k : tensor<3x1xf32>, tensor<3x1xf32>) outs(%acc : tensor<3x3xf32>) -> tensor<3x3xf32>
  %causal = arith.constant dense<[[0.0, -3.40282347E+38, -3.40282347E+38], [0.0, 0.0, -3.40282347E+38], [0.0, 0.0, 0.0]]> : tensor<3x3xf32>
  %x = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s, %causal : tensor<3x3xf32>, tensor<3x3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %y = arith.addf %a, %m : f32
    %kk = arith.constant 1.17549435E-38 : f32
    %y2 = arith.mulf %y, %kk : f32
    linalg.yield %y2 : f32
  } -> tensor<3x3xf32>
  %p = linalg.softmax dimension(1) ins(%x : tensor<3x3xf32>) outs(%e : tensor<3x3xf32>) -> tensor<3x3xf32>
  %eo = tensor.empty() : tensor<3x1xf32>
  %oacc = linalg.fill ins(%z : f32) outs(%eo : tensor<3x1xf32>) -> tensor<3x1xf32>
  // expected-remark @+1 {{not raised: an additive mask is scaled with the scores by 0.00}}
  %o = linalg.matmul ins(%p, %v : tensor<3x3xf32>, tensor<3x1xf32>) outs(%oacc : tensor<3x1xf32>) -> tensor<3x1xf32>
  return %o : tensor<3x1xf32>
}

// RUN: attn-opt %s -split-input-file --attn-detect="explain=true" -verify-diagnostics | FileCheck %s
// Raises that would be exact in real arithmetic but not in floating point,
// or not at all: found by an adversarial review of this session's rules
// (session 22). Each stays unraised with a remark.
// CHECK-NOT: attn.attention
// exp(k·(S − rowmax S)) with k < 0: every exponent is ≥ 0 and overflows
// where the softmax of k·S does not.
// exp(-2 * (s - rowmax(s))): a NEGATIVE factor outside the max shift; s - max <= 0 times -2 is >= 0,
// so exp overflows where (s - max) < -44 (program inf/inf = NaN), the raised softmax(-2 s) is finite
#id = affine_map<(b, i, j) -> (b, i, j)>
#row = affine_map<(b, i, j) -> (b, i)>
#col = affine_map<(b, i, j) -> (b, j)>
#r2 = affine_map<(b, i) -> (b, i)>
#mq = affine_map<(b, i, j, k) -> (b, i, k)>
#mk = affine_map<(b, i, j, k) -> (b, j, k)>
#ms = affine_map<(b, i, j, k) -> (b, i, j)>
#pp = affine_map<(b, i, c, j) -> (b, i, j)>
#pv = affine_map<(b, i, c, j) -> (b, j, c)>
#pvt = affine_map<(b, i, c, j) -> (b, c, j)>
#po = affine_map<(b, i, c, j) -> (b, i, c)>
#pot = affine_map<(b, i, c, j) -> (b, c, i)>
func.func @f(%q: tensor<2x4x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x4xf32>) -> tensor<2x4x4xf32> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<2x4x6xf32>
  %er = tensor.empty() : tensor<2x4xf32>
  %eo = tensor.empty() : tensor<2x4x4xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<2x4x6xf32>) -> tensor<2x4x6xf32>
  %s = linalg.batch_matmul indexing_maps = [#mq, #mk, #ms] ins(%q, %k : tensor<2x4x8xf32>, tensor<2x6x8xf32>) outs(%acc : tensor<2x4x6xf32>) -> tensor<2x4x6xf32>
  %s1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x4x6xf32>) outs(%e : tensor<2x4x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %sc = arith.constant 0.35355339 : f32
    %y = arith.mulf %a, %sc : f32
    linalg.yield %y : f32
  } -> tensor<2x4x6xf32>
  %mx_i = linalg.fill ins(%ninf : f32) outs(%er : tensor<2x4xf32>) -> tensor<2x4xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s1 : tensor<2x4x6xf32>) outs(%mx_i : tensor<2x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.maximumf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<2x4xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s1, %mx : tensor<2x4x6xf32>, tensor<2x4xf32>) outs(%e : tensor<2x4x6xf32>) {
  ^bb0(%a: f32, %x: f32, %o: f32):
    %d = arith.subf %a, %x : f32
    %m2 = arith.constant -2.0 : f32
    %d2 = arith.mulf %d, %m2 : f32
    %y = math.exp %d2 : f32
    linalg.yield %y : f32
  } -> tensor<2x4x6xf32>
  %sum_i = linalg.fill ins(%z : f32) outs(%er : tensor<2x4xf32>) -> tensor<2x4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ex : tensor<2x4x6xf32>) outs(%sum_i : tensor<2x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<2x4xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ex, %sum : tensor<2x4x6xf32>, tensor<2x4xf32>) outs(%e : tensor<2x4x6xf32>) {
  ^bb0(%a: f32, %x: f32, %o: f32):
    %y = arith.divf %a, %x : f32
    linalg.yield %y : f32
  } -> tensor<2x4x6xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  // expected-remark @+1 {{a max shift under a non-positive factor}}
  %out = linalg.batch_matmul ins(%p, %v : tensor<2x4x6xf32>, tensor<2x6x4xf32>) outs(%oi : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  return %out : tensor<2x4x4xf32>
}

// -----

// The row max read for another row (map (b, 3 − i)): it cancels in real
// arithmetic only.
// exp(s - mx[b, 3-i]): max read for ANOTHER row (reversed rows) is still a finite per-row constant (contrived)
#id = affine_map<(b, i, j) -> (b, i, j)>
#row = affine_map<(b, i, j) -> (b, i)>
#col = affine_map<(b, i, j) -> (b, j)>
#r2 = affine_map<(b, i) -> (b, i)>
#mq = affine_map<(b, i, j, k) -> (b, i, k)>
#mk = affine_map<(b, i, j, k) -> (b, j, k)>
#ms = affine_map<(b, i, j, k) -> (b, i, j)>
#pp = affine_map<(b, i, c, j) -> (b, i, j)>
#pv = affine_map<(b, i, c, j) -> (b, j, c)>
#pvt = affine_map<(b, i, c, j) -> (b, c, j)>
#po = affine_map<(b, i, c, j) -> (b, i, c)>
#pot = affine_map<(b, i, c, j) -> (b, c, i)>
func.func @f(%q: tensor<2x4x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x4xf32>) -> tensor<2x4x4xf32> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<2x4x6xf32>
  %er = tensor.empty() : tensor<2x4xf32>
  %eo = tensor.empty() : tensor<2x4x4xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<2x4x6xf32>) -> tensor<2x4x6xf32>
  %s = linalg.batch_matmul indexing_maps = [#mq, #mk, #ms] ins(%q, %k : tensor<2x4x8xf32>, tensor<2x6x8xf32>) outs(%acc : tensor<2x4x6xf32>) -> tensor<2x4x6xf32>
  %s1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x4x6xf32>) outs(%e : tensor<2x4x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %sc = arith.constant 0.35355339 : f32
    %y = arith.mulf %a, %sc : f32
    linalg.yield %y : f32
  } -> tensor<2x4x6xf32>
  %mx_i = linalg.fill ins(%ninf : f32) outs(%er : tensor<2x4xf32>) -> tensor<2x4xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s1 : tensor<2x4x6xf32>) outs(%mx_i : tensor<2x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.maximumf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<2x4xf32>
  %ex = linalg.generic {indexing_maps = [#id, affine_map<(b, i, j) -> (b, 3 - i)>, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s1, %mx : tensor<2x4x6xf32>, tensor<2x4xf32>) outs(%e : tensor<2x4x6xf32>) {
  ^bb0(%a: f32, %x: f32, %o: f32):
    %d = arith.subf %a, %x : f32
    %y = math.exp %d : f32
    linalg.yield %y : f32
  } -> tensor<2x4x6xf32>
  %sum_i = linalg.fill ins(%z : f32) outs(%er : tensor<2x4xf32>) -> tensor<2x4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ex : tensor<2x4x6xf32>) outs(%sum_i : tensor<2x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<2x4xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ex, %sum : tensor<2x4x6xf32>, tensor<2x4xf32>) outs(%e : tensor<2x4x6xf32>) {
  ^bb0(%a: f32, %x: f32, %o: f32):
    %y = arith.divf %a, %x : f32
    linalg.yield %y : f32
  } -> tensor<2x4x6xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  // expected-remark @+1 {{the value subtracted before exp is not the max of the values it shifts}}
  %out = linalg.batch_matmul ins(%p, %v : tensor<2x4x6xf32>, tensor<2x6x4xf32>) outs(%oi : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  return %out : tensor<2x4x4xf32>
}

// -----

// O = (E·V) / Σ E in f16: the unnormalized E·V (up to Lk·max|V|) overflows
// where the attention's O does not.
// all-f16 chain with deferred normalization O = (E.V)/rowsum (rounding of E.V in f16 differs from P.V rounding; tol 2e-2)
#id = affine_map<(b, i, j) -> (b, i, j)>
#row = affine_map<(b, i, j) -> (b, i)>
#col = affine_map<(b, i, j) -> (b, j)>
#r2 = affine_map<(b, i) -> (b, i)>
#mq = affine_map<(b, i, j, k) -> (b, i, k)>
#mk = affine_map<(b, i, j, k) -> (b, j, k)>
#ms = affine_map<(b, i, j, k) -> (b, i, j)>
#pp = affine_map<(b, i, c, j) -> (b, i, j)>
#pv = affine_map<(b, i, c, j) -> (b, j, c)>
#pvt = affine_map<(b, i, c, j) -> (b, c, j)>
#po = affine_map<(b, i, c, j) -> (b, i, c)>
#pot = affine_map<(b, i, c, j) -> (b, c, i)>
func.func @f(%q: tensor<2x4x8xf16>, %k: tensor<2x6x8xf16>, %v: tensor<2x6x4xf16>) -> tensor<2x4x4xf16> {
  %z = arith.constant 0.0 : f16
  %ninf = arith.constant 0xFC00 : f16
  %e = tensor.empty() : tensor<2x4x6xf16>
  %er = tensor.empty() : tensor<2x4xf16>
  %eo = tensor.empty() : tensor<2x4x4xf16>
  %acc = linalg.fill ins(%z : f16) outs(%e : tensor<2x4x6xf16>) -> tensor<2x4x6xf16>
  %s = linalg.batch_matmul indexing_maps = [#mq, #mk, #ms] ins(%q, %k : tensor<2x4x8xf16>, tensor<2x6x8xf16>) outs(%acc : tensor<2x4x6xf16>) -> tensor<2x4x6xf16>
  %s1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x4x6xf16>) outs(%e : tensor<2x4x6xf16>) {
  ^bb0(%a: f16, %o: f16):
    %sc = arith.constant 0.35355339 : f16
    %y = arith.mulf %a, %sc : f16
    linalg.yield %y : f16
  } -> tensor<2x4x6xf16>
  %mx_i = linalg.fill ins(%ninf : f16) outs(%er : tensor<2x4xf16>) -> tensor<2x4xf16>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s1 : tensor<2x4x6xf16>) outs(%mx_i : tensor<2x4xf16>) {
  ^bb0(%a: f16, %o: f16):
    %y = arith.maximumf %a, %o : f16
    linalg.yield %y : f16
  } -> tensor<2x4xf16>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s1, %mx : tensor<2x4x6xf16>, tensor<2x4xf16>) outs(%e : tensor<2x4x6xf16>) {
  ^bb0(%a: f16, %x: f16, %o: f16):
    %d = arith.subf %a, %x : f16
    %y = math.exp %d : f16
    linalg.yield %y : f16
  } -> tensor<2x4x6xf16>
  %sum_i = linalg.fill ins(%z : f16) outs(%er : tensor<2x4xf16>) -> tensor<2x4xf16>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ex : tensor<2x4x6xf16>) outs(%sum_i : tensor<2x4xf16>) {
  ^bb0(%a: f16, %o: f16):
    %y = arith.addf %a, %o : f16
    linalg.yield %y : f16
  } -> tensor<2x4xf16>
  %oi = linalg.fill ins(%z : f16) outs(%eo : tensor<2x4x4xf16>) -> tensor<2x4x4xf16>
  // expected-remark @+1 {{the normalization is deferred past a P·V of less range than f32}}
  %un = linalg.batch_matmul ins(%ex, %v : tensor<2x4x6xf16>, tensor<2x6x4xf16>) outs(%oi : tensor<2x4x4xf16>) -> tensor<2x4x4xf16>
  %out = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%un, %sum : tensor<2x4x4xf16>, tensor<2x4xf16>) outs(%eo : tensor<2x4x4xf16>) {
  ^bb0(%a: f16, %x: f16, %o: f16):
    %y = arith.divf %a, %x : f16
    linalg.yield %y : f16
  } -> tensor<2x4x4xf16>
  return %out : tensor<2x4x4xf16>
}

// -----

// exp(y − (c + log Σ exp(y − c))) whose outer c is a payload cast of the max
// read for another row: each row scaled by exp(c[i] − c[σ(i)]), no softmax.
// exp(y - (c[3-i] + log sum_j exp(y - c[i]))): the logsumexp's outer shift is
// read for ANOTHER row (through a payload truncf); the inner one for the row.
// Real-arithmetic result: softmax(y)[i,j] * exp(c[i] - c[3-i]) -- not softmax.
#id = affine_map<(b, i, j) -> (b, i, j)>
#row = affine_map<(b, i, j) -> (b, i)>
#rev = affine_map<(b, i, j) -> (b, 3 - i)>
#r2 = affine_map<(b, i) -> (b, i)>
#mq = affine_map<(b, i, j, k) -> (b, i, k)>
#mk = affine_map<(b, i, j, k) -> (b, j, k)>
#ms = affine_map<(b, i, j, k) -> (b, i, j)>
func.func @f(%q: tensor<2x4x8xf16>, %k: tensor<2x6x8xf16>, %v: tensor<2x6x4xf16>) -> tensor<2x4x4xf16> {
  %z = arith.constant 0.0 : f16
  %zf = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<2x4x6xf16>
  %ef = tensor.empty() : tensor<2x4x6xf32>
  %er = tensor.empty() : tensor<2x4xf16>
  %erf = tensor.empty() : tensor<2x4xf32>
  %eo = tensor.empty() : tensor<2x4x4xf16>
  %acc = linalg.fill ins(%z : f16) outs(%e : tensor<2x4x6xf16>) -> tensor<2x4x6xf16>
  %y = linalg.batch_matmul indexing_maps = [#mq, #mk, #ms] ins(%q, %k : tensor<2x4x8xf16>, tensor<2x6x8xf16>) outs(%acc : tensor<2x4x6xf16>) -> tensor<2x4x6xf16>
  %ninfh = arith.constant 0xFC00 : f16
  %mx_i = linalg.fill ins(%ninfh : f16) outs(%er : tensor<2x4xf16>) -> tensor<2x4xf16>
  %mxh = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%y : tensor<2x4x6xf16>) outs(%mx_i : tensor<2x4xf16>) {
  ^bb0(%a: f16, %o: f16):
    %w = arith.maximumf %a, %o : f16
    linalg.yield %w : f16
  } -> tensor<2x4xf16>
  %mx = linalg.generic {indexing_maps = [#r2, #r2], iterator_types = ["parallel", "parallel"]}
      ins(%mxh : tensor<2x4xf16>) outs(%erf : tensor<2x4xf32>) {
  ^bb0(%a: f16, %o: f32):
    %w = arith.extf %a : f16 to f32
    linalg.yield %w : f32
  } -> tensor<2x4xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%y, %mxh : tensor<2x4x6xf16>, tensor<2x4xf16>) outs(%e : tensor<2x4x6xf16>) {
  ^bb0(%a: f16, %x: f16, %o: f16):
    %d = arith.subf %a, %x : f16
    %w = math.exp %d : f16
    linalg.yield %w : f16
  } -> tensor<2x4x6xf16>
  %sum_i = linalg.fill ins(%z : f16) outs(%er : tensor<2x4xf16>) -> tensor<2x4xf16>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ex : tensor<2x4x6xf16>) outs(%sum_i : tensor<2x4xf16>) {
  ^bb0(%a: f16, %o: f16):
    %w = arith.addf %a, %o : f16
    linalg.yield %w : f16
  } -> tensor<2x4xf16>
  %p = linalg.generic {indexing_maps = [#id, #rev, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%y, %mx, %sum : tensor<2x4x6xf16>, tensor<2x4xf32>, tensor<2x4xf16>) outs(%e : tensor<2x4x6xf16>) {
  ^bb0(%a: f16, %c: f32, %s: f16, %o: f16):
    %ch = arith.truncf %c : f32 to f16
    %l = math.log %s : f16
    %lse = arith.addf %ch, %l : f16
    %d = arith.subf %a, %lse : f16
    %w = math.exp %d : f16
    linalg.yield %w : f16
  } -> tensor<2x4x6xf16>
  %oi = linalg.fill ins(%z : f16) outs(%eo : tensor<2x4x4xf16>) -> tensor<2x4x4xf16>
  // expected-remark @+1 {{not raised}}
  %out = linalg.batch_matmul ins(%p, %v : tensor<2x4x6xf16>, tensor<2x6x4xf16>) outs(%oi : tensor<2x4x4xf16>) -> tensor<2x4x4xf16>
  return %out : tensor<2x4x4xf16>
}

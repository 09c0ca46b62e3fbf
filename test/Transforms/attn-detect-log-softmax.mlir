// RUN: attn-opt %s -split-input-file --attn-detect="explain=true" -verify-diagnostics | FileCheck %s
// exp of a log-softmax is the softmax: exp(d − log Σ exp(d)) (torch's
// log_softmax then exp), or exp(s − (c + log Σ exp(s − c))) (a logsumexp
// with its shift outside the log). Exactly those: the log must be of the
// row sums of the exp of the same values, shifted by the same c.
// Execution: test/Integration/CPU/detect-preserves-semantics.test.
// exp(d − log Σ exp(d)), d = s − max.
// CHECK-LABEL: func.func @log_softmax_then_exp
// CHECK-NEXT: %[[O:.*]] = attn.attention %arg0, %arg1, %arg2 scale(1.000000e+00)
// CHECK-NEXT: return %[[O]]
#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mo = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>
#r1 = affine_map<(i) -> (i)>
func.func @log_softmax_then_exp(%q: tensor<3x4xf32>, %k: tensor<3x4xf32>, %v: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<3x3xf32>
  %er = tensor.empty() : tensor<3xf32>
  %zr = linalg.fill ins(%z : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %lo = linalg.fill ins(%ninf : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<3x3xf32>) -> tensor<3x3xf32>
  %s = linalg.matmul indexing_maps = [#mq, #mk, #mo] ins(%q, %k : tensor<3x4xf32>, tensor<3x4xf32>) outs(%acc : tensor<3x3xf32>) -> tensor<3x3xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%s : tensor<3x3xf32>) outs(%lo : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.maximumf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %d = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %mx : tensor<3x3xf32>, tensor<3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.subf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %ex = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%d : tensor<3x3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.exp %a : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<3x3xf32>) outs(%zr : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%d, %sum : tensor<3x3xf32>, tensor<3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %l = math.log %b : f32
    %t = arith.subf %a, %l : f32
    %y = math.exp %t : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %eo = tensor.empty() : tensor<3x4xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<3x4xf32>) -> tensor<3x4xf32>
  %o = linalg.matmul ins(%p, %v : tensor<3x3xf32>, tensor<3x4xf32>) outs(%oi : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %o : tensor<3x4xf32>
}

// -----

// exp(s − lse), lse = max + log Σ exp(s − max).
// CHECK-LABEL: func.func @exp_minus_logsumexp
// CHECK-NEXT: %[[O:.*]] = attn.attention %arg0, %arg1, %arg2 scale(1.000000e+00)
// CHECK-NEXT: return %[[O]]
#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mo = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>
#r1 = affine_map<(i) -> (i)>
func.func @exp_minus_logsumexp(%q: tensor<3x4xf32>, %k: tensor<3x4xf32>, %v: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<3x3xf32>
  %er = tensor.empty() : tensor<3xf32>
  %zr = linalg.fill ins(%z : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %lo = linalg.fill ins(%ninf : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<3x3xf32>) -> tensor<3x3xf32>
  %s = linalg.matmul indexing_maps = [#mq, #mk, #mo] ins(%q, %k : tensor<3x4xf32>, tensor<3x4xf32>) outs(%acc : tensor<3x3xf32>) -> tensor<3x3xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%s : tensor<3x3xf32>) outs(%lo : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.maximumf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %d = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %mx : tensor<3x3xf32>, tensor<3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.subf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %ex = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%d : tensor<3x3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.exp %a : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<3x3xf32>) outs(%zr : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %lse = linalg.generic {indexing_maps = [#r1, #r1, #r1], iterator_types = ["parallel"]} ins(%sum, %mx : tensor<3xf32>, tensor<3xf32>) outs(%er : tensor<3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %l = math.log %a : f32
    %y = arith.addf %b, %l : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %lse : tensor<3x3xf32>, tensor<3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.subf %a, %b : f32
    %y = math.exp %t : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %eo = tensor.empty() : tensor<3x4xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<3x4xf32>) -> tensor<3x4xf32>
  %o = linalg.matmul ins(%p, %v : tensor<3x3xf32>, tensor<3x4xf32>) outs(%oi : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %o : tensor<3x4xf32>
}

// -----

// The shift outside the log is another row vector than inside: each
// row is scaled by exp(c' − c), not normalized.
// CHECK-LABEL: func.func @logsumexp_other_shift
// CHECK-NOT: attn.attention
#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mo = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>
#r1 = affine_map<(i) -> (i)>
func.func @logsumexp_other_shift(%q: tensor<3x4xf32>, %k: tensor<3x4xf32>, %v: tensor<3x4xf32>, %c: tensor<3xf32>) -> tensor<3x4xf32> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<3x3xf32>
  %er = tensor.empty() : tensor<3xf32>
  %zr = linalg.fill ins(%z : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %lo = linalg.fill ins(%ninf : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<3x3xf32>) -> tensor<3x3xf32>
  %s = linalg.matmul indexing_maps = [#mq, #mk, #mo] ins(%q, %k : tensor<3x4xf32>, tensor<3x4xf32>) outs(%acc : tensor<3x3xf32>) -> tensor<3x3xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%s : tensor<3x3xf32>) outs(%lo : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.maximumf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %d = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %mx : tensor<3x3xf32>, tensor<3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.subf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %ex = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%d : tensor<3x3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.exp %a : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<3x3xf32>) outs(%zr : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %lse = linalg.generic {indexing_maps = [#r1, #r1, #r1], iterator_types = ["parallel"]} ins(%sum, %c : tensor<3xf32>, tensor<3xf32>) outs(%er : tensor<3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %l = math.log %a : f32
    %y = arith.addf %b, %l : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %lse : tensor<3x3xf32>, tensor<3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.subf %a, %b : f32
    %y = math.exp %t : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %eo = tensor.empty() : tensor<3x4xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<3x4xf32>) -> tensor<3x4xf32>
  // expected-remark @+1 {{P is exp(S) without normalization, not a softmax}}
  %o = linalg.matmul ins(%p, %v : tensor<3x3xf32>, tensor<3x4xf32>) outs(%oi : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %o : tensor<3x4xf32>
}

// -----

// exp(d − lse) with d = s − max: the max subtracted twice scales each
// row by exp(−max); not normalized.
// CHECK-LABEL: func.func @logsumexp_other_scores
// CHECK-NOT: attn.attention
#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mo = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>
#r1 = affine_map<(i) -> (i)>
func.func @logsumexp_other_scores(%q: tensor<3x4xf32>, %k: tensor<3x4xf32>, %v: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<3x3xf32>
  %er = tensor.empty() : tensor<3xf32>
  %zr = linalg.fill ins(%z : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %lo = linalg.fill ins(%ninf : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<3x3xf32>) -> tensor<3x3xf32>
  %s = linalg.matmul indexing_maps = [#mq, #mk, #mo] ins(%q, %k : tensor<3x4xf32>, tensor<3x4xf32>) outs(%acc : tensor<3x3xf32>) -> tensor<3x3xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%s : tensor<3x3xf32>) outs(%lo : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.maximumf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %d = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %mx : tensor<3x3xf32>, tensor<3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.subf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %ex = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%d : tensor<3x3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.exp %a : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<3x3xf32>) outs(%zr : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %lse = linalg.generic {indexing_maps = [#r1, #r1, #r1], iterator_types = ["parallel"]} ins(%sum, %mx : tensor<3xf32>, tensor<3xf32>) outs(%er : tensor<3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %l = math.log %a : f32
    %y = arith.addf %b, %l : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%d, %lse : tensor<3x3xf32>, tensor<3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.subf %a, %b : f32
    %y = math.exp %t : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %eo = tensor.empty() : tensor<3x4xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<3x4xf32>) -> tensor<3x4xf32>
  // expected-remark @+1 {{P is exp(S) without normalization, not a softmax}}
  %o = linalg.matmul ins(%p, %v : tensor<3x3xf32>, tensor<3x4xf32>) outs(%oi : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %o : tensor<3x4xf32>
}

// -----

// The log of column sums (over queries).
// CHECK-LABEL: func.func @log_of_column_sums
// CHECK-NOT: attn.attention
#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mo = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>
#r1 = affine_map<(i) -> (i)>
func.func @log_of_column_sums(%q: tensor<3x4xf32>, %k: tensor<3x4xf32>, %v: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<3x3xf32>
  %er = tensor.empty() : tensor<3xf32>
  %zr = linalg.fill ins(%z : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %lo = linalg.fill ins(%ninf : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<3x3xf32>) -> tensor<3x3xf32>
  %s = linalg.matmul indexing_maps = [#mq, #mk, #mo] ins(%q, %k : tensor<3x4xf32>, tensor<3x4xf32>) outs(%acc : tensor<3x3xf32>) -> tensor<3x3xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%s : tensor<3x3xf32>) outs(%lo : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.maximumf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %d = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %mx : tensor<3x3xf32>, tensor<3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.subf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %ex = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%d : tensor<3x3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.exp %a : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %sum = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]} ins(%ex : tensor<3x3xf32>) outs(%zr : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%d, %sum : tensor<3x3xf32>, tensor<3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %l = math.log %b : f32
    %t = arith.subf %a, %l : f32
    %y = math.exp %t : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %eo = tensor.empty() : tensor<3x4xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<3x4xf32>) -> tensor<3x4xf32>
  // expected-remark @+1 {{P is exp(S) without normalization, not a softmax}}
  %o = linalg.matmul ins(%p, %v : tensor<3x3xf32>, tensor<3x4xf32>) outs(%oi : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %o : tensor<3x4xf32>
}

// -----

// The log of the sums of d, not of exp(d).
// CHECK-LABEL: func.func @log_of_sums_of_scores
// CHECK-NOT: attn.attention
#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mo = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>
#r1 = affine_map<(i) -> (i)>
func.func @log_of_sums_of_scores(%q: tensor<3x4xf32>, %k: tensor<3x4xf32>, %v: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<3x3xf32>
  %er = tensor.empty() : tensor<3xf32>
  %zr = linalg.fill ins(%z : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %lo = linalg.fill ins(%ninf : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<3x3xf32>) -> tensor<3x3xf32>
  %s = linalg.matmul indexing_maps = [#mq, #mk, #mo] ins(%q, %k : tensor<3x4xf32>, tensor<3x4xf32>) outs(%acc : tensor<3x3xf32>) -> tensor<3x3xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%s : tensor<3x3xf32>) outs(%lo : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.maximumf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %d = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %mx : tensor<3x3xf32>, tensor<3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.subf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %ex = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%d : tensor<3x3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.exp %a : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%d : tensor<3x3xf32>) outs(%zr : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%d, %sum : tensor<3x3xf32>, tensor<3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %l = math.log %b : f32
    %t = arith.subf %a, %l : f32
    %y = math.exp %t : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %eo = tensor.empty() : tensor<3x4xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<3x4xf32>) -> tensor<3x4xf32>
  // expected-remark @+1 {{P is exp(S) without normalization, not a softmax}}
  %o = linalg.matmul ins(%p, %v : tensor<3x3xf32>, tensor<3x4xf32>) outs(%oi : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %o : tensor<3x4xf32>
}

// -----

// A finfo.min fill: c + log Σ rounds to c on a fully masked row, which
// then gets 1 per key instead of an average: refused.
// CHECK-LABEL: func.func @logsumexp_finite_fill
// CHECK-NOT: attn.attention
#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mo = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>
#r1 = affine_map<(i) -> (i)>
func.func @logsumexp_finite_fill(%q: tensor<3x4xf32>, %k: tensor<3x4xf32>, %v: tensor<3x4xf32>, %c: tensor<3x3xi1>) -> tensor<3x4xf32> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<3x3xf32>
  %er = tensor.empty() : tensor<3xf32>
  %zr = linalg.fill ins(%z : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %lo = linalg.fill ins(%ninf : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<3x3xf32>) -> tensor<3x3xf32>
  %s0 = linalg.matmul indexing_maps = [#mq, #mk, #mo] ins(%q, %k : tensor<3x4xf32>, tensor<3x4xf32>) outs(%acc : tensor<3x3xf32>) -> tensor<3x3xf32>
  %sm = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%s0, %c : tensor<3x3xf32>, tensor<3x3xi1>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %keep: i1, %o: f32):
    %f = arith.constant -3.40282347E+38 : f32
    %y = arith.select %keep, %a, %f : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%sm : tensor<3x3xf32>) outs(%lo : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.maximumf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %d = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%sm, %mx : tensor<3x3xf32>, tensor<3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.subf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %ex = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%d : tensor<3x3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.exp %a : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<3x3xf32>) outs(%zr : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %lse = linalg.generic {indexing_maps = [#r1, #r1, #r1], iterator_types = ["parallel"]} ins(%sum, %mx : tensor<3xf32>, tensor<3xf32>) outs(%er : tensor<3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %l = math.log %a : f32
    %y = arith.addf %b, %l : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%sm, %lse : tensor<3x3xf32>, tensor<3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.subf %a, %b : f32
    %y = math.exp %t : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %eo = tensor.empty() : tensor<3x4xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<3x4xf32>) -> tensor<3x4xf32>
  // expected-remark @+1 {{a select with a finite fill under a softmax shift other than the row max}}
  %o = linalg.matmul ins(%p, %v : tensor<3x3xf32>, tensor<3x4xf32>) outs(%oi : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %o : tensor<3x4xf32>
}


// -----

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#mqk = affine_map<(m, n, k) -> (m, k)>
#mkk = affine_map<(m, n, k) -> (n, k)>
#mmn = affine_map<(m, n, k) -> (m, n)>

// An additive mask tensor under a logsumexp softmax, exp(x - (c + log sum
// exp(x - c))): where the mask holds finfo.min for a whole row, c + log sum
// rounds to c and the program gives that row the sum of V, not its average
// (an adversarial helper's case). Refused, as finite-fill selects are.
// CHECK-LABEL: func.func @logsumexp_additive_mask_tensor
// CHECK-NOT: attn.attention
func.func @logsumexp_additive_mask_tensor(%q: tensor<3x1xf32>, %k: tensor<3x1xf32>, %v: tensor<3x1xf32>, %pad: tensor<3x3xf32>) -> tensor<3x1xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x3xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<3x3xf32>) -> tensor<3x3xf32>
  %s = linalg.matmul indexing_maps = [#mqk, #mkk, #mmn] ins(%q, %k : tensor<3x1xf32>, tensor<3x1xf32>) outs(%acc : tensor<3x3xf32>) -> tensor<3x3xf32>
  %x = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s, %pad : tensor<3x3xf32>, tensor<3x3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %y = arith.addf %a, %m : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %er = tensor.empty() : tensor<3xf32>
  %zr = linalg.fill ins(%z : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %lo = linalg.fill ins(%ninf : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<3x3xf32>) outs(%lo : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.maximumf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %d = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %mx : tensor<3x3xf32>, tensor<3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.subf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %ex = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%d : tensor<3x3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.exp %a : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<3x3xf32>) outs(%zr : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %lse = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%sum, %mx : tensor<3xf32>, tensor<3xf32>) outs(%er : tensor<3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %l = math.log %a : f32
    %y = arith.addf %b, %l : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %lse : tensor<3x3xf32>, tensor<3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.subf %a, %b : f32
    %y = math.exp %t : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %eo = tensor.empty() : tensor<3x1xf32>
  %oacc = linalg.fill ins(%z : f32) outs(%eo : tensor<3x1xf32>) -> tensor<3x1xf32>
  // expected-remark @+1 {{not raised: an additive mask tensor under a log-sum-exp shift}}
  %o = linalg.matmul ins(%p, %v : tensor<3x3xf32>, tensor<3x1xf32>) outs(%oacc : tensor<3x1xf32>) -> tensor<3x1xf32>
  return %o : tensor<3x1xf32>
}

// RUN: attn-opt %s -split-input-file --attn-detect="explain=true" -verify-diagnostics | FileCheck %s
// O = (E·V) / rowsum(E), E = exp(S − max): FlashAttention's own order
// written out, the normalization deferred past P·V. The attention replaces
// the division; P·V's product and the sums go with the chain. Execution:
// test/Integration/CPU/detect-preserves-semantics.test.
// Divided by the row sums after P·V.
// CHECK-LABEL: func.func @deferred_division
// CHECK-NEXT: %[[O:.*]] = attn.attention %arg0, %arg1, %arg2 scale(1.000000e+00)
// CHECK-NEXT: return %[[O]]
#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mo = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>
func.func @deferred_division(%q: tensor<3x4xf32>, %k: tensor<3x4xf32>, %v: tensor<3x4xf32>) -> (tensor<3x4xf32>) {
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
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %mx : tensor<3x3xf32>, tensor<3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %y = math.exp %d : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<3x3xf32>) outs(%zr : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %eo = tensor.empty() : tensor<3x4xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<3x4xf32>) -> tensor<3x4xf32>
  %pv = linalg.matmul ins(%ex, %v : tensor<3x3xf32>, tensor<3x4xf32>) outs(%oi : tensor<3x4xf32>) -> tensor<3x4xf32>
  %o = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%pv, %sum : tensor<3x4xf32>, tensor<3xf32>) outs(%eo : tensor<3x4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %y = arith.divf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<3x4xf32>
  return %o : tensor<3x4xf32>
}

// -----

// Multiplied by 1 / sum in the same payload.
// CHECK-LABEL: func.func @deferred_reciprocal
// CHECK-NEXT: %[[O:.*]] = attn.attention
// CHECK-NEXT: return %[[O]]
#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mo = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>
func.func @deferred_reciprocal(%q: tensor<3x4xf32>, %k: tensor<3x4xf32>, %v: tensor<3x4xf32>) -> (tensor<3x4xf32>) {
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
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %mx : tensor<3x3xf32>, tensor<3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %y = math.exp %d : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<3x3xf32>) outs(%zr : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %eo = tensor.empty() : tensor<3x4xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<3x4xf32>) -> tensor<3x4xf32>
  %pv = linalg.matmul ins(%ex, %v : tensor<3x3xf32>, tensor<3x4xf32>) outs(%oi : tensor<3x4xf32>) -> tensor<3x4xf32>
  %o = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%pv, %sum : tensor<3x4xf32>, tensor<3xf32>) outs(%eo : tensor<3x4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %one = arith.constant 1.0 : f32
    %r = arith.divf %one, %b : f32
    %y = arith.mulf %a, %r : f32
    linalg.yield %y : f32
  } -> tensor<3x4xf32>
  return %o : tensor<3x4xf32>
}

// -----

// Column sums (over queries) are no softmax normalizer.
// CHECK-LABEL: func.func @deferred_column_sums
// CHECK-NOT: attn.attention
#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mo = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>
func.func @deferred_column_sums(%q: tensor<3x4xf32>, %k: tensor<3x4xf32>, %v: tensor<3x4xf32>) -> (tensor<3x4xf32>) {
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
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %mx : tensor<3x3xf32>, tensor<3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %y = math.exp %d : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %sum = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]} ins(%ex : tensor<3x3xf32>) outs(%zr : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %eo = tensor.empty() : tensor<3x4xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<3x4xf32>) -> tensor<3x4xf32>
  // expected-remark @+1 {{O is divided by something else than the row sums of the exp P·V reads}}
  %pv = linalg.matmul ins(%ex, %v : tensor<3x3xf32>, tensor<3x4xf32>) outs(%oi : tensor<3x4xf32>) -> tensor<3x4xf32>
  %o = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%pv, %sum : tensor<3x4xf32>, tensor<3xf32>) outs(%eo : tensor<3x4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %y = arith.divf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<3x4xf32>
  return %o : tensor<3x4xf32>
}

// -----

// Sums of the scores, not of the exp.
// CHECK-LABEL: func.func @deferred_sums_of_scores
// CHECK-NOT: attn.attention
#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mo = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>
func.func @deferred_sums_of_scores(%q: tensor<3x4xf32>, %k: tensor<3x4xf32>, %v: tensor<3x4xf32>) -> (tensor<3x4xf32>) {
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
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %mx : tensor<3x3xf32>, tensor<3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %y = math.exp %d : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%s : tensor<3x3xf32>) outs(%zr : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %eo = tensor.empty() : tensor<3x4xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<3x4xf32>) -> tensor<3x4xf32>
  // expected-remark @+1 {{O is divided by something else than the row sums of the exp P·V reads}}
  %pv = linalg.matmul ins(%ex, %v : tensor<3x3xf32>, tensor<3x4xf32>) outs(%oi : tensor<3x4xf32>) -> tensor<3x4xf32>
  %o = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%pv, %sum : tensor<3x4xf32>, tensor<3xf32>) outs(%eo : tensor<3x4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %y = arith.divf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<3x4xf32>
  return %o : tensor<3x4xf32>
}

// -----

// Multiplied by the sums: not a normalization.
// CHECK-LABEL: func.func @deferred_times_sum
// CHECK-NOT: attn.attention
#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mo = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>
func.func @deferred_times_sum(%q: tensor<3x4xf32>, %k: tensor<3x4xf32>, %v: tensor<3x4xf32>) -> (tensor<3x4xf32>) {
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
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %mx : tensor<3x3xf32>, tensor<3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %y = math.exp %d : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<3x3xf32>) outs(%zr : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %eo = tensor.empty() : tensor<3x4xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<3x4xf32>) -> tensor<3x4xf32>
  // expected-remark @+1 {{not a softmax: no row-sum normalizer}}
  %pv = linalg.matmul ins(%ex, %v : tensor<3x3xf32>, tensor<3x4xf32>) outs(%oi : tensor<3x4xf32>) -> tensor<3x4xf32>
  %o = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%pv, %sum : tensor<3x4xf32>, tensor<3xf32>) outs(%eo : tensor<3x4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %y = arith.mulf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<3x4xf32>
  return %o : tensor<3x4xf32>
}

// -----

// The unnormalized product is returned too: kept.
// CHECK-LABEL: func.func @deferred_unnormalized_returned
// CHECK-NOT: attn.attention
#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mo = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>
func.func @deferred_unnormalized_returned(%q: tensor<3x4xf32>, %k: tensor<3x4xf32>, %v: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
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
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %mx : tensor<3x3xf32>, tensor<3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %y = math.exp %d : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<3x3xf32>) outs(%zr : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %eo = tensor.empty() : tensor<3x4xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<3x4xf32>) -> tensor<3x4xf32>
  // expected-remark @+1 {{P is exp(S) without normalization, not a softmax}}
  %pv = linalg.matmul ins(%ex, %v : tensor<3x3xf32>, tensor<3x4xf32>) outs(%oi : tensor<3x4xf32>) -> tensor<3x4xf32>
  %o = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%pv, %sum : tensor<3x4xf32>, tensor<3xf32>) outs(%eo : tensor<3x4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %y = arith.divf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<3x4xf32>
  return %o, %pv : tensor<3x4xf32>, tensor<3x4xf32>
}


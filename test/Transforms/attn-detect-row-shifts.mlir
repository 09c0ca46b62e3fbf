// RUN: attn-opt %s -split-input-file --attn-detect="explain=true" -verify-diagnostics | FileCheck %s
// A softmax is invariant to any row constant in real arithmetic, but in
// floating point only the max of the very values it shifts keeps exp from
// overflowing and the row sum from underflowing. --attn-detect drops that
// max wherever and however it is written (cmpf + select, s + negate(max),
// subtracted below a mask), with the ops that compute it, and no other
// shift (a constant, an argument, a min, max(0, ·), a max from NaN, the max
// of other values). Payload values computed from row statistics are per
// row (1 / sum inside P's payload). Execution:
// test/Integration/CPU/detect-preserves-semantics.test.
// The row max as cmpf ogt + select: the same max.
// CHECK-LABEL: func.func @max_by_cmpf_select
// CHECK: attn.attention
// CHECK-NOT: linalg.generic
#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mo = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @max_by_cmpf_select(%q: tensor<3x4xf32>, %k: tensor<5x4xf32>, %v: tensor<5x4xf32>) -> tensor<3x4xf32> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %pinf = arith.constant 0x7F800000 : f32
  %e = tensor.empty() : tensor<3x5xf32>
  %er = tensor.empty() : tensor<3xf32>
  %zr = linalg.fill ins(%z : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %lo = linalg.fill ins(%ninf : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %hi = linalg.fill ins(%pinf : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %s = linalg.matmul indexing_maps = [#mq, #mk, #mo] ins(%q, %k : tensor<3x4xf32>, tensor<5x4xf32>) outs(%acc : tensor<3x5xf32>) -> tensor<3x5xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%s : tensor<3x5xf32>) outs(%lo : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %g = arith.cmpf ogt, %a, %o : f32
    %y = arith.select %g, %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %mx : tensor<3x5xf32>, tensor<3xf32>) outs(%e : tensor<3x5xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %d = arith.subf %a0, %a1 : f32
    %y = math.exp %d : f32
    linalg.yield %y : f32
  } -> tensor<3x5xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<3x5xf32>) outs(%zr : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%ex, %sum : tensor<3x5xf32>, tensor<3xf32>) outs(%e : tensor<3x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.divf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<3x5xf32>
  %eo = tensor.empty() : tensor<3x4xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<3x4xf32>) -> tensor<3x4xf32>
  %o = linalg.matmul ins(%p, %v : tensor<3x5xf32>, tensor<5x4xf32>) outs(%oi : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %o : tensor<3x4xf32>
}

// -----

// s + negate(max), the negation in a generic of its own.
// CHECK-LABEL: func.func @add_negated_max
// CHECK: attn.attention
// CHECK-NOT: linalg.generic
#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mo = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @add_negated_max(%q: tensor<3x4xf32>, %k: tensor<5x4xf32>, %v: tensor<5x4xf32>) -> tensor<3x4xf32> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %pinf = arith.constant 0x7F800000 : f32
  %e = tensor.empty() : tensor<3x5xf32>
  %er = tensor.empty() : tensor<3xf32>
  %zr = linalg.fill ins(%z : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %lo = linalg.fill ins(%ninf : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %hi = linalg.fill ins(%pinf : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %s = linalg.matmul indexing_maps = [#mq, #mk, #mo] ins(%q, %k : tensor<3x4xf32>, tensor<5x4xf32>) outs(%acc : tensor<3x5xf32>) -> tensor<3x5xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%s : tensor<3x5xf32>) outs(%lo : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.maximumf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %nm = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%mx : tensor<3xf32>) outs(%er : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.negf %a : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %ex = linalg.generic {indexing_maps = [#row, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%nm, %s : tensor<3xf32>, tensor<3x5xf32>) outs(%e : tensor<3x5xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %d = arith.addf %a0, %a1 : f32
    %y = math.exp %d : f32
    linalg.yield %y : f32
  } -> tensor<3x5xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<3x5xf32>) outs(%zr : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%ex, %sum : tensor<3x5xf32>, tensor<3xf32>) outs(%e : tensor<3x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.divf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<3x5xf32>
  %eo = tensor.empty() : tensor<3x4xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<3x4xf32>) -> tensor<3x4xf32>
  %o = linalg.matmul ins(%p, %v : tensor<3x5xf32>, tensor<5x4xf32>) outs(%oi : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %o : tensor<3x4xf32>
}

// -----

// exp(s − max(s) + M): the max is subtracted below the mask.
// CHECK-LABEL: func.func @mask_below_shift
// CHECK: attn.attention {{.*}} mask(%arg3
// CHECK-NOT: linalg.generic
#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mo = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @mask_below_shift(%q: tensor<3x4xf32>, %k: tensor<5x4xf32>, %v: tensor<5x4xf32>, %m: tensor<3x5xf32>) -> tensor<3x4xf32> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %pinf = arith.constant 0x7F800000 : f32
  %e = tensor.empty() : tensor<3x5xf32>
  %er = tensor.empty() : tensor<3xf32>
  %zr = linalg.fill ins(%z : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %lo = linalg.fill ins(%ninf : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %hi = linalg.fill ins(%pinf : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %s = linalg.matmul indexing_maps = [#mq, #mk, #mo] ins(%q, %k : tensor<3x4xf32>, tensor<5x4xf32>) outs(%acc : tensor<3x5xf32>) -> tensor<3x5xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%s : tensor<3x5xf32>) outs(%lo : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.maximumf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %mx, %m : tensor<3x5xf32>, tensor<3xf32>, tensor<3x5xf32>) outs(%e : tensor<3x5xf32>) {
  ^bb0(%a0: f32, %a1: f32, %a2: f32, %o: f32):
    %d = arith.subf %a0, %a1 : f32
    %dm = arith.addf %d, %a2 : f32
    %y = math.exp %dm : f32
    linalg.yield %y : f32
  } -> tensor<3x5xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<3x5xf32>) outs(%zr : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%ex, %sum : tensor<3x5xf32>, tensor<3xf32>) outs(%e : tensor<3x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.divf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<3x5xf32>
  %eo = tensor.empty() : tensor<3x4xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<3x4xf32>) -> tensor<3x4xf32>
  %o = linalg.matmul ins(%p, %v : tensor<3x5xf32>, tensor<5x4xf32>) outs(%oi : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %o : tensor<3x4xf32>
}

// -----

// e · (1 / sum) in P's payload: 1 / sum is per row.
// CHECK-LABEL: func.func @inline_reciprocal
// CHECK: attn.attention
// CHECK-NOT: linalg.generic
#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mo = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @inline_reciprocal(%q: tensor<3x4xf32>, %k: tensor<5x4xf32>, %v: tensor<5x4xf32>) -> tensor<3x4xf32> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %pinf = arith.constant 0x7F800000 : f32
  %e = tensor.empty() : tensor<3x5xf32>
  %er = tensor.empty() : tensor<3xf32>
  %zr = linalg.fill ins(%z : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %lo = linalg.fill ins(%ninf : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %hi = linalg.fill ins(%pinf : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %s = linalg.matmul indexing_maps = [#mq, #mk, #mo] ins(%q, %k : tensor<3x4xf32>, tensor<5x4xf32>) outs(%acc : tensor<3x5xf32>) -> tensor<3x5xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%s : tensor<3x5xf32>) outs(%lo : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.maximumf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %mx : tensor<3x5xf32>, tensor<3xf32>) outs(%e : tensor<3x5xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %d = arith.subf %a0, %a1 : f32
    %y = math.exp %d : f32
    linalg.yield %y : f32
  } -> tensor<3x5xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<3x5xf32>) outs(%zr : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%ex, %sum : tensor<3x5xf32>, tensor<3xf32>) outs(%e : tensor<3x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %r = arith.divf %one, %b : f32
    %y = arith.mulf %r, %a : f32
    linalg.yield %y : f32
  } -> tensor<3x5xf32>
  %eo = tensor.empty() : tensor<3x4xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<3x4xf32>) -> tensor<3x4xf32>
  %o = linalg.matmul ins(%p, %v : tensor<3x5xf32>, tensor<5x4xf32>) outs(%oi : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %o : tensor<3x4xf32>
}

// -----

// Q·Kᵀ accumulated into a tensor.splat of -0.0.
// CHECK-LABEL: func.func @splat_accumulator
// CHECK: attn.attention
#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mo = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @splat_accumulator(%q: tensor<3x4xf32>, %k: tensor<5x4xf32>, %v: tensor<5x4xf32>) -> tensor<3x4xf32> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %pinf = arith.constant 0x7F800000 : f32
  %e = tensor.empty() : tensor<3x5xf32>
  %er = tensor.empty() : tensor<3xf32>
  %zr = linalg.fill ins(%z : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %lo = linalg.fill ins(%ninf : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %hi = linalg.fill ins(%pinf : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %nz = arith.constant -0.0 : f32
  %acc = tensor.splat %nz : tensor<3x5xf32>
  %s = linalg.matmul indexing_maps = [#mq, #mk, #mo] ins(%q, %k : tensor<3x4xf32>, tensor<5x4xf32>) outs(%acc : tensor<3x5xf32>) -> tensor<3x5xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%s : tensor<3x5xf32>) outs(%lo : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.maximumf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %mx : tensor<3x5xf32>, tensor<3xf32>) outs(%e : tensor<3x5xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %d = arith.subf %a0, %a1 : f32
    %y = math.exp %d : f32
    linalg.yield %y : f32
  } -> tensor<3x5xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<3x5xf32>) outs(%zr : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%ex, %sum : tensor<3x5xf32>, tensor<3xf32>) outs(%e : tensor<3x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.divf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<3x5xf32>
  %eo = tensor.empty() : tensor<3x4xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<3x4xf32>) -> tensor<3x4xf32>
  %o = linalg.matmul ins(%p, %v : tensor<3x5xf32>, tensor<5x4xf32>) outs(%oi : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %o : tensor<3x4xf32>
}

// -----

// A row min started from -inf is -inf: the program is NaN everywhere.
// CHECK-LABEL: func.func @min_from_neg_inf
// CHECK-NOT: attn.attention
#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mo = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @min_from_neg_inf(%q: tensor<3x4xf32>, %k: tensor<5x4xf32>, %v: tensor<5x4xf32>) -> tensor<3x4xf32> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %pinf = arith.constant 0x7F800000 : f32
  %e = tensor.empty() : tensor<3x5xf32>
  %er = tensor.empty() : tensor<3xf32>
  %zr = linalg.fill ins(%z : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %lo = linalg.fill ins(%ninf : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %hi = linalg.fill ins(%pinf : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %s = linalg.matmul indexing_maps = [#mq, #mk, #mo] ins(%q, %k : tensor<3x4xf32>, tensor<5x4xf32>) outs(%acc : tensor<3x5xf32>) -> tensor<3x5xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%s : tensor<3x5xf32>) outs(%lo : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.minimumf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %mx : tensor<3x5xf32>, tensor<3xf32>) outs(%e : tensor<3x5xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %d = arith.subf %a0, %a1 : f32
    %y = math.exp %d : f32
    linalg.yield %y : f32
  } -> tensor<3x5xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<3x5xf32>) outs(%zr : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%ex, %sum : tensor<3x5xf32>, tensor<3xf32>) outs(%e : tensor<3x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.divf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<3x5xf32>
  %eo = tensor.empty() : tensor<3x4xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<3x4xf32>) -> tensor<3x4xf32>
  // expected-remark @+1 {{the value subtracted before exp is not the max of the values it shifts}}
  %o = linalg.matmul ins(%p, %v : tensor<3x5xf32>, tensor<5x4xf32>) outs(%oi : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %o : tensor<3x4xf32>
}

// -----

// A row min under a finfo.min fill: a fully masked row is a uniform
// average here, 0 in the raised op.
// CHECK-LABEL: func.func @min_shift_finite_fill
// CHECK-NOT: attn.attention
#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mo = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @min_shift_finite_fill(%q: tensor<3x4xf32>, %k: tensor<5x4xf32>, %v: tensor<5x4xf32>, %c: tensor<3x5xi1>) -> tensor<3x4xf32> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %pinf = arith.constant 0x7F800000 : f32
  %e = tensor.empty() : tensor<3x5xf32>
  %er = tensor.empty() : tensor<3xf32>
  %zr = linalg.fill ins(%z : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %lo = linalg.fill ins(%ninf : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %hi = linalg.fill ins(%pinf : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %s = linalg.matmul indexing_maps = [#mq, #mk, #mo] ins(%q, %k : tensor<3x4xf32>, tensor<5x4xf32>) outs(%acc : tensor<3x5xf32>) -> tensor<3x5xf32>
  %sm = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %c : tensor<3x5xf32>, tensor<3x5xi1>) outs(%e : tensor<3x5xf32>) {
  ^bb0(%a0: f32, %a1: i1, %o: f32):
    %f = arith.constant -3.40282347E+38 : f32
    %y = arith.select %a1, %a0, %f : f32
    linalg.yield %y : f32
  } -> tensor<3x5xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%sm : tensor<3x5xf32>) outs(%hi : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.minimumf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%sm, %mx : tensor<3x5xf32>, tensor<3xf32>) outs(%e : tensor<3x5xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %d = arith.subf %a0, %a1 : f32
    %y = math.exp %d : f32
    linalg.yield %y : f32
  } -> tensor<3x5xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<3x5xf32>) outs(%zr : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%ex, %sum : tensor<3x5xf32>, tensor<3xf32>) outs(%e : tensor<3x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.divf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<3x5xf32>
  %eo = tensor.empty() : tensor<3x4xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<3x4xf32>) -> tensor<3x4xf32>
  // expected-remark @+1 {{the value subtracted before exp is not the max of the values it shifts}}
  %o = linalg.matmul ins(%p, %v : tensor<3x5xf32>, tensor<5x4xf32>) outs(%oi : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %o : tensor<3x4xf32>
}

// -----

// max(0, rowmax) is a row constant, but exp(s − 0) underflows to a 0/0
// row where every score is below −87 and the softmax is finite.
// CHECK-LABEL: func.func @max_from_zero
// CHECK-NOT: attn.attention
#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mo = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @max_from_zero(%q: tensor<3x4xf32>, %k: tensor<5x4xf32>, %v: tensor<5x4xf32>) -> tensor<3x4xf32> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %pinf = arith.constant 0x7F800000 : f32
  %e = tensor.empty() : tensor<3x5xf32>
  %er = tensor.empty() : tensor<3xf32>
  %zr = linalg.fill ins(%z : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %lo = linalg.fill ins(%ninf : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %hi = linalg.fill ins(%pinf : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %s = linalg.matmul indexing_maps = [#mq, #mk, #mo] ins(%q, %k : tensor<3x4xf32>, tensor<5x4xf32>) outs(%acc : tensor<3x5xf32>) -> tensor<3x5xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%s : tensor<3x5xf32>) outs(%zr : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.maximumf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %mx : tensor<3x5xf32>, tensor<3xf32>) outs(%e : tensor<3x5xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %d = arith.subf %a0, %a1 : f32
    %y = math.exp %d : f32
    linalg.yield %y : f32
  } -> tensor<3x5xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<3x5xf32>) outs(%zr : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%ex, %sum : tensor<3x5xf32>, tensor<3xf32>) outs(%e : tensor<3x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.divf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<3x5xf32>
  %eo = tensor.empty() : tensor<3x4xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<3x4xf32>) -> tensor<3x4xf32>
  // expected-remark @+1 {{the value subtracted before exp is not the max of the values it shifts}}
  %o = linalg.matmul ins(%p, %v : tensor<3x5xf32>, tensor<5x4xf32>) outs(%oi : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %o : tensor<3x4xf32>
}

// -----

// A max from NaN is NaN whatever it reads.
// CHECK-LABEL: func.func @max_from_nan
// CHECK-NOT: attn.attention
#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mo = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @max_from_nan(%q: tensor<3x4xf32>, %k: tensor<5x4xf32>, %v: tensor<5x4xf32>) -> tensor<3x4xf32> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %pinf = arith.constant 0x7F800000 : f32
  %e = tensor.empty() : tensor<3x5xf32>
  %er = tensor.empty() : tensor<3xf32>
  %zr = linalg.fill ins(%z : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %lo = linalg.fill ins(%ninf : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %hi = linalg.fill ins(%pinf : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %s = linalg.matmul indexing_maps = [#mq, #mk, #mo] ins(%q, %k : tensor<3x4xf32>, tensor<5x4xf32>) outs(%acc : tensor<3x5xf32>) -> tensor<3x5xf32>
  %nan = arith.constant 0x7FC00000 : f32
  %nn = linalg.fill ins(%nan : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%s : tensor<3x5xf32>) outs(%nn : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.maximumf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %mx : tensor<3x5xf32>, tensor<3xf32>) outs(%e : tensor<3x5xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %d = arith.subf %a0, %a1 : f32
    %y = math.exp %d : f32
    linalg.yield %y : f32
  } -> tensor<3x5xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<3x5xf32>) outs(%zr : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%ex, %sum : tensor<3x5xf32>, tensor<3xf32>) outs(%e : tensor<3x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.divf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<3x5xf32>
  %eo = tensor.empty() : tensor<3x4xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<3x4xf32>) -> tensor<3x4xf32>
  // expected-remark @+1 {{the value subtracted before exp is not the max of the values it shifts}}
  %o = linalg.matmul ins(%p, %v : tensor<3x5xf32>, tensor<5x4xf32>) outs(%oi : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %o : tensor<3x4xf32>
}

// -----

// exp(s − 1000) underflows; the softmax does not.
// CHECK-LABEL: func.func @constant_shift
// CHECK-NOT: attn.attention
#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mo = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @constant_shift(%q: tensor<3x4xf32>, %k: tensor<5x4xf32>, %v: tensor<5x4xf32>) -> tensor<3x4xf32> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %pinf = arith.constant 0x7F800000 : f32
  %e = tensor.empty() : tensor<3x5xf32>
  %er = tensor.empty() : tensor<3xf32>
  %zr = linalg.fill ins(%z : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %lo = linalg.fill ins(%ninf : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %hi = linalg.fill ins(%pinf : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %s = linalg.matmul indexing_maps = [#mq, #mk, #mo] ins(%q, %k : tensor<3x4xf32>, tensor<5x4xf32>) outs(%acc : tensor<3x5xf32>) -> tensor<3x5xf32>
  %ex = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<3x5xf32>) outs(%e : tensor<3x5xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %c = arith.constant 1000.0 : f32
    %d = arith.subf %a0, %c : f32
    %y = math.exp %d : f32
    linalg.yield %y : f32
  } -> tensor<3x5xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<3x5xf32>) outs(%zr : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%ex, %sum : tensor<3x5xf32>, tensor<3xf32>) outs(%e : tensor<3x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.divf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<3x5xf32>
  %eo = tensor.empty() : tensor<3x4xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<3x4xf32>) -> tensor<3x4xf32>
  // expected-remark @+1 {{the value subtracted before exp is not the max of the values it shifts}}
  %o = linalg.matmul ins(%p, %v : tensor<3x5xf32>, tensor<5x4xf32>) outs(%oi : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %o : tensor<3x4xf32>
}

// -----

// A per-row shift the caller passes may be anything.
// CHECK-LABEL: func.func @shift_from_argument
// CHECK-NOT: attn.attention
#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mo = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @shift_from_argument(%q: tensor<3x4xf32>, %k: tensor<5x4xf32>, %v: tensor<5x4xf32>, %c: tensor<3xf32>) -> tensor<3x4xf32> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %pinf = arith.constant 0x7F800000 : f32
  %e = tensor.empty() : tensor<3x5xf32>
  %er = tensor.empty() : tensor<3xf32>
  %zr = linalg.fill ins(%z : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %lo = linalg.fill ins(%ninf : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %hi = linalg.fill ins(%pinf : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %s = linalg.matmul indexing_maps = [#mq, #mk, #mo] ins(%q, %k : tensor<3x4xf32>, tensor<5x4xf32>) outs(%acc : tensor<3x5xf32>) -> tensor<3x5xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %c : tensor<3x5xf32>, tensor<3xf32>) outs(%e : tensor<3x5xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %d = arith.subf %a0, %a1 : f32
    %y = math.exp %d : f32
    linalg.yield %y : f32
  } -> tensor<3x5xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<3x5xf32>) outs(%zr : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%ex, %sum : tensor<3x5xf32>, tensor<3xf32>) outs(%e : tensor<3x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.divf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<3x5xf32>
  %eo = tensor.empty() : tensor<3x4xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<3x4xf32>) -> tensor<3x4xf32>
  // expected-remark @+1 {{the value subtracted before exp is not the max of the values it shifts}}
  %o = linalg.matmul ins(%p, %v : tensor<3x5xf32>, tensor<5x4xf32>) outs(%oi : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %o : tensor<3x4xf32>
}

// -----

// exp(0.01·s − max(s)): the max of other values than those it shifts.
// CHECK-LABEL: func.func @max_of_unscaled_scores
// CHECK-NOT: attn.attention
#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mo = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @max_of_unscaled_scores(%q: tensor<3x4xf32>, %k: tensor<5x4xf32>, %v: tensor<5x4xf32>) -> tensor<3x4xf32> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %pinf = arith.constant 0x7F800000 : f32
  %e = tensor.empty() : tensor<3x5xf32>
  %er = tensor.empty() : tensor<3xf32>
  %zr = linalg.fill ins(%z : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %lo = linalg.fill ins(%ninf : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %hi = linalg.fill ins(%pinf : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %s = linalg.matmul indexing_maps = [#mq, #mk, #mo] ins(%q, %k : tensor<3x4xf32>, tensor<5x4xf32>) outs(%acc : tensor<3x5xf32>) -> tensor<3x5xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%s : tensor<3x5xf32>) outs(%lo : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.maximumf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %mx : tensor<3x5xf32>, tensor<3xf32>) outs(%e : tensor<3x5xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %f = arith.constant 0.01 : f32
    %sk = arith.mulf %a0, %f : f32
    %d = arith.subf %sk, %a1 : f32
    %y = math.exp %d : f32
    linalg.yield %y : f32
  } -> tensor<3x5xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<3x5xf32>) outs(%zr : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%ex, %sum : tensor<3x5xf32>, tensor<3xf32>) outs(%e : tensor<3x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.divf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<3x5xf32>
  %eo = tensor.empty() : tensor<3x4xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<3x4xf32>) -> tensor<3x4xf32>
  // expected-remark @+1 {{the value subtracted before exp is not the max of the values it shifts}}
  %o = linalg.matmul ins(%p, %v : tensor<3x5xf32>, tensor<5x4xf32>) outs(%oi : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %o : tensor<3x4xf32>
}

// -----

// A per-row tensor from the caller added to the scores is a mask (a row
// of -inf is a fully masked row), not a shift.
// CHECK-LABEL: func.func @row_tensor_stays_mask
// CHECK: attn.attention {{.*}} mask(
#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mo = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @row_tensor_stays_mask(%q: tensor<3x4xf32>, %k: tensor<5x4xf32>, %v: tensor<5x4xf32>, %rb: tensor<3xf32>) -> tensor<3x4xf32> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %pinf = arith.constant 0x7F800000 : f32
  %e = tensor.empty() : tensor<3x5xf32>
  %er = tensor.empty() : tensor<3xf32>
  %zr = linalg.fill ins(%z : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %lo = linalg.fill ins(%ninf : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %hi = linalg.fill ins(%pinf : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %s = linalg.matmul indexing_maps = [#mq, #mk, #mo] ins(%q, %k : tensor<3x4xf32>, tensor<5x4xf32>) outs(%acc : tensor<3x5xf32>) -> tensor<3x5xf32>
  %sb = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %rb : tensor<3x5xf32>, tensor<3xf32>) outs(%e : tensor<3x5xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %y = arith.addf %a0, %a1 : f32
    linalg.yield %y : f32
  } -> tensor<3x5xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%sb : tensor<3x5xf32>) outs(%lo : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.maximumf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%sb, %mx : tensor<3x5xf32>, tensor<3xf32>) outs(%e : tensor<3x5xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %d = arith.subf %a0, %a1 : f32
    %y = math.exp %d : f32
    linalg.yield %y : f32
  } -> tensor<3x5xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<3x5xf32>) outs(%zr : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%ex, %sum : tensor<3x5xf32>, tensor<3xf32>) outs(%e : tensor<3x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.divf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<3x5xf32>
  %eo = tensor.empty() : tensor<3x4xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<3x4xf32>) -> tensor<3x4xf32>
  %o = linalg.matmul ins(%p, %v : tensor<3x5xf32>, tensor<5x4xf32>) outs(%oi : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %o : tensor<3x4xf32>
}


// A causal mask with a finite fill (finfo.min) whose diagonal starts
// below the first row: keep j <= i + Lk - Lq with Lq > Lk (bottom-right),
// here j < i with Lq = 3, Lk = 2. Row 0 keeps no key, so under the row
// max every logit of it is the fill and the program averages V uniformly;
// the causal op would give 0 there. Such masks go into the score_mod
// region as written (the fill spelled in the select's payload, as a
// constant i1 tensor, and as an additive constant tensor).
// Q = 1, K = 0 (every score 0), V = [1, 3]: rows give mean(V) = 2, V[0] = 1
// and mean(V) = 2.
// DEFINE: %{run} = mlir-runner -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils
// RUN: attn-opt %s --attn-detect | FileCheck %s --check-prefix=RAISED
// RUN: attn-opt %s --attn-cpu-pipeline > %t.fused.mlir
// RUN: attn-opt %s --attn-cpu-pipeline="detect=false" > %t.orig.mlir
// RUN: %{run} -e run_select_index_compare %t.fused.mlir | FileCheck %s
// RUN: %{run} -e run_select_index_compare %t.orig.mlir | FileCheck %s
// RUN: %{run} -e run_select_constant_mask %t.fused.mlir | FileCheck %s
// RUN: %{run} -e run_select_constant_mask %t.orig.mlir | FileCheck %s
// RUN: %{run} -e run_additive_constant_mask %t.fused.mlir | FileCheck %s
// RUN: %{run} -e run_additive_constant_mask %t.orig.mlir | FileCheck %s
// RAISED-LABEL: func.func @select_index_compare
// RAISED: attn.attention {{.*}} score_mod {
// RAISED-NOT: causal(
// RAISED-LABEL: func.func @select_constant_mask
// RAISED: attn.attention {{.*}} score_mod {
// RAISED-NOT: causal(
// RAISED-LABEL: func.func @additive_constant_mask
// RAISED: attn.attention {{.*}} score_mod {
// RAISED-NOT: causal(
// CHECK: {{\[\[}}2],
// CHECK-NEXT: [1],
// CHECK-NEXT: [2]]

#id = affine_map<(i, j) -> (i, j)>
#cp = affine_map<(i, j) -> (i, j)>
#mqk = affine_map<(m, n, k) -> (m, k)>
#mkk = affine_map<(m, n, k) -> (n, k)>
#mmn = affine_map<(m, n, k) -> (m, n)>

// Keep j < i, from the loop indices in the select's own payload
func.func @select_index_compare(%q: tensor<3x1xf32>, %k: tensor<2x1xf32>, %v: tensor<2x1xf32>) -> tensor<3x1xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x2xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  %s = linalg.matmul indexing_maps = [#mqk, #mkk, #mmn] ins(%q, %k : tensor<3x1xf32>, tensor<2x1xf32>) outs(%acc : tensor<3x2xf32>) -> tensor<3x2xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
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
  %eo = tensor.empty() : tensor<3x1xf32>
  %oacc = linalg.fill ins(%z : f32) outs(%eo : tensor<3x1xf32>) -> tensor<3x1xf32>
  %o = linalg.matmul ins(%p, %v : tensor<3x2xf32>, tensor<2x1xf32>) outs(%oacc : tensor<3x1xf32>) -> tensor<3x1xf32>
  return %o : tensor<3x1xf32>
}

// Keep j < i, as a constant i1 tensor
func.func @select_constant_mask(%q: tensor<3x1xf32>, %k: tensor<2x1xf32>, %v: tensor<2x1xf32>) -> tensor<3x1xf32> {
  %z = arith.constant 0.0 : f32
  %keep = arith.constant dense<[[false, false], [true, false], [true, true]]> : tensor<3x2xi1>
  %e = tensor.empty() : tensor<3x2xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  %s = linalg.matmul indexing_maps = [#mqk, #mkk, #mmn] ins(%q, %k : tensor<3x1xf32>, tensor<2x1xf32>) outs(%acc : tensor<3x2xf32>) -> tensor<3x2xf32>
  %x = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s, %keep : tensor<3x2xf32>, tensor<3x2xi1>) outs(%e : tensor<3x2xf32>) {
  ^bb0(%a: f32, %c: i1, %o: f32):
    %fill = arith.constant -3.40282347E+38 : f32
    %y = arith.select %c, %a, %fill : f32
    linalg.yield %y : f32
  } -> tensor<3x2xf32>
  %p = linalg.softmax dimension(1) ins(%x : tensor<3x2xf32>) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  %eo = tensor.empty() : tensor<3x1xf32>
  %oacc = linalg.fill ins(%z : f32) outs(%eo : tensor<3x1xf32>) -> tensor<3x1xf32>
  %o = linalg.matmul ins(%p, %v : tensor<3x2xf32>, tensor<2x1xf32>) outs(%oacc : tensor<3x1xf32>) -> tensor<3x1xf32>
  return %o : tensor<3x1xf32>
}

// Keep j < i, as a constant additive mask of 0 and finfo.min
func.func @additive_constant_mask(%q: tensor<3x1xf32>, %k: tensor<2x1xf32>, %v: tensor<2x1xf32>) -> tensor<3x1xf32> {
  %z = arith.constant 0.0 : f32
  %mask = arith.constant dense<[[-3.40282347E+38, -3.40282347E+38], [0.0, -3.40282347E+38], [0.0, 0.0]]> : tensor<3x2xf32>
  %e = tensor.empty() : tensor<3x2xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  %s = linalg.matmul indexing_maps = [#mqk, #mkk, #mmn] ins(%q, %k : tensor<3x1xf32>, tensor<2x1xf32>) outs(%acc : tensor<3x2xf32>) -> tensor<3x2xf32>
  %x = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s, %mask : tensor<3x2xf32>, tensor<3x2xf32>) outs(%e : tensor<3x2xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %y = arith.addf %a, %m : f32
    linalg.yield %y : f32
  } -> tensor<3x2xf32>
  %p = linalg.softmax dimension(1) ins(%x : tensor<3x2xf32>) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  %eo = tensor.empty() : tensor<3x1xf32>
  %oacc = linalg.fill ins(%z : f32) outs(%eo : tensor<3x1xf32>) -> tensor<3x1xf32>
  %o = linalg.matmul ins(%p, %v : tensor<3x2xf32>, tensor<2x1xf32>) outs(%oacc : tensor<3x1xf32>) -> tensor<3x1xf32>
  return %o : tensor<3x1xf32>
}

func.func @run_select_index_compare() {
  %q = arith.constant dense<1.0> : tensor<3x1xf32>
  %k = arith.constant dense<0.0> : tensor<2x1xf32>
  %v = arith.constant dense<[[1.0], [3.0]]> : tensor<2x1xf32>
  %r = call @select_index_compare(%q, %k, %v) : (tensor<3x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>) -> tensor<3x1xf32>
  %b = bufferization.to_buffer %r : tensor<3x1xf32> to memref<3x1xf32>
  %u = memref.cast %b : memref<3x1xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @run_select_constant_mask() {
  %q = arith.constant dense<1.0> : tensor<3x1xf32>
  %k = arith.constant dense<0.0> : tensor<2x1xf32>
  %v = arith.constant dense<[[1.0], [3.0]]> : tensor<2x1xf32>
  %r = call @select_constant_mask(%q, %k, %v) : (tensor<3x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>) -> tensor<3x1xf32>
  %b = bufferization.to_buffer %r : tensor<3x1xf32> to memref<3x1xf32>
  %u = memref.cast %b : memref<3x1xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @run_additive_constant_mask() {
  %q = arith.constant dense<1.0> : tensor<3x1xf32>
  %k = arith.constant dense<0.0> : tensor<2x1xf32>
  %v = arith.constant dense<[[1.0], [3.0]]> : tensor<2x1xf32>
  %r = call @additive_constant_mask(%q, %k, %v) : (tensor<3x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>) -> tensor<3x1xf32>
  %b = bufferization.to_buffer %r : tensor<3x1xf32> to memref<3x1xf32>
  %u = memref.cast %b : memref<3x1xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>)

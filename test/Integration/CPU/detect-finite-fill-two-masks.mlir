// Two masks under a row-max softmax, one of them with a finite fill
// (finfo.min), that together drop every key of a row. The program then
// averages that row's keys over their fills (or over the keys that only
// one mask drops, where two fills overflow to -inf); raised as causal plus
// a mask, the op gave the survivors of its -inf diagonal (V[0]) or 0.
// Found by an adversarial helper; GPT-2's eager attention with a
// left-padded prompt is one such program. attn-detect now keeps the
// finite-fill masks in the score_mod region whenever anything else (a
// mask tensor, a score_mod, a diagonal below row 0) could drop the keys
// they keep, and the outputs agree. Q = 1, K = 0 (every score 0),
// V = [1, 3, 5] along the keys.
// DEFINE: %{run} = mlir-runner -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils
// RUN: attn-opt %s --attn-detect | FileCheck %s --check-prefix=RAISED
// RUN: attn-opt %s --attn-cpu-pipeline > %t.fused.mlir
// RUN: attn-opt %s --attn-cpu-pipeline="detect=false" > %t.orig.mlir
// RUN: %{run} -e run_select_causal_add_pad %t.fused.mlir | FileCheck %s --check-prefix=SELECT-CAUSAL-ADD-PAD
// RUN: %{run} -e run_select_causal_add_pad %t.orig.mlir | FileCheck %s --check-prefix=SELECT-CAUSAL-ADD-PAD
// RUN: %{run} -e run_two_additive %t.fused.mlir | FileCheck %s --check-prefix=TWO-ADDITIVE
// RUN: %{run} -e run_two_additive %t.orig.mlir | FileCheck %s --check-prefix=TWO-ADDITIVE
// RUN: %{run} -e run_causal_fill_inf_keep %t.fused.mlir | FileCheck %s --check-prefix=CAUSAL-FILL-INF-KEEP
// RUN: %{run} -e run_causal_fill_inf_keep %t.orig.mlir | FileCheck %s --check-prefix=CAUSAL-FILL-INF-KEEP
// RUN: %{run} -e run_tosa_gpt2_pad %t.fused.mlir | FileCheck %s --check-prefix=TOSA-GPT2-PAD
// RUN: %{run} -e run_tosa_gpt2_pad %t.orig.mlir | FileCheck %s --check-prefix=TOSA-GPT2-PAD
// RAISED-LABEL: func.func @select_causal_add_pad(
// RAISED: attn.attention {{.*}} score_mod {
// RAISED-NOT: causal(
// RAISED: return
// RAISED-LABEL: func.func @two_additive(
// RAISED: attn.attention {{.*}} score_mod {
// RAISED-NOT: causal(
// RAISED: return
// RAISED-LABEL: func.func @causal_fill_inf_keep(
// RAISED: attn.attention {{.*}} score_mod {
// RAISED-NOT: causal(
// RAISED: return
// RAISED-LABEL: func.func @tosa_gpt2_pad(
// RAISED: attn.attention {{.*}} score_mod {
// RAISED-NOT: causal(
// RAISED: return
// SELECT-CAUSAL-ADD-PAD: {{\[\[}}3],
// SELECT-CAUSAL-ADD-PAD-NEXT: [3],
// SELECT-CAUSAL-ADD-PAD-NEXT: [4]]
// TWO-ADDITIVE: {{\[\[}}3],
// TWO-ADDITIVE-NEXT: [3],
// TWO-ADDITIVE-NEXT: [4]]
// CAUSAL-FILL-INF-KEEP: {{\[\[}}4],
// CAUSAL-FILL-INF-KEEP-NEXT: [3],
// CAUSAL-FILL-INF-KEEP-NEXT: [4]]
// TOSA-GPT2-PAD: {{\[\[\[}}3],
// TOSA-GPT2-PAD-NEXT: [3],
// TOSA-GPT2-PAD-NEXT: [4]]]

#id = affine_map<(i, j) -> (i, j)>
#mqk = affine_map<(m, n, k) -> (m, k)>
#mkk = affine_map<(m, n, k) -> (n, k)>
#mmn = affine_map<(m, n, k) -> (m, n)>
#row = affine_map<(i, j) -> (i)>

// A finfo.min causal select over an additive padding mask that drops key 0.
func.func @select_causal_add_pad(%q: tensor<3x1xf32>, %k: tensor<3x1xf32>, %v: tensor<3x1xf32>, %pad: tensor<3x3xf32>) -> tensor<3x1xf32> {
  %z = arith.constant 0.0 : f32
  %causal = arith.constant dense<[[0.0, -3.40282347E+38, -3.40282347E+38], [0.0, 0.0, -3.40282347E+38], [0.0, 0.0, 0.0]]> : tensor<3x3xf32>
  %e = tensor.empty() : tensor<3x3xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<3x3xf32>) -> tensor<3x3xf32>
  %s = linalg.matmul indexing_maps = [#mqk, #mkk, #mmn] ins(%q, %k : tensor<3x1xf32>, tensor<3x1xf32>) outs(%acc : tensor<3x3xf32>) -> tensor<3x3xf32>
  %x0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s, %pad : tensor<3x3xf32>, tensor<3x3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %y = arith.addf %a, %m : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x0 : tensor<3x3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c = arith.cmpi ule, %j, %i : index
    %fl = arith.constant -3.40282347E+38 : f32
    %y = arith.select %c, %a, %fl : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %p = linalg.softmax dimension(1) ins(%x : tensor<3x3xf32>) outs(%e : tensor<3x3xf32>) -> tensor<3x3xf32>
  %eo = tensor.empty() : tensor<3x1xf32>
  %oacc = linalg.fill ins(%z : f32) outs(%eo : tensor<3x1xf32>) -> tensor<3x1xf32>
  %o = linalg.matmul ins(%p, %v : tensor<3x3xf32>, tensor<3x1xf32>) outs(%oacc : tensor<3x1xf32>) -> tensor<3x1xf32>
  return %o : tensor<3x1xf32>
}
func.func @run_select_causal_add_pad() {
  %q = arith.constant dense<1.0> : tensor<3x1xf32>
  %k = arith.constant dense<0.0> : tensor<3x1xf32>
  %v = arith.constant dense<[[1.0], [3.0], [5.0]]> : tensor<3x1xf32>
  %pad = arith.constant dense<[[-3.40282347E+38, 0.0, 0.0], [-3.40282347E+38, 0.0, 0.0], [-3.40282347E+38, 0.0, 0.0]]> : tensor<3x3xf32>
  %r = call @select_causal_add_pad(%q, %k, %v, %pad) : (tensor<3x1xf32>, tensor<3x1xf32>, tensor<3x1xf32>, tensor<3x3xf32>) -> tensor<3x1xf32>
  %b = bufferization.to_buffer %r : tensor<3x1xf32> to memref<3x1xf32>
  %u = memref.cast %b : memref<3x1xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

// An additive padding mask, then an additive finfo.min causal constant.
func.func @two_additive(%q: tensor<3x1xf32>, %k: tensor<3x1xf32>, %v: tensor<3x1xf32>, %pad: tensor<3x3xf32>) -> tensor<3x1xf32> {
  %z = arith.constant 0.0 : f32
  %causal = arith.constant dense<[[0.0, -3.40282347E+38, -3.40282347E+38], [0.0, 0.0, -3.40282347E+38], [0.0, 0.0, 0.0]]> : tensor<3x3xf32>
  %e = tensor.empty() : tensor<3x3xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<3x3xf32>) -> tensor<3x3xf32>
  %s = linalg.matmul indexing_maps = [#mqk, #mkk, #mmn] ins(%q, %k : tensor<3x1xf32>, tensor<3x1xf32>) outs(%acc : tensor<3x3xf32>) -> tensor<3x3xf32>
  %x0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s, %pad : tensor<3x3xf32>, tensor<3x3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %y = arith.addf %a, %m : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %x = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x0, %causal : tensor<3x3xf32>, tensor<3x3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %y = arith.addf %a, %m : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %p = linalg.softmax dimension(1) ins(%x : tensor<3x3xf32>) outs(%e : tensor<3x3xf32>) -> tensor<3x3xf32>
  %eo = tensor.empty() : tensor<3x1xf32>
  %oacc = linalg.fill ins(%z : f32) outs(%eo : tensor<3x1xf32>) -> tensor<3x1xf32>
  %o = linalg.matmul ins(%p, %v : tensor<3x3xf32>, tensor<3x1xf32>) outs(%oacc : tensor<3x1xf32>) -> tensor<3x1xf32>
  return %o : tensor<3x1xf32>
}
func.func @run_two_additive() {
  %q = arith.constant dense<1.0> : tensor<3x1xf32>
  %k = arith.constant dense<0.0> : tensor<3x1xf32>
  %v = arith.constant dense<[[1.0], [3.0], [5.0]]> : tensor<3x1xf32>
  %pad = arith.constant dense<[[-3.40282347E+38, 0.0, 0.0], [-3.40282347E+38, 0.0, 0.0], [-3.40282347E+38, 0.0, 0.0]]> : tensor<3x3xf32>
  %r = call @two_additive(%q, %k, %v, %pad) : (tensor<3x1xf32>, tensor<3x1xf32>, tensor<3x1xf32>, tensor<3x3xf32>) -> tensor<3x1xf32>
  %b = bufferization.to_buffer %r : tensor<3x1xf32> to memref<3x1xf32>
  %u = memref.cast %b : memref<3x1xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

// A finfo.min causal select beside a -inf keep-mask tensor.
func.func @causal_fill_inf_keep(%q: tensor<3x1xf32>, %k: tensor<3x1xf32>, %v: tensor<3x1xf32>, %keep: tensor<3x3xi1>) -> tensor<3x1xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x3xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<3x3xf32>) -> tensor<3x3xf32>
  %s = linalg.matmul indexing_maps = [#mqk, #mkk, #mmn] ins(%q, %k : tensor<3x1xf32>, tensor<3x1xf32>) outs(%acc : tensor<3x3xf32>) -> tensor<3x3xf32>
  %x0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<3x3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c = arith.cmpi ule, %j, %i : index
    %fl = arith.constant -3.40282347E+38 : f32
    %y = arith.select %c, %a, %fl : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %x = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x0, %keep : tensor<3x3xf32>, tensor<3x3xi1>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%a: f32, %m: i1, %o: f32):
    %ni = arith.constant 0xFF800000 : f32
    %y = arith.select %m, %a, %ni : f32
    linalg.yield %y : f32
  } -> tensor<3x3xf32>
  %p = linalg.softmax dimension(1) ins(%x : tensor<3x3xf32>) outs(%e : tensor<3x3xf32>) -> tensor<3x3xf32>
  %eo = tensor.empty() : tensor<3x1xf32>
  %oacc = linalg.fill ins(%z : f32) outs(%eo : tensor<3x1xf32>) -> tensor<3x1xf32>
  %o = linalg.matmul ins(%p, %v : tensor<3x3xf32>, tensor<3x1xf32>) outs(%oacc : tensor<3x1xf32>) -> tensor<3x1xf32>
  return %o : tensor<3x1xf32>
}
func.func @run_causal_fill_inf_keep() {
  %q = arith.constant dense<1.0> : tensor<3x1xf32>
  %k = arith.constant dense<0.0> : tensor<3x1xf32>
  %v = arith.constant dense<[[1.0],[3.0],[5.0]]> : tensor<3x1xf32>
  %keep = arith.constant dense<[[false,true,true],[false,true,true],[false,true,true]]> : tensor<3x3xi1>
  %r = call @causal_fill_inf_keep(%q, %k, %v, %keep) : (tensor<3x1xf32>, tensor<3x1xf32>, tensor<3x1xf32>, tensor<3x3xi1>) -> tensor<3x1xf32>
  %b = bufferization.to_buffer %r : tensor<3x1xf32> to memref<3x1xf32>
  %u = memref.cast %b : memref<3x1xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

// GPT-2 eager attention in TOSA (tril == 0 selects finfo.min) plus a padding mask.
func.func @tosa_gpt2_pad(%q: tensor<1x3x1xf32>, %k: tensor<1x3x1xf32>, %v: tensor<1x3x1xf32>, %pad: tensor<1x1x3xf32>) -> tensor<1x3x1xf32> {
  %tril = "tosa.const"() <{values = dense<[[[1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [1.0, 1.0, 1.0]]]> : tensor<1x3x3xf32>}> : () -> tensor<1x3x3xf32>
  %zero = "tosa.const"() <{values = dense<0.0> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %fill = "tosa.const"() <{values = dense<-3.40282347E+38> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<1x3x1xf32>) -> tensor<1x1x3xf32>
  %s = tosa.matmul %q, %kt, %zp, %zp : (tensor<1x3x1xf32>, tensor<1x1x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3xf32>
  %c = tosa.equal %zero, %tril : (tensor<1x1x1xf32>, tensor<1x3x3xf32>) -> tensor<1x3x3xi1>
  %sel = tosa.select %c, %fill, %s : (tensor<1x3x3xi1>, tensor<1x1x1xf32>, tensor<1x3x3xf32>) -> tensor<1x3x3xf32>
  %sm = tosa.add %sel, %pad : (tensor<1x3x3xf32>, tensor<1x1x3xf32>) -> tensor<1x3x3xf32>
  %mx = tosa.reduce_max %sm {axis = 2 : i32} : (tensor<1x3x3xf32>) -> tensor<1x3x1xf32>
  %d = tosa.sub %sm, %mx : (tensor<1x3x3xf32>, tensor<1x3x1xf32>) -> tensor<1x3x3xf32>
  %e = tosa.exp %d : (tensor<1x3x3xf32>) -> tensor<1x3x3xf32>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<1x3x3xf32>) -> tensor<1x3x1xf32>
  %r = tosa.reciprocal %sum : (tensor<1x3x1xf32>) -> tensor<1x3x1xf32>
  %p = tosa.mul %e, %r, %sh : (tensor<1x3x3xf32>, tensor<1x3x1xf32>, tensor<1xi8>) -> tensor<1x3x3xf32>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<1x3x3xf32>, tensor<1x3x1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x1xf32>
  return %o : tensor<1x3x1xf32>
}
func.func @run_tosa_gpt2_pad() {
  %q = arith.constant dense<1.0> : tensor<1x3x1xf32>
  %k = arith.constant dense<0.0> : tensor<1x3x1xf32>
  %v = arith.constant dense<[[[1.0], [3.0], [5.0]]]> : tensor<1x3x1xf32>
  %pad = arith.constant dense<[[[-3.40282347E+38, 0.0, 0.0]]]> : tensor<1x1x3xf32>
  %r = call @tosa_gpt2_pad(%q, %k, %v, %pad) : (tensor<1x3x1xf32>, tensor<1x3x1xf32>, tensor<1x3x1xf32>, tensor<1x1x3xf32>) -> tensor<1x3x1xf32>
  %b = bufferization.to_buffer %r : tensor<1x3x1xf32> to memref<1x3x1xf32>
  %u = memref.cast %b : memref<1x3x1xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>)

// attn.attention with dynamic extents: what the verifier checks for static
// shapes is checked at run time by cf.assert, in the fused lowering
// (dynamic-shape-checks-naive.mlir: the naive one). Before, Hq = 2 with Hkv = 4 computed Hq / Hkv = 0 and divided
// by it (SIGFPE), and Hq = 3 with Hkv = 2, or V shorter than K, read out of
// bounds.
// cf.assert prints with puts() and then aborts: line-buffer stdout so that
// the message is not lost in the pipe.
// DEFINE: %{run} = stdbuf -oL mlir-runner -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils
// RUN: attn-opt %s --attn-cpu-pipeline="detect=false" > %t.fused.mlir
// RUN: %{run} -e ok %t.fused.mlir | FileCheck %s --check-prefix=OK
// RUN: not --crash %{run} -e heads_2_over_4 %t.fused.mlir 2>&1 | FileCheck %s --check-prefix=DIVIDES
// RUN: not --crash %{run} -e heads_3_over_2 %t.fused.mlir 2>&1 | FileCheck %s --check-prefix=DIVIDES
// RUN: not --crash %{run} -e short_value %t.fused.mlir 2>&1 | FileCheck %s --check-prefix=LENGTH
// RUN: not --crash %{run} -e head_dim %t.fused.mlir 2>&1 | FileCheck %s --check-prefix=HEADDIM
// RUN: not --crash %{run} -e empty_keys %t.fused.mlir 2>&1 | FileCheck %s --check-prefix=EMPTY
// OK: [1,   1,   1,   1]
// DIVIDES: attn.attention: query heads must be a multiple of key/value heads
// LENGTH: attn.attention: value sequence length differs from key length
// HEADDIM: attn.attention: key head dim differs from query head dim
// EMPTY: attn.attention: key has an empty dim 2

func.func private @printMemrefF32(memref<*xf32>)

func.func @attention(%q: tensor<1x?x?x?xf32>, %k: tensor<1x?x?x?xf32>, %v: tensor<1x?x?x4xf32>) -> tensor<1x?x?x4xf32> {
  %o = attn.attention %q, %k, %v scale(0.5) : tensor<1x?x?x?xf32>, tensor<1x?x?x?xf32>, tensor<1x?x?x4xf32> -> tensor<1x?x?x4xf32>
  return %o : tensor<1x?x?x4xf32>
}


func.func @print(%o: tensor<1x?x?x4xf32>) {
  %m = bufferization.to_buffer %o : tensor<1x?x?x4xf32> to memref<1x?x?x4xf32>
  %u = memref.cast %m : memref<1x?x?x4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

// Runs @attention on Q [1, hq, 3, dq], K [1, hkv, lk, dq], V [1, hkv, lv, 4]
// of ones.
func.func @run(%hq: index, %hkv: index, %dq: index, %lk: index, %lv: index) {
  %one = arith.constant 1.0 : f32
  %c3 = arith.constant 3 : index
  %eq = tensor.empty(%hq, %c3, %dq) : tensor<1x?x?x?xf32>
  %q = linalg.fill ins(%one : f32) outs(%eq : tensor<1x?x?x?xf32>) -> tensor<1x?x?x?xf32>
  %ek = tensor.empty(%hkv, %lk, %dq) : tensor<1x?x?x?xf32>
  %k = linalg.fill ins(%one : f32) outs(%ek : tensor<1x?x?x?xf32>) -> tensor<1x?x?x?xf32>
  %ev = tensor.empty(%hkv, %lv) : tensor<1x?x?x4xf32>
  %v = linalg.fill ins(%one : f32) outs(%ev : tensor<1x?x?x4xf32>) -> tensor<1x?x?x4xf32>
  %o = call @attention(%q, %k, %v) : (tensor<1x?x?x?xf32>, tensor<1x?x?x?xf32>, tensor<1x?x?x4xf32>) -> tensor<1x?x?x4xf32>
  call @print(%o) : (tensor<1x?x?x4xf32>) -> ()
  return
}


func.func @ok() {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  call @run(%c4, %c2, %c4, %c5, %c5) : (index, index, index, index, index) -> ()
  return
}
func.func @heads_2_over_4() {
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  call @run(%c2, %c4, %c4, %c5, %c5) : (index, index, index, index, index) -> ()
  return
}
func.func @heads_3_over_2() {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  call @run(%c3, %c2, %c4, %c5, %c5) : (index, index, index, index, index) -> ()
  return
}
func.func @short_value() {
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  call @run(%c2, %c2, %c4, %c5, %c4) : (index, index, index, index, index) -> ()
  return
}
// Q's head dim is 4, K's 5.
func.func @head_dim() {
  %c5 = arith.constant 5 : index
  call @run_head_dim(%c5) : (index) -> ()
  return
}
func.func @run_head_dim(%dk: index) {
  %one = arith.constant 1.0 : f32
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %eq = tensor.empty(%c2, %c3, %c4) : tensor<1x?x?x?xf32>
  %q = linalg.fill ins(%one : f32) outs(%eq : tensor<1x?x?x?xf32>) -> tensor<1x?x?x?xf32>
  %ek = tensor.empty(%c2, %c3, %dk) : tensor<1x?x?x?xf32>
  %k = linalg.fill ins(%one : f32) outs(%ek : tensor<1x?x?x?xf32>) -> tensor<1x?x?x?xf32>
  %ev = tensor.empty(%c2, %c3) : tensor<1x?x?x4xf32>
  %v = linalg.fill ins(%one : f32) outs(%ev : tensor<1x?x?x4xf32>) -> tensor<1x?x?x4xf32>
  %o = call @attention(%q, %k, %v) : (tensor<1x?x?x?xf32>, tensor<1x?x?x?xf32>, tensor<1x?x?x4xf32>) -> tensor<1x?x?x4xf32>
  call @print(%o) : (tensor<1x?x?x4xf32>) -> ()
  return
}
func.func @empty_keys() {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  call @run(%c2, %c2, %c4, %c0, %c0) : (index, index, index, index, index) -> ()
  return
}

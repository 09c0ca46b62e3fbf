// The naive lowering of attn.attention (fuse=false) checks dynamic extents
// at run time as the fused one does (dynamic-shape-checks.mlir); it needs
// static head counts, so only the sequence lengths are dynamic here.
// cf.assert prints with puts() and then aborts: line-buffer stdout so that
// the message is not lost in the pipe.
// DEFINE: %{run} = stdbuf -oL mlir-runner -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils
// RUN: attn-opt %s --attn-cpu-pipeline="detect=false fuse=false" > %t.naive.mlir
// RUN: %{run} -e ok_static_heads %t.naive.mlir | FileCheck %s --check-prefix=OK
// RUN: not --crash %{run} -e short_value_static_heads %t.naive.mlir 2>&1 | FileCheck %s --check-prefix=LENGTH
// OK: [1,   1,   1,   1]
// LENGTH: attn.attention: value sequence length differs from key length

func.func private @printMemrefF32(memref<*xf32>)

func.func @print(%o: tensor<1x?x?x4xf32>) {
  %m = bufferization.to_buffer %o : tensor<1x?x?x4xf32> to memref<1x?x?x4xf32>
  %u = memref.cast %m : memref<1x?x?x4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @attention_static_heads(%q: tensor<1x2x?x4xf32>, %k: tensor<1x2x?x4xf32>, %v: tensor<1x2x?x4xf32>) -> tensor<1x2x?x4xf32> {
  %o = attn.attention %q, %k, %v scale(0.5) : tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32> -> tensor<1x2x?x4xf32>
  return %o : tensor<1x2x?x4xf32>
}

func.func @run_static_heads(%lk: index, %lv: index) {
  %one = arith.constant 1.0 : f32
  %c3 = arith.constant 3 : index
  %eq = tensor.empty(%c3) : tensor<1x2x?x4xf32>
  %q = linalg.fill ins(%one : f32) outs(%eq : tensor<1x2x?x4xf32>) -> tensor<1x2x?x4xf32>
  %ek = tensor.empty(%lk) : tensor<1x2x?x4xf32>
  %k = linalg.fill ins(%one : f32) outs(%ek : tensor<1x2x?x4xf32>) -> tensor<1x2x?x4xf32>
  %ev = tensor.empty(%lv) : tensor<1x2x?x4xf32>
  %v = linalg.fill ins(%one : f32) outs(%ev : tensor<1x2x?x4xf32>) -> tensor<1x2x?x4xf32>
  %o = call @attention_static_heads(%q, %k, %v) : (tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>) -> tensor<1x2x?x4xf32>
  %d = tensor.cast %o : tensor<1x2x?x4xf32> to tensor<1x?x?x4xf32>
  call @print(%d) : (tensor<1x?x?x4xf32>) -> ()
  return
}

func.func @ok_static_heads() {
  %c5 = arith.constant 5 : index
  call @run_static_heads(%c5, %c5) : (index, index) -> ()
  return
}

func.func @short_value_static_heads() {
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  call @run_static_heads(%c5, %c4) : (index, index) -> ()
  return
}

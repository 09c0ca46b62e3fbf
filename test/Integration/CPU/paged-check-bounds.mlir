// check-bounds asserts the caller's contract of attn.paged_attention at run
// time: a block-table entry that names no page of the pool (5 of 4 pages)
// stops the program with the assertion's message, where without the option
// it would read out of bounds. In range, the same program runs and prints.
// cf.assert prints with puts() and then aborts: line-buffer stdout so that
// the message is not lost in the pipe.
// DEFINE: %{run} = stdbuf -oL mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils
// RUN: sed 's/\[\[2, 3\]\]/[[2, 5]]/' %s | attn-opt --attn-gather-paged-kv=check-bounds=true --attn-cpu-pipeline | not --crash %{run} 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: attn-opt %s --attn-gather-paged-kv=check-bounds=true --attn-cpu-pipeline | %{run} | FileCheck %s --check-prefix=GOOD
// BAD: attn.paged_attention: a block-table entry is not a page of the pool
// GOOD: [2,   2]

func.func private @printMemrefF32(memref<*xf32>)

func.func @paged(%q: tensor<1x1x1x2xf32>, %k: tensor<4x2x1x2xf32>, %v: tensor<4x2x1x2xf32>, %t: tensor<1x2xi32>, %l: tensor<1xi32>) -> tensor<1x1x1x2xf32> {
  %o = attn.paged_attention %q, %k, %v pages(%t, %l) scale(1.0) : tensor<1x1x1x2xf32>, tensor<4x2x1x2xf32>, tensor<4x2x1x2xf32>, tensor<1x2xi32>, tensor<1xi32> -> tensor<1x1x1x2xf32>
  return %o : tensor<1x1x1x2xf32>
}

func.func @main() {
  // Q = K = 0: uniform weights; the 3 keys' values are 1, 2, 3 (pages 2, 3).
  %q = arith.constant dense<0.0> : tensor<1x1x1x2xf32>
  %k = arith.constant dense<0.0> : tensor<4x2x1x2xf32>
  %v = arith.constant dense<[[[[9.0, 9.0]], [[9.0, 9.0]]], [[[9.0, 9.0]], [[9.0, 9.0]]], [[[1.0, 1.0]], [[2.0, 2.0]]], [[[3.0, 3.0]], [[9.0, 9.0]]]]> : tensor<4x2x1x2xf32>
  %t = arith.constant dense<[[2, 3]]> : tensor<1x2xi32>
  %l = arith.constant dense<3> : tensor<1xi32>
  %o = call @paged(%q, %k, %v, %t, %l) : (tensor<1x1x1x2xf32>, tensor<4x2x1x2xf32>, tensor<4x2x1x2xf32>, tensor<1x2xi32>, tensor<1xi32>) -> tensor<1x1x1x2xf32>
  %m = bufferization.to_buffer %o : tensor<1x1x1x2xf32> to memref<1x1x1x2xf32>
  %u = memref.cast %m : memref<1x1x1x2xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

// check-bounds asserts the caller's contract of attn.varlen_attention at
// run time: cumulative key lengths past the 4 key rows (0, 2, 5), or a
// decreasing pair (0, 3, 2), stop the program with the assertion's message,
// where without the option they would read out of bounds. In range, the
// same program runs and prints.
// cf.assert prints with puts() and then aborts: line-buffer stdout so that
// the message is not lost in the pipe.
// DEFINE: %{run} = stdbuf -oL mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils
// RUN: sed 's/\[0, 2, 4\]/[0, 2, 5]/' %s | attn-opt --attn-unpack-varlen=check-bounds=true --attn-cpu-pipeline | not --crash %{run} 2>&1 | FileCheck %s --check-prefix=PAST
// RUN: sed 's/\[0, 2, 4\]/[0, 3, 2]/' %s | attn-opt --attn-unpack-varlen=check-bounds=true --attn-cpu-pipeline | not --crash %{run} 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: attn-opt %s --attn-unpack-varlen=check-bounds=true --attn-cpu-pipeline | %{run} | FileCheck %s --check-prefix=GOOD
// PAST: attn.varlen_attention: cu_seqlens_k leaves [0, tokens]
// ORDER: attn.varlen_attention: cu_seqlens_k decreases
// Q = K = 0: uniform weights. Sequence 0 (one query) averages values 1 and
// 3; sequence 1 (two queries) averages 5 and 7.
// GOOD: [2,   2]
// GOOD: [6,   6]
// GOOD: [6,   6]

func.func private @printMemrefF32(memref<*xf32>)

func.func @varlen(%q: tensor<3x1x2xf32>, %k: tensor<4x1x2xf32>, %v: tensor<4x1x2xf32>, %cq: tensor<3xi32>, %ck: tensor<3xi32>) -> tensor<3x1x2xf32> {
  %o = attn.varlen_attention %q, %k, %v seqlens(%cq, %ck) scale(1.0) : tensor<3x1x2xf32>, tensor<4x1x2xf32>, tensor<4x1x2xf32>, tensor<3xi32>, tensor<3xi32> -> tensor<3x1x2xf32>
  return %o : tensor<3x1x2xf32>
}

func.func @main() {
  %q = arith.constant dense<0.0> : tensor<3x1x2xf32>
  %k = arith.constant dense<0.0> : tensor<4x1x2xf32>
  %v = arith.constant dense<[[[1.0, 1.0]], [[3.0, 3.0]], [[5.0, 5.0]], [[7.0, 7.0]]]> : tensor<4x1x2xf32>
  %cq = arith.constant dense<[0, 1, 3]> : tensor<3xi32>
  %ck = arith.constant dense<[0, 2, 4]> : tensor<3xi32>
  %o = call @varlen(%q, %k, %v, %cq, %ck) : (tensor<3x1x2xf32>, tensor<4x1x2xf32>, tensor<4x1x2xf32>, tensor<3xi32>, tensor<3xi32>) -> tensor<3x1x2xf32>
  %m = bufferization.to_buffer %o : tensor<3x1x2xf32> to memref<3x1x2xf32>
  %u = memref.cast %m : memref<3x1x2xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

// A NaN in V at a key that the causal mask hides contributes nothing: only
// the last query row, which sees key 3, is NaN, whatever the tiles (the
// diagonal tile multiplies that key's P = 0 by NaN; tiles above it are
// skipped), and in the naive lowering of attn.attention too. The unfused
// primitives (attn.softmax then attn.matmul), like PyTorch's math backend,
// give 0·NaN = NaN in every row.
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils
// RUN: attn-opt %s --attn-cpu-pipeline="block-q=1 block-kv=1" | %{run} | FileCheck %s
// RUN: attn-opt %s --attn-cpu-pipeline="block-q=2 block-kv=2" | %{run} | FileCheck %s
// RUN: attn-opt %s --attn-cpu-pipeline="block-q=4 block-kv=4" | %{run} | FileCheck %s
// RUN: attn-opt %s --attn-cpu-pipeline="block-q=1 block-kv=4" | %{run} | FileCheck %s
// RUN: attn-opt %s --attn-cpu-pipeline="fuse=false" | %{run} | FileCheck %s
// Q = K = 0: uniform weights over the visible keys, so row i is the mean of
// V[0..i].
// CHECK: [1,   1]
// CHECK-NEXT: [1.5,   1.5]
// CHECK-NEXT: [2,   2]
// CHECK-NEXT: [nan,   nan]

func.func private @printMemrefF32(memref<*xf32>)

func.func @attention(%q: tensor<4x2xf32>, %v: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %o = attn.attention %q, %q, %v scale(1.0) causal(top_left) : tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32> -> tensor<4x2xf32>
  return %o : tensor<4x2xf32>
}

func.func @main() {
  %q = arith.constant dense<0.0> : tensor<4x2xf32>
  %v = arith.constant dense<[[1.0, 1.0], [2.0, 2.0], [3.0, 3.0], [0x7FC00000, 0x7FC00000]]> : tensor<4x2xf32>
  %o = call @attention(%q, %v) : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %m = bufferization.to_buffer %o : tensor<4x2xf32> to memref<4x2xf32>
  %u = memref.cast %m : memref<4x2xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

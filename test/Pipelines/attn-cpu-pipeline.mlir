// RUN: attn-opt %s --attn-cpu-pipeline | FileCheck %s
// RUN: attn-opt %s --attn-cpu-pipeline | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s --check-prefix=EXEC
// RUN: attn-opt %s --attn-cpu-pipeline="fuse=false" | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s --check-prefix=EXEC

// Everything ends in the LLVM dialect: attention, the tosa around it, and
// the tensor code of @main.
// CHECK-NOT: attn.
// CHECK-NOT: tosa.
// CHECK-NOT: scf.
// CHECK-NOT: memref.
// CHECK: llvm.func @attention_then_tosa
// CHECK: llvm.func @main

// Every row of V is [1, 2], so each output row is [1, 2] whatever the
// softmax weights are; tosa.add then adds 1.
// EXEC-COUNT-4: {{\[}}2, {{ *}}3]
func.func @attention_then_tosa(%q: tensor<4x2xf32>, %k: tensor<3x2xf32>, %v: tensor<3x2xf32>) -> tensor<4x2xf32> {
  %o = attn.attention %q, %k, %v scale(1.0) : tensor<4x2xf32>, tensor<3x2xf32>, tensor<3x2xf32> -> tensor<4x2xf32>
  %one = "tosa.const"() <{values = dense<1.0> : tensor<4x2xf32>}> : () -> tensor<4x2xf32>
  %r = tosa.add %o, %one : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}

func.func private @printMemrefF32(memref<*xf32>)

func.func @main() {
  %q = arith.constant dense<[[0.5, -1.0], [2.0, 0.0], [1.0, 1.0], [-3.0, 0.25]]> : tensor<4x2xf32>
  %k = arith.constant dense<[[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]]> : tensor<3x2xf32>
  %v = arith.constant dense<[[1.0, 2.0], [1.0, 2.0], [1.0, 2.0]]> : tensor<3x2xf32>
  %r = call @attention_then_tosa(%q, %k, %v) : (tensor<4x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %b = bufferization.to_buffer %r : tensor<4x2xf32> to memref<4x2xf32>
  %u = memref.cast %b : memref<4x2xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

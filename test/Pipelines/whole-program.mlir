// Both pipelines lower the whole program they are given, not only its
// attention: elementwise arith on tensors, an attention carried through an
// scf.for (a loop that yields a fresh buffer each iteration), and chains
// that are not raised (on the GPU pipeline they run on the host).
// RUN: attn-opt %s -split-input-file --attn-cpu-pipeline | FileCheck %s --check-prefix=CPU
// RUN: attn-opt %s -split-input-file --attn-gpu-pipeline | FileCheck %s --check-prefix=GPU

// CPU-LABEL: llvm.func @elementwise_on_tensors
// CPU: llvm.fadd
// GPU-LABEL: llvm.func @elementwise_on_tensors
// GPU: llvm.fadd
func.func @elementwise_on_tensors(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.addf %a, %b : tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// CPU-LABEL: llvm.func @attention_in_a_loop
// GPU: gpu.binary @attn_fa2_wgmma_f16
// GPU-LABEL: llvm.func @attention_in_a_loop
// GPU: gpu.launch_func
func.func @attention_in_a_loop(%q: tensor<1x2x64x64xf16>, %n: index) -> tensor<1x2x64x64xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %q) -> (tensor<1x2x64x64xf16>) {
    %o = attn.attention %x, %x, %x scale(0.125) : tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16> -> tensor<1x2x64x64xf16>
    scf.yield %o : tensor<1x2x64x64xf16>
  }
  return %r : tensor<1x2x64x64xf16>
}

// -----

// Not an attention (sigmoid, not softmax): nothing is raised; both
// pipelines still lower it, the GPU one on the host.
// CPU-LABEL: llvm.func @sigmoid_chain
// GPU-NOT: gpu.binary
// GPU-LABEL: llvm.func @sigmoid_chain
func.func @sigmoid_chain(%q: tensor<1x8x16xf32>, %k: tensor<1x16x8xf32>) -> tensor<1x8x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %s = tosa.matmul %q, %k, %zp, %zp : (tensor<1x8x16xf32>, tensor<1x16x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8xf32>
  %p = tosa.sigmoid %s : (tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
  return %p : tensor<1x8x8xf32>
}

// -----

// An attention no kernel runs (f32, run-time head count): the GPU pipeline
// warns and runs it on the host, fused (the naive path needs static heads).
// CPU-LABEL: llvm.func @dynamic_heads_on_the_host
// GPU-NOT: gpu.binary
// GPU-LABEL: llvm.func @dynamic_heads_on_the_host
// GPU: llvm.intr.maximum
func.func @dynamic_heads_on_the_host(%q: tensor<?x8x16xf32>) -> tensor<?x8x16xf32> {
  %o = attn.attention %q, %q, %q scale(0.25) : tensor<?x8x16xf32>, tensor<?x8x16xf32>, tensor<?x8x16xf32> -> tensor<?x8x16xf32>
  return %o : tensor<?x8x16xf32>
}

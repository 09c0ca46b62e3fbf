// RUN: attn-opt %s -split-input-file --attn-detect | FileCheck %s
// Fake-quantized FP8 (f32 rounded to an 8-bit float and extended back,
// as quantization-aware programs write it): the rounding is part of the
// program, so detection never looks through a truncation to an 8-bit
// float. The attention is raised on the extended FP8 values, the
// truncations kept (found by fuzzing: they were dropped, 3.6% off).
// Execution: test/Integration/CPU/fp8-attention.test covers the extension.

// CHECK-LABEL: func.func @attention
// CHECK: %[[Q8:.+]] = arith.truncf %{{.*}} : tensor<2x16x4xf32> to tensor<2x16x4xf8E5M2>
// CHECK: %[[K8:.+]] = arith.truncf %{{.*}} : tensor<2x17x4xf32> to tensor<2x17x4xf8E5M2>
// CHECK: %[[V8:.+]] = arith.truncf %{{.*}} : tensor<2x17x4xf32> to tensor<2x17x4xf8E5M2>
// CHECK: linalg.generic {{.*}} ins(%[[Q8]] : tensor<2x16x4xf8E5M2>)
// CHECK: arith.extf %{{.*}} : f8E5M2 to f32
// CHECK: attn.attention {{.*}} scale(1.250000e-01) : tensor<2x16x4xf32>, tensor<2x17x4xf32>, tensor<2x17x4xf32> -> tensor<2x16x4xf32>
func.func @attention(%q: tensor<2x16x4xf32>, %k: tensor<2x17x4xf32>, %v: tensor<2x17x4xf32>) -> tensor<2x16x4xf32> {
  %q_c0 = arith.truncf %q : tensor<2x16x4xf32> to tensor<2x16x4xf8E5M2>
  %q_c1 = arith.extf %q_c0 : tensor<2x16x4xf8E5M2> to tensor<2x16x4xf32>
  %k_c0 = arith.truncf %k : tensor<2x17x4xf32> to tensor<2x17x4xf8E5M2>
  %k_c1 = arith.extf %k_c0 : tensor<2x17x4xf8E5M2> to tensor<2x17x4xf32>
  %v_c0 = arith.truncf %v : tensor<2x17x4xf32> to tensor<2x17x4xf8E5M2>
  %v_c1 = arith.extf %v_c0 : tensor<2x17x4xf8E5M2> to tensor<2x17x4xf32>
  %kt_e = tensor.empty() : tensor<2x4x17xf32>
  %kt = linalg.transpose ins(%k_c1 : tensor<2x17x4xf32>) outs(%kt_e : tensor<2x4x17xf32>) permutation = [0, 2, 1]
  %z = arith.constant 0.0 : f32
  %s_e = tensor.empty() : tensor<2x16x17xf32>
  %s_i = linalg.fill ins(%z : f32) outs(%s_e : tensor<2x16x17xf32>) -> tensor<2x16x17xf32>
  %s = linalg.batch_matmul ins(%q_c1, %kt : tensor<2x16x4xf32>, tensor<2x4x17xf32>) outs(%s_i : tensor<2x16x17xf32>) -> tensor<2x16x17xf32>
  %s1_e = tensor.empty() : tensor<2x16x17xf32>
  %s1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<2x16x17xf32>) outs(%s1_e : tensor<2x16x17xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0.125 : f32
    %x = arith.mulf %in, %c : f32
    linalg.yield %x : f32
  } -> tensor<2x16x17xf32>
  %p_e = tensor.empty() : tensor<2x16x17xf32>
  %p = linalg.softmax dimension(2) ins(%s1 : tensor<2x16x17xf32>) outs(%p_e : tensor<2x16x17xf32>) -> tensor<2x16x17xf32>
  %z2 = arith.constant 0.0 : f32
  %o_e = tensor.empty() : tensor<2x16x4xf32>
  %o_i = linalg.fill ins(%z2 : f32) outs(%o_e : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  %o = linalg.batch_matmul ins(%p, %v_c1 : tensor<2x16x17xf32>, tensor<2x17x4xf32>) outs(%o_i : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}


// -----

// P rounded to FP8 before P·V: no attention computes that, so nothing is
// raised.
// CHECK-LABEL: func.func @p_quantized
// CHECK-NOT: attn.attention
// CHECK: return
func.func @p_quantized(%q: tensor<2x16x4xf32>, %k: tensor<2x17x4xf32>, %v: tensor<2x17x4xf32>) -> tensor<2x16x4xf32> {
  %q_c0 = arith.truncf %q : tensor<2x16x4xf32> to tensor<2x16x4xf8E5M2>
  %q_c1 = arith.extf %q_c0 : tensor<2x16x4xf8E5M2> to tensor<2x16x4xf32>
  %k_c0 = arith.truncf %k : tensor<2x17x4xf32> to tensor<2x17x4xf8E5M2>
  %k_c1 = arith.extf %k_c0 : tensor<2x17x4xf8E5M2> to tensor<2x17x4xf32>
  %v_c0 = arith.truncf %v : tensor<2x17x4xf32> to tensor<2x17x4xf8E5M2>
  %v_c1 = arith.extf %v_c0 : tensor<2x17x4xf8E5M2> to tensor<2x17x4xf32>
  %kt_e = tensor.empty() : tensor<2x4x17xf32>
  %kt = linalg.transpose ins(%k_c1 : tensor<2x17x4xf32>) outs(%kt_e : tensor<2x4x17xf32>) permutation = [0, 2, 1]
  %z = arith.constant 0.0 : f32
  %s_e = tensor.empty() : tensor<2x16x17xf32>
  %s_i = linalg.fill ins(%z : f32) outs(%s_e : tensor<2x16x17xf32>) -> tensor<2x16x17xf32>
  %s = linalg.batch_matmul ins(%q_c1, %kt : tensor<2x16x4xf32>, tensor<2x4x17xf32>) outs(%s_i : tensor<2x16x17xf32>) -> tensor<2x16x17xf32>
  %s1_e = tensor.empty() : tensor<2x16x17xf32>
  %s1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<2x16x17xf32>) outs(%s1_e : tensor<2x16x17xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0.125 : f32
    %x = arith.mulf %in, %c : f32
    linalg.yield %x : f32
  } -> tensor<2x16x17xf32>
  %p_e = tensor.empty() : tensor<2x16x17xf32>
  %p = linalg.softmax dimension(2) ins(%s1 : tensor<2x16x17xf32>) outs(%p_e : tensor<2x16x17xf32>) -> tensor<2x16x17xf32>
  %p8 = arith.truncf %p : tensor<2x16x17xf32> to tensor<2x16x17xf8E4M3FN>
  %pq = arith.extf %p8 : tensor<2x16x17xf8E4M3FN> to tensor<2x16x17xf32>
  %z2 = arith.constant 0.0 : f32
  %o_e = tensor.empty() : tensor<2x16x4xf32>
  %o_i = linalg.fill ins(%z2 : f32) outs(%o_e : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  %o = linalg.batch_matmul ins(%pq, %v_c1 : tensor<2x16x17xf32>, tensor<2x17x4xf32>) outs(%o_i : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}


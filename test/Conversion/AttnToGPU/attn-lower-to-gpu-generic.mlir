// RUN: attn-opt %s -split-input-file --attn-lower-to-gpu -verify-diagnostics | FileCheck %s
// What the tensor-core kernels refuse runs on the generic CUDA-core kernel
// (GenericKernel.cpp), with a warning saying why: four warps per CTA, each
// with up to four query rows; per key, one K row and one V row loaded for
// all of the warp's rows, the dot product by a butterfly of five xor
// shuffles, then the online softmax in exp2 (the SFU's ex2.approx). f32
// stays f32: no rounding to a tensor-core type.

// f32 at Phi's head dim 80 with dv = 72, GQA, bottom-right causal: four
// rows per warp (16 per CTA), the keys each row sees up to its diagonal.
// CHECK-LABEL: gpu.func @attn_generic_f32_b1_h4_kv2_q24_k40_d80_v72_causal_br(
// CHECK-SAME: memref<1x4x24x80xf32>, %{{.*}}: memref<1x2x40x80xf32>, %{{.*}}: memref<1x2x40x72xf32>, %{{.*}}: memref<1x4x24x72xf32>)
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK: scf.for
// CHECK-COUNT-5: gpu.shuffle  xor
// The union of the rows' key ranges is visited; keys past a row's own
// diagonal are -inf for it.
// CHECK: arith.cmpi sge
// CHECK: arith.select %{{.*}}, %cst{{.*}}, %{{.*}} : f32
// CHECK: llvm.inline_asm "ex2.approx.ftz.f32 $0, $1;"
// CHECK-NOT: arith.truncf
// CHECK: memref.store %{{.*}} : memref<1x4x24x72xf32>
// CHECK-LABEL: func.func @f32_phi
// CHECK: gpu.launch_func @attn_generic_f32_b1_h4_kv2_q24_k40_d80_v72_causal_br_module::@attn_generic_f32_b1_h4_kv2_q24_k40_d80_v72_causal_br blocks in (%c2, %c4, %c1) threads in (%c128, %{{.*}}, %{{.*}})
func.func @f32_phi(%q: tensor<1x4x24x80xf32>, %k: tensor<1x2x40x80xf32>, %v: tensor<1x2x40x72xf32>) -> tensor<1x4x24x72xf32> {
  // expected-warning @+1 {{attn-lower-to-gpu: mma.sync needs f16 or bf16 inputs, got f32; the generic GPU kernel runs it instead (f32 on the CUDA cores, no tensor cores; strict=true makes this an error)}}
  %o = attn.attention %q, %k, %v scale(0.125) causal(bottom_right) : tensor<1x4x24x80xf32>, tensor<1x2x40x80xf32>, tensor<1x2x40x72xf32> -> tensor<1x4x24x72xf32>
  return %o : tensor<1x4x24x72xf32>
}

// -----

// d = 36 (no 16-byte copy chunk) with an f32 additive mask on f16 inputs
// (the tensor-core kernels' first refusal): the mask is read in its own
// type and added to the f32 score.
// CHECK-LABEL: gpu.func @attn_generic_f16_b2_h3_kv3_q33_k33_d36_v36_addf32x2x1x33x33(
// CHECK-SAME: %[[M:[a-z0-9]+]]: memref<2x1x33x33xf32>)
// CHECK: %[[X:.*]] = memref.load %[[M]]
// CHECK: arith.addf %{{.*}}, %[[X]] : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @d36_wide_mask(%q: tensor<2x3x33x36xf16>, %m: tensor<2x1x33x33xf32>) -> tensor<2x3x33x36xf16> {
  // expected-warning @+1 {{attn-lower-to-gpu: the GPU kernel reads an additive mask in the inputs' element type; cast the mask to it (rounding the bias) or run on the CPU; the generic GPU kernel runs it instead}}
  %o = attn.attention %q, %q, %q mask(%m : tensor<2x1x33x33xf32>) scale(0.125) : tensor<2x3x33x36xf16>, tensor<2x3x33x36xf16>, tensor<2x3x33x36xf16> -> tensor<2x3x33x36xf16>
  return %o : tensor<2x3x33x36xf16>
}

// -----

// A score_mod reading a bias table, in f32 at rank 3: the region is copied
// per score as in the tensor-core kernels, its table a parameter.
// CHECK-LABEL: gpu.func @attn_generic_f32_b1_h2_kv2_q64_k64_d40_v40_smod0x
// CHECK-SAME: %[[T:[a-z0-9]+]]: memref<2x127xf32>)
// CHECK: memref.load %[[T]][%{{.*}}, %{{.*}}] : memref<2x127xf32>
// CHECK-LABEL: func.func @f32_relative_bias
// CHECK: gpu.launch_func {{.*}} args({{.*}}, %{{.*}} : memref<2x127xf32>)
func.func @f32_relative_bias(%q: tensor<2x64x40xf32>, %table: tensor<2x127xf32>) -> tensor<2x64x40xf32> {
  // expected-warning @+1 {{the generic GPU kernel runs it instead}}
  %o = attn.attention %q, %q, %q scale(0.125) score_mod {
  ^bb0(%s: f32, %h: index, %i: index, %j: index):
    %off = arith.constant 63 : index
    %ji = arith.subi %j, %i : index
    %r = arith.addi %ji, %off : index
    %x = tensor.extract %table[%h, %r] : tensor<2x127xf32>
    %y = arith.addf %s, %x : f32
    attn.yield %y : f32
  } : tensor<2x64x40xf32>, tensor<2x64x40xf32>, tensor<2x64x40xf32> -> tensor<2x64x40xf32>
  return %o : tensor<2x64x40xf32>
}

// -----

// Head dims past 256: two rows per warp up to 256, one beyond (here 320).
// CHECK-LABEL: gpu.func @attn_generic_bf16_b1_h2_kv2_q10_k10_d320_v320(
// CHECK-LABEL: func.func @d320
// CHECK: gpu.launch_func {{.*}} blocks in (%c3, %c2, %c1) threads in (%c128, %{{.*}}, %{{.*}})
func.func @d320(%q: tensor<1x2x10x320xbf16>) -> tensor<1x2x10x320xbf16> {
  // expected-warning @+1 {{got d = 320; the generic GPU kernel runs it instead}}
  %o = attn.attention %q, %q, %q scale(0.125) : tensor<1x2x10x320xbf16>, tensor<1x2x10x320xbf16>, tensor<1x2x10x320xbf16> -> tensor<1x2x10x320xbf16>
  return %o : tensor<1x2x10x320xbf16>
}

// -----

// f64 has no GPU kernel at all: the op stays unfused, with the generic
// kernel's reason.
// CHECK-LABEL: func.func @f64_inputs
// CHECK: attn.attention
// CHECK-NOT: gpu.launch_func
func.func @f64_inputs(%q: tensor<1x2x16x64xf64>) -> tensor<1x2x16x64xf64> {
  // expected-warning @+1 {{attn-lower-to-gpu: the GPU kernels need f16, bf16, f32 or 8-bit float inputs; the attention stays unfused (strict=true makes this an error)}}
  %o = attn.attention %q, %q, %q scale(0.125) : tensor<1x2x16x64xf64>, tensor<1x2x16x64xf64>, tensor<1x2x16x64xf64> -> tensor<1x2x16x64xf64>
  return %o : tensor<1x2x16x64xf64>
}

// -----

// An f64 additive mask on f32 inputs: the generic kernel adds masks in
// f32 and would have to round it, so the op stays unfused, with the
// generic kernel's reason.
// CHECK-LABEL: func.func @f64_mask
// CHECK: attn.attention
// CHECK-NOT: gpu.launch_func
func.func @f64_mask(%q: tensor<1x2x16x64xf32>, %m: tensor<1x1x16x16xf64>) -> tensor<1x2x16x64xf32> {
  // expected-warning @+1 {{attn-lower-to-gpu: the GPU kernels add an f16, bf16 or f32 mask to the f32 scores; the attention stays unfused (strict=true makes this an error)}}
  %o = attn.attention %q, %q, %q mask(%m : tensor<1x1x16x16xf64>) scale(0.125) : tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32> -> tensor<1x2x16x64xf32>
  return %o : tensor<1x2x16x64xf32>
}

// -----

// A head dim wider than the generic kernel's registers hold (a row of Q
// and of O per lane, unrolled: 2048 at most; d = 2^31 - 1 hung the
// pipeline before this limit): the op stays unfused, with the reason.
// 2048 itself still runs on the generic kernel.
// CHECK-LABEL: func.func @too_wide_for_registers
// CHECK: attn.attention
// CHECK-NOT: gpu.launch_func
func.func @too_wide_for_registers(%q: tensor<1x1x2x4096xf32>, %v: tensor<1x1x2x8xf32>) -> tensor<1x1x2x8xf32> {
  // expected-warning @+1 {{attn-lower-to-gpu: the generic GPU kernel keeps a row of Q and of O in registers: head dims up to 2048, got d = 4096, dv = 8; the attention stays unfused (strict=true makes this an error)}}
  %o = attn.attention %q, %q, %v scale(1.0) : tensor<1x1x2x4096xf32>, tensor<1x1x2x4096xf32>, tensor<1x1x2x8xf32> -> tensor<1x1x2x8xf32>
  return %o : tensor<1x1x2x8xf32>
}

// -----

// CHECK-LABEL: func.func @widest_for_registers
// CHECK: gpu.launch_func @attn_generic_f32_b1_h1_kv1_q2_k2_d2048_v8
func.func @widest_for_registers(%q: tensor<1x1x2x2048xf32>, %v: tensor<1x1x2x8xf32>) -> tensor<1x1x2x8xf32> {
  // expected-warning @+1 {{the generic GPU kernel runs it instead}}
  %o = attn.attention %q, %q, %v scale(1.0) : tensor<1x1x2x2048xf32>, tensor<1x1x2x2048xf32>, tensor<1x1x2x8xf32> -> tensor<1x1x2x8xf32>
  return %o : tensor<1x1x2x8xf32>
}

// -----

// FP8 inputs with descale factors, on a chip without an FP8 tensor-core
// kernel (mma.sync): the generic kernel reads the 8-bit floats, extends
// them to f32 (exact; --attn-expand-fp8 lowers the extension), scales the
// scores by scale·q_descale·k_descale and O by v_descale, and stores O in
// the result's type (bf16). The factors are three f32 scalar parameters
// after the tensors, and the launch passes the op's descale operands.
// CHECK-LABEL: gpu.func @attn_generic_f8E4M3FN_b1_h2_kv1_q24_k40_d32_v32_causal_obf16_descale(
// CHECK-SAME: %{{.*}}: memref<1x2x24x32xf8E4M3FN>, %{{.*}}: memref<1x1x40x32xf8E4M3FN>, %{{.*}}: memref<1x1x40x32xf8E4M3FN>, %{{.*}}: memref<1x2x24x32xbf16>, %[[QS:.*]]: memref<f32>, %[[KS:.*]]: memref<f32>, %[[VS:.*]]: memref<f32>)
// CHECK-DAG: %[[KD:.*]] = memref.load %[[KS]][] : memref<f32>
// CHECK-DAG: %[[QD:.*]] = memref.load %[[QS]][] : memref<f32>
// CHECK: %[[QK:.*]] = arith.mulf %[[QD]], %[[KD]] : f32
// CHECK: %[[SCALE:.*]] = arith.mulf %{{.*}}, %[[QK]] : f32
// CHECK: %[[VD:.*]] = memref.load %[[VS]][] : memref<f32>
// CHECK: arith.extf %{{.*}} : f8E4M3FN to f32
// CHECK: arith.mulf %{{.*}}, %[[SCALE]] : f32
// CHECK: arith.mulf %{{.*}}, %[[VD]] : f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: memref.store %{{.*}} : memref<1x2x24x32xbf16>
// CHECK-LABEL: func.func @fp8_descale
// CHECK-SAME: %[[A:[^:]*]]: tensor<f32>, %[[B:[^:]*]]: tensor<f32>, %[[C:[^:]*]]: tensor<f32>)
// CHECK-DAG: %[[AB:.*]] = bufferization.to_buffer %[[A]] : tensor<f32> to memref<f32>
// CHECK-DAG: %[[BB:.*]] = bufferization.to_buffer %[[B]] : tensor<f32> to memref<f32>
// CHECK-DAG: %[[CB:.*]] = bufferization.to_buffer %[[C]] : tensor<f32> to memref<f32>
// CHECK: gpu.launch_func {{.*}} args(%{{.*}} : memref<1x2x24x32xf8E4M3FN>, %{{.*}} : memref<1x1x40x32xf8E4M3FN>, %{{.*}} : memref<1x1x40x32xf8E4M3FN>, %{{.*}} : memref<1x2x24x32xbf16>, %[[AB]] : memref<f32>, %[[BB]] : memref<f32>, %[[CB]] : memref<f32>)
func.func @fp8_descale(%q: tensor<1x2x24x32xf8E4M3FN>, %k: tensor<1x1x40x32xf8E4M3FN>, %v: tensor<1x1x40x32xf8E4M3FN>, %a: tensor<f32>, %b: tensor<f32>, %c: tensor<f32>) -> tensor<1x2x24x32xbf16> {
  // expected-warning @+1 {{attn-lower-to-gpu: the 8-bit float tensor-core kernel needs mma=wgmma (sm_90a); the kernel here is for mma.sync (target 'a100', sm_80); the generic GPU kernel runs it instead}}
  %o = attn.attention %q, %k, %v descale(%a, %b, %c : tensor<f32>, tensor<f32>, tensor<f32>) scale(0.125) causal(top_left) : tensor<1x2x24x32xf8E4M3FN>, tensor<1x1x40x32xf8E4M3FN>, tensor<1x1x40x32xf8E4M3FN> -> tensor<1x2x24x32xbf16>
  return %o : tensor<1x2x24x32xbf16>
}

// -----

// FP8 attentions that differ only in their output type or in having
// descale factors take kernels of their own (their parameters differ; found
// by review: they shared one name, and the second launch failed to verify).
// CHECK-DAG: gpu.func @attn_generic_f8E4M3FN_b1_h2_kv2_q16_k16_d32_v32_obf16(
// CHECK-DAG: gpu.func @attn_generic_f8E4M3FN_b1_h2_kv2_q16_k16_d32_v32_of32_descale(
// CHECK-LABEL: func.func @fp8_twins
// CHECK: gpu.launch_func @attn_generic_f8E4M3FN_b1_h2_kv2_q16_k16_d32_v32_obf16_module
// CHECK: gpu.launch_func @attn_generic_f8E4M3FN_b1_h2_kv2_q16_k16_d32_v32_of32_descale_module
func.func @fp8_twins(%q: tensor<1x2x16x32xf8E4M3FN>, %s: tensor<f32>) -> (tensor<1x2x16x32xbf16>, tensor<1x2x16x32xf32>) {
  // expected-warning @+1 {{the generic GPU kernel runs it instead}}
  %a = attn.attention %q, %q, %q scale(0.125) : tensor<1x2x16x32xf8E4M3FN>, tensor<1x2x16x32xf8E4M3FN>, tensor<1x2x16x32xf8E4M3FN> -> tensor<1x2x16x32xbf16>
  // expected-warning @+1 {{the generic GPU kernel runs it instead}}
  %b = attn.attention %q, %q, %q descale(%s, %s, %s : tensor<f32>, tensor<f32>, tensor<f32>) scale(0.125) : tensor<1x2x16x32xf8E4M3FN>, tensor<1x2x16x32xf8E4M3FN>, tensor<1x2x16x32xf8E4M3FN> -> tensor<1x2x16x32xf32>
  return %a, %b : tensor<1x2x16x32xbf16>, tensor<1x2x16x32xf32>
}

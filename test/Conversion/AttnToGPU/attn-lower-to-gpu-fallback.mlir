// RUN: attn-opt %s -split-input-file --attn-lower-to-gpu="generic-kernel=false" -verify-diagnostics | FileCheck %s
// An attention the tensor-core kernel cannot run is not an error: a warning
// at the op says why, and the generic CUDA-core kernel runs it
// (attn-lower-to-gpu-generic.mlir), or, with generic-kernel=false as here
// and for what that kernel cannot take either, the op stays for the host's
// unfused lowering (attn-lower-to-gpu-diagnostics.mlir: the same ops under
// strict=true, as errors). Ops the kernel runs in the same module are still
// lowered.

// CHECK-LABEL: func.func @f32_inputs
// CHECK: attn.attention
// CHECK-NOT: gpu.launch_func
func.func @f32_inputs(%q: tensor<1x2x64x64xf32>) -> tensor<1x2x64x64xf32> {
  // expected-warning @+1 {{attn-lower-to-gpu: mma.sync needs f16 or bf16 inputs, got f32; the attention stays unfused (strict=true makes this an error)}}
  %o = attn.attention %q, %q, %q scale(0.125) : tensor<1x2x64x64xf32>, tensor<1x2x64x64xf32>, tensor<1x2x64x64xf32> -> tensor<1x2x64x64xf32>
  return %o : tensor<1x2x64x64xf32>
}

// -----

// A head dim that is no multiple of 8 (a 16-byte copy chunk), beside one the
// kernel runs: only the second is lowered.
// CHECK-LABEL: func.func @head_dim_36_beside_64
// CHECK: attn.attention {{.*}} : tensor<1x2x64x36xf16>
// CHECK: gpu.launch_func @attn_fa2_mma_f16_b1_h2_kv2_q64_k64_d64_v64
// CHECK-NOT: attn.attention
func.func @head_dim_36_beside_64(%q: tensor<1x2x64x36xf16>, %p: tensor<1x2x64x64xf16>) -> (tensor<1x2x64x36xf16>, tensor<1x2x64x64xf16>) {
  // expected-warning @+1 {{attn-lower-to-gpu: the GPU kernel needs head dims that are multiples of 8 up to 256, got d = 36; the attention stays unfused}}
  %o = attn.attention %q, %q, %q scale(0.125) : tensor<1x2x64x36xf16>, tensor<1x2x64x36xf16>, tensor<1x2x64x36xf16> -> tensor<1x2x64x36xf16>
  %r = attn.attention %p, %p, %p scale(0.125) : tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16> -> tensor<1x2x64x64xf16>
  return %o, %r : tensor<1x2x64x36xf16>, tensor<1x2x64x64xf16>
}

// -----

// CHECK-LABEL: func.func @dynamic
// CHECK: attn.attention
func.func @dynamic(%q: tensor<1x2x?x64xf16>) -> tensor<1x2x?x64xf16> {
  // expected-warning @+1 {{attn-lower-to-gpu: the GPU kernel needs static shapes; the attention stays unfused}}
  %o = attn.attention %q, %q, %q scale(0.125) : tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16> -> tensor<1x2x?x64xf16>
  return %o : tensor<1x2x?x64xf16>
}

// -----

// CHECK-LABEL: func.func @wide_additive_mask
// CHECK: attn.attention
func.func @wide_additive_mask(%q: tensor<1x2x64x64xbf16>, %m: tensor<1x1x64x64xf32>) -> tensor<1x2x64x64xbf16> {
  // expected-warning @+1 {{attn-lower-to-gpu: the GPU kernel reads an additive mask in the inputs' element type}}
  %o = attn.attention %q, %q, %q mask(%m : tensor<1x1x64x64xf32>) scale(0.125) : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
  return %o : tensor<1x2x64x64xbf16>
}

// -----

// A grid CUDA cannot launch is a property of the problem: also a fallback.
// CHECK-LABEL: func.func @too_many_heads
// CHECK: attn.attention
func.func @too_many_heads(%q: tensor<1024x128x64x64xf16>) -> tensor<1024x128x64x64xf16> {
  // expected-warning @+1 {{attn-lower-to-gpu: B·Hq = 131072 exceeds the 65535 CTAs CUDA allows along the grid's y axis; the attention stays unfused}}
  %o = attn.attention %q, %q, %q scale(0.125) : tensor<1024x128x64x64xf16>, tensor<1024x128x64x64xf16>, tensor<1024x128x64x64xf16> -> tensor<1024x128x64x64xf16>
  return %o : tensor<1024x128x64x64xf16>
}

// -----

// A paged attention on f32: the host gathers it (attn-gather-paged-kv).
// CHECK-LABEL: func.func @paged_f32
// CHECK: attn.paged_attention
func.func @paged_f32(%q: tensor<1x2x1x64xf32>, %kc: tensor<4x16x2x64xf32>, %vc: tensor<4x16x2x64xf32>, %t: tensor<1x4xi32>, %l: tensor<1xi32>) -> tensor<1x2x1x64xf32> {
  // expected-warning @+1 {{attn-lower-to-gpu: the GPU kernel needs f16 or bf16 inputs; the attention stays unfused}}
  %o = attn.paged_attention %q, %kc, %vc pages(%t, %l) scale(0.125) : tensor<1x2x1x64xf32>, tensor<4x16x2x64xf32>, tensor<4x16x2x64xf32>, tensor<1x4xi32>, tensor<1xi32> -> tensor<1x2x1x64xf32>
  return %o : tensor<1x2x1x64xf32>
}

// -----

// Packed variable-length batches run on the tensor-core kernels only
// (attn-lower-to-gpu-varlen.mlir); an f32 one stays for the host, which
// unpacks it (--attn-unpack-varlen).
// CHECK-LABEL: func.func @varlen_f32
// CHECK: attn.varlen_attention
func.func @varlen_f32(%q: tensor<96x8x64xf32>, %k: tensor<128x2x64xf32>, %cq: tensor<4xi32>, %ck: tensor<4xi32>) -> tensor<96x8x64xf32> {
  // expected-warning @+1 {{attn-lower-to-gpu: the GPU kernels run packed variable-length batches on f16 or bf16 inputs only; the attention stays unfused}}
  %o = attn.varlen_attention %q, %k, %k seqlens(%cq, %ck) scale(0.125) : tensor<96x8x64xf32>, tensor<128x2x64xf32>, tensor<128x2x64xf32>, tensor<4xi32>, tensor<4xi32> -> tensor<96x8x64xf32>
  return %o : tensor<96x8x64xf32>
}

// -----

// A packed batch of no sequences has nothing for a kernel to do.
// CHECK-LABEL: func.func @varlen_no_sequences
// CHECK: attn.varlen_attention
func.func @varlen_no_sequences(%q: tensor<96x8x64xbf16>, %k: tensor<128x2x64xbf16>, %cq: tensor<1xi32>, %ck: tensor<1xi32>) -> tensor<96x8x64xbf16> {
  // expected-warning @+1 {{attn-lower-to-gpu: a packed batch without sequences, query tokens or key tokens has no GPU kernel; the attention stays unfused}}
  %o = attn.varlen_attention %q, %k, %k seqlens(%cq, %ck) scale(0.125) : tensor<96x8x64xbf16>, tensor<128x2x64xbf16>, tensor<128x2x64xbf16>, tensor<1xi32>, tensor<1xi32> -> tensor<96x8x64xbf16>
  return %o : tensor<96x8x64xbf16>
}

// -----

// A score modification reads tensors from above element by element as
// kernel parameters (attn-lower-to-gpu-score-mod.mlir); one of dynamic
// shape has no static parameter type: the host runs it, fused.
// CHECK-LABEL: func.func @score_mod_reads_dynamic_tensor
// CHECK: attn.attention {{.*}} score_mod
// CHECK-NOT: gpu.launch_func
func.func @score_mod_reads_dynamic_tensor(%q: tensor<1x2x64x64xf16>, %bias: tensor<2x?xf32>) -> tensor<1x2x64x64xf16> {
  // expected-warning @+1 {{attn-lower-to-gpu: a score_mod that reads a tensor of dynamic shape has no GPU kernel; the attention stays unfused}}
  %o = attn.attention %q, %q, %q scale(0.125) score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %x = tensor.extract %bias[%h, %j] : tensor<2x?xf32>
    %t = arith.addf %s, %x : f32
    attn.yield %t : f32
  } : tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

// A tensor of index elements has no layout a caller could pass.
// CHECK-LABEL: func.func @score_mod_reads_index_tensor
// CHECK-NOT: gpu.launch_func
func.func @score_mod_reads_index_tensor(%q: tensor<1x2x64x64xf16>, %pos: tensor<64xindex>) -> tensor<1x2x64x64xf16> {
  // expected-warning @+1 {{attn-lower-to-gpu: a score_mod that reads a tensor of index has no GPU kernel (it takes integers and floats of up to 64 bits); the attention stays unfused}}
  %o = attn.attention %q, %q, %q scale(0.125) score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %p = tensor.extract %pos[%j] : tensor<64xindex>
    %keep = arith.cmpi ule, %p, %i : index
    %ninf = arith.constant 0xFF800000 : f32
    %t = arith.select %keep, %s, %ninf : f32
    attn.yield %t : f32
  } : tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

// A tensor used other than by tensor.extract (here its size): the kernel
// would need the tensor itself.
// CHECK-LABEL: func.func @score_mod_takes_tensor
// CHECK-NOT: gpu.launch_func
func.func @score_mod_takes_tensor(%q: tensor<1x2x64x64xf16>, %bias: tensor<64xf32>) -> tensor<1x2x64x64xf16> {
  // expected-warning @+1 {{attn-lower-to-gpu: a score_mod whose 'tensor.dim' takes a tensor has no GPU kernel (the kernel reads single elements of tensors defined above the op); the attention stays unfused}}
  %o = attn.attention %q, %q, %q scale(0.125) score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %c0 = arith.constant 0 : index
    %n = tensor.dim %bias, %c0 : tensor<64xf32>
    %keep = arith.cmpi ult, %j, %n : index
    %ninf = arith.constant 0xFF800000 : f32
    %t = arith.select %keep, %s, %ninf : f32
    attn.yield %t : f32
  } : tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

// A value from above that is no constant cannot be cloned into the kernel.
// CHECK-LABEL: func.func @score_mod_reads_scalar_argument
// CHECK: attn.attention {{.*}} score_mod
// CHECK-NOT: gpu.launch_func
func.func @score_mod_reads_scalar_argument(%q: tensor<1x2x64x64xf16>, %cap: f32) -> tensor<1x2x64x64xf16> {
  // expected-warning @+1 {{attn-lower-to-gpu: a score_mod that reads a non-constant value from above has no GPU kernel; the attention stays unfused}}
  %o = attn.attention %q, %q, %q scale(0.125) score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %x = arith.divf %s, %cap : f32
    attn.yield %x : f32
  } : tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

// A math op the kernel cannot lower without libdevice (which resolves only
// where the CUDA toolkit is found): the host runs it.
// CHECK-LABEL: func.func @score_mod_powf
// CHECK-NOT: gpu.launch_func
func.func @score_mod_powf(%q: tensor<1x2x64x64xf16>) -> tensor<1x2x64x64xf16> {
  // expected-warning @+1 {{attn-lower-to-gpu: 'math.powf' in a score_mod has no GPU lowering without libdevice; the attention stays unfused}}
  %o = attn.attention %q, %q, %q scale(0.125) score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %x = math.powf %s, %s : f32
    attn.yield %x : f32
  } : tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

// Types and ops NVPTX has no registers or instructions for (an i128, a
// float remainder, which is a libcall there): the host runs them (the
// backend aborted on the i128 before).
// CHECK-LABEL: func.func @score_mod_i128_and_remf
// CHECK-NOT: gpu.launch_func
func.func @score_mod_i128_and_remf(%q: tensor<1x2x64x64xf16>) -> (tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>) {
  // expected-warning @+1 {{attn-lower-to-gpu: 'arith.fptosi' in a score_mod has no GPU lowering (integers up to 64 bits, f16, bf16, f32 and f64 arithmetic only); the attention stays unfused}}
  %o = attn.attention %q, %q, %q scale(0.125) score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %x = arith.fptosi %s : f32 to i128
    %y = arith.sitofp %x : i128 to f32
    attn.yield %y : f32
  } : tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16> -> tensor<1x2x64x64xf16>
  %c = arith.constant 3.0 : f32
  // expected-warning @+1 {{attn-lower-to-gpu: 'arith.remf' in a score_mod has no GPU lowering (integers up to 64 bits, f16, bf16, f32 and f64 arithmetic only); the attention stays unfused}}
  %r = attn.attention %q, %q, %q scale(0.125) score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %y = arith.remf %s, %c : f32
    attn.yield %y : f32
  } : tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16> -> tensor<1x2x64x64xf16>
  return %o, %r : tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>
}

// -----

// Static Q, K, V and a result type less static than they imply (legal IR):
// the kernel's buffers are static, so the host runs it (it produced invalid
// IR before).
// CHECK-LABEL: func.func @dynamic_result_static_inputs
// CHECK-NOT: gpu.launch_func
func.func @dynamic_result_static_inputs(%q: tensor<2x128x64xf16>) -> tensor<2x?x64xf16> {
  // expected-warning @+1 {{attn-lower-to-gpu: the GPU kernel needs static shapes; the attention stays unfused}}
  %o = attn.attention %q, %q, %q scale(0.125) : tensor<2x128x64xf16>, tensor<2x128x64xf16>, tensor<2x128x64xf16> -> tensor<2x?x64xf16>
  return %o : tensor<2x?x64xf16>
}

// -----

// A recorded kernel_config naming a kernel that cannot run an op the
// chooser's own pick could run is wrong IR, not a missing feature: an error.
func.func @recorded_config_illegal(%q: tensor<1x2x256x64xbf16>) -> tensor<1x2x256x64xbf16> {
  // expected-error @+1 {{attn-lower-to-gpu: block-kv=128 needs mma=wgmma or kv-warps of 2 or more (one mma.sync warp would spill the scores of 128 keys)}}
  %o = attn.attention %q, %q, %q scale(0.125) {kernel_config = #attn.kernel_config<family = "mma.sync", block_q = 128, block_kv = 128, rows_per_warp = 32, kv_stages = 2, swizzle = false>}
      : tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16> -> tensor<1x2x256x64xbf16>
  return %o : tensor<1x2x256x64xbf16>
}

// RUN: not attn-opt %s -split-input-file --attn-lower-to-gpu="block-kv=128" 2>&1 | FileCheck %s --check-prefix=ASKED
// Explicit options the chooser's pick does not need: an error at the op
// that they break (head_dim_36_beside_64's d = 64 op), a warning at d = 36.
// ASKED: warning: attn-lower-to-gpu: the GPU kernel needs head dims that are multiples of 8 up to 256, got d = 36
// ASKED: error: attn-lower-to-gpu: block-kv=128 needs mma=wgmma or kv-warps of 2 or more (one mma.sync warp would spill the scores of 128 keys)

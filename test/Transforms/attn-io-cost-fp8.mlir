// RUN: attn-opt %s -split-input-file --attn-io-cost="fp8-mma=on" | FileCheck %s
// RUN: attn-opt %s -split-input-file --attn-io-cost="target=a100 fp8-mma=on" | FileCheck %s --check-prefix=A100
// RUN: attn-opt %s -split-input-file --attn-io-cost="kv-loads=cp.async fp8-mma=on" -verify-diagnostics -o /dev/null
// RUN: attn-opt %s -split-input-file --attn-io-cost | FileCheck %s --check-prefix=DEFAULT
// RUN: attn-opt %s -split-input-file --attn-io-cost="fp8-mma=off" | FileCheck %s --check-prefix=OFF
// fp8-mma=auto (the default) is on: the FP8 kernel's config is recorded.
// With fp8-mma=off none is (the generic kernel runs it): the FlashAttention
// rule's tiles.
// DEFAULT-LABEL: func.func @fp8_bf16_out
// DEFAULT: kernel_config = #attn.kernel_config<family = "wgmma", block_q = 128, block_kv = 128, rows_per_warp = 16, kv_stages = 3, swizzle = false, tma_loads = true, producer_warpgroup = true, overlap_pv = true>
// OFF-LABEL: func.func @fp8_bf16_out
// OFF-NOT: kernel_config
// OFF: return

// 8-bit float attentions: the cost of the kernel that runs them. On the
// H200 the FP8 wgmma kernel (128 x 128 tiles, a producer warpgroup that
// brings K's boxes and the Vᵀ images of a pre-kernel); on the A100 none (no FP8 tensor cores: the generic
// kernel), costed at the FlashAttention rule's tiles.

// FP8 inputs, a bf16 output: one byte per Q, K, V element, two per O
// element (3·4194304 + 8388608 = 20971520 B of DRAM); the FP8 tensor peak
// (H200: 1978.9 TFLOP/s, ridge 1978.9 / 4.8 = 412 FLOP/byte; the A100 has no
// FP8 tensor cores: its f16 peak, ridge 161).
// CHECK-LABEL: func.func @fp8_bf16_out
// CHECK: io_cost = #attn.io_cost<target = "h200", flops = 68719476736,
// CHECK-SAME: fused_dram_bytes = 20971520,
// CHECK-SAME: ridge = 412.27083333333331
// A100-LABEL: func.func @fp8_bf16_out
// CHECK-SAME: block_q = 128, block_kv = 128
// A100: ridge = 161.24031007751938
func.func @fp8_bf16_out(%q: tensor<1x16x4096x64xf8E4M3FN>, %qs: tensor<f32>) -> tensor<1x16x4096x64xbf16> {
  // (Only the third RUN line verifies diagnostics.)
  // expected-error @+1 {{attn-io-cost: the 8-bit float tensor-core kernel needs kv-loads=tma-producer}}
  %o = attn.attention %q, %q, %q descale(%qs, %qs, %qs : tensor<f32>, tensor<f32>, tensor<f32>) scale(0.125)
     : tensor<1x16x4096x64xf8E4M3FN>, tensor<1x16x4096x64xf8E4M3FN>, tensor<1x16x4096x64xf8E4M3FN> -> tensor<1x16x4096x64xbf16>
  return %o : tensor<1x16x4096x64xbf16>
}

// -----

// A request the FP8 kernel cannot honour (its producer warpgroup is what
// transposes V) is refused with the reason, as for any kernel.
func.func @fp8_cp_async(%q: tensor<1x16x4096x128xf8E4M3FN>) -> tensor<1x16x4096x128xbf16> {
  // expected-error @+1 {{attn-io-cost: the 8-bit float tensor-core kernel needs kv-loads=tma-producer (its producer warpgroup brings Vᵀ)}}
  %o = attn.attention %q, %q, %q scale(0.088)
     : tensor<1x16x4096x128xf8E4M3FN>, tensor<1x16x4096x128xf8E4M3FN>, tensor<1x16x4096x128xf8E4M3FN> -> tensor<1x16x4096x128xbf16>
  return %o : tensor<1x16x4096x128xbf16>
}

// RUN: attn-opt %s --attn-lower-to-gpu="mma=wgmma fp8-mma=off" -verify-diagnostics | FileCheck %s
// RUN: not attn-opt %s --attn-lower-to-gpu="mma=wgmma fp8-mma=off strict=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRICT

// fp8-mma=off: 8-bit inputs take the generic CUDA-core kernel even where
// the FP8 tensor-core kernel could run them (fp8-mma=auto, the default, is
// on), with a warning naming the option; under strict=true it is an error.
// CHECK-LABEL: gpu.func @attn_generic_f8E4M3FN_b1_h2_kv2_q256_k256_d128_v128_obf16(
// CHECK-NOT: _vt(
// CHECK-LABEL: func.func @off
// STRICT: error: attn-lower-to-gpu: fp8-mma=off asks for the generic kernel for 8-bit float inputs
func.func @off(%q: tensor<1x2x256x128xf8E4M3FN>) -> tensor<1x2x256x128xbf16> {
  // expected-warning @+1 {{attn-lower-to-gpu: fp8-mma=off asks for the generic kernel for 8-bit float inputs; the generic GPU kernel runs it instead}}
  %o = attn.attention %q, %q, %q scale(0.088) : tensor<1x2x256x128xf8E4M3FN>, tensor<1x2x256x128xf8E4M3FN>, tensor<1x2x256x128xf8E4M3FN> -> tensor<1x2x256x128xbf16>
  return %o : tensor<1x2x256x128xbf16>
}

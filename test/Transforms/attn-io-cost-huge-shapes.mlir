// RUN: attn-opt %s -split-input-file --attn-io-cost -verify-diagnostics
// RUN: attn-opt %s -split-input-file --attn-gpu-pipeline -verify-diagnostics
// Shapes no machine holds are refused with the extent, never counted with
// wrapped products (a head dim of 2^62 divided by zero in the tile choice; a
// GQA group of 2^61 left the decode chooser with no finite prediction and
// crashed; batch dims whose product wraps were counted as a small batch).

func.func @head_dim_2_pow_62(%q: tensor<16x4611686018427387904xf32>) -> tensor<16x4611686018427387904xf32> {
  // expected-error @+1 {{io-cost failed: d = 4611686018427387904 exceeds 2^40, beyond what the cost model counts}}
  %o = attn.attention %q, %q, %q scale(1.0) : tensor<16x4611686018427387904xf32>, tensor<16x4611686018427387904xf32>, tensor<16x4611686018427387904xf32> -> tensor<16x4611686018427387904xf32>
  return %o : tensor<16x4611686018427387904xf32>
}

// -----

func.func @gqa_group_2_pow_61(%q: tensor<1x2305843009213693952x16x128xf16>, %k: tensor<1x1x4096x128xf16>) -> tensor<1x2305843009213693952x16x128xf16> {
  // expected-error @+1 {{io-cost failed: Hq = 2305843009213693952 exceeds 2^40, beyond what the cost model counts}}
  %o = attn.attention %q, %k, %k scale(0.125) : tensor<1x2305843009213693952x16x128xf16>, tensor<1x1x4096x128xf16>, tensor<1x1x4096x128xf16> -> tensor<1x2305843009213693952x16x128xf16>
  return %o : tensor<1x2305843009213693952x16x128xf16>
}

// -----

func.func @batch_product_wraps(%q: tensor<4294967296x4294967297x1x4x16xf16>) -> tensor<4294967296x4294967297x1x4x16xf16> {
  // expected-error @+1 {{io-cost failed: batch = 9223372036854775807 exceeds 2^40, beyond what the cost model counts}}
  %o = attn.attention %q, %q, %q scale(0.25) : tensor<4294967296x4294967297x1x4x16xf16>, tensor<4294967296x4294967297x1x4x16xf16>, tensor<4294967296x4294967297x1x4x16xf16> -> tensor<4294967296x4294967297x1x4x16xf16>
  return %o : tensor<4294967296x4294967297x1x4x16xf16>
}

// -----

func.func @tensors_beyond_2_pow_62_elements(%q: tensor<1048576x1048576x4096x64xf16>) -> tensor<1048576x1048576x4096x64xf16> {
  // expected-error @+1 {{io-cost failed: the attention's tensors exceed 2^62 elements, beyond what the cost model counts}}
  %o = attn.attention %q, %q, %q scale(0.125) : tensor<1048576x1048576x4096x64xf16>, tensor<1048576x1048576x4096x64xf16>, tensor<1048576x1048576x4096x64xf16> -> tensor<1048576x1048576x4096x64xf16>
  return %o : tensor<1048576x1048576x4096x64xf16>
}

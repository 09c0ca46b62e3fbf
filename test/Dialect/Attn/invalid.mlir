// RUN: attn-opt %s -split-input-file -verify-diagnostics
// One case per verifier error of the attn dialect's ops (score_mod regions:
// invalid-score-mod.mlir; attributes: invalid-attrs.mlir).

func.func @matmul_rank1(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{operands must have rank >= 2, got 1}}
  %0 = attn.matmul %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @matmul_rank_mismatch(%a: tensor<4x4xf32>, %b: tensor<1x4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{lhs, rhs and result must have the same rank, got 2, 3 and 2}}
  %0 = attn.matmul %a, %b : tensor<4x4xf32>, tensor<1x4x4xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @matmul_elt_mismatch(%a: tensor<4x4xf16>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{lhs and rhs element types differ: 'f16' vs 'f32'}}
  %0 = attn.matmul %a, %b : tensor<4x4xf16>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @matmul_result_elt(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf16> {
  // expected-error @+1 {{result element type must be the operand type or f32, got 'f16'}}
  %0 = attn.matmul %a, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf16>
  return %0 : tensor<4x4xf16>
}

// -----

func.func @matmul_batch(%a: tensor<2x4x4xf32>, %b: tensor<3x4x4xf32>) -> tensor<2x4x4xf32> {
  // expected-error @+1 {{batch dim 0 differs between operands}}
  %0 = attn.matmul %a, %b : tensor<2x4x4xf32>, tensor<3x4x4xf32> -> tensor<2x4x4xf32>
  return %0 : tensor<2x4x4xf32>
}

// -----

func.func @matmul_contraction(%q: tensor<16x8xf32>, %k: tensor<32x8xf32>) -> tensor<16x32xf32> {
  // A forgotten transpose_rhs: rhs is [Lk, d], not [d, Lk].
  // expected-error @+1 {{contraction dims differ: lhs has 8, rhs has 32}}
  %0 = attn.matmul %q, %k : tensor<16x8xf32>, tensor<32x8xf32> -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

func.func @matmul_result_shape(%q: tensor<16x8xf32>, %k: tensor<32x8xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{result must be 16x32 in its last two dims}}
  %0 = attn.matmul %q, %k transpose_rhs : tensor<16x8xf32>, tensor<32x8xf32> -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}

// -----

func.func @matmul_integer(%a: tensor<4x4xi32>, %b: tensor<4x4xi32>) -> tensor<4x4xi32> {
  // expected-error @+1 {{operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %0 = attn.matmul %a, %b : tensor<4x4xi32>, tensor<4x4xi32> -> tensor<4x4xi32>
  return %0 : tensor<4x4xi32>
}

// -----

func.func @mask_rank1(%s: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{scores must have rank >= 2, got 1}}
  %0 = attn.mask causal %s : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @mask_align_not_causal(%s: tensor<8x8xf32>, %m: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{`align` only applies to causal masks}}
  %0 = attn.mask additive %s, %m : tensor<8x8xf32> align top_left : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @mask_causal_with_tensor(%s: tensor<8x8xf32>, %m: tensor<8x8xi1>) -> tensor<8x8xf32> {
  // expected-error @+1 {{a causal mask takes no mask tensor}}
  %0 = attn.mask causal %s, %m : tensor<8x8xi1> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @mask_missing_tensor(%s: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{a keep mask needs a mask tensor}}
  %0 = attn.mask keep %s : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @mask_keep_not_i1(%s: tensor<8x8xf32>, %m: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{a keep mask must have i1 elements, got 'f32'}}
  %0 = attn.mask keep %s, %m : tensor<8x8xf32> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @mask_additive_type(%s: tensor<8x8xf32>, %m: tensor<8x8xf16>) -> tensor<8x8xf32> {
  // expected-error @+1 {{an additive mask must have the scores' element type 'f32', got 'f16'}}
  %0 = attn.mask additive %s, %m : tensor<8x8xf16> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @mask_rank(%s: tensor<2x8x8xf32>, %m: tensor<8x8xf32>) -> tensor<2x8x8xf32> {
  // expected-error @+1 {{mask must have rank 3 to broadcast against the scores, got rank 2}}
  %0 = attn.mask additive %s, %m : tensor<8x8xf32> : tensor<2x8x8xf32>
  return %0 : tensor<2x8x8xf32>
}

// -----

func.func @mask_dim(%s: tensor<2x8x8xf32>, %m: tensor<2x4x8xf32>) -> tensor<2x8x8xf32> {
  // expected-error @+1 {{mask dim 1 is 4 but must be 1 or 8}}
  %0 = attn.mask additive %s, %m : tensor<2x4x8xf32> : tensor<2x8x8xf32>
  return %0 : tensor<2x8x8xf32>
}

// -----

func.func @softmax_dim(%s: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{dim 2 is out of range for rank 2}}
  %0 = attn.softmax %s dim 2 : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @attention_rank1(%q: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{query must have rank >= 2 ([..., L, d]), got 1}}
  %0 = attn.attention %q, %q, %q scale(1.0) : tensor<8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @attention_rank_mismatch(%q: tensor<8x4xf32>, %k: tensor<1x8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{query, key, value and result must have the same rank}}
  %0 = attn.attention %q, %k, %k scale(1.0) : tensor<8x4xf32>, tensor<1x8x4xf32>, tensor<1x8x4xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @attention_elt(%q: tensor<8x4xf16>, %k: tensor<8x4xf32>) -> tensor<8x4xf16> {
  // expected-error @+1 {{query, key and value must share an element type}}
  %0 = attn.attention %q, %k, %k scale(1.0) : tensor<8x4xf16>, tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf16>
  return %0 : tensor<8x4xf16>
}

// -----

func.func @attention_result_elt(%q: tensor<8x4xf16>) -> tensor<8x4xf32> {
  // expected-error @+1 {{result element type must be 'f16'}}
  %0 = attn.attention %q, %q, %q scale(1.0) : tensor<8x4xf16>, tensor<8x4xf16>, tensor<8x4xf16> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// FP8 inputs: the result is f16, bf16 or f32 (an 8-bit result fails the
// result's type constraint).
func.func @attention_fp8_result(%q: tensor<8x4xf8E4M3FN>) -> tensor<8x4xf64> {
  // expected-error @+1 {{result element type must be f16, bf16 or f32 for 'f8E4M3FN' inputs, got 'f64'}}
  %0 = attn.attention %q, %q, %q scale(1.0) : tensor<8x4xf8E4M3FN>, tensor<8x4xf8E4M3FN>, tensor<8x4xf8E4M3FN> -> tensor<8x4xf64>
  return %0 : tensor<8x4xf64>
}

// -----

func.func @attention_fp8_result_8bit(%q: tensor<8x4xf8E5M2>) -> tensor<8x4xf8E5M2> {
  // expected-error @+1 {{result #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %0 = attn.attention %q, %q, %q scale(1.0) : tensor<8x4xf8E5M2>, tensor<8x4xf8E5M2>, tensor<8x4xf8E5M2> -> tensor<8x4xf8E5M2>
  return %0 : tensor<8x4xf8E5M2>
}

// -----

func.func @attention_fp8_mixed(%q: tensor<8x4xf8E4M3FN>, %v: tensor<8x4xf8E5M2>) -> tensor<8x4xbf16> {
  // expected-error @+1 {{query, key and value must share an element type}}
  %0 = attn.attention %q, %q, %v scale(1.0) : tensor<8x4xf8E4M3FN>, tensor<8x4xf8E4M3FN>, tensor<8x4xf8E5M2> -> tensor<8x4xbf16>
  return %0 : tensor<8x4xbf16>
}

// -----

func.func @attention_descale_count(%q: tensor<8x4xf8E4M3FN>, %s: tensor<f32>) -> tensor<8x4xbf16> {
  // expected-error @+1 {{descale takes three factors (query, key, value), got 2}}
  %0 = attn.attention %q, %q, %q descale(%s, %s : tensor<f32>, tensor<f32>) scale(1.0) : tensor<8x4xf8E4M3FN>, tensor<8x4xf8E4M3FN>, tensor<8x4xf8E4M3FN> -> tensor<8x4xbf16>
  return %0 : tensor<8x4xbf16>
}

// -----

func.func @attention_descale_not_fp8(%q: tensor<8x4xf16>, %s: tensor<f32>) -> tensor<8x4xf16> {
  // expected-error @+1 {{descale factors apply to 8-bit float inputs only, got 'f16' inputs}}
  %0 = attn.attention %q, %q, %q descale(%s, %s, %s : tensor<f32>, tensor<f32>, tensor<f32>) scale(1.0) : tensor<8x4xf16>, tensor<8x4xf16>, tensor<8x4xf16> -> tensor<8x4xf16>
  return %0 : tensor<8x4xf16>
}

// -----

// A descale factor is one f32 per tensor (0-d).
func.func @attention_descale_shape(%q: tensor<8x4xf8E4M3FN>, %s: tensor<1xf32>) -> tensor<8x4xbf16> {
  // expected-error @+1 {{operand #3 must be variadic of 0D tensor of 32-bit float values}}
  %0 = attn.attention %q, %q, %q descale(%s, %s, %s : tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) scale(1.0) : tensor<8x4xf8E4M3FN>, tensor<8x4xf8E4M3FN>, tensor<8x4xf8E4M3FN> -> tensor<8x4xbf16>
  return %0 : tensor<8x4xbf16>
}

// -----

// Other 8-bit floats (E4M3 with infinities, E8M0 scales) are not attention inputs.
func.func @attention_fp8_other(%q: tensor<8x4xf8E4M3>) -> tensor<8x4xbf16> {
  // expected-error @+1 {{operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or f8E4M3FN type or f8E5M2 type values}}
  %0 = attn.attention %q, %q, %q scale(1.0) : tensor<8x4xf8E4M3>, tensor<8x4xf8E4M3>, tensor<8x4xf8E4M3> -> tensor<8x4xbf16>
  return %0 : tensor<8x4xbf16>
}

// -----

func.func @attention_empty(%q: tensor<0x4xf32>, %k: tensor<8x4xf32>) -> tensor<0x4xf32> {
  // expected-error @+1 {{query has an empty dim 0}}
  %0 = attn.attention %q, %k, %k scale(1.0) : tensor<0x4xf32>, tensor<8x4xf32>, tensor<8x4xf32> -> tensor<0x4xf32>
  return %0 : tensor<0x4xf32>
}

// -----

func.func @attention_head_dim(%q: tensor<8x4xf32>, %k: tensor<8x5xf32>) -> tensor<8x5xf32> {
  // expected-error @+1 {{key head dim 5 differs from query head dim 4}}
  %0 = attn.attention %q, %k, %k scale(1.0) : tensor<8x4xf32>, tensor<8x5xf32>, tensor<8x5xf32> -> tensor<8x5xf32>
  return %0 : tensor<8x5xf32>
}

// -----

func.func @attention_value_len(%q: tensor<8x4xf32>, %k: tensor<8x4xf32>, %v: tensor<9x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{value sequence length 9 differs from key length 8}}
  %0 = attn.attention %q, %k, %v scale(1.0) : tensor<8x4xf32>, tensor<8x4xf32>, tensor<9x4xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @attention_batch(%q: tensor<2x4x8x4xf32>, %k: tensor<3x4x8x4xf32>) -> tensor<2x4x8x4xf32> {
  // expected-error @+1 {{batch dim 0 differs between query, key and value}}
  %0 = attn.attention %q, %k, %k scale(1.0) : tensor<2x4x8x4xf32>, tensor<3x4x8x4xf32>, tensor<3x4x8x4xf32> -> tensor<2x4x8x4xf32>
  return %0 : tensor<2x4x8x4xf32>
}

// -----

func.func @attention_kv_heads(%q: tensor<4x8x4xf32>, %k: tensor<2x8x4xf32>, %v: tensor<1x8x4xf32>) -> tensor<4x8x4xf32> {
  // expected-error @+1 {{key and value head counts differ: 2 vs 1}}
  %0 = attn.attention %q, %k, %v scale(1.0) : tensor<4x8x4xf32>, tensor<2x8x4xf32>, tensor<1x8x4xf32> -> tensor<4x8x4xf32>
  return %0 : tensor<4x8x4xf32>
}

// -----

func.func @attention_gqa_ratio(%q: tensor<6x8x4xf32>, %k: tensor<4x8x4xf32>) -> tensor<6x8x4xf32> {
  // expected-error @+1 {{query heads (6) must be a multiple of key/value heads (4)}}
  %0 = attn.attention %q, %k, %k scale(1.0) : tensor<6x8x4xf32>, tensor<4x8x4xf32>, tensor<4x8x4xf32> -> tensor<6x8x4xf32>
  return %0 : tensor<6x8x4xf32>
}

// -----

func.func @attention_result_dim(%q: tensor<8x4xf32>, %v: tensor<8x6xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{result dim 1 must be 6, got 4}}
  %0 = attn.attention %q, %q, %v scale(1.0) : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x6xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @attention_mask_type(%q: tensor<8x4xf32>, %m: tensor<8x8xi8>) -> tensor<8x4xf32> {
  // expected-error @+1 {{operand #3 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 1-bit signless integer values}}
  %0 = attn.attention %q, %q, %q mask(%m : tensor<8x8xi8>) scale(1.0) : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @attention_mask_i32(%q: tensor<8x4xf32>, %m: tensor<8x8xi32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{operand #3 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 1-bit signless integer values}}
  %0 = attn.attention %q, %q, %q mask(%m : tensor<8x8xi32>) scale(1.0) : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @attention_mask_shape(%q: tensor<2x8x4xf32>, %m: tensor<2x8x7xf32>) -> tensor<2x8x4xf32> {
  // expected-error @+1 {{mask dim 2 is 7 but must be 1 or 8}}
  %0 = attn.attention %q, %q, %q mask(%m : tensor<2x8x7xf32>) scale(1.0) : tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32> -> tensor<2x8x4xf32>
  return %0 : tensor<2x8x4xf32>
}

// -----

func.func @attention_scale(%q: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{scale must be finite}}
  %0 = attn.attention %q, %q, %q scale(0x7FF0000000000000) : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @online_rank(%q: tensor<1x8x4xf32>, %acc: tensor<8x4xf32>, %m: tensor<8xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{query, key and value tiles must be rank 2}}
  %a, %b, %c = attn.online_attention %q, %q, %q scale(1.0) outs(%acc, %m, %m) : tensor<1x8x4xf32>, tensor<1x8x4xf32>, tensor<1x8x4xf32> -> tensor<8x4xf32>, tensor<8xf32>, tensor<8xf32>
  return %a : tensor<8x4xf32>
}

// -----

func.func @online_elt(%q: tensor<8x4xf16>, %k: tensor<8x4xf32>, %acc: tensor<8x4xf32>, %m: tensor<8xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{query, key and value tiles must share an element type}}
  %a, %b, %c = attn.online_attention %q, %k, %k scale(1.0) outs(%acc, %m, %m) : tensor<8x4xf16>, tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>, tensor<8xf32>, tensor<8xf32>
  return %a : tensor<8x4xf32>
}

// -----

func.func @online_state_f32_for_f64(%q: tensor<8x4xf64>, %acc: tensor<8x4xf32>, %m: tensor<8xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{acc, max and sum must be 'f64' for 'f64' tiles}}
  %a, %b, %c = attn.online_attention %q, %q, %q scale(1.0) outs(%acc, %m, %m) : tensor<8x4xf64>, tensor<8x4xf64>, tensor<8x4xf64> -> tensor<8x4xf32>, tensor<8xf32>, tensor<8xf32>
  return %a : tensor<8x4xf32>
}

// -----

func.func @online_head_dim(%q: tensor<8x4xf32>, %k: tensor<8x5xf32>, %acc: tensor<8x5xf32>, %m: tensor<8xf32>) -> tensor<8x5xf32> {
  // expected-error @+1 {{query and key tiles have different head dims}}
  %a, %b, %c = attn.online_attention %q, %k, %k scale(1.0) outs(%acc, %m, %m) : tensor<8x4xf32>, tensor<8x5xf32>, tensor<8x5xf32> -> tensor<8x5xf32>, tensor<8xf32>, tensor<8xf32>
  return %a : tensor<8x5xf32>
}

// -----

func.func @online_kv_len(%q: tensor<8x4xf32>, %v: tensor<6x4xf32>, %acc: tensor<8x4xf32>, %m: tensor<8xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{key and value tiles have different lengths}}
  %a, %b, %c = attn.online_attention %q, %q, %v scale(1.0) outs(%acc, %m, %m) : tensor<8x4xf32>, tensor<8x4xf32>, tensor<6x4xf32> -> tensor<8x4xf32>, tensor<8xf32>, tensor<8xf32>
  return %a : tensor<8x4xf32>
}

// -----

func.func @online_acc(%q: tensor<8x4xf32>, %acc: tensor<8x3xf32>, %m: tensor<8xf32>) -> tensor<8x3xf32> {
  // expected-error @+1 {{acc must be 8x4}}
  %a, %b, %c = attn.online_attention %q, %q, %q scale(1.0) outs(%acc, %m, %m) : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x3xf32>, tensor<8xf32>, tensor<8xf32>
  return %a : tensor<8x3xf32>
}

// -----

func.func @online_state(%q: tensor<8x4xf32>, %acc: tensor<8x4xf32>, %m: tensor<7xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{max and sum must be rank-1 with 8 rows}}
  %a, %b, %c = attn.online_attention %q, %q, %q scale(1.0) outs(%acc, %m, %m) : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>, tensor<7xf32>, tensor<7xf32>
  return %a : tensor<8x4xf32>
}

// -----

func.func @online_state_f16(%q: tensor<8x4xf32>, %acc: tensor<8x4xf16>, %m: tensor<8xf32>) -> tensor<8x4xf16> {
  // The running state is f32 whatever the inputs are.
  // expected-error @+1 {{operand #3 must be ranked tensor of 32-bit float or 64-bit float values}}
  %a, %b, %c = attn.online_attention %q, %q, %q scale(1.0) outs(%acc, %m, %m) : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf16>, tensor<8xf32>, tensor<8xf32>
  return %a : tensor<8x4xf16>
}

// -----

func.func @online_mask_shape(%q: tensor<8x4xf32>, %acc: tensor<8x4xf32>, %m: tensor<8xf32>, %mask: tensor<8x6xi1>) -> tensor<8x4xf32> {
  // expected-error @+1 {{mask tile must be 8x8}}
  %a, %b, %c = attn.online_attention %q, %q, %q mask(%mask : tensor<8x6xi1>) scale(1.0) outs(%acc, %m, %m) : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>, tensor<8xf32>, tensor<8xf32>
  return %a : tensor<8x4xf32>
}

// -----

// attn ops need SSA dominance: a module body is a graph region, where an op
// may use its own result (a cycle that no lowering can compute; the fuzzer
// found the canonicalizer spinning on one).
// expected-error @+1 {{'attn.mask' op must be in a region with SSA dominance (a function or loop body), not a graph region}}
%cycle = attn.mask causal %cycle align top_left : tensor<2x4x8x8xf32>

// -----

func.func @paged_query_rank(%q: tensor<8x1x64xf16>, %k: tensor<4x16x2x64xf16>, %v: tensor<4x16x2x64xf16>, %t: tensor<2x4xi32>, %l: tensor<2xi32>) -> tensor<8x1x64xf16> {
  // expected-error @+1 {{query and result must be [B, Hq, Lq, d], got rank 3 and 3}}
  %o = attn.paged_attention %q, %k, %v pages(%t, %l) scale(1.0) : tensor<8x1x64xf16>, tensor<4x16x2x64xf16>, tensor<4x16x2x64xf16>, tensor<2x4xi32>, tensor<2xi32> -> tensor<8x1x64xf16>
  return %o : tensor<8x1x64xf16>
}

// -----

func.func @paged_cache_rank(%q: tensor<2x8x1x64xf16>, %k: tensor<64x2x64xf16>, %v: tensor<4x16x2x64xf16>, %t: tensor<2x4xi32>, %l: tensor<2xi32>) -> tensor<2x8x1x64xf16> {
  // expected-error @+1 {{key and value caches must be [pages, page_size, Hkv, d], got rank 3 and 4}}
  %o = attn.paged_attention %q, %k, %v pages(%t, %l) scale(1.0) : tensor<2x8x1x64xf16>, tensor<64x2x64xf16>, tensor<4x16x2x64xf16>, tensor<2x4xi32>, tensor<2xi32> -> tensor<2x8x1x64xf16>
  return %o : tensor<2x8x1x64xf16>
}

// -----

func.func @paged_table_rank(%q: tensor<2x8x1x64xf16>, %k: tensor<4x16x2x64xf16>, %v: tensor<4x16x2x64xf16>, %t: tensor<8xi32>, %l: tensor<2xi32>) -> tensor<2x8x1x64xf16> {
  // expected-error @+1 {{block table must be [B, max_pages], got rank 1}}
  %o = attn.paged_attention %q, %k, %v pages(%t, %l) scale(1.0) : tensor<2x8x1x64xf16>, tensor<4x16x2x64xf16>, tensor<4x16x2x64xf16>, tensor<8xi32>, tensor<2xi32> -> tensor<2x8x1x64xf16>
  return %o : tensor<2x8x1x64xf16>
}

// -----

func.func @paged_lens_rank(%q: tensor<2x8x1x64xf16>, %k: tensor<4x16x2x64xf16>, %v: tensor<4x16x2x64xf16>, %t: tensor<2x4xi32>, %l: tensor<2x1xi32>) -> tensor<2x8x1x64xf16> {
  // expected-error @+1 {{sequence lengths must be [B], got rank 2}}
  %o = attn.paged_attention %q, %k, %v pages(%t, %l) scale(1.0) : tensor<2x8x1x64xf16>, tensor<4x16x2x64xf16>, tensor<4x16x2x64xf16>, tensor<2x4xi32>, tensor<2x1xi32> -> tensor<2x8x1x64xf16>
  return %o : tensor<2x8x1x64xf16>
}

// -----

func.func @paged_element_types(%q: tensor<2x8x1x64xf16>, %k: tensor<4x16x2x64xbf16>, %v: tensor<4x16x2x64xbf16>, %t: tensor<2x4xi32>, %l: tensor<2xi32>) -> tensor<2x8x1x64xf16> {
  // expected-error @+1 {{query, key cache and value cache must share an element type}}
  %o = attn.paged_attention %q, %k, %v pages(%t, %l) scale(1.0) : tensor<2x8x1x64xf16>, tensor<4x16x2x64xbf16>, tensor<4x16x2x64xbf16>, tensor<2x4xi32>, tensor<2xi32> -> tensor<2x8x1x64xf16>
  return %o : tensor<2x8x1x64xf16>
}

// -----

func.func @paged_result_type(%q: tensor<2x8x1x64xf16>, %k: tensor<4x16x2x64xf16>, %v: tensor<4x16x2x64xf16>, %t: tensor<2x4xi32>, %l: tensor<2xi32>) -> tensor<2x8x1x64xf32> {
  // expected-error @+1 {{result element type must be 'f16'}}
  %o = attn.paged_attention %q, %k, %v pages(%t, %l) scale(1.0) : tensor<2x8x1x64xf16>, tensor<4x16x2x64xf16>, tensor<4x16x2x64xf16>, tensor<2x4xi32>, tensor<2xi32> -> tensor<2x8x1x64xf32>
  return %o : tensor<2x8x1x64xf32>
}

// -----

func.func @paged_empty_table(%q: tensor<2x8x1x64xf16>, %k: tensor<4x16x2x64xf16>, %v: tensor<4x16x2x64xf16>, %t: tensor<2x0xi32>, %l: tensor<2xi32>) -> tensor<2x8x1x64xf16> {
  // expected-error @+1 {{block table has an empty dim 1}}
  %o = attn.paged_attention %q, %k, %v pages(%t, %l) scale(1.0) : tensor<2x8x1x64xf16>, tensor<4x16x2x64xf16>, tensor<4x16x2x64xf16>, tensor<2x0xi32>, tensor<2xi32> -> tensor<2x8x1x64xf16>
  return %o : tensor<2x8x1x64xf16>
}

// -----

func.func @paged_caches_differ(%q: tensor<2x8x1x64xf16>, %k: tensor<4x16x2x64xf16>, %v: tensor<4x32x2x64xf16>, %t: tensor<2x4xi32>, %l: tensor<2xi32>) -> tensor<2x8x1x64xf16> {
  // expected-error @+1 {{key and value caches differ in dim 1: 16 vs 32}}
  %o = attn.paged_attention %q, %k, %v pages(%t, %l) scale(1.0) : tensor<2x8x1x64xf16>, tensor<4x16x2x64xf16>, tensor<4x32x2x64xf16>, tensor<2x4xi32>, tensor<2xi32> -> tensor<2x8x1x64xf16>
  return %o : tensor<2x8x1x64xf16>
}

// -----

func.func @paged_head_dim(%q: tensor<2x8x1x64xf16>, %k: tensor<4x16x2x32xf16>, %v: tensor<4x16x2x64xf16>, %t: tensor<2x4xi32>, %l: tensor<2xi32>) -> tensor<2x8x1x64xf16> {
  // expected-error @+1 {{key head dim 32 differs from query head dim 64}}
  %o = attn.paged_attention %q, %k, %v pages(%t, %l) scale(1.0) : tensor<2x8x1x64xf16>, tensor<4x16x2x32xf16>, tensor<4x16x2x64xf16>, tensor<2x4xi32>, tensor<2xi32> -> tensor<2x8x1x64xf16>
  return %o : tensor<2x8x1x64xf16>
}

// -----

func.func @paged_batch(%q: tensor<2x8x1x64xf16>, %k: tensor<4x16x2x64xf16>, %v: tensor<4x16x2x64xf16>, %t: tensor<3x4xi32>, %l: tensor<2xi32>) -> tensor<2x8x1x64xf16> {
  // expected-error @+1 {{block table and sequence lengths must have one row per batch entry (2), got 3 and 2}}
  %o = attn.paged_attention %q, %k, %v pages(%t, %l) scale(1.0) : tensor<2x8x1x64xf16>, tensor<4x16x2x64xf16>, tensor<4x16x2x64xf16>, tensor<3x4xi32>, tensor<2xi32> -> tensor<2x8x1x64xf16>
  return %o : tensor<2x8x1x64xf16>
}

// -----

func.func @paged_heads(%q: tensor<2x6x1x64xf16>, %k: tensor<4x16x4x64xf16>, %v: tensor<4x16x4x64xf16>, %t: tensor<2x4xi32>, %l: tensor<2xi32>) -> tensor<2x6x1x64xf16> {
  // expected-error @+1 {{query heads (6) must be a multiple of key/value heads (4)}}
  %o = attn.paged_attention %q, %k, %v pages(%t, %l) scale(1.0) : tensor<2x6x1x64xf16>, tensor<4x16x4x64xf16>, tensor<4x16x4x64xf16>, tensor<2x4xi32>, tensor<2xi32> -> tensor<2x6x1x64xf16>
  return %o : tensor<2x6x1x64xf16>
}

// -----

func.func @paged_result_dim(%q: tensor<2x8x1x64xf16>, %k: tensor<4x16x2x64xf16>, %v: tensor<4x16x2x32xf16>, %t: tensor<2x4xi32>, %l: tensor<2xi32>) -> tensor<2x8x1x64xf16> {
  // expected-error @+1 {{result dim 3 must be 32, got 64}}
  %o = attn.paged_attention %q, %k, %v pages(%t, %l) scale(1.0) : tensor<2x8x1x64xf16>, tensor<4x16x2x64xf16>, tensor<4x16x2x32xf16>, tensor<2x4xi32>, tensor<2xi32> -> tensor<2x8x1x64xf16>
  return %o : tensor<2x8x1x64xf16>
}

// -----

func.func @paged_capacity(%q: tensor<2x8x1x64xf16>, %k: tensor<4x65536x2x64xf16>, %v: tensor<4x65536x2x64xf16>, %t: tensor<2x65536xi32>, %l: tensor<2xi32>) -> tensor<2x8x1x64xf16> {
  // expected-error @+1 {{max_pages · page_size must fit the i32 sequence lengths, got 4294967296}}
  %o = attn.paged_attention %q, %k, %v pages(%t, %l) scale(1.0) : tensor<2x8x1x64xf16>, tensor<4x65536x2x64xf16>, tensor<4x65536x2x64xf16>, tensor<2x65536xi32>, tensor<2xi32> -> tensor<2x8x1x64xf16>
  return %o : tensor<2x8x1x64xf16>
}

// -----

func.func @paged_scale_inf(%q: tensor<2x8x1x64xf16>, %k: tensor<4x16x2x64xf16>, %v: tensor<4x16x2x64xf16>, %t: tensor<2x4xi32>, %l: tensor<2xi32>) -> tensor<2x8x1x64xf16> {
  // expected-error @+1 {{scale must be finite}}
  %o = attn.paged_attention %q, %k, %v pages(%t, %l) scale(0x7FF0000000000000) : tensor<2x8x1x64xf16>, tensor<4x16x2x64xf16>, tensor<4x16x2x64xf16>, tensor<2x4xi32>, tensor<2xi32> -> tensor<2x8x1x64xf16>
  return %o : tensor<2x8x1x64xf16>
}

// -----

func.func @paged_table_element_type(%q: tensor<2x8x1x64xf16>, %k: tensor<4x16x2x64xf16>, %v: tensor<4x16x2x64xf16>, %t: tensor<2x4xi64>, %l: tensor<2xi32>) -> tensor<2x8x1x64xf16> {
  // expected-error @+1 {{operand #3 must be ranked tensor of 32-bit signless integer values}}
  %o = attn.paged_attention %q, %k, %v pages(%t, %l) scale(1.0) : tensor<2x8x1x64xf16>, tensor<4x16x2x64xf16>, tensor<4x16x2x64xf16>, tensor<2x4xi64>, tensor<2xi32> -> tensor<2x8x1x64xf16>
  return %o : tensor<2x8x1x64xf16>
}

// -----

func.func @varlen_rank(%q: tensor<2x8x1x64xf16>, %k: tensor<16x2x64xf16>, %v: tensor<16x2x64xf16>, %cq: tensor<3xi32>, %ck: tensor<3xi32>) -> tensor<2x8x1x64xf16> {
  // expected-error @+1 {{query, key, value and result must be packed as [tokens, heads, d]}}
  %o = attn.varlen_attention %q, %k, %v seqlens(%cq, %ck) scale(1.0) : tensor<2x8x1x64xf16>, tensor<16x2x64xf16>, tensor<16x2x64xf16>, tensor<3xi32>, tensor<3xi32> -> tensor<2x8x1x64xf16>
  return %o : tensor<2x8x1x64xf16>
}

// -----

func.func @varlen_cu_rank(%q: tensor<16x8x64xf16>, %k: tensor<16x2x64xf16>, %v: tensor<16x2x64xf16>, %cq: tensor<1x3xi32>, %ck: tensor<3xi32>) -> tensor<16x8x64xf16> {
  // expected-error @+1 {{cumulative sequence lengths must be [B + 1], got rank 2 and 1}}
  %o = attn.varlen_attention %q, %k, %v seqlens(%cq, %ck) scale(1.0) : tensor<16x8x64xf16>, tensor<16x2x64xf16>, tensor<16x2x64xf16>, tensor<1x3xi32>, tensor<3xi32> -> tensor<16x8x64xf16>
  return %o : tensor<16x8x64xf16>
}

// -----

func.func @varlen_cu_sizes(%q: tensor<16x8x64xf16>, %k: tensor<16x2x64xf16>, %v: tensor<16x2x64xf16>, %cq: tensor<3xi32>, %ck: tensor<4xi32>) -> tensor<16x8x64xf16> {
  // expected-error @+1 {{cu_seqlens_q and cu_seqlens_k must both have B + 1 entries, got 3 and 4}}
  %o = attn.varlen_attention %q, %k, %v seqlens(%cq, %ck) scale(1.0) : tensor<16x8x64xf16>, tensor<16x2x64xf16>, tensor<16x2x64xf16>, tensor<3xi32>, tensor<4xi32> -> tensor<16x8x64xf16>
  return %o : tensor<16x8x64xf16>
}

// -----

func.func @varlen_cu_empty(%q: tensor<16x8x64xf16>, %k: tensor<16x2x64xf16>, %v: tensor<16x2x64xf16>, %cq: tensor<0xi32>, %ck: tensor<0xi32>) -> tensor<16x8x64xf16> {
  // expected-error @+1 {{cumulative sequence lengths need B + 1 >= 1 entries, got 0}}
  %o = attn.varlen_attention %q, %k, %v seqlens(%cq, %ck) scale(1.0) : tensor<16x8x64xf16>, tensor<16x2x64xf16>, tensor<16x2x64xf16>, tensor<0xi32>, tensor<0xi32> -> tensor<16x8x64xf16>
  return %o : tensor<16x8x64xf16>
}

// -----

func.func @varlen_element_types(%q: tensor<16x8x64xf16>, %k: tensor<16x2x64xbf16>, %v: tensor<16x2x64xf16>, %cq: tensor<3xi32>, %ck: tensor<3xi32>) -> tensor<16x8x64xf16> {
  // expected-error @+1 {{query, key and value must share an element type}}
  %o = attn.varlen_attention %q, %k, %v seqlens(%cq, %ck) scale(1.0) : tensor<16x8x64xf16>, tensor<16x2x64xbf16>, tensor<16x2x64xf16>, tensor<3xi32>, tensor<3xi32> -> tensor<16x8x64xf16>
  return %o : tensor<16x8x64xf16>
}

// -----

func.func @varlen_result_type(%q: tensor<16x8x64xf16>, %k: tensor<16x2x64xf16>, %v: tensor<16x2x64xf16>, %cq: tensor<3xi32>, %ck: tensor<3xi32>) -> tensor<16x8x64xf32> {
  // expected-error @+1 {{result element type must be 'f16'}}
  %o = attn.varlen_attention %q, %k, %v seqlens(%cq, %ck) scale(1.0) : tensor<16x8x64xf16>, tensor<16x2x64xf16>, tensor<16x2x64xf16>, tensor<3xi32>, tensor<3xi32> -> tensor<16x8x64xf32>
  return %o : tensor<16x8x64xf32>
}

// -----

func.func @varlen_empty_heads(%q: tensor<16x0x64xf16>, %k: tensor<16x2x64xf16>, %v: tensor<16x2x64xf16>, %cq: tensor<3xi32>, %ck: tensor<3xi32>) -> tensor<16x0x64xf16> {
  // expected-error @+1 {{query has an empty dim 1}}
  %o = attn.varlen_attention %q, %k, %v seqlens(%cq, %ck) scale(1.0) : tensor<16x0x64xf16>, tensor<16x2x64xf16>, tensor<16x2x64xf16>, tensor<3xi32>, tensor<3xi32> -> tensor<16x0x64xf16>
  return %o : tensor<16x0x64xf16>
}

// -----

func.func @varlen_head_dim(%q: tensor<16x8x64xf16>, %k: tensor<16x2x32xf16>, %v: tensor<16x2x64xf16>, %cq: tensor<3xi32>, %ck: tensor<3xi32>) -> tensor<16x8x64xf16> {
  // expected-error @+1 {{key head dim 32 differs from query head dim 64}}
  %o = attn.varlen_attention %q, %k, %v seqlens(%cq, %ck) scale(1.0) : tensor<16x8x64xf16>, tensor<16x2x32xf16>, tensor<16x2x64xf16>, tensor<3xi32>, tensor<3xi32> -> tensor<16x8x64xf16>
  return %o : tensor<16x8x64xf16>
}

// -----

func.func @varlen_kv_tokens(%q: tensor<16x8x64xf16>, %k: tensor<16x2x64xf16>, %v: tensor<12x2x64xf16>, %cq: tensor<3xi32>, %ck: tensor<3xi32>) -> tensor<16x8x64xf16> {
  // expected-error @+1 {{key and value differ in dim 0: 16 vs 12}}
  %o = attn.varlen_attention %q, %k, %v seqlens(%cq, %ck) scale(1.0) : tensor<16x8x64xf16>, tensor<16x2x64xf16>, tensor<12x2x64xf16>, tensor<3xi32>, tensor<3xi32> -> tensor<16x8x64xf16>
  return %o : tensor<16x8x64xf16>
}

// -----

func.func @varlen_gqa(%q: tensor<16x6x64xf16>, %k: tensor<16x4x64xf16>, %v: tensor<16x4x64xf16>, %cq: tensor<3xi32>, %ck: tensor<3xi32>) -> tensor<16x6x64xf16> {
  // expected-error @+1 {{query heads (6) must be a multiple of key/value heads (4)}}
  %o = attn.varlen_attention %q, %k, %v seqlens(%cq, %ck) scale(1.0) : tensor<16x6x64xf16>, tensor<16x4x64xf16>, tensor<16x4x64xf16>, tensor<3xi32>, tensor<3xi32> -> tensor<16x6x64xf16>
  return %o : tensor<16x6x64xf16>
}

// -----

func.func @varlen_result_shape(%q: tensor<16x8x64xf16>, %k: tensor<16x2x64xf16>, %v: tensor<16x2x32xf16>, %cq: tensor<3xi32>, %ck: tensor<3xi32>) -> tensor<16x8x64xf16> {
  // expected-error @+1 {{result dim 2 must be 32, got 64}}
  %o = attn.varlen_attention %q, %k, %v seqlens(%cq, %ck) scale(1.0) : tensor<16x8x64xf16>, tensor<16x2x64xf16>, tensor<16x2x32xf16>, tensor<3xi32>, tensor<3xi32> -> tensor<16x8x64xf16>
  return %o : tensor<16x8x64xf16>
}

// -----

func.func @varlen_scale(%q: tensor<16x8x64xf16>, %k: tensor<16x2x64xf16>, %v: tensor<16x2x64xf16>, %cq: tensor<3xi32>, %ck: tensor<3xi32>) -> tensor<16x8x64xf16> {
  // expected-error @+1 {{scale must be finite}}
  %o = attn.varlen_attention %q, %k, %v seqlens(%cq, %ck) scale(0x7FF0000000000000) : tensor<16x8x64xf16>, tensor<16x2x64xf16>, tensor<16x2x64xf16>, tensor<3xi32>, tensor<3xi32> -> tensor<16x8x64xf16>
  return %o : tensor<16x8x64xf16>
}

// -----

func.func @varlen_cu_element_type(%q: tensor<16x8x64xf16>, %k: tensor<16x2x64xf16>, %v: tensor<16x2x64xf16>, %cq: tensor<3xi64>, %ck: tensor<3xi32>) -> tensor<16x8x64xf16> {
  // expected-error @+1 {{operand #3 must be ranked tensor of 32-bit signless integer values}}
  %o = attn.varlen_attention %q, %k, %v seqlens(%cq, %ck) scale(1.0) : tensor<16x8x64xf16>, tensor<16x2x64xf16>, tensor<16x2x64xf16>, tensor<3xi64>, tensor<3xi32> -> tensor<16x8x64xf16>
  return %o : tensor<16x8x64xf16>
}

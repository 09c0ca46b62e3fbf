// RUN: attn-opt %s -split-input-file --attn-lower-to-loops -verify-diagnostics
// The naive lowering needs static head counts (GQA maps divide by them); an
// op it cannot lower is reported, not left behind.

func.func @dynamic_heads(%q: tensor<?x16x8xf32>) -> tensor<?x16x8xf32> {
  // expected-error @+1 {{attn-lower-to-loops: the head counts must be static (GQA reads K/V head h / (Hq / Hkv)), got 'tensor<?x16x8xf32>' and 'tensor<?x16x8xf32>'}}
  %o = attn.attention %q, %q, %q scale(0.35) : tensor<?x16x8xf32>, tensor<?x16x8xf32>, tensor<?x16x8xf32> -> tensor<?x16x8xf32>
  return %o : tensor<?x16x8xf32>
}

// -----

func.func @paged_dynamic(%q: tensor<?x2x1x8xf32>, %kc: tensor<3x4x2x8xf32>, %vc: tensor<3x4x2x8xf32>, %t: tensor<?x3xi32>, %l: tensor<?xi32>) -> tensor<?x2x1x8xf32> {
  // expected-error @+1 {{attn-lower-to-loops: the page gathers need static shapes}}
  %o = attn.paged_attention %q, %kc, %vc pages(%t, %l) scale(1.0) : tensor<?x2x1x8xf32>, tensor<3x4x2x8xf32>, tensor<3x4x2x8xf32>, tensor<?x3xi32>, tensor<?xi32> -> tensor<?x2x1x8xf32>
  return %o : tensor<?x2x1x8xf32>
}

// -----

// The naive path cannot unpack a varlen batch with run-time head counts.
func.func @varlen_dynamic_heads(%q: tensor<8x?x16xf32>, %cq: tensor<3xi32>) -> tensor<8x?x16xf32> {
  // expected-error @+1 {{attn-lower-to-loops: the head counts must be static}}
  %o = attn.varlen_attention %q, %q, %q seqlens(%cq, %cq) scale(0.25) : tensor<8x?x16xf32>, tensor<8x?x16xf32>, tensor<8x?x16xf32>, tensor<3xi32>, tensor<3xi32> -> tensor<8x?x16xf32>
  return %o : tensor<8x?x16xf32>
}

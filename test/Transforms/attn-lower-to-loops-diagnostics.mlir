// RUN: attn-opt %s --attn-lower-to-loops -verify-diagnostics
// The naive lowering needs static head counts (GQA maps divide by them); an
// op it cannot lower is reported, not left behind.

func.func @dynamic_heads(%q: tensor<?x16x8xf32>) -> tensor<?x16x8xf32> {
  // expected-error @+1 {{failed to legalize operation 'attn.attention' that was explicitly marked illegal}}
  %o = attn.attention %q, %q, %q scale(0.35) : tensor<?x16x8xf32>, tensor<?x16x8xf32>, tensor<?x16x8xf32> -> tensor<?x16x8xf32>
  return %o : tensor<?x16x8xf32>
}

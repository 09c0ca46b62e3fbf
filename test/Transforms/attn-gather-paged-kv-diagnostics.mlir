// RUN: attn-opt %s -split-input-file --attn-gather-paged-kv -verify-diagnostics -o /dev/null

// Negative: the gathers need static shapes; the op stays and the pass fails.
func.func @dynamic(%q: tensor<?x2x1x8xf32>, %kc: tensor<3x4x2x8xf32>, %vc: tensor<3x4x2x8xf32>, %t: tensor<?x2xi32>, %l: tensor<?xi32>) -> tensor<?x2x1x8xf32> {
  // expected-error @+1 {{attn-gather-paged-kv: the gathers need static shapes}}
  %o = attn.paged_attention %q, %kc, %vc pages(%t, %l) scale(1.0) : tensor<?x2x1x8xf32>, tensor<3x4x2x8xf32>, tensor<3x4x2x8xf32>, tensor<?x2xi32>, tensor<?xi32> -> tensor<?x2x1x8xf32>
  return %o : tensor<?x2x1x8xf32>
}

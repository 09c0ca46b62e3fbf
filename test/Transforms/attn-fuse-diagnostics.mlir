// RUN: attn-opt %s --attn-fuse="block-q=-1" -verify-diagnostics

// expected-error @+1 {{attn-fuse: block-q and block-kv must be >= 0}}
func.func @negative_tile(%q: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %o = attn.attention %q, %q, %q scale(0.25) : tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32> -> tensor<64x16xf32>
  return %o : tensor<64x16xf32>
}

// A causal multi-head attention block as frameworks write it, in attn graph
// primitives (B=1, H=16, N=4096, d=64, bf16 inputs, f32 scores).
// `scripts/demo.sh` runs the pipeline on it.
func.func @unfused_block(%q: tensor<1x16x4096x64xbf16>, %k: tensor<1x16x4096x64xbf16>,
                         %v: tensor<1x16x4096x64xbf16>) -> tensor<1x16x4096x64xf32> {
  %s = attn.matmul %q, %k transpose_rhs
      : tensor<1x16x4096x64xbf16>, tensor<1x16x4096x64xbf16> -> tensor<1x16x4096x4096xf32>
  %s1 = attn.scale %s by 0.125 : tensor<1x16x4096x4096xf32>
  %s2 = attn.mask causal %s1 : tensor<1x16x4096x4096xf32>
  %p = attn.softmax %s2 dim 3 : tensor<1x16x4096x4096xf32>
  %vf = arith.extf %v : tensor<1x16x4096x64xbf16> to tensor<1x16x4096x64xf32>
  %o = attn.matmul %p, %vf
      : tensor<1x16x4096x4096xf32>, tensor<1x16x4096x64xf32> -> tensor<1x16x4096x64xf32>
  return %o : tensor<1x16x4096x64xf32>
}

// The same attention as one fused semantic op.
func.func @fused_block(%q: tensor<1x16x4096x64xbf16>, %k: tensor<1x16x4096x64xbf16>,
                       %v: tensor<1x16x4096x64xbf16>) -> tensor<1x16x4096x64xbf16> {
  %o = attn.attention %q, %k, %v scale(0.125) causal(top_left)
      : tensor<1x16x4096x64xbf16>, tensor<1x16x4096x64xbf16>, tensor<1x16x4096x64xbf16>
      -> tensor<1x16x4096x64xbf16>
  return %o : tensor<1x16x4096x64xbf16>
}

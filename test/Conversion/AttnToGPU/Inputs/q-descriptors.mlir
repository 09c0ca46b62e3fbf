// Attentions for attn-gpu-pipeline-q-descriptors-ptxas.test: d = 256 and
// d = 160 (16 and 10 k-steps: Q's descriptors rebuilt in the loop), causal
// with a partial last tile, and d = 128 (8 k-steps: left to LLVM).
func.func @d256(%q: tensor<1x2x1000x256xbf16>, %k: tensor<1x2x1000x256xbf16>, %v: tensor<1x2x1000x256xbf16>) -> tensor<1x2x1000x256xbf16> {
  %o = attn.attention %q, %k, %v scale(0.0625) causal(bottom_right) : tensor<1x2x1000x256xbf16>, tensor<1x2x1000x256xbf16>, tensor<1x2x1000x256xbf16> -> tensor<1x2x1000x256xbf16>
  return %o : tensor<1x2x1000x256xbf16>
}
func.func @d160(%q: tensor<1x2x1000x160xbf16>, %k: tensor<1x2x1000x160xbf16>, %v: tensor<1x2x1000x160xbf16>) -> tensor<1x2x1000x160xbf16> {
  %o = attn.attention %q, %k, %v scale(0.079) : tensor<1x2x1000x160xbf16>, tensor<1x2x1000x160xbf16>, tensor<1x2x1000x160xbf16> -> tensor<1x2x1000x160xbf16>
  return %o : tensor<1x2x1000x160xbf16>
}
func.func @d128(%q: tensor<1x2x1000x128xbf16>, %k: tensor<1x2x1000x128xbf16>, %v: tensor<1x2x1000x128xbf16>) -> tensor<1x2x1000x128xbf16> {
  %o = attn.attention %q, %k, %v scale(0.088) : tensor<1x2x1000x128xbf16>, tensor<1x2x1000x128xbf16>, tensor<1x2x1000x128xbf16> -> tensor<1x2x1000x128xbf16>
  return %o : tensor<1x2x1000x128xbf16>
}

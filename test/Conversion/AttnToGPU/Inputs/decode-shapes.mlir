// Decode and small-query shapes for attn-gpu-pipeline-decode-ptxas.test.
func.func @gqa8_d128(%q: tensor<1x64x1x128xbf16>, %kv: tensor<1x8x16384x128xbf16>) -> tensor<1x64x1x128xbf16> {
  %o = attn.attention %q, %kv, %kv scale(0.088) : tensor<1x64x1x128xbf16>, tensor<1x8x16384x128xbf16>, tensor<1x8x16384x128xbf16> -> tensor<1x64x1x128xbf16>
  return %o : tensor<1x64x1x128xbf16>
}
func.func @mha_d64_f16(%q: tensor<4x32x1x64xf16>, %kv: tensor<4x32x3000x64xf16>) -> tensor<4x32x1x64xf16> {
  %o = attn.attention %q, %kv, %kv scale(0.125) : tensor<4x32x1x64xf16>, tensor<4x32x3000x64xf16>, tensor<4x32x3000x64xf16> -> tensor<4x32x1x64xf16>
  return %o : tensor<4x32x1x64xf16>
}
func.func @draft4_causal_br_keep(%q: tensor<1x16x4x128xbf16>, %kv: tensor<1x2x2048x128xbf16>, %m: tensor<1x16x4x2048xi1>) -> tensor<1x16x4x128xbf16> {
  %o = attn.attention %q, %kv, %kv mask(%m : tensor<1x16x4x2048xi1>) scale(0.088) causal(bottom_right) : tensor<1x16x4x128xbf16>, tensor<1x2x2048x128xbf16>, tensor<1x2x2048x128xbf16> -> tensor<1x16x4x128xbf16>
  return %o : tensor<1x16x4x128xbf16>
}
func.func @batch64_gqa(%q: tensor<64x64x1x128xbf16>, %kv: tensor<64x8x4096x128xbf16>) -> tensor<64x64x1x128xbf16> {
  %o = attn.attention %q, %kv, %kv scale(0.088) : tensor<64x64x1x128xbf16>, tensor<64x8x4096x128xbf16>, tensor<64x8x4096x128xbf16> -> tensor<64x64x1x128xbf16>
  return %o : tensor<64x64x1x128xbf16>
}

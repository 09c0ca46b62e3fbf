// Paged decode shapes for attn-gpu-pipeline-paged-ptxas.test.
func.func @gqa_page16(%q: tensor<1x64x1x128xbf16>, %kc: tensor<1024x16x8x128xbf16>, %vc: tensor<1024x16x8x128xbf16>, %t: tensor<1x1024xi32>, %l: tensor<1xi32>) -> tensor<1x64x1x128xbf16> {
  %o = attn.paged_attention %q, %kc, %vc pages(%t, %l) scale(0.0883883461) causal(bottom_right) : tensor<1x64x1x128xbf16>, tensor<1024x16x8x128xbf16>, tensor<1024x16x8x128xbf16>, tensor<1x1024xi32>, tensor<1xi32> -> tensor<1x64x1x128xbf16>
  return %o : tensor<1x64x1x128xbf16>
}
func.func @mha_page128_batch(%q: tensor<64x32x1x128xf16>, %kc: tensor<2048x128x32x128xf16>, %vc: tensor<2048x128x32x128xf16>, %t: tensor<64x32xi32>, %l: tensor<64xi32>) -> tensor<64x32x1x128xf16> {
  %o = attn.paged_attention %q, %kc, %vc pages(%t, %l) scale(0.0883883461) : tensor<64x32x1x128xf16>, tensor<2048x128x32x128xf16>, tensor<2048x128x32x128xf16>, tensor<64x32xi32>, tensor<64xi32> -> tensor<64x32x1x128xf16>
  return %o : tensor<64x32x1x128xf16>
}
func.func @draft_tokens_page32(%q: tensor<2x16x4x64xbf16>, %kc: tensor<256x32x2x64xbf16>, %vc: tensor<256x32x2x64xbf16>, %t: tensor<2x64xi32>, %l: tensor<2xi32>) -> tensor<2x16x4x64xbf16> {
  %o = attn.paged_attention %q, %kc, %vc pages(%t, %l) scale(0.125) causal(bottom_right) : tensor<2x16x4x64xbf16>, tensor<256x32x2x64xbf16>, tensor<256x32x2x64xbf16>, tensor<2x64xi32>, tensor<2xi32> -> tensor<2x16x4x64xbf16>
  return %o : tensor<2x16x4x64xbf16>
}

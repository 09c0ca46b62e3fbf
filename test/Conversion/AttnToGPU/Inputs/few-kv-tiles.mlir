// Attentions whose wgmma kernels see one to three K/V tiles (Lk at most
// three 128-key tiles): LLVM folds or unrolls the K/V loop of some of
// their CTAs, which is where ptxas serialized every wgmma (C7511) until
// the initial accumulators were each defined by their own mov
// (bench/NOTES.md v44d). The first three were such kernels.
func.func @one_tile_f16(%q: tensor<1x2x200x128xf16>, %k: tensor<1x2x120x128xf16>) -> tensor<1x2x200x128xf16> {
  %o = attn.attention %q, %k, %k scale(0.088) causal(top_left) : tensor<1x2x200x128xf16>, tensor<1x2x120x128xf16>, tensor<1x2x120x128xf16> -> tensor<1x2x200x128xf16>
  return %o : tensor<1x2x200x128xf16>
}
func.func @two_tiles_fp8_d64(%q: tensor<1x4x200x64xf8E4M3FN>, %k: tensor<1x2x200x64xf8E4M3FN>, %a: tensor<f32>, %b: tensor<f32>, %c: tensor<f32>) -> tensor<1x4x200x64xbf16> {
  %o = attn.attention %q, %k, %k descale(%a, %b, %c : tensor<f32>, tensor<f32>, tensor<f32>) scale(0.125) causal(top_left) : tensor<1x4x200x64xf8E4M3FN>, tensor<1x2x200x64xf8E4M3FN>, tensor<1x2x200x64xf8E4M3FN> -> tensor<1x4x200x64xbf16>
  return %o : tensor<1x4x200x64xbf16>
}
func.func @three_tiles_fp8_bottom_right(%q: tensor<1x2x100x128xf8E4M3FN>, %k: tensor<1x1x300x128xf8E4M3FN>, %a: tensor<f32>, %b: tensor<f32>, %c: tensor<f32>) -> tensor<1x2x100x128xf16> {
  %o = attn.attention %q, %k, %k descale(%a, %b, %c : tensor<f32>, tensor<f32>, tensor<f32>) scale(0.088) causal(bottom_right) : tensor<1x2x100x128xf8E4M3FN>, tensor<1x1x300x128xf8E4M3FN>, tensor<1x1x300x128xf8E4M3FN> -> tensor<1x2x100x128xf16>
  return %o : tensor<1x2x100x128xf16>
}
func.func @two_tiles_e5m2(%q: tensor<1x2x129x128xf8E5M2>, %a: tensor<f32>, %b: tensor<f32>, %c: tensor<f32>) -> tensor<1x2x129x128xbf16> {
  %o = attn.attention %q, %q, %q descale(%a, %b, %c : tensor<f32>, tensor<f32>, tensor<f32>) scale(0.088) causal(top_left) : tensor<1x2x129x128xf8E5M2>, tensor<1x2x129x128xf8E5M2>, tensor<1x2x129x128xf8E5M2> -> tensor<1x2x129x128xbf16>
  return %o : tensor<1x2x129x128xbf16>
}
func.func @one_tile_bf16_noncausal(%q: tensor<2x4x64x128xbf16>) -> tensor<2x4x64x128xbf16> {
  %o = attn.attention %q, %q, %q scale(0.088) : tensor<2x4x64x128xbf16>, tensor<2x4x64x128xbf16>, tensor<2x4x64x128xbf16> -> tensor<2x4x64x128xbf16>
  return %o : tensor<2x4x64x128xbf16>
}
// Non-causal over 2-3 K/V tiles with a partial last one, at d = 128, 192
// and 256: every item has the same few tiles, LLVM unrolls the loops
// after a peeled first tile, and ptxas spilled 144-248 bytes there; such
// kernels keep the zero P·V instead (FlashKernelSpec::peelsFirstTile,
// bench/NOTES.md v59c).
func.func @three_tiles_d128_partial(%q: tensor<1x4x700x128xbf16>, %k: tensor<1x4x350x128xbf16>) -> tensor<1x4x700x128xbf16> {
  %o = attn.attention %q, %k, %k scale(0.088) : tensor<1x4x700x128xbf16>, tensor<1x4x350x128xbf16>, tensor<1x4x350x128xbf16> -> tensor<1x4x700x128xbf16>
  return %o : tensor<1x4x700x128xbf16>
}
func.func @three_tiles_d192_partial(%q: tensor<2x2x2816x192xbf16>, %k: tensor<2x2x300x192xbf16>) -> tensor<2x2x2816x192xbf16> {
  %o = attn.attention %q, %k, %k scale(0.072) : tensor<2x2x2816x192xbf16>, tensor<2x2x300x192xbf16>, tensor<2x2x300x192xbf16> -> tensor<2x2x2816x192xbf16>
  return %o : tensor<2x2x2816x192xbf16>
}
func.func @three_tiles_d256_partial(%q: tensor<1x4x700x256xbf16>, %k: tensor<1x4x200x256xbf16>) -> tensor<1x4x700x256xbf16> {
  %o = attn.attention %q, %k, %k scale(0.0625) : tensor<1x4x700x256xbf16>, tensor<1x4x200x256xbf16>, tensor<1x4x200x256xbf16> -> tensor<1x4x700x256xbf16>
  return %o : tensor<1x4x700x256xbf16>
}

// Paged decode shapes whose pages a step of copied rows may straddle, for
// attn-gpu-pipeline-paged-ptxas.test (bench/gen_paged_random.py seeds 61, 62).
func.func @d80_page24(%q: tensor<1x1x1x80xbf16>, %k: tensor<9x24x1x80xbf16>, %v: tensor<9x24x1x80xbf16>, %t: tensor<1x9xi32>, %l: tensor<1xi32>) -> tensor<1x1x1x80xbf16> {
  %o = attn.paged_attention %q, %k, %v pages(%t, %l) scale(0.11180339887498948) causal(bottom_right) : tensor<1x1x1x80xbf16>, tensor<9x24x1x80xbf16>, tensor<9x24x1x80xbf16>, tensor<1x9xi32>, tensor<1xi32> -> tensor<1x1x1x80xbf16>
  return %o : tensor<1x1x1x80xbf16>
}
func.func @d80_page12(%q: tensor<1x1x1x80xbf16>, %k: tensor<18x12x1x80xbf16>, %v: tensor<18x12x1x80xbf16>, %t: tensor<1x18xi32>, %l: tensor<1xi32>) -> tensor<1x1x1x80xbf16> {
  %o = attn.paged_attention %q, %k, %v pages(%t, %l) scale(0.11180339887498948) causal(bottom_right) : tensor<1x1x1x80xbf16>, tensor<18x12x1x80xbf16>, tensor<18x12x1x80xbf16>, tensor<1x18xi32>, tensor<1xi32> -> tensor<1x1x1x80xbf16>
  return %o : tensor<1x1x1x80xbf16>
}
func.func @d128_page48(%q: tensor<2x8x1x128xbf16>, %k: tensor<12x48x8x128xbf16>, %v: tensor<12x48x8x128xbf16>, %t: tensor<2x6xi32>, %l: tensor<2xi32>) -> tensor<2x8x1x128xbf16> {
  %o = attn.paged_attention %q, %k, %v pages(%t, %l) scale(0.08838834764831845) : tensor<2x8x1x128xbf16>, tensor<12x48x8x128xbf16>, tensor<12x48x8x128xbf16>, tensor<2x6xi32>, tensor<2xi32> -> tensor<2x8x1x128xbf16>
  return %o : tensor<2x8x1x128xbf16>
}

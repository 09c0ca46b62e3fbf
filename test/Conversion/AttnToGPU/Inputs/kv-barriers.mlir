// Two attentions for attn-gpu-pipeline-kv-barriers-ptxas.test: d = 192 / dv = 128
// (two stages of 128-key tiles fit beside its Q tile, three do not) and
// d = 128 (three stages fit; taken on long or causal key runs, or on request).
func.func @mla(%q: tensor<1x2x1000x192xbf16>, %k: tensor<1x2x1000x192xbf16>, %v: tensor<1x2x1000x128xbf16>) -> tensor<1x2x1000x128xbf16> {
  %o = attn.attention %q, %k, %v scale(0.072) : tensor<1x2x1000x192xbf16>, tensor<1x2x1000x192xbf16>, tensor<1x2x1000x128xbf16> -> tensor<1x2x1000x128xbf16>
  return %o : tensor<1x2x1000x128xbf16>
}
func.func @d128(%q: tensor<1x2x1000x128xbf16>, %k: tensor<1x2x1000x128xbf16>, %v: tensor<1x2x1000x128xbf16>) -> tensor<1x2x1000x128xbf16> {
  %o = attn.attention %q, %k, %v scale(0.088) : tensor<1x2x1000x128xbf16>, tensor<1x2x1000x128xbf16>, tensor<1x2x1000x128xbf16> -> tensor<1x2x1000x128xbf16>
  return %o : tensor<1x2x1000x128xbf16>
}

// Used by attn-gpu-pipeline-ptxas.test.
func.func @f16_d128(%q: tensor<2x2x128x128xf16>) -> tensor<2x2x128x128xf16> {
  %o = attn.attention %q, %q, %q scale(0.088) : tensor<2x2x128x128xf16>, tensor<2x2x128x128xf16>, tensor<2x2x128x128xf16> -> tensor<2x2x128x128xf16>
  return %o : tensor<2x2x128x128xf16>
}

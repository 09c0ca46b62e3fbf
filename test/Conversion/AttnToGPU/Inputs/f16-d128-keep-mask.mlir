// A keep mask with causal and GQA at d = 128 (attn-gpu-pipeline-ptxas.test).
func.func @masked(%q: tensor<1x4x256x128xf16>, %k: tensor<1x2x256x128xf16>, %v: tensor<1x2x256x128xf16>, %m: tensor<1x1x256x256xi1>) -> tensor<1x4x256x128xf16> {
  %o = attn.attention %q, %k, %v mask(%m : tensor<1x1x256x256xi1>) scale(0.088) causal(top_left)
      : tensor<1x4x256x128xf16>, tensor<1x2x256x128xf16>, tensor<1x2x256x128xf16> -> tensor<1x4x256x128xf16>
  return %o : tensor<1x4x256x128xf16>
}

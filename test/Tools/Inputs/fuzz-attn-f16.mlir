// Input for test/Tools/option_fuzz.py: one f16 attention the GPU kernels
// support (d=64), also valid for the cost model and the CPU passes.
func.func @attention(%q: tensor<1x2x128x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x128x64xf16> {
  %o = attn.attention %q, %k, %v scale(0.125) : tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x128x64xf16>
  return %o : tensor<1x2x128x64xf16>
}

// Used by bad-input.test: K's head dim does not match Q's.
func.func @bad(%q: tensor<128x64xf16>, %k: tensor<128x32xf16>)
    -> tensor<128x32xf16> {
  %o = attn.attention %q, %k, %k scale(0.125) : tensor<128x64xf16>, tensor<128x32xf16>, tensor<128x32xf16> -> tensor<128x32xf16>
  return %o : tensor<128x32xf16>
}



func.func @too_many_query_tiles(%q: tensor<1x1x281474976710656x64xf16>) -> tensor<1x1x281474976710656x64xf16> {
  // expected-error @+1 {{attn-lower-to-gpu: Lq needs more than 2^31 - 1 query tiles}}
  %o = attn.attention %q, %q, %q scale(0.125) : tensor<1x1x281474976710656x64xf16>, tensor<1x1x281474976710656x64xf16>, tensor<1x1x281474976710656x64xf16> -> tensor<1x1x281474976710656x64xf16>
  return %o : tensor<1x1x281474976710656x64xf16>
}


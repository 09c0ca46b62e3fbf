// Open finding (FUZZING.md): signed overflow in lib/Analysis/IOCost.cpp on
// extreme override values, reported by UBSan (build-fuzz or
// -DATTN_ENABLE_SANITIZERS=ON). Found by attn-fuzz-options, 2026-12-01.
//   attn-opt FILE --attn-io-cost=block-q=9223372036854775807
//     IOCost.cpp:127 ceilDiv: 256 + 9223372036854775807
//   attn-opt FILE --attn-io-cost=ctas-per-sm=9223372036854775807
//   attn-opt FILE --attn-io-cost=sm-count=9223372036854775807
//     IOCost.cpp:301 target.smCount * target.ctasPerSm
func.func @f16_d64(%q: tensor<1x4x256x64xf16>, %k: tensor<1x4x256x64xf16>, %v: tensor<1x4x256x64xf16>) -> tensor<1x4x256x64xf16> {
  %o = attn.attention %q, %k, %v scale(0.125) : tensor<1x4x256x64xf16>, tensor<1x4x256x64xf16>, tensor<1x4x256x64xf16> -> tensor<1x4x256x64xf16>
  return %o : tensor<1x4x256x64xf16>
}

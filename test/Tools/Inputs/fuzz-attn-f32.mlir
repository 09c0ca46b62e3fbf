// Input for test/Tools/option_fuzz.py: one small f32 attention for the CPU
// passes (fuse, lower-to-loops, cpu-pipeline) and the cost model.
func.func @attention(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32> {
  %o = attn.attention %q, %k, %v scale(0.35) : tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// RUN: attn-opt %s -split-input-file -verify-diagnostics
// One case per verifier error of the attn dialect's attributes (the ops'
// are in invalid.mlir).

func.func @kernel_config_family(%q: tensor<1x2x8x16xf16>) -> tensor<1x2x8x16xf16> {
  // expected-error @+1 {{kernel_config family must be "mma.sync" or "wgmma", got "tcgen05"}}
  %o = attn.attention %q, %q, %q scale(1.0) {kernel_config = #attn.kernel_config<family = "tcgen05", block_q = 16, block_kv = 64, rows_per_warp = 16, kv_stages = 2, swizzle = false>} : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16> -> tensor<1x2x8x16xf16>
  return %o : tensor<1x2x8x16xf16>
}

// -----

func.func @kernel_config_key_warps(%q: tensor<1x2x8x16xf16>) -> tensor<1x2x8x16xf16> {
  // expected-error @+1 {{kernel_config tiles, rows per warp, stages, splits and key warps must be positive}}
  %o = attn.attention %q, %q, %q scale(1.0) {kernel_config = #attn.kernel_config<family = "mma.sync", block_q = 16, block_kv = 64, rows_per_warp = 16, kv_stages = 2, swizzle = false, kv_warps = 0>} : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16> -> tensor<1x2x8x16xf16>
  return %o : tensor<1x2x8x16xf16>
}

// The presets of the chips whose SMs have 100 KB of shared memory, 99 KB
// for one block (sm_86: a10, sm_89: l40s, sm_120: rtx5090), beside the
// A100's 163 KB. Gemma's d = 256: the A100 holds 128 query rows beside two
// 32-key stages (135,168 bytes); the 99 KB chips hold 64 (101,376 bytes),
// so their chooser takes 64-row CTAs rather than a kernel that would not
// launch. Each preset's ridge is its dense bf16 tensor peak over its DRAM
// bandwidth (a10: 125 / 0.6; l40s: 362 / 0.864; rtx5090: 209.5 / 1.792).
// RUN: attn-opt %s --attn-io-cost="target=a100" | FileCheck %s --check-prefix=A100
// RUN: attn-opt %s --attn-io-cost="target=a10" | FileCheck %s --check-prefixes=SMALL,A10
// RUN: attn-opt %s --attn-io-cost="target=l40s" | FileCheck %s --check-prefixes=SMALL,L40S
// RUN: attn-opt %s --attn-io-cost="target=rtx5090" | FileCheck %s --check-prefixes=SMALL,RTX5090

// A100: target = "a100"
// A100-SAME: kernel_config = #attn.kernel_config<family = "mma.sync", block_q = 128, block_kv = 32, rows_per_warp = 16, kv_stages = 2, swizzle = false>
// A10: target = "a10"
// A10-SAME: ridge = 208.33{{[0-9]*}} : f64
// L40S: target = "l40s"
// L40S-SAME: ridge = 418.98{{[0-9]*}} : f64
// RTX5090: target = "rtx5090"
// RTX5090-SAME: ridge = 116.90{{[0-9]*}} : f64
// SMALL-SAME: kernel_config = #attn.kernel_config<family = "mma.sync", block_q = 64, block_kv = 32, rows_per_warp = 16, kv_stages = 2, swizzle = false>
func.func @gemma_d256(%q: tensor<1x16x4096x256xbf16>) -> tensor<1x16x4096x256xbf16> {
  %o = attn.attention %q, %q, %q scale(0.0625) : tensor<1x16x4096x256xbf16>, tensor<1x16x4096x256xbf16>, tensor<1x16x4096x256xbf16> -> tensor<1x16x4096x256xbf16>
  return %o : tensor<1x16x4096x256xbf16>
}

// RUN: attn-opt %s -split-input-file --attn-lower-to-gpu="mma=wgmma kv-splits=1" | FileCheck %s
// RUN: attn-opt %s -split-input-file --attn-lower-to-gpu="mma=wgmma kv-splits=2" | FileCheck %s --check-prefix=SPLIT
// RUN: attn-opt %s -split-input-file --attn-lower-to-gpu="mma=wgmma kv-splits=2 block-q=128 block-kv=128" | FileCheck %s --check-prefix=SPLIT128
// RUN: attn-opt %s -split-input-file --attn-lower-to-gpu="mma=mma.sync" | FileCheck %s --check-prefix=MMA

// Two 128-row wgmma warpgroups at d = 64 (no producer) ask ptxas to fit two
// CTAs per SM (launchBoundCTAsPerSM: O and S take (64 + 128) / 2 = 96 of
// 128 registers per thread, 2 x 81 KB of shared memory fit): the second
// CTA's Q load, ramp and epilogue overlap the first's loop (bench/NOTES.md
// v33: 1.06-1.11x on causal d = 64 at N >= 4k). Causal included, above
// 1024 keys.
// CHECK-LABEL: gpu.func @attn_fa2_wgmma_bf16_b1_h4_kv4_q2048_k2048_d64_v64_causal_bq128_bk128_w16_tma(
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK-SAME: nvvm.minctasm = 2 : i32
// Split keys add loop state (random draws spilled up to 92 bytes): a split
// kernel takes no bound (the wave model counts one CTA per SM for it), so
// the chooser returns to v32c's 64-row CTAs for causal d = 64; 128 rows
// asked for with splits run one CTA per SM.
// SPLIT-LABEL: gpu.func @attn_fa2_wgmma_bf16_b1_h4_kv4_q2048_k2048_d64_v64_causal_bq64_bk64_w16_split2_tma(
// SPLIT-NOT: nvvm.minctasm
// SPLIT: gpu.return
// SPLIT128-LABEL: gpu.func @attn_fa2_wgmma_bf16_b1_h4_kv4_q2048_k2048_d64_v64_causal_bq128_bk128_w16_split2_tma(
// SPLIT128-NOT: nvvm.minctasm
// SPLIT128: gpu.return
func.func @causal_d64(%q: tensor<1x4x2048x64xbf16>) -> tensor<1x4x2048x64xbf16> {
  %o = attn.attention %q, %q, %q scale(0.125) causal(top_left)
      : tensor<1x4x2048x64xbf16>, tensor<1x4x2048x64xbf16>, tensor<1x4x2048x64xbf16>
      -> tensor<1x4x2048x64xbf16>
  return %o : tensor<1x4x2048x64xbf16>
}

// -----

// A mask tensor's loads do not fit beside the accumulators at 128
// registers (random draws spilled up to 280 bytes): no bound, one CTA per
// SM, and the same 128 x 128 tiles where they still win (non-causal whole
// tiles, v32c).
// CHECK-LABEL: gpu.func @attn_fa2_wgmma_bf16_b1_h4_kv4_q2048_k2048_d64_v64_addx1x1x1x2048_bq128_bk128_w16_tma(
// CHECK-NOT: nvvm.minctasm
// CHECK: gpu.return
func.func @masked_d64(%q: tensor<1x4x2048x64xbf16>, %m: tensor<1x1x1x2048xbf16>) -> tensor<1x4x2048x64xbf16> {
  %o = attn.attention %q, %q, %q mask(%m : tensor<1x1x1x2048xbf16>) scale(0.125)
      : tensor<1x4x2048x64xbf16>, tensor<1x4x2048x64xbf16>, tensor<1x4x2048x64xbf16>
      -> tensor<1x4x2048x64xbf16>
  return %o : tensor<1x4x2048x64xbf16>
}

// -----

// A partial key tile's masking state does not fit either: no bound, and
// without it 64-row CTAs win (v32c), three per SM by themselves.
// CHECK-LABEL: gpu.func @attn_fa2_wgmma_bf16_b1_h4_kv4_q2048_k1999_d64_v64_bq64_bk128_w16_tma(
// CHECK-NOT: nvvm.minctasm
// CHECK: gpu.return
func.func @partial_keys_d64(%q: tensor<1x4x2048x64xbf16>, %kv: tensor<1x4x1999x64xbf16>) -> tensor<1x4x2048x64xbf16> {
  %o = attn.attention %q, %kv, %kv scale(0.125)
      : tensor<1x4x2048x64xbf16>, tensor<1x4x1999x64xbf16>, tensor<1x4x1999x64xbf16>
      -> tensor<1x4x2048x64xbf16>
  return %o : tensor<1x4x2048x64xbf16>
}

// -----

// Causal up to 1024 keys keeps 64 x 64 CTAs (the two-CTA kernel: 0.94x).
// mma.sync's 128 x 64 CTAs here (4 warps, 36 KB of shared memory) fit
// several per SM: no bound, ptxas keeps its own trade.
// MMA-LABEL: gpu.func @attn_fa2_mma_bf16_b1_h4_kv4_q1024_k1024_d64_v64_causal_bq128_bk64_w32_split6(
// MMA-NOT: nvvm.minctasm
// MMA: gpu.return
// CHECK-LABEL: gpu.func @attn_fa2_wgmma_bf16_b1_h4_kv4_q1024_k1024_d64_v64_causal_bq64_bk64_w16_tma(
// CHECK-NOT: nvvm.minctasm
// CHECK: gpu.return
func.func @short_causal_d64(%q: tensor<1x4x1024x64xbf16>) -> tensor<1x4x1024x64xbf16> {
  %o = attn.attention %q, %q, %q scale(0.125) causal(top_left)
      : tensor<1x4x1024x64xbf16>, tensor<1x4x1024x64xbf16>, tensor<1x4x1024x64xbf16>
      -> tensor<1x4x1024x64xbf16>
  return %o : tensor<1x4x1024x64xbf16>
}

// -----

// A kernel whose shared memory holds one CTA per SM says so (bench/NOTES.md
// v62b, v63): told nothing, ptxas fitted such mma.sync decode kernels
// (8 key warps, 128-key stages) in 128 registers, two CTAs' worth that
// shared memory never allows, and one with a window score_mod spilled.
// MMA-LABEL: gpu.func @attn_fa2_mma_bf16_b64_h64_kv8_q1_k4096_d128_v128_bq16_bk128_w16_pack_kw8(
// MMA-SAME: nvvm.minctasm = 1 : i32
func.func @decode_d128(%q: tensor<64x64x1x128xbf16>, %kv: tensor<64x8x4096x128xbf16>) -> tensor<64x64x1x128xbf16> {
  %o = attn.attention %q, %kv, %kv scale(0.088)
      : tensor<64x64x1x128xbf16>, tensor<64x8x4096x128xbf16>, tensor<64x8x4096x128xbf16>
      -> tensor<64x64x1x128xbf16>
  return %o : tensor<64x64x1x128xbf16>
}

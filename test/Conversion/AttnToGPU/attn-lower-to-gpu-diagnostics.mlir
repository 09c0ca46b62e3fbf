// RUN: attn-opt %s -split-input-file --attn-lower-to-gpu=strict=true -verify-diagnostics
// RUN: not attn-opt %s -split-input-file --attn-lower-to-gpu="mma=wgmma strict=true" 2>&1 | FileCheck %s --check-prefix=WGF32
// WGF32: error: attn-lower-to-gpu: wgmma needs f16, bf16 or 8-bit float inputs, got f32
// Each precondition of the GPU kernels (mma.sync and wgmma), reported at the
// op as an error under strict=true (attn-lower-to-gpu-fallback.mlir: without
// it, a warning and the op left unfused), and the option checks.

func.func @f32_inputs(%q: tensor<1x2x64x64xf32>) -> tensor<1x2x64x64xf32> {
  // expected-error @+1 {{attn-lower-to-gpu: mma.sync needs f16 or bf16 inputs, got f32}}
  %o = attn.attention %q, %q, %q scale(0.125) : tensor<1x2x64x64xf32>, tensor<1x2x64x64xf32>, tensor<1x2x64x64xf32> -> tensor<1x2x64x64xf32>
  return %o : tensor<1x2x64x64xf32>
}

// -----

func.func @head_dim(%q: tensor<1x2x64x36xf16>) -> tensor<1x2x64x36xf16> {
  // expected-error @+1 {{attn-lower-to-gpu: the GPU kernel needs head dims that are multiples of 8 up to 256, got d = 36}}
  %o = attn.attention %q, %q, %q scale(0.125) : tensor<1x2x64x36xf16>, tensor<1x2x64x36xf16>, tensor<1x2x64x36xf16> -> tensor<1x2x64x36xf16>
  return %o : tensor<1x2x64x36xf16>
}

// -----

func.func @head_dim_v(%q: tensor<1x2x64x64xf16>, %v: tensor<1x2x64x288xf16>) -> tensor<1x2x64x288xf16> {
  // expected-error @+1 {{attn-lower-to-gpu: the GPU kernel needs head dims that are multiples of 8 up to 256, got dv = 288}}
  %o = attn.attention %q, %q, %v scale(0.125) : tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>, tensor<1x2x64x288xf16> -> tensor<1x2x64x288xf16>
  return %o : tensor<1x2x64x288xf16>
}

// -----

func.func @wide_additive_mask(%q: tensor<1x2x64x64xbf16>, %m: tensor<1x1x64x64xf32>) -> tensor<1x2x64x64xbf16> {
  // expected-error @+1 {{attn-lower-to-gpu: the GPU kernel reads an additive mask in the inputs' element type; cast the mask to it (rounding the bias) or run on the CPU}}
  %o = attn.attention %q, %q, %q mask(%m : tensor<1x1x64x64xf32>) scale(0.125) : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
  return %o : tensor<1x2x64x64xbf16>
}

// -----

func.func @dynamic(%q: tensor<1x2x?x64xf16>) -> tensor<1x2x?x64xf16> {
  // expected-error @+1 {{attn-lower-to-gpu: the GPU kernel needs static shapes}}
  %o = attn.attention %q, %q, %q scale(0.125) : tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16>, tensor<1x2x?x64xf16> -> tensor<1x2x?x64xf16>
  return %o : tensor<1x2x?x64xf16>
}

// -----

func.func @rank5(%q: tensor<2x1x2x64x64xf16>) -> tensor<2x1x2x64x64xf16> {
  // expected-error @+1 {{attn-lower-to-gpu: the GPU kernel takes [L, d], [H, L, d] or [B, H, L, d], got rank 5}}
  %o = attn.attention %q, %q, %q scale(0.125) : tensor<2x1x2x64x64xf16>, tensor<2x1x2x64x64xf16>, tensor<2x1x2x64x64xf16> -> tensor<2x1x2x64x64xf16>
  return %o : tensor<2x1x2x64x64xf16>
}

// -----

// With a mask too (the mask's shape was read as rank 4 before the rank was
// checked: a crash found by fuzzing).
func.func @rank5_mask(%q: tensor<1x1x2x16x16xf16>, %m: tensor<1x1x1x16x16xi1>) -> tensor<1x1x2x16x16xf16> {
  // expected-error @+1 {{attn-lower-to-gpu: the GPU kernel takes [L, d], [H, L, d] or [B, H, L, d], got rank 5}}
  %o = attn.attention %q, %q, %q mask(%m : tensor<1x1x1x16x16xi1>) scale(0.25) : tensor<1x1x2x16x16xf16>, tensor<1x1x2x16x16xf16>, tensor<1x1x2x16x16xf16> -> tensor<1x1x2x16x16xf16>
  return %o : tensor<1x1x2x16x16xf16>
}

// -----

// RUN: not attn-opt %s -split-input-file --attn-lower-to-gpu="block-q=96" 2>&1 | FileCheck %s --check-prefix=OPTION
// OPTION: error: attn-lower-to-gpu: block-q must be 0 (auto), 16, 32, 64 or 128, got 96
// RUN: not attn-opt %s -split-input-file --attn-lower-to-gpu="rows-per-warp=8" 2>&1 | FileCheck %s --check-prefix=ROWS
// ROWS: error: attn-lower-to-gpu: rows-per-warp must be 0 (auto), 16 or 32, got 8
// RUN: not attn-opt %s -split-input-file --attn-lower-to-gpu="block-kv=72" 2>&1 | FileCheck %s --check-prefix=BKV
// BKV: error: attn-lower-to-gpu: block-kv must be 0 (auto), 32, 48, 64, 80, 96, 112 or 128, got 72
// A key tile of a multiple of 16 other than a power of two is wgmma's only
// (its n and P·V's k-steps; mma.sync's key warps split powers of two).
// RUN: not attn-opt %s -split-input-file --attn-lower-to-gpu="mma=mma.sync block-kv=96" 2>&1 | FileCheck %s --check-prefix=BKV96
// BKV96: error: attn-lower-to-gpu: block-kv must be 32, 64 or 128 (with mma=wgmma a multiple of 16 from 32 to 128), got 96
// RUN: not attn-opt %s -split-input-file --attn-lower-to-gpu="block-kv=128" 2>&1 | FileCheck %s --check-prefix=BKV128
// BKV128: error: attn-lower-to-gpu: block-kv=128 needs mma=wgmma or kv-warps of 2 or more (one mma.sync warp would spill the scores of 128 keys)
// RUN: not attn-opt %s -split-input-file --attn-lower-to-gpu="kv-warps=3" 2>&1 | FileCheck %s --check-prefix=KWOPT
// KWOPT: error: attn-lower-to-gpu: kv-warps must be 0 (auto), 1, 2, 4 or 8, got 3
// RUN: not attn-opt %s -split-input-file --attn-lower-to-gpu="kv-loads=bulk" 2>&1 | FileCheck %s --check-prefix=LOADS
// LOADS: error: attn-lower-to-gpu: kv-loads must be auto, cp.async, tma or tma-producer, got 'bulk'
// RUN: not attn-opt %s -split-input-file --attn-lower-to-gpu="mma=wgmma kv-loads=tma-producer block-q=64" 2>&1 | FileCheck %s --check-prefix=PRODUCER64
// PRODUCER64: error: attn-lower-to-gpu: kv-loads=tma-producer needs block-q=128 (two consumer warpgroups beside the producer), got 64
// RUN: not attn-opt %s -split-input-file --attn-lower-to-gpu="mma=mma.sync kv-loads=tma-producer" 2>&1 | FileCheck %s --check-prefix=TMASM80
// RUN: not attn-opt %s -split-input-file --attn-io-cost=target=h200 --attn-lower-to-gpu="mma=mma.sync kv-loads=tma-producer" 2>&1 | FileCheck %s --check-prefix=PRODUCERSYNC
// PRODUCERSYNC: error: attn-lower-to-gpu: kv-loads=tma-producer needs mma=wgmma (its computing warpgroups)
// RUN: not attn-opt %s -split-input-file --attn-io-cost=target=h200 --attn-lower-to-gpu="mma=mma.sync kv-loads=tma swizzle=true" 2>&1 | FileCheck %s --check-prefix=TMASWZ
// TMASWZ: error: attn-lower-to-gpu: kv-loads=tma on mma.sync lays out its own stages (swizzled atoms for tensor boxes, padded rows for row copies); drop swizzle=true
// RUN: not attn-opt %s -split-input-file --attn-lower-to-gpu="overlap-pv=yes" 2>&1 | FileCheck %s --check-prefix=OVOPT
// OVOPT: error: attn-lower-to-gpu: overlap-pv must be auto, on or off, got 'yes'
// RUN: not attn-opt %s -split-input-file --attn-lower-to-gpu="mma=wgmma kv-loads=tma overlap-pv=on" 2>&1 | FileCheck %s --check-prefix=OVNOPRODUCER
// OVNOPRODUCER: error: attn-lower-to-gpu: overlap-pv=on needs a producer warpgroup (kv-loads=tma-producer), whose computing threads have the registers for two tiles' scores
// RUN: not attn-opt %s -split-input-file --attn-lower-to-gpu="persistent=always" 2>&1 | FileCheck %s --check-prefix=PSTOPT
// PSTOPT: error: attn-lower-to-gpu: persistent must be auto, on or off, got 'always'
// RUN: not attn-opt %s -split-input-file --attn-lower-to-gpu="mma=wgmma kv-loads=tma persistent=on" 2>&1 | FileCheck %s --check-prefix=PSTNOPRODUCER
// RUN: not attn-opt %s -split-input-file --attn-lower-to-gpu="mma=wgmma kv-loads=tma-producer kv-splits=2 persistent=on" 2>&1 | FileCheck %s --check-prefix=PSTNOPRODUCER
// PSTNOPRODUCER: error: attn-lower-to-gpu: persistent=on needs a producer warpgroup (kv-loads=tma-producer) and unsplit keys (kv-splits=1)
// Without a cost's target the mma.sync kernel is for the a100 preset (sm_80).
// RUN: not attn-opt %s -split-input-file --attn-lower-to-gpu="mma=mma.sync kv-loads=tma" 2>&1 | FileCheck %s --check-prefix=TMASM80
// TMASM80: error: attn-lower-to-gpu: kv-loads=tma needs the TMA unit of sm_90 or later; target 'a100' is sm_80
// RUN: not attn-opt %s -split-input-file --attn-lower-to-gpu="mma=tcgen05" 2>&1 | FileCheck %s --check-prefix=MMA
// MMA: for the --mma option: 'tcgen05' is not one of the accepted values: auto, mma.sync, wgmma
// RUN: not attn-opt %s -split-input-file --attn-lower-to-gpu="mma=wgmma rows-per-warp=32" 2>&1 | FileCheck %s --check-prefix=WGROWS
// WGROWS: error: attn-lower-to-gpu: mma=wgmma gives each warp 16 rows (a warpgroup 64); rows-per-warp must be 0 or 16, got 32
// RUN: not attn-opt %s -split-input-file --attn-lower-to-gpu="kv-stages=5" 2>&1 | FileCheck %s --check-prefix=STAGES
// STAGES: error: attn-lower-to-gpu: kv-stages must be 0 (auto), 2, 3 or 4, got 5
// RUN: not attn-opt %s -split-input-file --attn-lower-to-gpu="mma=wgmma kv-stages=4" 2>&1 | FileCheck %s --check-prefix=STAGES4
// STAGES4: error: attn-lower-to-gpu: mma=wgmma takes kv-stages 2 or 3 (the third holds the V tile of a P·V still in flight), got 4
// RUN: not attn-opt %s -split-input-file --attn-lower-to-gpu="mma=wgmma swizzle=true" 2>&1 | FileCheck %s --check-prefix=WGSWZ
// WGSWZ: error: attn-lower-to-gpu: mma=wgmma always uses the 128-byte swizzle; drop swizzle=true
func.func @option(%q: tensor<1x2x64x64xf16>) -> tensor<1x2x64x64xf16> {
  %o = attn.attention %q, %q, %q scale(0.125) : tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

func.func @too_many_heads(%q: tensor<1024x128x64x64xf16>) -> tensor<1024x128x64x64xf16> {
  // expected-error @+1 {{attn-lower-to-gpu: B·Hq = 131072 exceeds the 65535 CTAs CUDA allows along the grid's y axis}}
  %o = attn.attention %q, %q, %q scale(0.125) : tensor<1024x128x64x64xf16>, tensor<1024x128x64x64xf16>, tensor<1024x128x64x64xf16> -> tensor<1024x128x64x64xf16>
  return %o : tensor<1024x128x64x64xf16>
}

// -----

func.func @too_many_query_tiles(%q: tensor<1x1x549755813888x64xf16>, %k: tensor<1x1x16x64xf16>) -> tensor<1x1x549755813888x64xf16> {
  // expected-error @+1 {{attn-lower-to-gpu: Lq needs more than 2^31 - 1 query tiles}}
  %o = attn.attention %q, %k, %k scale(0.125) : tensor<1x1x549755813888x64xf16>, tensor<1x1x16x64xf16>, tensor<1x1x16x64xf16> -> tensor<1x1x549755813888x64xf16>
  return %o : tensor<1x1x549755813888x64xf16>
}

// -----

// A recorded kernel configuration no kernel can run (128-key tiles need
// wgmma or key warps): an error with the reason, never a silent fallback.
func.func @recorded_config_illegal(%q: tensor<1x2x256x64xbf16>) -> tensor<1x2x256x64xbf16> {
  // expected-error @+1 {{attn-lower-to-gpu: block-kv=128 needs mma=wgmma or kv-warps of 2 or more (one mma.sync warp would spill the scores of 128 keys)}}
  %o = attn.attention %q, %q, %q scale(0.125) {kernel_config = #attn.kernel_config<family = "mma.sync", block_q = 128, block_kv = 128, rows_per_warp = 32, kv_stages = 2, swizzle = false>}
      : tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16> -> tensor<1x2x256x64xbf16>
  return %o : tensor<1x2x256x64xbf16>
}


// -----

// Split-KV: an explicit split count must give every split keys. 256 keys
// in 64-key tiles deal out to at most 4 splits; 3 splits of 2 tiles need
// only 2.
func.func @recorded_split_without_keys(%q: tensor<1x2x256x64xbf16>) -> tensor<1x2x256x64xbf16> {
  // expected-error @+1 {{attn-lower-to-gpu: kv-splits=3 leaves splits without keys: Lk = 256 in 64-key tiles splits evenly into 2}}
  %o = attn.attention %q, %q, %q scale(0.125) {kernel_config = #attn.kernel_config<family = "mma.sync", block_q = 64, block_kv = 64, rows_per_warp = 16, kv_stages = 2, swizzle = false, kv_splits = 3>}
      : tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16> -> tensor<1x2x256x64xbf16>
  return %o : tensor<1x2x256x64xbf16>
}

// -----

// GQA head packing is an mma.sync layout (16-row decode tiles).
func.func @recorded_pack_with_wgmma(%q: tensor<1x8x1x64xbf16>, %kv: tensor<1x2x256x64xbf16>) -> tensor<1x8x1x64xbf16> {
  // expected-error @+1 {{attn-lower-to-gpu: mma=wgmma needs block-q 64 or 128 (a warpgroup's 64 rows), got 16}}
  %o = attn.attention %q, %kv, %kv scale(0.125) {kernel_config = #attn.kernel_config<family = "wgmma", block_q = 16, block_kv = 64, rows_per_warp = 16, kv_stages = 2, swizzle = false, pack_kv_groups = true>}
      : tensor<1x8x1x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16> -> tensor<1x8x1x64xbf16>
  return %o : tensor<1x8x1x64xbf16>
}

// -----

func.func @recorded_pack_with_wgmma_64(%q: tensor<1x8x8x64xbf16>, %kv: tensor<1x2x256x64xbf16>) -> tensor<1x8x8x64xbf16> {
  // expected-error @+1 {{attn-lower-to-gpu: GQA head packing is built for mma=mma.sync (decode tiles of 16 rows); wgmma's warpgroup needs 64}}
  %o = attn.attention %q, %kv, %kv scale(0.125) {kernel_config = #attn.kernel_config<family = "wgmma", block_q = 64, block_kv = 64, rows_per_warp = 16, kv_stages = 2, swizzle = false, pack_kv_groups = true>}
      : tensor<1x8x8x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16> -> tensor<1x8x8x64xbf16>
  return %o : tensor<1x8x8x64xbf16>
}

// -----

// A recorded config that packs GQA groups of one head (Hq = Hkv): there is
// nothing to pack (it crashed the emitter, found by fuzzing).
func.func @recorded_pack_without_groups(%q: tensor<1x1x16x16xf16>) -> tensor<1x1x16x16xf16> {
  // expected-error @+1 {{attn-lower-to-gpu: pack_kv_groups packs the query heads of each K/V head into a tile's rows; with Hq = Hkv = 1 every group is one head and there is nothing to pack}}
  %o = attn.attention %q, %q, %q scale(1.0) {kernel_config = #attn.kernel_config<family = "mma.sync", block_q = 16, block_kv = 32, rows_per_warp = 16, kv_stages = 2, swizzle = false, pack_kv_groups = true>} : tensor<1x1x16x16xf16>, tensor<1x1x16x16xf16>, tensor<1x1x16x16xf16> -> tensor<1x1x16x16xf16>
  return %o : tensor<1x1x16x16xf16>
}

// RUN: not attn-opt %s -split-input-file --attn-lower-to-gpu="kv-splits=-2" 2>&1 | FileCheck %s --check-prefix=SPLITNEG
// SPLITNEG: error: attn-lower-to-gpu: kv-splits must be 0 (auto) or 1 (no split) to 65535, got -2
// RUN: not attn-opt %s -split-input-file --attn-lower-to-gpu="kv-splits=65536" 2>&1 | FileCheck %s --check-prefix=SPLITBIG
// SPLITBIG: error: attn-lower-to-gpu: kv-splits must be 0 (auto) or 1 (no split) to 65535, got 65536

// -----

// A paged attention on f32 (the CPU path runs it: attn-gather-paged-kv).
func.func @paged_f32(%q: tensor<1x2x1x64xf32>, %kc: tensor<4x16x2x64xf32>, %vc: tensor<4x16x2x64xf32>, %t: tensor<1x4xi32>, %l: tensor<1xi32>) -> tensor<1x2x1x64xf32> {
  // expected-error @+1 {{attn-lower-to-gpu: the GPU kernel needs f16 or bf16 inputs}}
  %o = attn.paged_attention %q, %kc, %vc pages(%t, %l) scale(0.125) : tensor<1x2x1x64xf32>, tensor<4x16x2x64xf32>, tensor<4x16x2x64xf32>, tensor<1x4xi32>, tensor<1xi32> -> tensor<1x2x1x64xf32>
  return %o : tensor<1x2x1x64xf32>
}

// -----

// A paged attention whose pool size is known at run time only.
func.func @paged_dynamic(%q: tensor<1x2x1x64xf16>, %kc: tensor<?x16x2x64xf16>, %vc: tensor<?x16x2x64xf16>, %t: tensor<1x4xi32>, %l: tensor<1xi32>) -> tensor<1x2x1x64xf16> {
  // expected-error @+1 {{attn-lower-to-gpu: the GPU kernel needs static shapes}}
  %o = attn.paged_attention %q, %kc, %vc pages(%t, %l) scale(0.125) : tensor<1x2x1x64xf16>, tensor<?x16x2x64xf16>, tensor<?x16x2x64xf16>, tensor<1x4xi32>, tensor<1xi32> -> tensor<1x2x1x64xf16>
  return %o : tensor<1x2x1x64xf16>
}

// -----

func.func @varlen_f32(%q: tensor<96x8x64xf32>, %k: tensor<128x2x64xf32>, %cq: tensor<4xi32>, %ck: tensor<4xi32>) -> tensor<96x8x64xf32> {
  // expected-error @+1 {{attn-lower-to-gpu: the GPU kernels run packed variable-length batches on f16 or bf16 inputs only}}
  %o = attn.varlen_attention %q, %k, %k seqlens(%cq, %ck) scale(0.125) : tensor<96x8x64xf32>, tensor<128x2x64xf32>, tensor<128x2x64xf32>, tensor<4xi32>, tensor<4xi32> -> tensor<96x8x64xf32>
  return %o : tensor<96x8x64xf32>
}

// -----

func.func @varlen_dynamic(%q: tensor<?x8x64xbf16>, %k: tensor<128x2x64xbf16>, %cq: tensor<4xi32>, %ck: tensor<4xi32>) -> tensor<?x8x64xbf16> {
  // expected-error @+1 {{attn-lower-to-gpu: the GPU kernel needs static shapes}}
  %o = attn.varlen_attention %q, %k, %k seqlens(%cq, %ck) scale(0.125) : tensor<?x8x64xbf16>, tensor<128x2x64xbf16>, tensor<128x2x64xbf16>, tensor<4xi32>, tensor<4xi32> -> tensor<?x8x64xbf16>
  return %o : tensor<?x8x64xbf16>
}

// -----

func.func @varlen_no_keys(%q: tensor<96x8x64xbf16>, %k: tensor<0x2x64xbf16>, %cq: tensor<4xi32>, %ck: tensor<4xi32>) -> tensor<96x8x64xbf16> {
  // expected-error @+1 {{attn-lower-to-gpu: a packed batch without sequences, query tokens or key tokens has no GPU kernel}}
  %o = attn.varlen_attention %q, %k, %k seqlens(%cq, %ck) scale(0.125) : tensor<96x8x64xbf16>, tensor<0x2x64xbf16>, tensor<0x2x64xbf16>, tensor<4xi32>, tensor<4xi32> -> tensor<96x8x64xbf16>
  return %o : tensor<96x8x64xbf16>
}

// -----

func.func @varlen_head_dim(%q: tensor<96x8x20xbf16>, %k: tensor<128x2x20xbf16>, %cq: tensor<4xi32>, %ck: tensor<4xi32>) -> tensor<96x8x20xbf16> {
  // expected-error @+1 {{attn-lower-to-gpu: the GPU kernel needs head dims that are multiples of 8 up to 256, got d = 20}}
  %o = attn.varlen_attention %q, %k, %k seqlens(%cq, %ck) scale(0.125) : tensor<96x8x20xbf16>, tensor<128x2x20xbf16>, tensor<128x2x20xbf16>, tensor<4xi32>, tensor<4xi32> -> tensor<96x8x20xbf16>
  return %o : tensor<96x8x20xbf16>
}

// -----

// Key warps (kv_warps): each needs whole k-steps of 16 keys of the tile.
func.func @recorded_key_warps_too_few_keys(%q: tensor<1x8x1x64xbf16>, %kv: tensor<1x2x256x64xbf16>) -> tensor<1x8x1x64xbf16> {
  // expected-error @+1 {{attn-lower-to-gpu: kv-warps=4 leaves each warp 8 keys of a 32-key tile; P·V needs multiples of 16}}
  %o = attn.attention %q, %kv, %kv scale(0.125) {kernel_config = #attn.kernel_config<family = "mma.sync", block_q = 16, block_kv = 32, rows_per_warp = 16, kv_stages = 2, swizzle = false, pack_kv_groups = true, kv_warps = 4>}
      : tensor<1x8x1x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16> -> tensor<1x8x1x64xbf16>
  return %o : tensor<1x8x1x64xbf16>
}

// -----

func.func @recorded_key_warps_count(%q: tensor<1x8x1x64xbf16>, %kv: tensor<1x2x256x64xbf16>) -> tensor<1x8x1x64xbf16> {
  // expected-error @+1 {{attn-lower-to-gpu: kv-warps must be 1, 2, 4 or 8, got 3}}
  %o = attn.attention %q, %kv, %kv scale(0.125) {kernel_config = #attn.kernel_config<family = "mma.sync", block_q = 16, block_kv = 64, rows_per_warp = 16, kv_stages = 2, swizzle = false, pack_kv_groups = true, kv_warps = 3>}
      : tensor<1x8x1x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16> -> tensor<1x8x1x64xbf16>
  return %o : tensor<1x8x1x64xbf16>
}

// -----

func.func @recorded_key_warps_with_wgmma(%q: tensor<1x2x256x64xbf16>) -> tensor<1x2x256x64xbf16> {
  // expected-error @+1 {{attn-lower-to-gpu: kv-warps=2 needs mma=mma.sync (a wgmma warpgroup multiplies the whole K/V tile)}}
  %o = attn.attention %q, %q, %q scale(0.125) {kernel_config = #attn.kernel_config<family = "wgmma", block_q = 64, block_kv = 128, rows_per_warp = 16, kv_stages = 2, swizzle = false, kv_warps = 2>}
      : tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16> -> tensor<1x2x256x64xbf16>
  return %o : tensor<1x2x256x64xbf16>
}

// -----

func.func @recorded_key_warps_too_many_warps(%q: tensor<1x2x256x64xbf16>) -> tensor<1x2x256x64xbf16> {
  // expected-error @+1 {{attn-lower-to-gpu: kv-warps=4 with block-q=64 and rows-per-warp=16 makes 16 warps per CTA; at most 8 fit an SM's registers}}
  %o = attn.attention %q, %q, %q scale(0.125) {kernel_config = #attn.kernel_config<family = "mma.sync", block_q = 64, block_kv = 64, rows_per_warp = 16, kv_stages = 2, swizzle = false, kv_warps = 4>}
      : tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16> -> tensor<1x2x256x64xbf16>
  return %o : tensor<1x2x256x64xbf16>
}

// -----

// After the combine each key warp stores an equal share of O's 8-column
// blocks: dv = 72 has 9.
func.func @recorded_key_warps_dv(%q: tensor<1x8x1x64xbf16>, %k: tensor<1x2x256x64xbf16>, %v: tensor<1x2x256x72xbf16>) -> tensor<1x8x1x72xbf16> {
  // expected-error @+1 {{attn-lower-to-gpu: kv-warps=2 must divide dv / 8 = 9 (each warp stores an equal share of the output's 8-column blocks)}}
  %o = attn.attention %q, %k, %v scale(0.125) {kernel_config = #attn.kernel_config<family = "mma.sync", block_q = 16, block_kv = 64, rows_per_warp = 16, kv_stages = 2, swizzle = false, pack_kv_groups = true, kv_warps = 2>}
      : tensor<1x8x1x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x72xbf16> -> tensor<1x8x1x72xbf16>
  return %o : tensor<1x8x1x72xbf16>
}

// -----

// The mma.sync kernel's bulk row copies need the TMA unit: not on the
// a100 preset, which an mma.sync kernel without a cost's target is for.
func.func @recorded_tma_with_mma_sync(%q: tensor<1x2x256x64xbf16>) -> tensor<1x2x256x64xbf16> {
  // expected-error @+1 {{attn-lower-to-gpu: kv-loads=tma needs the TMA unit of sm_90 or later; target 'a100' is sm_80}}
  %o = attn.attention %q, %q, %q scale(0.125) {kernel_config = #attn.kernel_config<family = "mma.sync", block_q = 64, block_kv = 64, rows_per_warp = 16, kv_stages = 2, swizzle = false, tma_loads = true>}
      : tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16> -> tensor<1x2x256x64xbf16>
  return %o : tensor<1x2x256x64xbf16>
}

// -----

// A paged pool is addressed per page through the block table, which no
// tensor map describes.
func.func @recorded_tma_paged(%q: tensor<2x4x128x64xf16>, %kc: tensor<16x16x2x64xf16>, %vc: tensor<16x16x2x64xf16>, %t: tensor<2x8xi32>, %l: tensor<2xi32>) -> tensor<2x4x128x64xf16> {
  // expected-error @+1 {{attn-lower-to-gpu: kv-loads=tma on mma=wgmma takes dense K/V tensors, not a paged KV cache}}
  %o = attn.paged_attention %q, %kc, %vc pages(%t, %l) scale(0.125) {kernel_config = #attn.kernel_config<family = "wgmma", block_q = 64, block_kv = 64, rows_per_warp = 16, kv_stages = 2, swizzle = false, tma_loads = true>} : tensor<2x4x128x64xf16>, tensor<16x16x2x64xf16>, tensor<16x16x2x64xf16>, tensor<2x8xi32>, tensor<2xi32> -> tensor<2x4x128x64xf16>
  return %o : tensor<2x4x128x64xf16>
}

// -----

// A producer warpgroup only issues TMA loads.
func.func @recorded_producer_without_tma(%q: tensor<1x2x256x128xbf16>) -> tensor<1x2x256x128xbf16> {
  // expected-error @+1 {{attn-lower-to-gpu: a producer warpgroup issues TMA loads; it needs tma_loads}}
  %o = attn.attention %q, %q, %q scale(0.125) {kernel_config = #attn.kernel_config<family = "wgmma", block_q = 128, block_kv = 128, rows_per_warp = 16, kv_stages = 2, swizzle = false, producer_warpgroup = true>}
      : tensor<1x2x256x128xbf16>, tensor<1x2x256x128xbf16>, tensor<1x2x256x128xbf16> -> tensor<1x2x256x128xbf16>
  return %o : tensor<1x2x256x128xbf16>
}

// -----

// Two computing warpgroups feed on the producer's tiles: 64-row CTAs have one.
func.func @recorded_producer_one_warpgroup(%q: tensor<1x2x256x128xbf16>) -> tensor<1x2x256x128xbf16> {
  // expected-error @+1 {{attn-lower-to-gpu: kv-loads=tma-producer needs block-q=128 (two consumer warpgroups beside the producer), got 64}}
  %o = attn.attention %q, %q, %q scale(0.125) {kernel_config = #attn.kernel_config<family = "wgmma", block_q = 64, block_kv = 128, rows_per_warp = 16, kv_stages = 2, swizzle = false, tma_loads = true, producer_warpgroup = true>}
      : tensor<1x2x256x128xbf16>, tensor<1x2x256x128xbf16>, tensor<1x2x256x128xbf16> -> tensor<1x2x256x128xbf16>
  return %o : tensor<1x2x256x128xbf16>
}

// -----

// The overlapped P·V holds two tiles' scores: a producer's registers.
func.func @recorded_overlap_without_producer(%q: tensor<1x2x256x128xbf16>) -> tensor<1x2x256x128xbf16> {
  // expected-error @+1 {{attn-lower-to-gpu: overlap-pv=on needs a producer warpgroup (kv-loads=tma-producer), whose computing threads have the registers for two tiles' scores}}
  %o = attn.attention %q, %q, %q scale(0.125) {kernel_config = #attn.kernel_config<family = "wgmma", block_q = 128, block_kv = 128, rows_per_warp = 16, kv_stages = 3, swizzle = false, tma_loads = true, overlap_pv = true>}
      : tensor<1x2x256x128xbf16>, tensor<1x2x256x128xbf16>, tensor<1x2x256x128xbf16> -> tensor<1x2x256x128xbf16>
  return %o : tensor<1x2x256x128xbf16>
}

// -----

// A persistent CTA's producer runs the stage ring across work items: it
// needs the producer warpgroup.
func.func @recorded_persistent_without_producer(%q: tensor<1x2x256x128xbf16>) -> tensor<1x2x256x128xbf16> {
  // expected-error @+1 {{attn-lower-to-gpu: persistent=on needs a producer warpgroup (kv-loads=tma-producer) and unsplit keys (kv-splits=1)}}
  %o = attn.attention %q, %q, %q scale(0.125) {kernel_config = #attn.kernel_config<family = "wgmma", block_q = 128, block_kv = 128, rows_per_warp = 16, kv_stages = 3, swizzle = false, tma_loads = true, persistent = true>}
      : tensor<1x2x256x128xbf16>, tensor<1x2x256x128xbf16>, tensor<1x2x256x128xbf16> -> tensor<1x2x256x128xbf16>
  return %o : tensor<1x2x256x128xbf16>
}

// RUN: attn-opt %s -split-input-file --attn-io-cost="remarks=true" -verify-diagnostics
// RUN: not attn-opt %s -split-input-file --attn-io-cost="target=v100" 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not attn-opt %s -split-input-file --attn-io-cost="report=%t.nodir/x.json" 2>&1 | FileCheck %s --check-prefix=WRITE
// Overrides no GPU has are errors (not silently the preset); -1 is the preset.
// RUN: not attn-opt %s -split-input-file --attn-io-cost="sram-bytes=0" 2>&1 | FileCheck %s --check-prefix=SRAM0
// RUN: not attn-opt %s -split-input-file --attn-io-cost="sram-bytes=-5" 2>&1 | FileCheck %s --check-prefix=SRAMNEG
// RUN: not attn-opt %s -split-input-file --attn-io-cost="sram-bytes=1" 2>&1 | FileCheck %s --check-prefix=SRAM1
// RUN: not attn-opt %s -split-input-file --attn-io-cost="hbm-bandwidth=nan" 2>&1 | FileCheck %s --check-prefix=HBMNAN
// RUN: not attn-opt %s -split-input-file --attn-io-cost="hbm-bandwidth=inf" 2>&1 | FileCheck %s --check-prefix=HBMINF
// RUN: not attn-opt %s -split-input-file --attn-io-cost="hbm-bandwidth=0" 2>&1 | FileCheck %s --check-prefix=HBM0
// RUN: not attn-opt %s -split-input-file --attn-io-cost="hbm-bandwidth=1e-300" 2>&1 | FileCheck %s --check-prefix=HBMTINY
// RUN: not attn-opt %s -split-input-file --attn-io-cost="sm-count=0" 2>&1 | FileCheck %s --check-prefix=SM0
// RUN: not attn-opt %s -split-input-file --attn-io-cost="ctas-per-sm=-3" 2>&1 | FileCheck %s --check-prefix=CTAS
// RUN: not attn-opt %s -split-input-file --attn-io-cost="l2-bytes=0" 2>&1 | FileCheck %s --check-prefix=L20
// RUN: not attn-opt %s -split-input-file --attn-io-cost="peak-bf16=-inf" 2>&1 | FileCheck %s --check-prefix=PEAK
// RUN: not attn-opt %s -split-input-file --attn-io-cost="peak-f8=0" 2>&1 | FileCheck %s --check-prefix=PEAKF8
// RUN: not attn-opt %s -split-input-file --attn-io-cost="block-q=-3" 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: attn-opt %s -split-input-file --attn-io-cost="remarks=true sram-bytes=-1 hbm-bandwidth=-1" -verify-diagnostics
// Extreme but valid counts: no signed overflow in the model (UBSan found
// one in the sanitizer build: SMs x CTAs per SM), the same verdicts for the
// same kernels (kv-splits=1: so many SMs would split every grid), and the
// split-KV wave model saturates instead of overflowing.
// RUN: attn-opt %s -split-input-file --attn-io-cost="remarks=true sm-count=9223372036854775807 ctas-per-sm=9223372036854775807 kv-splits=1" -verify-diagnostics
// RUN: not attn-opt %s -split-input-file --attn-io-cost="sm-count=9223372036854775807" -o /dev/null 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE-NOT: runtime error
// HUGE: error: io-cost failed: byte or FLOP count overflows int64
// HUGE-NOT: runtime error
// SRAM0: error: attn-io-cost: target 'h200': sram-bytes must be a positive, finite number, got 0
// SRAMNEG: error: attn-io-cost: target 'h200': sram-bytes must be a positive, finite number, got -5
// SRAM1: error: attn-io-cost: target 'h200': sram-bytes 1 holds no attention tile (at least 1280 bytes)
// HBMNAN: error: attn-io-cost: target 'h200': hbm-bandwidth must be a positive, finite number, got nan
// HBMINF: error: attn-io-cost: target 'h200': hbm-bandwidth must be a positive, finite number, got INF
// HBM0: error: attn-io-cost: target 'h200': hbm-bandwidth must be a positive, finite number, got 0
// HBMTINY: error: io-cost failed: the predicted cost is not finite on target 'h200'
// SM0: error: attn-io-cost: target 'h200': sm-count must be a positive, finite number, got 0
// CTAS: error: attn-io-cost: target 'h200': ctas-per-sm must be a positive, finite number, got -3
// L20: error: attn-io-cost: target 'h200': l2-bytes must be a positive, finite number, got 0
// PEAK: error: attn-io-cost: target 'h200': peak-bf16 must be a positive, finite number, got -INF
// PEAKF8: error: attn-io-cost: target 'h200': peak-f8 must be a positive, finite number, got 0.00
// BLOCK: error: attn-io-cost: block-q and block-kv must be 0 (the chosen tiles) or positive, got -3 and 0
// RUN: not attn-opt %s -split-input-file --attn-io-cost="kv-splits=-1" 2>&1 | FileCheck %s --check-prefix=SPLITS
// RUN: not attn-opt %s -split-input-file --attn-io-cost="kv-splits=70000" 2>&1 | FileCheck %s --check-prefix=SPLITS
// SPLITS: error: attn-io-cost: kv-splits must be 0 (chosen) or 1 to 65535, got
// RUN: not attn-opt %s -split-input-file --attn-io-cost="kv-loads=dma" 2>&1 | FileCheck %s --check-prefix=LOADS
// LOADS: error: attn-io-cost: kv-loads must be auto, cp.async, tma or tma-producer, got 'dma'
// RUN: not attn-opt %s -split-input-file --attn-io-cost="overlap-pv=1" 2>&1 | FileCheck %s --check-prefix=OVERLAP
// OVERLAP: error: attn-io-cost: overlap-pv must be auto, on or off, got '1'
// RUN: not attn-opt %s -split-input-file --attn-io-cost="persistent=yes" 2>&1 | FileCheck %s --check-prefix=PERSISTENT
// PERSISTENT: error: attn-io-cost: persistent must be auto, on or off, got 'yes'
// RUN: not attn-opt %s -split-input-file --attn-io-cost="kv-warps=3" 2>&1 | FileCheck %s --check-prefix=KWARPS
// RUN: not attn-opt %s -split-input-file --attn-io-cost="kv-warps=-1" 2>&1 | FileCheck %s --check-prefix=KWARPS
// KWARPS: error: attn-io-cost: kv-warps must be 0 (chosen), 1, 2, 4 or 8, got
// The remark states each verdict; the warning covers what the model skips.
// Option errors point at the first attention op.
// TARGET: attn-io-cost-diagnostics.mlir:{{[0-9]+}}:8: error: unknown io-cost target 'v100'; known targets: a100, a10, l40s, h100, h200, rtx5090
// WRITE: attn-io-cost-diagnostics.mlir:{{[0-9]+}}:8: error: cannot write '{{.*}}x.json'

func.func @remark(%q: tensor<1x16x4096x64xbf16>) -> tensor<1x16x4096x64xbf16> {
  // expected-remark @+1 {{io-cost on h200: fused compute-bound (2048.0 FLOP/B vs ridge 206.1), unfused memory-bound (31.5 FLOP/B); predicted speedup 5.74x, tiles 128x128}}
  %o = attn.attention %q, %q, %q scale(0.125)
      : tensor<1x16x4096x64xbf16>, tensor<1x16x4096x64xbf16>, tensor<1x16x4096x64xbf16>
      -> tensor<1x16x4096x64xbf16>
  return %o : tensor<1x16x4096x64xbf16>
}

// -----

func.func @decode(%q: tensor<1x64x1x128xbf16>, %kv: tensor<1x8x4096x128xbf16>) -> tensor<1x64x1x128xbf16> {
  // (7.1 FLOP/B with the split-KV partials the default kernel writes, 8.0
  // with kv-splits=1.)
  // expected-remark @+1 {{FLOP/B vs ridge 206.1), unfused memory-bound (7.1 FLOP/B)}}
  %o = attn.attention %q, %kv, %kv scale(0.088)
      : tensor<1x64x1x128xbf16>, tensor<1x8x4096x128xbf16>, tensor<1x8x4096x128xbf16>
      -> tensor<1x64x1x128xbf16>
  return %o : tensor<1x64x1x128xbf16>
}

// -----

func.func @dynamic(%q: tensor<?x64xf16>, %k: tensor<128x64xf16>) -> tensor<?x64xf16> {
  // expected-warning @+1 {{io-cost skipped: the cost model needs static shapes}}
  %o = attn.attention %q, %k, %k scale(0.125) : tensor<?x64xf16>, tensor<128x64xf16>, tensor<128x64xf16> -> tensor<?x64xf16>
  return %o : tensor<?x64xf16>
}

// -----

// Byte counts that do not fit int64 are an error, not a wrapped number.
func.func @overflow(%q: tensor<1x1x1073741824x2147483648xf32>) -> tensor<1x1x1073741824x2147483648xf32> {
  // expected-error @+1 {{io-cost failed: byte or FLOP count overflows int64 for this shape}}
  %o = attn.attention %q, %q, %q scale(0.125)
      : tensor<1x1x1073741824x2147483648xf32>, tensor<1x1x1073741824x2147483648xf32>, tensor<1x1x1073741824x2147483648xf32>
      -> tensor<1x1x1073741824x2147483648xf32>
  return %o : tensor<1x1x1073741824x2147483648xf32>
}

// (At the end, so that the line numbers above stay put.) mma is an enum option: the option parser rejects other values, listing the
// accepted ones.
// RUN: not attn-opt %s -split-input-file --attn-io-cost="mma=tcgen05" 2>&1 | FileCheck %s --check-prefix=MMA
// MMA: for the --mma option: 'tcgen05' is not one of the accepted values: auto, mma.sync, wgmma

// -----

func.func @varlen_no_sequences(%q: tensor<96x8x64xbf16>, %k: tensor<128x2x64xbf16>, %cq: tensor<1xi32>, %ck: tensor<1xi32>) -> tensor<96x8x64xbf16> {
  // expected-warning @+1 {{io-cost skipped: a packed batch of no sequences}}
  %o = attn.varlen_attention %q, %k, %k seqlens(%cq, %ck) scale(0.125) : tensor<96x8x64xbf16>, tensor<128x2x64xbf16>, tensor<128x2x64xbf16>, tensor<1xi32>, tensor<1xi32> -> tensor<96x8x64xbf16>
  return %o : tensor<96x8x64xbf16>
}

// -----

// A packed batch whose prompts hold no query tokens is valid; nothing to cost.
func.func @varlen_zero_tokens(%q: tensor<0x8x64xbf16>, %k: tensor<128x2x64xbf16>, %cq: tensor<5xi32>, %ck: tensor<5xi32>) -> tensor<0x8x64xbf16> {
  // expected-warning @+1 {{io-cost skipped: the attention has an extent of 0 (no work)}}
  %o = attn.varlen_attention %q, %k, %k seqlens(%cq, %ck) scale(0.125) : tensor<0x8x64xbf16>, tensor<128x2x64xbf16>, tensor<128x2x64xbf16>, tensor<5xi32>, tensor<5xi32> -> tensor<0x8x64xbf16>
  return %o : tensor<0x8x64xbf16>
}


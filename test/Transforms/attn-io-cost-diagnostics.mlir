// RUN: attn-opt %s -split-input-file --attn-io-cost="remarks=true" -verify-diagnostics
// RUN: not attn-opt %s -split-input-file --attn-io-cost="target=v100" 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not attn-opt %s -split-input-file --attn-io-cost="report=%t.nodir/x.json" 2>&1 | FileCheck %s --check-prefix=WRITE
// The remark states each verdict; the warning covers what the model skips.
// Option errors point at the first attention op.
// TARGET: attn-io-cost-diagnostics.mlir:11:8: error: unknown io-cost target 'v100'; known targets: a100, h100, h200
// WRITE: attn-io-cost-diagnostics.mlir:11:8: error: cannot write '{{.*}}x.json'

func.func @remark(%q: tensor<1x16x4096x64xbf16>) -> tensor<1x16x4096x64xbf16> {
  // expected-remark @+1 {{io-cost on h200: fused compute-bound (2048.0 FLOP/B vs ridge 206.1), unfused memory-bound (31.5 FLOP/B); predicted speedup 2.92x, tiles 64x128}}
  %o = attn.attention %q, %q, %q scale(0.125)
      : tensor<1x16x4096x64xbf16>, tensor<1x16x4096x64xbf16>, tensor<1x16x4096x64xbf16>
      -> tensor<1x16x4096x64xbf16>
  return %o : tensor<1x16x4096x64xbf16>
}

// -----

func.func @decode(%q: tensor<1x64x1x128xbf16>, %kv: tensor<1x8x4096x128xbf16>) -> tensor<1x64x1x128xbf16> {
  // expected-remark @+1 {{fused memory-bound (8.0 FLOP/B vs ridge 206.1)}}
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
func.func @overflow(%q: tensor<1x1x4294967296x65536xf32>) -> tensor<1x1x4294967296x65536xf32> {
  // expected-error @+1 {{io-cost failed: byte or FLOP count overflows int64 for this shape}}
  %o = attn.attention %q, %q, %q scale(0.125)
      : tensor<1x1x4294967296x65536xf32>, tensor<1x1x4294967296x65536xf32>, tensor<1x1x4294967296x65536xf32>
      -> tensor<1x1x4294967296x65536xf32>
  return %o : tensor<1x1x4294967296x65536xf32>
}

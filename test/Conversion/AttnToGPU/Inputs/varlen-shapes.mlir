// Packed variable-length batches (attn.varlen_attention) for
// attn-gpu-pipeline-varlen-ptxas.test: one per kind of kernel the chooser
// picks for the mean sequence.

// Decode over 64 sequences (GQA 32:8, d = 128): mma.sync, heads packed.
func.func @decode(%q: tensor<64x32x128xbf16>, %k: tensor<262144x8x128xbf16>, %cq: tensor<65xi32>, %ck: tensor<65xi32>) -> tensor<64x32x128xbf16> {
  %o = attn.varlen_attention %q, %k, %k seqlens(%cq, %ck) scale(0.0883883461) causal(bottom_right) : tensor<64x32x128xbf16>, tensor<262144x8x128xbf16>, tensor<262144x8x128xbf16>, tensor<65xi32>, tensor<65xi32> -> tensor<64x32x128xbf16>
  return %o : tensor<64x32x128xbf16>
}

// Prefill of 8 prompts (GQA 32:8, d = 128, causal): wgmma.
func.func @prefill_d128(%q: tensor<16384x32x128xbf16>, %k: tensor<16384x8x128xbf16>, %cq: tensor<9xi32>, %ck: tensor<9xi32>) -> tensor<16384x32x128xbf16> {
  %o = attn.varlen_attention %q, %k, %k seqlens(%cq, %ck) scale(0.0883883461) causal(top_left) : tensor<16384x32x128xbf16>, tensor<16384x8x128xbf16>, tensor<16384x8x128xbf16>, tensor<9xi32>, tensor<9xi32> -> tensor<16384x32x128xbf16>
  return %o : tensor<16384x32x128xbf16>
}

// Prefill, f16 MHA at d = 64, not causal: wgmma.
func.func @prefill_d64(%q: tensor<8192x16x64xf16>, %cq: tensor<5xi32>, %ck: tensor<5xi32>) -> tensor<8192x16x64xf16> {
  %o = attn.varlen_attention %q, %q, %q seqlens(%cq, %ck) scale(0.125) : tensor<8192x16x64xf16>, tensor<8192x16x64xf16>, tensor<8192x16x64xf16>, tensor<5xi32>, tensor<5xi32> -> tensor<8192x16x64xf16>
  return %o : tensor<8192x16x64xf16>
}

// Chunked prefill with a cached prefix (more keys than queries), d = 80.
func.func @chunked_d80(%q: tensor<3000x8x80xbf16>, %k: tensor<9000x8x80xbf16>, %cq: tensor<4xi32>, %ck: tensor<4xi32>) -> tensor<3000x8x80xbf16> {
  %o = attn.varlen_attention %q, %k, %k seqlens(%cq, %ck) scale(0.1118) causal(bottom_right) : tensor<3000x8x80xbf16>, tensor<9000x8x80xbf16>, tensor<9000x8x80xbf16>, tensor<4xi32>, tensor<4xi32> -> tensor<3000x8x80xbf16>
  return %o : tensor<3000x8x80xbf16>
}

// DeepSeek's head dims (d = 192, dv = 128).
func.func @mla(%q: tensor<4096x16x192xbf16>, %k: tensor<4096x16x192xbf16>, %v: tensor<4096x16x128xbf16>, %cq: tensor<3xi32>, %ck: tensor<3xi32>) -> tensor<4096x16x128xbf16> {
  %o = attn.varlen_attention %q, %k, %v seqlens(%cq, %ck) scale(0.0722) causal(top_left) : tensor<4096x16x192xbf16>, tensor<4096x16x192xbf16>, tensor<4096x16x128xbf16>, tensor<3xi32>, tensor<3xi32> -> tensor<4096x16x128xbf16>
  return %o : tensor<4096x16x128xbf16>
}

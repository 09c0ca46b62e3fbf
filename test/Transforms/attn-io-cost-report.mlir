// The JSON report, the table and the roofline SVG.
// RUN: attn-opt %s --attn-io-cost="report=%t.json roofline=%t.svg" -o /dev/null
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: FileCheck %s --check-prefix=SVG < %t.svg
// RUN: attn-opt %s --attn-io-cost="report=-" -o /dev/null | FileCheck %s --check-prefix=TABLE

// JSON: "attention": [
// JSON:     "B": 2,
// JSON:     "H": 8,
// JSON:     "Hkv": 2,
// JSON:     "Lk": 1024,
// JSON:     "Lq": 1024,
// JSON:     "block_kv": 128,
// JSON:     "block_q": 128,
// JSON:     "bound_fused": "compute",
// JSON:     "bound_naive": "memory",
// JSON:     "causal": false,
// JSON:     "d": 128,
// JSON:     "dtype": "f16",
// JSON:     "dv": 128,
// 4·2·8·1024²·128:
// JSON:     "flops": 8589934592,
// JSON:     "fused_dram_bytes": 
// JSON:     "fused_sram_l2_bytes":
// JSON:     "intensity_fused":
// JSON:     "intensity_naive":
// The kernel that runs (and was costed): wgmma on the H200, K/V by TMA from
// a producer warpgroup, each P·V overlapped with the next tile's softmax;
// two stages over its 8 key tiles (a short non-causal key run without
// persistent CTAs: bench/NOTES.md v61c).
// JSON:     "kernel_config": {
// JSON-NEXT:  "block_kv": 128,
// JSON-NEXT:  "block_q": 128,
// JSON-NEXT:  "family": "wgmma",
// JSON-NEXT:  "kv_splits": 1,
// JSON-NEXT:  "kv_stages": 2,
// JSON-NEXT:  "kv_warps": 1,
// JSON-NEXT:  "overlap_pv": true,
// JSON-NEXT:  "pack_kv_groups": false,
// JSON-NEXT:  "persistent": false,
// JSON-NEXT:  "producer_warpgroup": true,
// JSON-NEXT:  "rows_per_warp": 16,
// JSON-NEXT:  "swizzle": false,
// JSON-NEXT:  "tma_loads": true
// JSON-NEXT: },
// 2·2·(8·1024·128 + 2·1024·256 + 8·1024·128 + 4·8·1024²):
// JSON:     "naive_hbm_bytes": 144703488,
// JSON:     "op": "attention#0",
// JSON:     "predicted_time_fused_s":
// JSON:     "predicted_time_naive_s":
// JSON:     "ridge": 206.125
// JSON: "target": {
// JSON:   "name": "h200",
// The scale op reads and writes 2·8·1024·128 halves: 2 · 4194304 bytes.
// JSON: "unfused_ops": [
// JSON:     "bytes": 8388608,
// JSON:     "op": "op#0 attn.scale",
// JSON: "unfused_total":

// SVG: <svg xmlns="http://www.w3.org/2000/svg"
// SVG: Roofline: h200, f16
// SVG-DAG: attention#0 fused
// SVG-DAG: attention#0 unfused
// SVG-DAG: op#0 attn.scale
// SVG: </svg>

// TABLE: attn-io-cost on h200
// TABLE: op#0 attn.scale {{.*}} memory-bound
// TABLE: attention#0 B=2 Hq=8 Hkv=2 Lq=1024 Lk=1024 d=128 f16
func.func @gqa(%q: tensor<2x8x1024x128xf16>, %kv: tensor<2x2x1024x128xf16>) -> tensor<2x8x1024x128xf16> {
  %s = attn.scale %q by 2.0 : tensor<2x8x1024x128xf16>
  %o = attn.attention %s, %kv, %kv scale(0.088)
      : tensor<2x8x1024x128xf16>, tensor<2x2x1024x128xf16>, tensor<2x2x1024x128xf16>
      -> tensor<2x8x1024x128xf16>
  return %o : tensor<2x8x1024x128xf16>
}

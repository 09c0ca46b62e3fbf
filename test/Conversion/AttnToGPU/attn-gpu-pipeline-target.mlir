// target= is the GPU the kernels are chosen for: its SM count and HBM
// bandwidth decide split-KV. At B = 1, 4k GQA an H100 (3.35 TB/s) takes 7
// splits (56 CTAs ask its DRAM for as much as 64 would, within the 3% the
// chooser does not resolve), where an H200 (4.8 TB/s) needs 8 (64 CTAs,
// one per TPC; more double TPCs up beside single ones, which streams
// slower, and each split costs the combine a trip per row); auto is the
// chip's own preset (h200 on sm_90a). The manifest says which GPU it was
// chosen for.
// RUN: rm -rf %t && mkdir -p %t/h100 %t/auto
// RUN: attn-opt %s --attn-gpu-pipeline="target=h100 dump-dir=%t/h100" | FileCheck %s --check-prefix=H100
// RUN: attn-opt %s --attn-gpu-pipeline="target=h200" | FileCheck %s --check-prefix=H200
// RUN: attn-opt %s --attn-gpu-pipeline="dump-dir=%t/auto" | FileCheck %s --check-prefix=H200
// RUN: attn-opt %s --attn-gpu-pipeline="chip=sm_90 target=h100" | FileCheck %s --check-prefix=H100
// H100: gpu.binary @attn_fa2_mma_bf16_b1_h64_kv8_q1_k4096_d128_v128_bq16_bk128_w16_pack_split7_kw4_tma_module
// H200: gpu.binary @attn_fa2_mma_bf16_b1_h64_kv8_q1_k4096_d128_v128_bq16_bk128_w16_pack_split8_kw4_tma_module
// RUN: cat %t/h100/*split7*.json | FileCheck %s --check-prefix=FOR-H100
// FOR-H100: "chosen_for": "h100",
// RUN: cat %t/auto/*split8*.json | FileCheck %s --check-prefix=FOR-H200
// FOR-H200: "chosen_for": "h200",

// Only presets of the chip's architecture, checked before any pass runs.
// RUN: not attn-opt %s --attn-gpu-pipeline="target=a100" 2>&1 | FileCheck %s --check-prefix=OTHER-ARCH
// OTHER-ARCH: error: attn-gpu-pipeline: target 'a100' is an sm_80 GPU; accepted for chip sm_90a: auto, h100, h200
// RUN: not attn-opt %s --attn-gpu-pipeline="chip=sm_80 target=h100" 2>&1 | FileCheck %s --check-prefix=SM80
// SM80: error: attn-gpu-pipeline: target 'h100' is an sm_90a GPU; accepted for chip sm_80: auto, a100
// sm_100 has no preset of its own: it takes h200's (the same shared memory per SM).
// RUN: not attn-opt %s --attn-gpu-pipeline="chip=sm_100 target=h100" 2>&1 | FileCheck %s --check-prefix=SM100
// SM100: error: attn-gpu-pipeline: target 'h100' is an sm_90a GPU; accepted for chip sm_100: auto, h200
// RUN: not attn-opt %s --attn-gpu-pipeline="target=v100" 2>&1 | FileCheck %s --check-prefix=UNKNOWN -DT=v100
// RUN: not attn-opt %s --attn-gpu-pipeline="target=" 2>&1 | FileCheck %s --check-prefix=UNKNOWN -DT=
// RUN: not attn-opt %s --attn-gpu-pipeline="target=H100" 2>&1 | FileCheck %s --check-prefix=UNKNOWN -DT=H100
// UNKNOWN: error: attn-gpu-pipeline: target '[[T]]' is no io-cost preset; accepted for chip sm_90a: auto, h100, h200

func.func @decode(%q: tensor<1x64x1x128xbf16>, %k: tensor<1x8x4096x128xbf16>, %v: tensor<1x8x4096x128xbf16>) -> tensor<1x64x1x128xbf16> {
  %o = attn.attention %q, %k, %v scale(0.08838834764831845) : tensor<1x64x1x128xbf16>, tensor<1x8x4096x128xbf16>, tensor<1x8x4096x128xbf16> -> tensor<1x64x1x128xbf16>
  return %o : tensor<1x64x1x128xbf16>
}

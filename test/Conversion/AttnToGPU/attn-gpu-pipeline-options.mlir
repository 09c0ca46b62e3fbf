// Every chip= and mma= value no kernel supports is a diagnostic listing the
// accepted values and a non-zero exit, before any pass runs (these used to
// abort in the NVPTX backend, or segfault for an empty chip).
// RUN: not attn-opt %s --attn-gpu-pipeline="chip=sm_70" 2>&1 | FileCheck %s --check-prefix=CHIP -DCHIP=sm_70
// RUN: not attn-opt %s --attn-gpu-pipeline="chip=sm_75" 2>&1 | FileCheck %s --check-prefix=CHIP -DCHIP=sm_75
// RUN: not attn-opt %s --attn-gpu-pipeline="chip=" 2>&1 | FileCheck %s --check-prefix=CHIP -DCHIP=
// RUN: not attn-opt %s --attn-gpu-pipeline="chip=foo" 2>&1 | FileCheck %s --check-prefix=CHIP -DCHIP=foo
// RUN: not attn-opt %s --attn-gpu-pipeline="chip=gfx90a" 2>&1 | FileCheck %s --check-prefix=CHIP -DCHIP=gfx90a
// RUN: not attn-opt %s --attn-gpu-pipeline="chip=sm_100a" 2>&1 | FileCheck %s --check-prefix=CHIP -DCHIP=sm_100a
// CHIP: error: attn-gpu-pipeline: chip '[[CHIP]]' is not one the kernels are built for; accepted: sm_80, sm_86, sm_87, sm_89, sm_90, sm_90a, sm_100, sm_120 (mma.sync needs sm_80 or newer, wgmma needs sm_90a)
// RUN: not attn-opt %s --attn-gpu-pipeline="mma=tcgen05" 2>&1 | FileCheck %s --check-prefix=MMA
// MMA: for the --mma option: 'tcgen05' is not one of the accepted values: auto, mma.sync, wgmma
// RUN: not attn-opt %s --attn-gpu-pipeline="chip=sm_80 mma=wgmma" 2>&1 | FileCheck %s --check-prefix=WGMMA
// WGMMA: error: attn-gpu-pipeline: mma=wgmma needs chip=sm_90a (or sm_90), got 'sm_80'
// Accepted values compile.
// RUN: attn-opt %s --attn-gpu-pipeline="chip=sm_80" | FileCheck %s --check-prefix=OK
// OK: gpu.binary @attn_fa2_mma_f16_{{.*}}chip = "sm_80", features = "+ptx80"

func.func @attention(%q: tensor<1x2x128x64xf16>) -> tensor<1x2x128x64xf16> {
  %o = attn.attention %q, %q, %q scale(0.125) : tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x128x64xf16>
  return %o : tensor<1x2x128x64xf16>
}

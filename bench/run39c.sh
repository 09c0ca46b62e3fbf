#!/bin/bash
# v39c: where the FP8 kernel's time goes: the same kernels without the Vᵀ
# writes (wrong results, timing only), and Nsight Compute on one FP8 kernel.
export PYTHONUNBUFFERED=1
mkdir -p $OUT/nt $OUT/ncu
timeout 150 python3 bench/fp8_check.py bench/kernels_fp8nt > $OUT/nt/log.txt 2>&1
grep -E "f8E4M3FN" $OUT/nt/log.txt | cut -c1-30,71-
f=$(ls bench/kernels_fp8v38/attn_fa2_wgmma_f8E4M3FN_b4_h16_kv16_q4096_k4096_d128_v128_bq128*.json)
timeout 200 ncu --clock-control none --kernel-name regex:attn_fa2 --launch-skip 1 --launch-count 1 \
  --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis_Tables \
  --section SchedulerStats --section InstructionStats \
  python3 bench/profile_fp8.py $f > $OUT/ncu/fp8.txt 2>&1
grep -E "^    [A-Za-z]|bank|Bank|Stall|stall" $OUT/ncu/fp8.txt | head -90

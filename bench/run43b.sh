#!/bin/bash
# v43b: where the FP8 kernel's time goes now (Nsight Compute): the FP8
# kernel and its bf16 twin at B = 4, N = 4k, non-causal; pipe utilizations,
# warp states, and the FP8 kernel's stalls per SASS instruction.
export PYTHONUNBUFFERED=1
R=$OUT/v43b; mkdir -p $R
D=bench/kernels_fp8v43
f8=$(ls $D/attn_fa2_wgmma_f8E4M3FN_b4_h16_kv16_q4096_k4096_d128_v128_bq128*.json)
bf=$(ls $D/attn_fa2_wgmma_bf16_b4_h16_kv16_q4096_k4096_d128_v128_bq128*.json)
M=sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__issue_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed.sum,smsp__inst_executed_pipe_xu.sum,gpu__time_duration.sum
timeout 150 ncu --clock-control none --kernel-name regex:'descale$' --launch-skip 1 --launch-count 1 \
  --section SpeedOfLight --section WarpStateStats --section SchedulerStats --metrics $M \
  python3 bench/profile_fp8.py $f8 > $R/fp8.txt 2>&1
echo fp8 rc=$?
timeout 150 ncu --clock-control none --kernel-name regex:'ov$' --launch-skip 1 --launch-count 1 \
  --section SpeedOfLight --section WarpStateStats --section SchedulerStats --metrics $M \
  python3 bench/profile_kernel.py $bf > $R/bf16.txt 2>&1
echo bf16 rc=$?
timeout 200 ncu --clock-control base --kernel-name regex:'descale$' --launch-skip 1 --launch-count 1 \
  --section SourceCounters --section WarpStateStats --page source --csv --print-source sass \
  python3 bench/profile_fp8.py $f8 > $R/fp8.src.csv 2> $R/fp8.src.err
echo src rc=$?
xz -9 $R/fp8.src.csv
for f in $R/fp8.txt $R/bf16.txt; do
  echo "== $f"; grep -E "pct_of_peak|inst_executed|duration|Issued Warp|No Eligible|Active Warps|Eligible Warps|Stall|stall|Duration|Throughput" $f | head -40
done

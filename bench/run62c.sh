#!/bin/bash
# v62c: Nsight Compute on v61c's change: d = 128, N = 1k, non-causal (B = 16,
# H = 16), the three-stage kernel (A) and the two-stage one with K and V on
# barriers of their own (B): pipe utilizations, warp states, duration.
export PYTHONUNBUFFERED=1
R=$OUT/v62c; mkdir -p $R
D=bench/kernels_ab61
a=$D/attn_fa2_wgmma_bf16_b16_h16_kv16_q1024_k1024_d128_v128_bq128_bk128_w16_s3_tma_ws_ov.json
b=$D/attn_fa2_wgmma_bf16_b16_h16_kv16_q1024_k1024_d128_v128_bq128_bk128_w16_tma_ws_ov_b.json
M=sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__issue_active.avg.pct_of_peak_sustained_active,sm__inst_executed.sum,gpu__time_duration.sum
nvidia-smi --query-gpu=name --format=csv > $R/gpu.txt
for x in a b; do
  f=${!x}; re='ov$'; [ $x = b ] && re='ov_b$'
  timeout 80 ncu --clock-control none --kernel-name regex:"$re" --launch-skip 1 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --metrics $M \
    python3 bench/profile_kernel.py $f > $R/$x.txt 2>&1
  echo "$x rc=$?"
done
for f in $R/a.txt $R/b.txt; do
  echo "== $f"; grep -E "pct_of_peak|inst_executed|duration|Duration|Issued Warp|No Eligible|Eligible Warps|Stall|stall|Throughput" $f | head -30
done

#!/bin/bash
# v63b (and v62c): Nsight Compute on d = 128, N = 1k (B = 16, H = 16):
# causal persistent without (A) and with (B) the Q prefetch; non-causal
# three stages (s3) against the two-stage pick (v61c's change).
#   bash bench/run63b.sh   # carry kernels_ncu63 kernels_fp8A63 kernels_fp8B63
export PYTHONUNBUFFERED=1
R=$OUT/ncu; mkdir -p $R
D=bench/kernels_ncu63
P=attn_fa2_wgmma_bf16_b16_h16_kv16_q1024_k1024_d128_v128
M=sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__issue_active.avg.pct_of_peak_sustained_active,sm__inst_executed.sum,gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sector_hit_rate.pct
nvidia-smi --query-gpu=name --format=csv > $R/gpu.txt
for x in causal_bq128_bk128_w16_s3_tma_ws_ov_pst132 causal_bq128_bk128_w16_s3_tma_ws_ov_pst132_b \
         bq128_bk128_w16_s3_tma_ws_ov bq128_bk128_w16_tma_ws_ov; do
  timeout 80 ncu --clock-control none --kernel-name regex:"${x}\$" --launch-skip 1 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --metrics $M \
    python3 bench/profile_kernel.py $D/${P}_$x.json > $R/$x.txt 2>&1
  echo "$x rc=$?"
done
for f in $R/*.txt; do
  echo "== $f"; grep -E "pct_of_peak|inst_executed|duration|Duration|dram__bytes|hit_rate|Issued Warp|No Eligible|Eligible Warps|Stall|stall" $f | head -30
done
# The FP8 speed set (with its bf16 twins) by both builds: the persistent
# causal kernels change (issue 15's 4k causal point).
for run in fp8A63:a fp8B63:b; do
  set=${run%:*}
  timeout 100 python3 bench/fp8_check.py bench/kernels_$set > $R/${run/:/_}.txt 2>&1
  echo "$run rc=$?"
done
for f in $R/fp8*_?.txt; do echo "== $f"; cut -c1-40,71- $f | grep -v "^kernel"; done

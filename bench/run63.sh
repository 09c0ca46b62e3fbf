#!/bin/bash
# v63, one device call, most important first (the call's limit cuts the
# tail): (a) the producer's L2 prefetch of each work item's Q tile in
# persistent kernels, HEAD (A) against the change (B), 16 rounds on the
# shapes whose picks it changes, two identical-code shapes as the control;
# (b) the one-CTA launch bound on issue 14's decode picks (A's pick and
# B's side by side per shape); (c) Nsight Compute on the d = 128 1k causal
# pair; (d) the FP8 speed set of both builds; (e) a second decode pass;
# (f) v62c's ncu pair (three stages vs the two-stage pick, 1k non-causal).
#   bash bench/run63.sh  # carry kernels_pre63 kernels_dec63 kernels_ncu63 kernels_fp8A63 kernels_fp8B63
export PYTHONUNBUFFERED=1
R=$OUT; mkdir -p $R/ab $R/dec1 $R/dec2 $R/ncu
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.limit --format=csv > $R/gpu.txt
timeout 260 python3 bench/prefill_sweep.py --kernels bench/kernels_pre63 --out $R/ab --rounds 16 \
  --only d128-1k-causal,d128-2k-causal,d128-4k-causal,d128-16k-causal,gqa-d128-4k-causal,d128-1k,d128-4k \
  > $R/ab/log.txt 2>&1
echo "ab rc=$?"
timeout 60 python3 bench/decode_bench.py --graphs --kernels bench/kernels_dec63 --out $R/dec1 > $R/dec1/log.txt 2>&1
echo "dec1 rc=$?"
D=bench/kernels_ncu63
P=attn_fa2_wgmma_bf16_b16_h16_kv16_q1024_k1024_d128_v128
M=sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__issue_active.avg.pct_of_peak_sustained_active,sm__inst_executed.sum,gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sector_hit_rate.pct
profile() {
  timeout 60 ncu --clock-control none --kernel-name regex:"${1}\$" --launch-skip 1 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --metrics $M \
    python3 bench/profile_kernel.py $D/${P}_$1.json > $R/ncu/$1.txt 2>&1
  echo "ncu $1 rc=$?"
}
profile causal_bq128_bk128_w16_s3_tma_ws_ov_pst132
profile causal_bq128_bk128_w16_s3_tma_ws_ov_pst132_b
for run in fp8A63:a fp8B63:b; do
  timeout 60 python3 bench/fp8_check.py bench/kernels_${run%:*} > $R/${run/:/_}.txt 2>&1
  echo "$run rc=$?"
done
timeout 60 python3 bench/decode_bench.py --graphs --kernels bench/kernels_dec63 --out $R/dec2 > $R/dec2/log.txt 2>&1
echo "dec2 rc=$?"
profile bq128_bk128_w16_s3_tma_ws_ov
profile bq128_bk128_w16_tma_ws_ov

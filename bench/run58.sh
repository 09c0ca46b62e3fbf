#!/bin/bash
# v58: the Vᵀ pre-kernel with one task per thread and its key tests in
# i32 (fp858: the FP8 check and speed set on this commit) against the same
# set from the previous pre-kernel (fp857h), A/B/A; the pre-kernel alone
# on both; the 60 random FP8 kernels of seed 57 (fp8r58: dv = 16..256,
# partial tiles, e5m2, soft caps) checked against fp32.
#   bash bench/run58.sh   # carry kernels_fp858 kernels_fp857h kernels_fp8r58
export PYTHONUNBUFFERED=1
O=$OUT/v58; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv > $O/gpu.txt; cat $O/gpu.txt
source bench/headdim_part.sh
fp8 fp857h a 200; fp8 fp858 b 200; fp8 fp857h c 200
for s in fp857h fp858; do
  timeout 60 python3 bench/vt_prekernel_time.py bench/kernels_$s > $O/vt_$s.txt 2>&1
  echo "vt $s rc=$?"; cat $O/vt_$s.txt
done
fp8 fp8r58 a 240

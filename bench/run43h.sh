#!/bin/bash
# v43h: the Vᵀ pre-kernel with coalesced stores (kernels_fp8v43h) beside
# v43f's (kernels_fp8v43f; the attention kernels are the same).
export PYTHONUNBUFFERED=1
R=$OUT/v43h; mkdir -p $R
nvidia-smi --query-gpu=name --format=csv > $R/gpu.txt
for run in fp8v43h:a fp8v43f:b fp8v43h:c; do
  set=${run%:*}
  timeout 100 python3 bench/vt_prekernel_time.py bench/kernels_$set > $R/vt_${run/:/_}.txt 2>&1
  echo "vt $run rc=$?"
done
for run in fp8v43h:a fp8v43f:b fp8v43h:c; do
  set=${run%:*}
  timeout 150 python3 bench/fp8_check.py bench/kernels_$set > $R/${run/:/_}.txt 2>&1
  echo "$run rc=$?"
done
cat $R/gpu.txt
for f in $R/vt_*.txt $R/fp8*.txt; do echo "== $f"; cut -c1-40,71- $f | grep -v "^kernel"; done

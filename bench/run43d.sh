#!/bin/bash
# v43d: FP8 causal kernels on persistent CTAs (pairs of equal work, as
# bf16's) beside v43's one-CTA-per-item kernels, same run.
export PYTHONUNBUFFERED=1
mkdir -p $OUT/v43d
nvidia-smi --query-gpu=name --format=csv > $OUT/v43d/gpu.txt
for run in fp8v43d:a fp8v43:b fp8v43d:c; do
  set=${run%:*}
  timeout 150 python3 bench/fp8_check.py bench/kernels_$set > $OUT/v43d/${run/:/_}.txt 2>&1
  echo "$run rc=$?"
done
cat $OUT/v43d/gpu.txt
for f in $OUT/v43d/*_?.txt; do echo "== $f"; cut -c1-40,71- $f | grep -v "^kernel"; done

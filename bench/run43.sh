#!/bin/bash
# v43: the FP8 kernel with Vᵀ from a pre-kernel (f8a2654) beside v39d's
# in-producer transposer (kernels_fp8old, built at 0ec0849), same run.
export PYTHONUNBUFFERED=1
mkdir -p $OUT/v43
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $OUT/v43/gpu.txt
# (The new set first and last: the card's first seconds run faster.)
for run in fp8v43:a fp8old:b fp8v43:c; do
  set=${run%:*}
  timeout 200 python3 bench/fp8_check.py bench/kernels_$set > $OUT/v43/${run/:/_}.txt 2>&1
  echo "$run rc=$?"
done
cut -c1-40,71- $OUT/v43/*.txt

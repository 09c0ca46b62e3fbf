#!/bin/bash
# v43c: the FP8 kernel with wider key tiles (block-kv 192, 224, 256) beside
# v43's 128-key pick, same run; each folder also holds the bf16 twins.
export PYTHONUNBUFFERED=1
mkdir -p $OUT/v43c
nvidia-smi --query-gpu=name --format=csv > $OUT/v43c/gpu.txt
for run in fp8v43:a fp8bk192:b fp8bk224:c fp8bk256:d fp8v43:e; do
  set=${run%:*}
  timeout 120 python3 bench/fp8_check.py bench/kernels_$set > $OUT/v43c/${run/:/_}.txt 2>&1
  echo "$run rc=$?"
done
cat $OUT/v43c/gpu.txt
for f in $OUT/v43c/*_?.txt; do echo "== $f"; cut -c1-40,71- $f | grep -v "^kernel"; done

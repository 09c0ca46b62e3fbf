#!/bin/bash
# v43f: the Vᵀ pre-kernel reading 4-byte words (kernels_fp8v43f) beside the
# byte-per-load one (kernels_fp8v43d; the attention kernels are the same):
# the pre-kernel alone, then the whole check, new / old / new.
#   bash bench/run43f.sh [NEW OLD TAG]   (v43h: fp8v43h fp8v43f v43h)
export PYTHONUNBUFFERED=1
NEW=${1:-fp8v43f}; OLD=${2:-fp8v43d}; TAG=${3:-v43f}
R=$OUT/$TAG; mkdir -p $R
nvidia-smi --query-gpu=name --format=csv > $R/gpu.txt
for run in $NEW:a $OLD:b $NEW:c; do
  set=${run%:*}
  timeout 100 python3 bench/vt_prekernel_time.py bench/kernels_$set > $R/vt_${run/:/_}.txt 2>&1
  echo "vt $run rc=$?"
done
for run in $NEW:a $OLD:b $NEW:c; do
  set=${run%:*}
  timeout 150 python3 bench/fp8_check.py bench/kernels_$set > $R/${run/:/_}.txt 2>&1
  echo "$run rc=$?"
done
cat $R/gpu.txt
for f in $R/vt_*.txt $R/fp8*.txt; do echo "== $f"; cut -c1-40,71- $f | grep -v "^kernel"; done

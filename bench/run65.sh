#!/bin/bash
# v65: finite-fill (finfo.min) keep-mask selects in the score_mod region on the GPU.
#   bash bench/run65.sh   # carry kernels_finite_fill
export PYTHONUNBUFFERED=1
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name --format=csv > $R/gpu.txt
timeout 120 python3 bench/finite_fill_check.py bench/kernels_finite_fill > $R/check.txt 2>&1
echo "check rc=$?"
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R

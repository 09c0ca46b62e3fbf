#!/bin/bash
# v64: issue 16's grid on HEAD (the persistent producer's Q prefetch,
# v63) beside cuDNN, FA2 and Flex (4k); then the FP8 speed set at HEAD
# (FP8 ÷ our bf16, issue 15).
#   bash bench/run64.sh   # carry kernels_grid64 kernels_fp864 (HEAD's attn-opt)
export PYTHONUNBUFFERED=1
R=$OUT/r; mkdir -p $R/grid
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.limit --format=csv > $R/gpu.txt
timeout 200 python3 bench/run_bench.py --kernels bench/kernels_grid64 --dtypes bf16 --flex 4096 \
  --rounds 3 --out $R/grid > $R/grid/log.txt 2>&1
echo "grid rc=$?"
timeout 90 python3 bench/fp8_check.py bench/kernels_fp864 > $R/fp8.txt 2>&1
echo "fp8 rc=$?"
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R

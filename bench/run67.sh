#!/bin/bash
# v67: HEAD on the H200 if one comes (issues 14-16 are stated on it): issue
# 16's prefill grid beside cuDNN, FA2 and Flex (4k); the FP8 speed set
# (FP8 ÷ our bf16, issue 15); issue 14's decode picks beside SDPA.
#   bash bench/run67.sh   # carry kernels_grid66 kernels_fp866 kernels_dec66 kernels_dsweep67 kernels_dsweep67b
export PYTHONUNBUFFERED=1
R=$OUT/r; mkdir -p $R/grid $R/dec
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.limit --format=csv > $R/gpu.txt
timeout 200 python3 bench/run_bench.py --kernels bench/kernels_grid66 --dtypes bf16 --flex 4096 \
  --rounds 3 --out $R/grid > $R/grid/log.txt 2>&1
echo "grid rc=$?"
timeout 90 python3 bench/fp8_check.py bench/kernels_fp866 > $R/fp8.txt 2>&1
echo "fp8 rc=$?"
timeout 90 python3 bench/decode_bench.py --graphs --kernels bench/kernels_dec66 --out $R/dec > $R/dec/log.txt 2>&1
echo "dec rc=$?"
# The split x tile x key-warp sweeps at the decode points below 1.0x cuDNN
# on the H100 (v66): B = 1 16k/128k (64, 8), B = 64 16k (32, 32).
for s in dsweep67 dsweep67b; do
  mkdir -p $R/$s
  timeout 150 python3 bench/decode_bench.py --graphs --kernels bench/kernels_$s --out $R/$s > $R/$s/log.txt 2>&1
  echo "$s rc=$?"
done
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R

#!/bin/bash
# v69c: the refit decode chooser out of the sample it was fitted on: 12
# shapes drawn by gen_decode_kernels.py --random 12 --seed 69 (batches 1-32,
# groups of 1-8 query heads, odd key lengths from 1k to 96k, d = 64 and
# 128), each with the h200 and h100 picks and a sweep of split counts x
# tiles x key warps, the picks and the three fastest re-timed twice more.
#   bash bench/run69c.sh   # carry kernels_carry69 (kernels_drand69, xz)
export PYTHONUNBUFFERED=1
R=$OUT/r; mkdir -p $R
[ -d bench/kernels_drand69 ] || tar xJf bench/kernels_carry69/drand69.tar.xz -C bench
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $R/gpu.txt
timeout 560 python3 bench/decode_bench.py --graphs --confirm 3 --kernels bench/kernels_drand69 \
  --out $R > $R/log.txt 2>&1
echo "rc=$?"
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R

#!/bin/bash
# v69: the refit streaming model's decode picks (session 42) against a sweep
# of issue 14's contiguous grid, in the same call: per shape the h200 pick
# (target=auto), the h100 pick (target=h100), and the sweep; the picks and
# the sweep's three fastest re-timed twice more, interleaved (medians of
# three), beside SDPA cuDNN / flash. One part per call:
#   bash bench/run69.sh a   # B = 1: 8 tiles x {1,2,4,8,16,32} splits, and
#                           # 128 x {4,8} at every count 3..15   carry kernels_dsweep69a
#   bash bench/run69.sh b   # B = 8 (1,2,3,4,8) and 64 (1,2,3) x 8 tiles
#                           #                                    carry kernels_dsweep69b, _69c
export PYTHONUNBUFFERED=1
part=${1:?a or b}
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $R/gpu.txt
if [ "$part" = a ]; then dirs="kernels_dsweep69a"; else dirs="kernels_dsweep69b kernels_dsweep69c"; fi
for d in $dirs; do
  mkdir -p $R/$d
  timeout 280 python3 bench/decode_bench.py --graphs --confirm 3 --kernels bench/$d \
    --out $R/$d > $R/$d/log.txt 2>&1
  echo "$d rc=$?"
done
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R

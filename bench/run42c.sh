#!/bin/bash
# v42c (issue 14): the 16-token boxes with the tile's block-table entries
# read by the lanes of the first warp at once (one load, then a shuffle per
# page), beside v42's kernels (entries read one after another by the
# issuing thread) in the same run: the whole paged grid and the picks'
# neighbours, each set as paged_bench.py measures it.
set -o pipefail
export PYTHONUNBUFFERED=1
tar -xJf bench/kernels_carry42/kernels_p42.tar.xz -C bench || exit 1
tar -xJf bench/kernels_carry42/kernels_p42c.tar.xz -C bench || exit 1
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
mkdir -p /tmp/r42c/new /tmp/r42c/old
for set in new old; do
  dir=bench/kernels_p42c; [ $set = old ] && dir=bench/kernels_p42
  timeout 170 python3 bench/paged_bench.py --graphs --max-gb 16 --kernels $dir --out /tmp/r42c/$set \
    > /tmp/r42c/$set/log.txt 2>&1
  echo "$set rc=$?"
done
tar -czf $OUT/r42c.tar.gz -C /tmp r42c
for set in new old; do echo "== $set"; cat /tmp/r42c/$set/table.md; done

#!/bin/bash
# v42b (issue 14): the 16-token paged sweep at B = 8 (every split count of
# SWEEP[8] x every legal tile, tensor boxes), to fit the boxes' block-table
# cost in the streaming model.
set -o pipefail
export PYTHONUNBUFFERED=1
tar -xJf bench/kernels_carry42/kernels_p42s.tar.xz -C bench || exit 1
mkdir -p /tmp/r42b
timeout 400 python3 bench/paged_bench.py --graphs --kernels bench/kernels_p42s --out /tmp/r42b \
  > /tmp/r42b/log.txt 2>&1
echo "rc=$?"
rm -f /tmp/r42b/log.txt.gz; gzip /tmp/r42b/log.txt
tar -czf $OUT/r42b.tar.gz -C /tmp r42b
sed -n '/Chooser vs sweep/,$p' /tmp/r42b/table.md

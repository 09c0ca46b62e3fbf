#!/bin/bash
# v42 (issue 14): paged K/V by tensor boxes (one per page) beside the
# contiguous kernels, the row-copy picks of before (kv-loads=cp.async) and
# the 16-token picks' neighbours; then the FP8 check set on the final
# transposer (v39e). Kernels travel as one archive; results come back as
# one tarball and the tables.
set -o pipefail
export PYTHONUNBUFFERED=1
tar -xJf bench/kernels_carry42/kernels_p42.tar.xz -C bench || exit 1
tar -xJf bench/kernels_carry42/kernels_fp8v39e.tar.xz -C bench || exit 1
mkdir -p /tmp/r42/paged /tmp/r42/fp8
timeout 420 python3 bench/paged_bench.py --graphs --kernels bench/kernels_p42 --out /tmp/r42/paged \
  > /tmp/r42/paged/log.txt 2>&1
echo "paged rc=$?"
timeout 100 python3 bench/fp8_check.py bench/kernels_fp8v39e > /tmp/r42/fp8/log.txt 2>&1
echo "fp8 rc=$?"
tar -czf $OUT/r42.tar.gz -C /tmp r42
cat /tmp/r42/paged/table.md
tail -5 /tmp/r42/paged/log.txt
cut -c1-30,71- /tmp/r42/fp8/log.txt | tail -20

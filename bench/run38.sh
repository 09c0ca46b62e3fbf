#!/bin/bash
# v38 (issue 14): v37's paged part (its archive, kernels built at 612aa05,
# whose decode code main still has) and the refit chooser's decode picks
# (branch wip/decode-model-refit) beside main's picks and their neighbours.
set -o pipefail
export PYTHONUNBUFFERED=1
tar -xJf bench/kernels_carry37/kernels_paged.tar.xz -C bench || exit 1
tar -xJf bench/kernels_carry38/kernels_r38.tar.xz -C bench || exit 1
mkdir -p $OUT/refit $OUT/paged $OUT/sweep
python3 bench/decode_bench.py --graphs --kernels bench/kernels_r38 --out $OUT/refit \
  > $OUT/refit/log.txt 2>&1
cat $OUT/refit/table.md
python3 bench/paged_bench.py --graphs --kernels bench/kernels_p37 --out $OUT/paged \
  > $OUT/paged/log.txt 2>&1
python3 bench/paged_bench.py --graphs --kernels bench/kernels_p37s --out $OUT/sweep \
  > $OUT/sweep/log.txt 2>&1
tail -40 $OUT/paged/log.txt $OUT/sweep/log.txt

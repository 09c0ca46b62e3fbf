#!/bin/bash
# v37 (issue 14's proofs). Part "decode": the B = 1 floor probe and the
# contiguous decode sweep; part "paged": the paged grid and the 16-token
# sweep. The kernels travel as one archive (bench/kernels_carry37/).
set -o pipefail
export PYTHONUNBUFFERED=1
part=$1
tar -xJf bench/kernels_carry37/kernels_$part.tar.xz -C bench || exit 1
if [ "$part" = decode ]; then
  mkdir -p $OUT/floor $OUT/decode
  python3 bench/decode_floor_probe.py --kernels bench/kernels_d37 --batches 1 --out $OUT/floor \
    > $OUT/floor/log.txt 2>&1
  python3 bench/decode_bench.py --graphs --kernels bench/kernels_d37 --out $OUT/decode \
    > $OUT/decode/log.txt 2>&1
  cat $OUT/floor/floor.md $OUT/decode/table.md
else
  mkdir -p $OUT/paged $OUT/sweep
  python3 bench/paged_bench.py --graphs --kernels bench/kernels_p37 --out $OUT/paged \
    > $OUT/paged/log.txt 2>&1
  python3 bench/paged_bench.py --graphs --kernels bench/kernels_p37s --out $OUT/sweep \
    > $OUT/sweep/log.txt 2>&1
  tail -40 $OUT/paged/log.txt $OUT/sweep/log.txt
fi

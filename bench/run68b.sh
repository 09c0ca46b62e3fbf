#!/bin/bash
# v68b: every split count 2..16 on 128-key tiles (4 and 8 key warps) at
# B = 1, 16k and 128k, (64, 8) and (32, 32): are the non-power-of-two split
# counts slower than both power-of-two neighbours (v68's picks of 3, 9, 11
# splits ran 1.5-6% below them)?
#   bash bench/run68b.sh   # carry kernels_splits68
export PYTHONUNBUFFERED=1
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $R/gpu.txt
# Two passes, to tell a dip from the noise.
for pass in a b; do
  mkdir -p $R/$pass
  timeout 250 python3 bench/decode_bench.py --graphs --kernels bench/kernels_splits68 \
    --out $R/$pass > $R/$pass/log.txt 2>&1
  echo "$pass rc=$?"
done
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R

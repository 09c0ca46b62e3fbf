#!/bin/bash
# v68: issue 14's chooser proof on the whole decode grid. Every (split
# count x block-kv x kv-warps) of gen_decode_kernels' sweep at each of the
# 27 shapes, beside both picks: h200 (target=auto) and h100 (target=h100),
# the pick and the sweep's three fastest re-timed twice more, interleaved
# (medians of three decide pick / best), and SDPA cuDNN / flash in the same
# call. One part per call (the whole sweep is ~900 kernels):
#   bash bench/run68.sh 1     # B = 1        carry kernels_dsweep68
#   bash bench/run68.sh 8,64  # B = 8, 64    carry kernels_dsweep68
export PYTHONUNBUFFERED=1
part=${1:?batch sizes}
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $R/gpu.txt
timeout 560 python3 bench/decode_bench.py --graphs --confirm 3 --batches $part \
  --kernels bench/kernels_dsweep68 --out $R > $R/log.txt 2>&1
echo "sweep rc=$?"
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R

#!/bin/bash
# v66: split-KV carries each row's (m, l) apart (the combine weighs
# l * 2^(m - M)). (a) the finite-fill set (bf16 split-KV kernel's fully
# masked rows); (b) the decode grid's picks, new build (dec66) and the
# previous one (dec63, log2-sum-exp combine), correctness and speed beside
# SDPA cuDNN / flash in the same call.
#   bash bench/run66.sh   # carry kernels_finite_fill kernels_dec66 kernels_dec63
export PYTHONUNBUFFERED=1
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
timeout 120 python3 bench/finite_fill_check.py bench/kernels_finite_fill > $R/check.txt 2>&1
echo "check rc=$?"
# (interleaved, new-old-new, so that drift shows)
for run in dec66:a dec63:b dec66:c; do
  d=${run%:*}; o=$R/${run/:/_}; mkdir -p $o
  timeout 90 python3 bench/decode_bench.py --graphs --kernels bench/kernels_$d --out $o > $o/log.txt 2>&1
  echo "$run rc=$?"
done
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R

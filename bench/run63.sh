#!/bin/bash
# v63: (a) the producer's L2 prefetch of each work item's Q tile in
# persistent kernels, HEAD (A) against the change (B), 20 rounds on the
# shapes whose picks it changes, two identical-code shapes as the control;
# (b) the one-CTA launch bound on issue 14's decode picks (A's pick and
# B's side by side per shape), two passes.
#   bash bench/run63.sh   # carry kernels_pre63 kernels_dec63
export PYTHONUNBUFFERED=1
R=$OUT/r; mkdir -p $R/ab $R/dec1 $R/dec2
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.limit --format=csv > $R/gpu.txt
timeout 330 python3 bench/prefill_sweep.py --kernels bench/kernels_pre63 --out $R/ab --rounds 20 \
  --only d128-1k-causal,d128-2k-causal,d128-4k-causal,d128-16k-causal,gqa-d128-4k-causal,d128-1k,d128-4k \
  > $R/ab/log.txt 2>&1
echo "ab rc=$?"
for p in 1 2; do
  timeout 90 python3 bench/decode_bench.py --graphs --kernels bench/kernels_dec63 --out $R/dec$p > $R/dec$p/log.txt 2>&1
  echo "dec$p rc=$?"
done
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R

# v61c: v61b's A/B (two stages vs three for non-persistent overlapped d = 128
# kernels), 20 rounds on the shapes the rule changes, identical-code
# persistent causal pairs as the control.
set -x
R=$OUT/r; mkdir -p $R/ab
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $R/gpu.txt
timeout 500 python3 bench/prefill_sweep.py --kernels bench/kernels_ab61 --out $R/ab --rounds 20 \
  --only d128-1k,d128-2k,d128-4k,d128-8k,d128-16k,gqa-d128-4k,cross-d128-1kx8k,f16-d128-4k,odd-d128-3000-causal,d128-16k-causal,d128-1k-causal \
  > $R/ab/log.txt 2>&1
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R

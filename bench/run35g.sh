set -x
R=$OUT/r; mkdir -p $R/sweep
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $R/gpu.txt
timeout 560 python3 bench/prefill_sweep.py --kernels bench/kernels_sweep35 --out $R/sweep --rounds 4 > $R/sweep/log.txt 2>&1
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R

set -x
R=$OUT/r; mkdir -p $R/ctas
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $R/gpu.txt
python3 bench/prefill_sweep.py --kernels bench/kernels_ctas --out $R/ctas --rounds 4 > $R/ctas/log.txt 2>&1
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R

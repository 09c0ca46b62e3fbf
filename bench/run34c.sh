set -x
R=$OUT/r; mkdir -p $R/ab $R/ad $R/grid
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $R/gpu.txt
timeout 300 python3 bench/prefill_sweep.py --kernels bench/kernels_ab34d_ab --out $R/ab --rounds 4 > $R/ab/log.txt 2>&1
timeout 300 python3 bench/prefill_sweep.py --kernels bench/kernels_ab34d_ad --out $R/ad --rounds 4 > $R/ad/log.txt 2>&1
timeout 400 python3 bench/run_bench.py --kernels bench/kernels_v34c --dtypes bf16 --flex 4096 --rounds 3 --out $R/grid > $R/grid/log.txt 2>&1
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R

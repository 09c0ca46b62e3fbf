set -x
R=$OUT/r; mkdir -p $R/pst $R/chk $R/ab $R/grid
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $R/gpu.txt
# A wrong stage, parity or release would hang a persistent CTA: bounded.
timeout 300 python3 bench/check_kernels.py bench/kernels_pst34 > $R/pst/log.txt 2>&1; echo "rc=$?" >> $R/pst/log.txt
timeout 300 python3 bench/check_kernels.py bench/kernels_chk34 > $R/chk/log.txt 2>&1; echo "rc=$?" >> $R/chk/log.txt
timeout 400 python3 bench/prefill_sweep.py --kernels bench/kernels_ab34 --out $R/ab --rounds 4 > $R/ab/log.txt 2>&1
timeout 400 python3 bench/run_bench.py --kernels bench/kernels_v34 --dtypes bf16 --rounds 3 --out $R/grid > $R/grid/log.txt 2>&1
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R

set -x
R=$OUT/r; mkdir -p $R/pst $R/chk $R/sd $R/od $R/odd $R/grid
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $R/gpu.txt
# A lost ticket or a wrong slot parity would hang a persistent CTA: bounded.
timeout 300 python3 bench/check_kernels.py bench/kernels_pst35 > $R/pst/log.txt 2>&1; echo "rc=$?" >> $R/pst/log.txt
timeout 300 python3 bench/check_kernels.py bench/kernels_chk35 > $R/chk/log.txt 2>&1; echo "rc=$?" >> $R/chk/log.txt
timeout 300 python3 bench/prefill_sweep.py --kernels bench/kernels_ab35_sd --out $R/sd --rounds 4 > $R/sd/log.txt 2>&1
timeout 300 python3 bench/prefill_sweep.py --kernels bench/kernels_ab35_od --out $R/od --rounds 4 > $R/od/log.txt 2>&1
timeout 200 python3 bench/prefill_sweep.py --kernels bench/kernels_ab35_odd --out $R/odd --rounds 4 > $R/odd/log.txt 2>&1
timeout 400 python3 bench/run_bench.py --kernels bench/kernels_v35 --dtypes bf16 --flex 4096 --rounds 3 --out $R/grid > $R/grid/log.txt 2>&1
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R

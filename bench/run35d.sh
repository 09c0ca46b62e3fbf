set -x
R=$OUT/r; mkdir -p $R/chk $R/rnd $R/pst $R/off $R/ps
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $R/gpu.txt
timeout 200 python3 bench/check_kernels.py bench/kernels_chk35e > $R/chk/log.txt 2>&1; echo "rc=$?" >> $R/chk/log.txt
timeout 200 python3 bench/check_kernels.py bench/kernels_rnd35e > $R/rnd/log.txt 2>&1; echo "rc=$?" >> $R/rnd/log.txt
timeout 200 python3 bench/check_kernels.py bench/kernels_pst35e > $R/pst/log.txt 2>&1; echo "rc=$?" >> $R/pst/log.txt
timeout 300 python3 bench/prefill_sweep.py --kernels bench/kernels_ab35e_off --out $R/off --rounds 4 > $R/off/log.txt 2>&1
timeout 300 python3 bench/prefill_sweep.py --kernels bench/kernels_ab35e_pst --out $R/ps --rounds 4 > $R/ps/log.txt 2>&1
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R

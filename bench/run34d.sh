set -x
R=$OUT/r; mkdir -p $R/pst $R/ab
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $R/gpu.txt
timeout 300 python3 bench/check_kernels.py bench/kernels_pst34e > $R/pst/log.txt 2>&1; echo "rc=$?" >> $R/pst/log.txt
timeout 300 python3 bench/prefill_sweep.py --kernels bench/kernels_ab34e --out $R/ab --rounds 4 > $R/ab/log.txt 2>&1
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R

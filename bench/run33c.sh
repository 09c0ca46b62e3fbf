set -x
R=$OUT/r; mkdir -p $R/ab $R/abo $R/chk $R/rand $R/d64
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $R/gpu.txt
python3 bench/check_kernels.py bench/kernels_chk33c > $R/chk/log.txt 2>&1
python3 bench/check_kernels.py bench/kernels_rand33c > $R/rand/log.txt 2>&1
python3 bench/prefill_sweep.py --kernels bench/kernels_ab33 --out $R/ab --rounds 4 > $R/ab/log.txt 2>&1
python3 bench/prefill_sweep.py --kernels bench/kernels_ab33o --out $R/abo --rounds 4 > $R/abo/log.txt 2>&1
python3 bench/prefill_sweep.py --kernels bench/kernels_d64full --out $R/d64 --rounds 3 > $R/d64/log.txt 2>&1
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R

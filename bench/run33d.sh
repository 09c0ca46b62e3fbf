set -x
R=$OUT/r; mkdir -p $R/ab $R/abo $R/rand
python3 bench/check_kernels.py bench/kernels_rand34 > $R/rand/log.txt 2>&1
python3 bench/prefill_sweep.py --kernels bench/kernels_ab34 --out $R/ab --rounds 4 > $R/ab/log.txt 2>&1
python3 bench/prefill_sweep.py --kernels bench/kernels_ab34o --out $R/abo --rounds 4 > $R/abo/log.txt 2>&1
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R

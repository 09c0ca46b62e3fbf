set -x
R=$OUT/r; mkdir -p $R/tree $R/d64
python3 bench/prefill_sweep.py --kernels bench/kernels_tree2 --out $R/tree --rounds 3 > $R/tree/log.txt 2>&1
python3 bench/prefill_sweep.py --kernels bench/kernels_d64sweep --out $R/d64 --rounds 2 > $R/d64/log.txt 2>&1
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R

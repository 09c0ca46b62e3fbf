R=$OUT/r; mkdir -p $R/d128
python3 bench/prefill_sweep.py --kernels bench/kernels_d128sweep --out $R/d128 --rounds 2 > $R/d128/log.txt 2>&1
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R

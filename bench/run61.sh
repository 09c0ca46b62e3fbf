# v61: the chooser's proof on HEAD (issue 16): the full sweep of
# bench/gen_prefill_sweep.py --full (grid + 10 shapes), cuDNN in the same rounds.
set -x
R=$OUT/r; mkdir -p $R/sweep
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.limit --format=csv > $R/gpu.txt
timeout 570 python3 bench/prefill_sweep.py --kernels bench/kernels_sweep60 --out $R/sweep --rounds 4 > $R/sweep/log.txt 2>&1
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R

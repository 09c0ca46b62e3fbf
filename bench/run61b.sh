# v61b: A/B of the chooser's two-stage rule for non-persistent overlapped
# kernels (A: 6cc202b's picks, B: with stagesForSchedule), cuDNN beside.
set -x
R=$OUT/r; mkdir -p $R/ab $R/abo
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $R/gpu.txt
timeout 300 python3 bench/prefill_sweep.py --kernels bench/kernels_ab61 --out $R/ab --rounds 6 > $R/ab/log.txt 2>&1
timeout 200 python3 bench/prefill_sweep.py --kernels bench/kernels_ab61o --out $R/abo --rounds 6 > $R/abo/log.txt 2>&1
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R

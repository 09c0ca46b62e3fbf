#!/bin/bash
# v64b: the chooser's sweep on four d = 64 shapes (issue 16's causal gap).
#   bash bench/run64b.sh   # carry kernels_d64sweep64
export PYTHONUNBUFFERED=1
R=$OUT/r; mkdir -p $R/sweep
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.limit --format=csv > $R/gpu.txt
timeout 400 python3 bench/prefill_sweep.py --kernels bench/kernels_d64sweep64 --out $R/sweep --rounds 8 > $R/sweep/log.txt 2>&1
echo "sweep rc=$?"
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R

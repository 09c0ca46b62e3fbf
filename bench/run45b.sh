#!/bin/bash
# v45b (bench/NOTES.md): window score_mods on the unmodified picks. The
# 40 random windows checked, then the score_mod set (new) and the window
# and plain kernels of the previous pick (base), beside FlexAttention.
export PYTHONUNBUFFERED=1
mkdir -p $OUT/v45b
nvidia-smi --query-gpu=name --format=csv > $OUT/v45b/gpu.txt
timeout 150 python3 bench/check_kernels.py bench/kernels_win45 --windows > $OUT/v45b/windows.txt 2>&1
echo "windows rc=$?"; tail -4 $OUT/v45b/windows.txt
timeout 180 python3 bench/score_mod_bench.py --kernels bench/kernels_sm45 --out $OUT/v45b/new > $OUT/v45b/new.txt 2>&1
echo "new rc=$?"
timeout 100 python3 bench/score_mod_bench.py --kernels bench/kernels_sm45base --out $OUT/v45b/base > $OUT/v45b/base.txt 2>&1
echo "base rc=$?"
cat $OUT/v45b/gpu.txt; tail -30 $OUT/v45b/new.txt; tail -12 $OUT/v45b/base.txt

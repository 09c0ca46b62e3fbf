#!/bin/bash
# Session 30's one device call: v46 (the windows and score_mods after the
# unclamped rows), then the H200 runs v45 / v45b / v45c still owe.
export PYTHONUNBUFFERED=1
mkdir -p $OUT/v46
nvidia-smi --query-gpu=name --format=csv > $OUT/v46/gpu.txt; cat $OUT/v46/gpu.txt
timeout 150 python3 bench/check_kernels.py bench/kernels_win46 --windows > $OUT/v46/windows.txt 2>&1
echo "windows rc=$?"; tail -4 $OUT/v46/windows.txt
timeout 120 python3 bench/score_mod_bench.py --kernels bench/kernels_smp46 --out $OUT/v46/partial > $OUT/v46/partial.txt 2>&1
echo "partial rc=$?"; tail -12 $OUT/v46/partial.txt
bash bench/run_fp8_sets.sh v45 110 v44f:a
mkdir -p $OUT/v45b
timeout 150 python3 bench/score_mod_bench.py --kernels bench/kernels_sm45 --out $OUT/v45b/new > $OUT/v45b/new.txt 2>&1
echo "new rc=$?"; tail -14 $OUT/v45b/new.txt
timeout 80 python3 bench/score_mod_bench.py --kernels bench/kernels_sm45base --out $OUT/v45b/base > $OUT/v45b/base.txt 2>&1
echo "base rc=$?"; tail -8 $OUT/v45b/base.txt
bash bench/run45c.sh
bash bench/run_fp8_sets.sh v45 90 v44base:b

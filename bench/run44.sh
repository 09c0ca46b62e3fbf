#!/bin/bash
# v44: the R / T / R+T A/B of the wgmma softmax (bench/NOTES.md), then the
# R+T kernels' correctness on the bf16 check set and random draws.
bash bench/run_fp8_sets.sh v44 300 v44base:a v44r:b v44t:c v44rt:d v44base:e v44rt:f
for s in v44chk v44rand v44pers; do
  timeout 200 python3 bench/check_kernels.py bench/kernels_$s > $OUT/v44/check_$s.txt 2>&1
  echo "check $s rc=$?"; tail -n 3 $OUT/v44/check_$s.txt
done

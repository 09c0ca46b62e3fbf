#!/bin/bash
# v39b: the FP8 check/speed sets and the structured debug inputs only.
export PYTHONUNBUFFERED=1
mkdir -p $OUT/fp8
timeout 200 python3 bench/fp8_check.py bench/kernels_fp8v38 > $OUT/fp8/log.txt 2>&1
echo "fp8 rc=$?"; tail -45 $OUT/fp8/log.txt
timeout 90 python3 bench/fp8_debug.py bench/kernels_fp8v38 > $OUT/fp8/debug.txt 2>&1; cat $OUT/fp8/debug.txt

#!/bin/bash
# v38 + v39 in one device call: the FP8 check and speed sets first (v39),
# then v38's refit picks and v37's paged part.
set -o pipefail
export PYTHONUNBUFFERED=1
mkdir -p $OUT/fp8
timeout 240 python3 bench/fp8_check.py bench/kernels_fp8v38 > $OUT/fp8/log.txt 2>&1
echo "fp8 rc=$?"; tail -45 $OUT/fp8/log.txt
timeout 60 python3 bench/fp8_debug.py bench/kernels_fp8v38 > $OUT/fp8/debug.txt 2>&1; cat $OUT/fp8/debug.txt
bash bench/run38.sh 2>&1 | tail -60

#!/bin/bash
export PYTHONUNBUFFERED=1
mkdir -p $OUT/fp8
timeout 150 python3 bench/fp8_check.py bench/kernels_fp8v39e > $OUT/fp8/log.txt 2>&1
echo "rc=$?"; cut -c1-30,71- $OUT/fp8/log.txt

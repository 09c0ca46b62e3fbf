#!/bin/bash
# bench/fp8_check.py over several kernel folders in one device call, in the
# given order (a set named twice is timed first and last: the card's first
# seconds run faster), each run's log in $OUT/TAG/<set>_<letter>.txt.
#   bash bench/run_fp8_sets.sh TAG TIMEOUT SET:LETTER ...
export PYTHONUNBUFFERED=1
TAG=$1; LIMIT=$2; shift 2
mkdir -p $OUT/$TAG
nvidia-smi --query-gpu=name --format=csv > $OUT/$TAG/gpu.txt
for run in "$@"; do
  set=${run%:*}
  timeout $LIMIT python3 bench/fp8_check.py bench/kernels_$set > $OUT/$TAG/${run/:/_}.txt 2>&1
  echo "$run rc=$?"
done
cat $OUT/$TAG/gpu.txt
for f in $OUT/$TAG/*_?.txt; do echo "== $f"; cut -c1-40,71- $f | grep -v "^kernel"; done

#!/bin/bash
# v55: issue 16's grid (B·N = 16k, H·d = 2048, d = 64/128, N = 1k-16k, causal
# and not, bf16) on HEAD's picks beside cuDNN, FA2 and Flex (4k), three
# rounds (run_bench.py's fair protocol).
#   bash bench/run55.sh   # carry kernels_grid55 (bench/gen_kernels.py at HEAD)
export PYTHONUNBUFFERED=1
O=$OUT/v55; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv > $O/gpu.txt; cat $O/gpu.txt
timeout 420 python3 bench/run_bench.py --kernels bench/kernels_grid55 --dtypes bf16 --flex 4096 \
  --rounds 3 --out $O > $O/log.txt 2>&1
echo "grid rc=$?"; grep "^|" $O/*.md 2>/dev/null | head -40; tail -5 $O/log.txt

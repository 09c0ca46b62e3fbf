#!/bin/bash
# v54: wider key tiles than the halving gave where shared memory bounds
# them: d = 256 on 128 x 80 (FlashAttention-3's tile), d = 160 on 128 x 112,
# both with the two-stage overlap, beside v53b's picks (128 x 64).
#   bash bench/run54.sh   # carry kernels_hd54base kernels_hd54
export PYTHONUNBUFFERED=1
O=$OUT/v54; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv > $O/gpu.txt; cat $O/gpu.txt
source bench/headdim_part.sh
hd hd54base a 80; hd hd54 b 100; hd hd54base c 80; hd hd54 d 100

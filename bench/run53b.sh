#!/bin/bash
# v53b: the chooser's new picks (the producer and the overlapped P·V at
# every head dim above 64, two stages where three do not fit) beside
# HEAD's, the FP8 set, and the partial-tile score_mod set (its d = 96 toy
# window now has the producer).
#   bash bench/run53b.sh  # carry kernels_hd47s kernels_hd53b kernels_fp853b
#                         #       kernels_smp47 kernels_smp53
export PYTHONUNBUFFERED=1
O=$OUT/v53b; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv > $O/gpu.txt; cat $O/gpu.txt
source bench/headdim_part.sh
hd hd47s a 110; hd hd53b b 160; hd hd47s c 110; hd hd53b d 160
timeout 100 python3 bench/fp8_check.py bench/kernels_fp853b > $O/fp853b.txt 2>&1
echo "fp8 rc=$?"; tail -1 $O/fp853b.txt
smod smp47 a 60; smod smp53 b 60

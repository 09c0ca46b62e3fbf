#!/bin/bash
# Session 32's device call (v53): K and V on separate stage barriers in the
# producer warpgroup's ring, so that the overlapped P·V runs with two stages.
#   bash bench/run53.sh   # carry kernels_hd53old kernels_hd53new kernels_hd53ov
#                         #       kernels_fp847 kernels_fp853
# hd53old: HEAD's head-dim picks at d = 256, 192/128, 160, 128 (session 31's
# kernels_hd47); hd53new: this change's picks (the d = 128 overlapped kernels
# differ) and its whole check set; hd53ov: the overlap with two stages asked
# for at d = 256 (64-key tiles), 192/128 and 160. fp847 / fp853: the FP8 set
# (with its bf16 twins) before and after.
export PYTHONUNBUFFERED=1
O=$OUT/v53; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv > $O/gpu.txt; cat $O/gpu.txt
source bench/headdim_part.sh
mkdir -p /tmp/empty
hd hd53old a 120; hd hd53ov b 150; hd hd53new c 200; hd hd53old d 120; hd hd53ov e 120
fp8 fp847 a; fp8 fp853 b

#!/bin/bash
# v56: Q's descriptors rebuilt in the loop above 8 k-steps and the key tile
# shrunk 16 keys at a time where no mask is read: d = 160 on 112 keys,
# d = 256 on 80, d = 192/128 with its Q descriptors rebuilt, beside HEAD's
# picks (A/B/A/B, cuDNN in each part).
#   bash bench/run56.sh   # carry kernels_hd56base kernels_hd56
export PYTHONUNBUFFERED=1
O=$OUT/v56; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv > $O/gpu.txt; cat $O/gpu.txt
source bench/headdim_part.sh
hd hd56base a 100; hd hd56 b 100; hd hd56base c 100; hd hd56 d 100

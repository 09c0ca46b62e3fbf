#!/bin/bash
# v56b: d = 128 at N = 1k and 2k (issue 16's shortest points) on 128-row
# producer kernels with key tiles of 128 (the chooser's), 112, 96 and 80,
# which wgmma takes since v54 and no sweep had timed: is the pick the best?
# One pass (the session's device time was short), cuDNN beside each kernel.
#   bash bench/run56b.sh   # carry kernels_kv56
export PYTHONUNBUFFERED=1
O=$OUT/v56b; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv > $O/gpu.txt; cat $O/gpu.txt
source bench/headdim_part.sh
hd kv56 a 480

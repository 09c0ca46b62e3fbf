#!/bin/bash
# v57c: d = 256 (80-key tiles), HEAD's kernels (d256h) against the peeled
# ones (d256p), three interleaved rounds, cuDNN in each part.
#   bash bench/run57c.sh   # carry kernels_d256h kernels_d256p
export PYTHONUNBUFFERED=1
O=$OUT/v57c; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv > $O/gpu.txt; cat $O/gpu.txt
source bench/headdim_part.sh
hd d256h a 60; hd d256p b 60; hd d256h c 60; hd d256p d 60; hd d256h e 60; hd d256p f 60

#!/bin/bash
# v59: the peeled first tile takes the math of the run that holds it
# (unmasked below the diagonal / inside Lk), d = 256 at 4k/8k (d256_59)
# against HEAD's (d256_59h) in three interleaved rounds, d = 128 at 1k/2k
# (d128_59 vs d128_59h) in two; the head-dim check set (chk59: d = 128,
# 160, 192/128, 256, partial tiles, both causal alignments).
#   bash bench/run59.sh   # carry kernels_d256_59 kernels_d256_59h kernels_d128_59 kernels_d128_59h kernels_chk59
export PYTHONUNBUFFERED=1
O=$OUT/v59; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv > $O/gpu.txt; cat $O/gpu.txt
source bench/headdim_part.sh
hd chk59 a 150
hd d256_59h a 60; hd d256_59 b 60; hd d256_59h c 60; hd d256_59 d 60; hd d256_59h e 60; hd d256_59 f 60
hd d128_59h a 50; hd d128_59 b 50; hd d128_59h c 50; hd d128_59 d 50

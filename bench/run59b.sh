#!/bin/bash
# v59b: causal d = 128 at 1k/2k/4k, the chooser's persistent picks
# (c128_pon, which keep the zero P·V) against one CTA per item with the
# peeled first tile in its run's math (c128_poff: persistent=off), A/B/A/B.
#   bash bench/run59b.sh   # carry kernels_c128_pon kernels_c128_poff
export PYTHONUNBUFFERED=1
O=$OUT/v59b; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv > $O/gpu.txt; cat $O/gpu.txt
source bench/headdim_part.sh
hd c128_pon a 50; hd c128_poff b 50; hd c128_pon c 50; hd c128_poff d 50

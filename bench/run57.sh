#!/bin/bash
# v57: the work item's first tile peeled out of the overlapped K/V loops
# (no P·V of a zero P in their first iteration), d = 128 at N = 1k, 2k, 4k:
# HEAD's non-causal 1k/2k picks (h57) against the peeled ones (pn57) twice,
# and the peeled set (pe57: non-causal, causal persistent = HEAD's PTX,
# causal persistent=off peeled) with its check kernels (d = 128, 160,
# 192/128, 256), cuDNN beside each kernel.
#   bash bench/run57.sh   # carry kernels_h57 kernels_pn57 kernels_pe57
export PYTHONUNBUFFERED=1
O=$OUT/v57; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv > $O/gpu.txt; cat $O/gpu.txt
source bench/headdim_part.sh
hd h57 a 90; hd pn57 b 90; hd h57 c 90; hd pn57 d 90; hd pe57 e 300

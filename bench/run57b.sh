#!/bin/bash
# v57b: the peeled first tile at d = 160, 192/128, 256 (hd57, this
# chooser) against HEAD's same picks (hd56: the v56 set), A/B/A/B with
# cuDNN in each part; the FP8 check and speed set peeled (fp857); and v56b's
# key-tile set at d = 128, 1k/2k (kv56: HEAD's chooser, unpeeled); the
# score_mod partial-tile set peeled (smp57: windows' edge runs after the
# peeled tile), against FlexAttention.
#   bash bench/run57b.sh   # carry kernels_hd56 kernels_hd57 kernels_fp857 kernels_kv56 kernels_smp57
export PYTHONUNBUFFERED=1
O=$OUT/v57b; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv > $O/gpu.txt; cat $O/gpu.txt
source bench/headdim_part.sh
smod smp57 a 90
hd hd56 a 100; hd hd57 b 100; hd hd56 c 100; hd hd57 d 100
fp8 fp857 a 200
hd kv56 a 150

#!/usr/bin/env python3
"""Launches one dumped attn-opt kernel twice (warm-up, then the profiled
launch) on fresh random inputs, for Nsight Compute:

    ncu --clock-control none --kernel-name regex:attn_fa2 --launch-skip 1 --launch-count 1 \\
        --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum \\
        python3 bench/profile_kernel.py bench/kernels/<kernel>.json
"""
import sys

import torch

from attn_run import Kernel

kern = Kernel(sys.argv[1])
q, k, v, o = kern.inputs()
for _ in range(2):
    kern(q, k, v, o)
torch.cuda.synchronize()

#!/usr/bin/env python3
"""Launches SDPA (one backend) on random bf16 inputs twice, warm-up then
the profiled launch, for Nsight Compute beside profile_kernel.py:

    ncu --clock-control none --launch-skip 1 --launch-count 1 \\
        python3 bench/profile_sdpa.py cudnn B Hq Hkv Lq Lk d
"""
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

backend = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION}[sys.argv[1]]
B, Hq, Hkv, Lq, Lk, d = (int(x) for x in sys.argv[2:8])
q = torch.randn(B, Hq, Lq, d, device="cuda", dtype=torch.bfloat16)
k = torch.randn(B, Hkv, Lk, d, device="cuda", dtype=torch.bfloat16)
v = torch.randn(B, Hkv, Lk, d, device="cuda", dtype=torch.bfloat16)
for _ in range(2):
    with sdpa_kernel(backend):
        F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
torch.cuda.synchronize()

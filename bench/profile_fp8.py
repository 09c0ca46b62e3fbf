#!/usr/bin/env python3
"""Launches one dumped FP8 kernel twice on N(0, 1) inputs rounded to its
8-bit type (descale factors of 1 when it takes them), for Nsight Compute:

    ncu --kernel-name regex:attn_fa2 --launch-skip 1 --launch-count 1 ... \\
        python3 bench/profile_fp8.py bench/kernels_fp8v38/<kernel>.json
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attn_run import Kernel  # noqa: E402
from fp8_check import FP8  # noqa: E402

kern = Kernel(sys.argv[1])
m = kern.manifest
q, k, v = (torch.randn(s, device="cuda").to(FP8[m["dtype"]]) for s in kern.shapes[:3])
out_dtype = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}[m["output_dtype"]]
o = torch.empty(kern.shapes[3], device="cuda", dtype=out_dtype)
one = torch.ones((), device="cuda")
for _ in range(2):
    kern(q, k, v, o, descale=(one, one, one) if m.get("descale") else None)
torch.cuda.synchronize()

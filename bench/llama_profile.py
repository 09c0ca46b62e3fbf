#!/usr/bin/env python3
"""Profiles examples/llama_attnopt.py's prefill and decode with both
attention functions (torch.profiler): the ops with the most device and
host time, and every synchronizing CUDA runtime/driver call, to find where
attnopt's per-call cost goes.

    python3 bench/llama_profile.py [--layers 4]
"""
import argparse
import os
import sys

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
import llama_attnopt as ex  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, default=4)
    a = ap.parse_args()
    cfg = dict(ex.CONFIG, layers=a.layers)
    torch.manual_seed(0)
    prompts = torch.randint(0, cfg["vocab"], (4, 1024), device="cuda")
    for name in ("sdpa", "attnopt"):
        model = ex.Llama(cfg, ex.ATTENTION[name]).cuda().to(torch.bfloat16)
        ex.run(model, prompts, 8)  # compile, warm up
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            ex.run(model, prompts, 8)
        table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=14)
        print("=" * 30, name, "(host time)\n", table)
        print("=" * 30, name, "(device time)\n",
              prof.key_averages().table(sort_by="self_device_time_total", row_limit=8))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Where does a call of attnopt.torch.attention spend its time? Per-call
wall time (µs, median of 5 runs of 200 calls, synchronized at the ends) of
each layer of the call for one decode shape, beside SDPA's, on the GPU.

    python3 bench/torch_overhead.py   (attnopt importable)
"""
import json
import statistics
import sys
import time

import torch
import torch.nn.functional as F

import attnopt.torch as at


def per_call_us(fn, calls=200, runs=5):
    fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
        samples.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(samples)


def main():
    B, Hq, Hkv, L, d = 4, 32, 8, 2048, 64
    q = torch.randn(B, Hq, 1, d, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(B, Hkv, L, d, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(B, Hkv, L, d, device="cuda", dtype=torch.bfloat16)
    keep = torch.zeros(1, 1, 1, L, dtype=torch.bool, device="cuda")
    keep[..., :1100] = True
    at.attention(q, k, v, attn_mask=keep, enable_gqa=True)
    (problem, chip, device), kernel = next(iter(at._loaded.items()))
    rows = {}
    with torch.no_grad():
        rows["sdpa (filled slice)"] = per_call_us(lambda: F.scaled_dot_product_attention(
            q, k[:, :, :1100], v[:, :, :1100], enable_gqa=True))
        rows["sdpa (mask, full cache)"] = per_call_us(lambda: F.scaled_dot_product_attention(
            q, k, v, attn_mask=keep, enable_gqa=True))
        rows["LoadedKernel call"] = per_call_us(lambda: kernel(q, k, v, mask=keep))
        rows["_kernel lookup"] = per_call_us(lambda: at._kernel(problem, chip, device))
        rows["_attention_impl"] = per_call_us(lambda: at._attention_impl(
            q, k, v, keep, False, None, True))
        rows["torch.ops.attnopt.attention (no_grad)"] = per_call_us(
            lambda: at.attention(q, k, v, attn_mask=keep, enable_gqa=True))
    rows["torch.ops.attnopt.attention (grad mode)"] = per_call_us(
        lambda: at.attention(q, k, v, attn_mask=keep, enable_gqa=True))
    for name, us in rows.items():
        print("%-45s %8.1f us" % (name, us))
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Correctness of every kernel in a directory of attn-opt manifests, on the
GPU machine: fresh random inputs, output poisoned with NaN, error against an
fp32 reference next to PyTorch's own same-precision SDPA (math backend, same
inputs, same mask) — the bar is at most 2x that error, no NaN, and fully
masked rows exactly 0. Handles both causal alignments, GQA and lengths that
are not multiples of the tiles.

    python3 bench/check_kernels.py DIR          # exits 1 on any failure
"""
import json
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attn_run import Kernel, rel_err  # noqa: E402


def keep_mask(lq, lk, causal, device):
    """True where query i may see key j (None: everything)."""
    if causal == "none":
        return None
    shift = lk - lq if causal == "bottom_right" else 0
    i = torch.arange(lq, device=device)[:, None]
    j = torch.arange(lk, device=device)[None, :]
    return j <= i + shift


def sdpa(q, k, v, mask, scale):
    hq, hkv = q.shape[1], k.shape[1]
    k = k.repeat_interleave(hq // hkv, dim=1)
    v = v.repeat_interleave(hq // hkv, dim=1)
    with sdpa_kernel(SDPBackend.MATH):
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale)
    if mask is not None:  # fully masked rows give 0 (attn.attention's contract)
        dead = ~mask.any(-1)
        o = o.masked_fill(dead[None, None, :, None], 0)
    return o


def main():
    kdir = sys.argv[1]
    ok = True
    for name in sorted(f for f in os.listdir(kdir) if f.endswith(".json") and f != "index.json"):
        kern = Kernel(os.path.join(kdir, name))
        m = kern.manifest
        q, k, v, o = kern.inputs()
        kern(q, k, v, o)
        torch.cuda.synchronize()
        mask = keep_mask(q.shape[2], k.shape[2], m["causal"], q.device)
        ref = sdpa(q.float(), k.float(), v.float(), mask, m["scale"])
        same_prec = sdpa(q, k, v, mask, m["scale"])
        err, base = rel_err(o, ref), rel_err(same_prec, ref)
        nan = int(o.isnan().sum())
        dead_ok = True
        if mask is not None and (~mask.any(-1)).any():
            dead_ok = bool((o[:, :, ~mask.any(-1)] == 0).all())
        good = nan == 0 and err <= 2 * base + 1e-6 and dead_ok
        ok &= good
        print("%-80s err %.2e (sdpa %.2e) NaN %d dead-rows-zero %s  %s" % (
            m["kernel"][:80], err, base, nan, dead_ok, "ok" if good else "WRONG"), flush=True)
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

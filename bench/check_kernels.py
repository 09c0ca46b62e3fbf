#!/usr/bin/env python3
"""Correctness of every kernel in a directory of attn-opt manifests, on the
GPU machine: fresh random inputs, output poisoned with NaN, error against an
fp32 reference next to PyTorch's own same-precision SDPA (math backend, same
inputs, same mask) — the bar is at most 2x that error, no NaN, and fully
masked rows exactly 0. Handles both causal alignments, GQA and lengths that
are not multiples of the tiles.

    python3 bench/check_kernels.py DIR          # exits 1 on any failure
    python3 bench/check_kernels.py DIR --windows   # gen_window_sweep.py's kernels
"""
import json
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attn_run import Kernel, rel_err, runtime  # noqa: E402


def tensor_mask(kern, generator=None):
    """A random mask tensor of the manifest's kind and broadcast shape: an
    additive one in [-3, 0] with one key of every row at -inf, or a keep
    mask (80% kept) with one fully dropped row."""
    kind = kern.manifest.get("mask", "none")
    if kind == "none":
        return None
    [param] = [p for p in kern.manifest["params"] if p["name"] == "mask"]
    shape = tuple(param["shape"])
    if kind == "additive":
        m = torch.rand(shape, device="cuda", generator=generator) * -3.0
        m[..., 0] = float("-inf")
        # The tensor-core kernels take the inputs' type, the generic one wider.
        return m.to(getattr(torch, runtime._DTYPES[param["type"].rstrip("*")]))
    m = torch.rand(shape, device="cuda", generator=generator) < 0.8
    m[..., -1] = True
    if shape[2] > 3:
        m[..., 3, :] = False  # a fully masked query row
    return m


def keep_mask(lq, lk, causal, device):
    """True where query i may see key j (None: everything)."""
    if causal == "none":
        return None
    shift = lk - lq if causal == "bottom_right" else 0
    i = torch.arange(lq, device=device)[:, None]
    j = torch.arange(lk, device=device)[None, :]
    return j <= i + shift


def window_keep(m, lq, lk, device):
    """The band lo <= j − i <= hi of a kernel whose score_mod is a pure
    window (gen_window_sweep.py), from its manifest's key offsets."""
    bounds = m.get("score_mod") or {}
    lo, hi = bounds.get("key_offset_min"), bounds.get("key_offset_max")
    offset = (torch.arange(lk, device=device)[None, :] - torch.arange(lq, device=device)[:, None])
    keep = torch.ones(lq, lk, dtype=torch.bool, device=device)
    if isinstance(lo, int):
        keep &= offset >= lo
    if isinstance(hi, int):
        keep &= offset <= hi
    return keep


def combined_mask(causal_keep, tmask, dtype):
    """The causal keep mask and the mask tensor as one additive float mask."""
    if causal_keep is None and tmask is None:
        return None
    m = torch.zeros((), device="cuda", dtype=dtype)
    if tmask is not None:
        m = (tmask.to(dtype) if tmask.dtype != torch.bool else
             torch.zeros(tmask.shape, device="cuda", dtype=dtype).masked_fill(~tmask, float("-inf")))
    if causal_keep is not None:
        m = m + torch.zeros(causal_keep.shape, device="cuda", dtype=dtype).masked_fill(
            ~causal_keep, float("-inf"))
    return m


def sdpa(q, k, v, mask, scale, backend=SDPBackend.MATH):
    """SDPA with an additive float mask; fully masked rows give 0."""
    hq, hkv = q.shape[1], k.shape[1]
    k = k.repeat_interleave(hq // hkv, dim=1)
    v = v.repeat_interleave(hq // hkv, dim=1)
    if mask is not None:
        mask = mask.to(q.dtype)
    with sdpa_kernel(backend):
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale)
    if mask is not None:  # fully masked rows give 0 (attn.attention's contract)
        dead = torch.isneginf(mask).all(-1, keepdim=True).expand(*o.shape[:-1], 1)
        o = o.masked_fill(dead, 0)
    return o


def main():
    kdir = sys.argv[1]
    # --windows: every kernel's score_mod is a pure window (the band its
    # manifest's key offsets give), applied as a keep mask to the reference.
    windows = "--windows" in sys.argv[2:]
    ok = True
    for name in sorted(f for f in os.listdir(kdir) if f.endswith(".json") and f != "index.json"):
        kern = Kernel(os.path.join(kdir, name))
        m = kern.manifest
        q, k, v, o = kern.inputs()
        tmask = tensor_mask(kern)
        kern(q, k, v, o, mask=tmask)
        torch.cuda.synchronize()
        causal_keep = keep_mask(q.shape[2], k.shape[2], m["causal"], q.device)
        if windows:
            band = window_keep(m, q.shape[2], k.shape[2], q.device)
            causal_keep = band if causal_keep is None else causal_keep & band
        mask32 = combined_mask(causal_keep, tmask, torch.float32)
        # fp64 for f32 inputs (fp32 would be the same-precision baseline).
        wide = torch.float64 if q.dtype == torch.float32 else torch.float32
        ref = sdpa(q.to(wide), k.to(wide), v.to(wide),
                   None if mask32 is None else mask32.to(wide), m["scale"]).float()
        same_prec = sdpa(q, k, v, mask32, m["scale"])
        if float(ref.norm()) == 0:  # every row sees no key: O must be exactly 0
            err, base = float(o.float().abs().max()), 0.0
        else:
            err, base = rel_err(o, ref), rel_err(same_prec, ref)
        nan = int(o.isnan().sum())
        dead_ok = True
        if mask32 is not None:
            dead = torch.isneginf(mask32).all(-1, keepdim=True).expand(*o.shape[:-1], 1)
            dead_ok = bool((o.masked_select(dead) == 0).all())
        good = nan == 0 and err <= 2 * base + 1e-6 and dead_ok
        ok &= good
        line = "%-80s err %.2e (sdpa %.2e) NaN %d dead-rows-zero %s  %s" % (
            m["kernel"][:80], err, base, nan, dead_ok, "ok" if good else "WRONG")
        if q.shape[2] >= 4096:
            # Speed next to SDPA's masked backends on the same mask.
            import triton
            B, H, N, d = q.shape
            flops = 4 * B * H * N * k.shape[2] * d / (2 if m["causal"] != "none" else 1)
            t = triton.testing.do_bench(lambda: kern(q, k, v, o, mask=tmask), return_mode="median")
            line += " | attn-opt %.0f TFLOP/s" % (flops / t / 1e9)
            mlow = combined_mask(causal_keep, tmask, q.dtype)
            kk = k.repeat_interleave(H // k.shape[1], dim=1)
            vv = v.repeat_interleave(H // v.shape[1], dim=1)

            def run_sdpa(be):
                with sdpa_kernel(be):
                    return F.scaled_dot_product_attention(q, kk, vv, attn_mask=mlow,
                                                          scale=m["scale"])
            for name, be in (("efficient", SDPBackend.EFFICIENT_ATTENTION),
                             ("cudnn", SDPBackend.CUDNN_ATTENTION)):
                try:
                    t = triton.testing.do_bench(lambda: run_sdpa(be), return_mode="median")
                    line += " | %s %.0f" % (name, flops / t / 1e9)
                except RuntimeError:
                    line += " | %s -" % name
        print(line, flush=True)
    print("PASS" if ok else "FAIL", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Structured inputs for the FP8 kernels, to say which stage is wrong when
fp8_check.py fails (run on the GPU machine):

    python3 bench/fp8_debug.py bench/kernels_fp8v38

Per FP8 kernel with Lq, Lk <= 512 (each against fp64 attention on the same
values, relative error):
  uniform  Q = 0: P is uniform over the keys a row sees, O the mean of
           their V rows. Wrong here: V's path (boxes, Vᵀ, P·V's B operand).
  diagonal Hq = Hkv, Lq = Lk: K = Q with rows of ±1, so row i's own key
           dominates (P ≈ one-hot), O_i ≈ V_i. Wrong here but not above:
           Q·Kᵀ, or P's A fragment against Vᵀ's key order (σ).
  identity V[j, n] = 1 if n = j mod dv: O = P's first dv keys folded; for
           the first rows, the key O peaks at against the reference's.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attn_run import Kernel, rel_err  # noqa: E402
from fp8_check import FP8, attention64  # noqa: E402


def run(kern, q, k, v, dtype, out_dtype):
    q8, k8, v8 = (x.to(dtype) for x in (q, k, v))
    out = torch.full(kern.shapes[3], float("nan"), device="cuda", dtype=out_dtype)
    one = torch.ones((), device="cuda")
    kern(q8, k8, v8, out, descale=(one, one, one) if kern.manifest.get("descale") else None)
    torch.cuda.synchronize()
    m = kern.manifest
    ref, _ = attention64(q8.double(), k8.double(), v8.double(), m["causal"], m["scale"])
    return out.float(), ref.float()


def main():
    kdir = sys.argv[1]
    for f in sorted(os.listdir(kdir)):
        if not f.endswith(".json"):
            continue
        kern = Kernel(os.path.join(kdir, f))
        m = kern.manifest
        if m["dtype"] not in FP8:
            continue
        sq, sk, sv, so = kern.shapes[:4]
        if sq[2] > 512 or sk[2] > 512:
            continue
        dtype = FP8[m["dtype"]]
        out_dtype = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}[m["output_dtype"]]
        v = torch.randn(sv, device="cuda")
        line = "%-60s" % m["kernel"][:60]
        out, ref = run(kern, torch.zeros(sq, device="cuda"), torch.randn(sk, device="cuda"), v,
                       dtype, out_dtype)
        line += " uniform %.2e" % rel_err(out, ref)
        if sq[1] == sk[1] and sq[2] == sk[2] and sq[3] == sk[3]:
            q = torch.randint(0, 2, sq, device="cuda").float() * 2 - 1
            out, ref = run(kern, q, q, v, dtype, out_dtype)
            line += " diagonal %.2e" % rel_err(out, ref)
        j = torch.arange(sv[2], device="cuda")[:, None]
        n = torch.arange(sv[3], device="cuda")[None, :]
        ident = (n == j % sv[3]).float().expand(sv).contiguous()
        q, k = torch.randn(sq, device="cuda") * 2, torch.randn(sk, device="cuda") * 2
        out, ref = run(kern, q, k, ident, dtype, out_dtype)
        peaks = [(int(out[0, 0, i].argmax()), int(ref[0, 0, i].argmax())) for i in range(4)]
        line += " identity %.2e peaks(ours, ref) %s" % (rel_err(out, ref), peaks)
        print(line, flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Checks on the GPU the kernels of a keep-mask select with a finite fill
(finfo.min) that attn-detect keeps in the score_mod region (session 39):
fully masked rows must come out as the uniform average of V (every logit
is the fill), rows keeping one key as that key's V, the rest as the
program's softmax; no NaN, no inf. The kernels come from
bench/gen_finite_fill.py (here, no GPU).

    python3 bench/finite_fill_check.py bench/kernels_finite_fill
"""
import glob
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attn_run import Kernel, rel_err  # noqa: E402

FILL = {torch.float16: -65504.0, torch.bfloat16: -3.38953139e38, torch.float32: -3.40282347e38}


def keep_mask(lq, lk, gen):
    keep = torch.rand(lq, lk, device="cuda", generator=gen) < 0.5
    keep[:8] = False            # fully masked rows
    keep[8] = False
    keep[8, 37] = True          # one kept key
    return keep


def reference(q, k, v, keep, dtype):
    # The program: S in its own type, times 0.125 in that type, the select,
    # softmax and P·V in f64 (the fused kernel's error is judged against it).
    s = torch.matmul(q.double(), k.double().transpose(-1, -2)).to(dtype) * torch.tensor(0.125, dtype=dtype)
    x = torch.where(keep, s.double(), torch.tensor(FILL[dtype], dtype=torch.float64, device=q.device))
    return torch.matmul(torch.softmax(x, dim=-1), v.double())


def main():
    ok = True
    for manifest in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
        kern = Kernel(manifest)
        gen = torch.Generator(device="cuda").manual_seed(3)
        q, k, v, o = kern.inputs(gen)
        keep = keep_mask(q.shape[-2], k.shape[-2], gen)
        kern(q, k, v, o, score_mod_operands=(keep,))
        torch.cuda.synchronize()
        ref = reference(q, k, v, keep, kern.dtype)
        err = rel_err(o.float(), ref)
        uniform = rel_err(o[..., :8, :].float(), v.double().mean(dim=-2, keepdim=True).expand(-1, -1, 8, -1))
        single = rel_err(o[..., 8, :].float(), v[..., 37, :].double())
        bad = bool((~torch.isfinite(o)).any())
        tol = 2e-2 if kern.dtype != torch.float32 else 1e-5
        good = not bad and err < tol and uniform < tol and single < tol
        ok &= good
        print("%-72s err %.2e  masked rows vs mean(V) %.2e  one-key row %.2e  non-finite %s  %s"
              % (os.path.basename(manifest)[:72], err, uniform, single, bad, "ok" if good else "FAIL"))
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

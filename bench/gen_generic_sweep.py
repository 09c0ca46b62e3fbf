#!/usr/bin/env python3
"""A random sweep of the attentions only the generic CUDA-core kernel takes
(here, no GPU): seeded draws of dtype (f32 at any head dim; f16/bf16 at
head dims that are no multiple of 8 or above 256), d and dv, B, GQA group,
Lq and Lk (1 to 300), causal alignment, and a mask tensor (additive in the
inputs' type or f32, or keep; each dim broadcast or full), each compiled by
the GPU pipeline's fallback. The cases are drawn, not chosen, so that the
check on the GPU machine covers combinations nobody wrote down.

    python3 bench/gen_generic_sweep.py --out DIR [--cases 40] [--seed 1]
    # on the GPU machine:
    python3 bench/check_kernels.py DIR
"""
import argparse
import json
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gen_check_kernels import case_ir  # noqa: E402


def draw(rng):
    dtype = rng.choice(["f32", "f32", "f16", "bf16"])
    def head_dim():
        while True:
            d = rng.randint(1, 300)
            if dtype == "f32" or d % 8 or d > 256:
                return d
    d, dv = head_dim(), head_dim()
    B, hkv = rng.randint(1, 2), rng.randint(1, 2)
    hq = hkv * rng.randint(1, 3)
    lq, lk = rng.randint(1, 300), rng.randint(1, 300)
    causal = rng.choice([None, "top_left", "bottom_right"])
    mask, mask_dtype = None, None
    if rng.random() < 0.5:
        kind = rng.choice(["add", "keep"])
        shape = [rng.choice([1, B]), rng.choice([1, hq]), rng.choice([1, lq]), lk]
        mask = (kind, shape)
        if kind == "add":
            mask_dtype = rng.choice([dtype, "f32"])
    return (dtype, B, hq, hkv, lq, lk, d, causal, mask, dv, mask_dtype)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attn-opt", default=os.path.join(HERE, "..", "build", "bin", "attn-opt"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rng = random.Random(a.seed)
    src = os.path.join(a.out, "src.mlir")
    cases = [draw(rng) for _ in range(a.cases)]
    for case in cases:
        with open(src, "w") as f:
            f.write(case_ir(*case))
        r = subprocess.run([a.attn_opt, src, "--attn-gpu-pipeline=dump-dir=%s" % a.out,
                            "-o", os.devnull], capture_output=True, text=True)
        if r.returncode or "generic GPU kernel runs it" not in r.stderr:
            print("FAIL", case, r.stderr[-400:])
            return 1
    os.remove(src)
    # (Not .json: check_kernels.py reads every .json as a manifest.)
    json.dump([list(c) for c in cases], open(os.path.join(a.out, "cases.txt"), "w"))
    print("%d generic kernels in %s" % (len(cases), a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())

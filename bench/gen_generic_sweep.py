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
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gen_check_kernels import case_ir, run_sweep  # noqa: E402


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


def draw_case(rng):
    # The pipeline's fallback builds the generic kernel, and says so.
    return case_ir(*draw(rng)), "", "generic GPU kernel runs it"


if __name__ == "__main__":
    sys.exit(run_sweep(__doc__, draw_case, lambda n, out: "%d generic kernels in %s" % (n, out)))

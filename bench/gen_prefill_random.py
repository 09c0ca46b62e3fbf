#!/usr/bin/env python3
"""Random dense prefill kernels as the chooser picks them, for
bench/check_kernels.py: shapes nobody wrote by hand around the tile rules
(v32c: d = 64 non-causal takes 128 x 128 CTAs when Lq and Lk are
multiples of 128, 64-row ones otherwise), so the draw favours d = 64,
lengths that are or are not multiples of 128, GQA groups, Lq != Lk, both
causal alignments and mask tensors of several broadcast forms.

    python3 bench/gen_prefill_random.py --out DIR --cases 40 --seed 1
    # on the GPU machine:
    python3 bench/check_kernels.py DIR
"""
import sys

from gen_check_kernels import case_ir, random_length, run_sweep


def draw(rng):
    dtype = rng.choice(["bf16", "f16"])
    B = rng.choice([1, 2, 3])
    Hkv = rng.choice([1, 2, 4])
    G = rng.choice([1, 1, 2, 4, 8])

    Lq, Lk = random_length(rng, 0.7), random_length(rng, 0.7)
    if rng.random() < 0.4:
        Lk = Lq
    d = rng.choice([64, 64, 64, 128, 192, 256])
    causal = rng.choice([None, None, None, "top_left", "bottom_right"])
    Hq = G * Hkv
    mask = rng.choice([None, None, None, ("add", [B, 1, 1, Lk]), ("keep", [B, 1, Lq, Lk]),
                       ("keep", [1, 1, 1, Lk]), ("add", [1, Hq, Lq, Lk])])
    return case_ir(dtype, B, Hq, Hkv, Lq, Lk, d, causal, mask), "", None


if __name__ == "__main__":
    sys.exit(run_sweep(__doc__, draw,
                       lambda n, out: "%d random prefill kernels in %s" % (n, out)))

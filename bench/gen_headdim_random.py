#!/usr/bin/env python3
"""Random head dims as the chooser picks their kernels, for
bench/check_kernels.py and the ptxas sweep (issue 15 item 1: "d and dv any
multiple of 16 up to 256, multiples of 8 through padding, dv != d, on both
tensor-core families"): d and dv drawn independently from the multiples of
8 up to 256, on sm_90a (wgmma), sm_90 and sm_80 (mma.sync), decode and
small-query lengths beside prefill ones with partial tiles, GQA groups and
both causal alignments. What the tensor-core kernels refuse takes the
generic kernel (its warning is expected), so every draw compiles.

    python3 bench/gen_headdim_random.py --out DIR --cases 100 --seed 1
    # on the GPU machine:
    python3 bench/check_kernels.py DIR
"""
import sys

from gen_check_kernels import case_ir, random_length, run_sweep


def head_dim(rng):
    """A multiple of 8 up to 256, the multiples of 16 twice as likely."""
    if rng.random() < 0.67:
        return 16 * rng.randint(1, 16)
    return 8 * rng.randrange(1, 32, 2)


def draw(rng):
    dtype = rng.choice(["bf16", "f16"])
    chip = rng.choice(["sm_90a", "sm_90a", "sm_90", "sm_80"])
    B = rng.choice([1, 2])
    Hkv = rng.choice([1, 2])
    G = rng.choice([1, 1, 2, 4, 8])
    d = head_dim(rng)
    dv = d if rng.random() < 0.6 else head_dim(rng)
    if rng.random() < 0.3:
        Lq = rng.choice([1, 1, 2, 4, 16, 33, 64])
        Lk = rng.choice([rng.randint(1, 300), rng.randint(300, 5000)])
    else:
        Lq = random_length(rng, 0.5) // rng.choice([1, 2, 4])
        Lk = Lq if rng.random() < 0.4 else random_length(rng, 0.5) // rng.choice([1, 2, 4])
    causal = rng.choice([None, None, "top_left", "bottom_right"])
    text = case_ir(dtype, B, G * Hkv, Hkv, Lq, Lk, d, causal, None, dv=dv)
    return text, "chip=%s" % chip, None


if __name__ == "__main__":
    sys.exit(run_sweep(__doc__, draw,
                       lambda n, out: "%d random head-dim kernels in %s" % (n, out)))

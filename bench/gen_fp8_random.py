#!/usr/bin/env python3
"""Random FP8 attentions for the FP8 tensor-core kernel (fp8-mma=on), for
bench/fp8_check.py on the GPU machine and the ptxas sweep here: e4m3 or
e5m2 inputs, d a multiple of 32 and dv of 16 up to 256 (the kernel's
k-steps; other dims take the generic kernel, which this also draws),
bf16/f16/f32 outputs, with and without descale factors, GQA groups,
lengths with partial query and key tiles, both causal alignments, a
quarter of them soft-capped (score_mod c·tanh(s/c), c in {0.5, 1, 4}).

    python3 bench/gen_fp8_random.py --out DIR --cases 60 --seed 1 --options fp8-mma=on
"""
import sys

from gen_check_kernels import random_length, run_sweep
from gen_fp8_kernels import function


def draw(rng):
    fmt = rng.choice(["f8E4M3FN", "f8E4M3FN", "f8E5M2"])
    out = rng.choice(["bf16", "bf16", "f16", "f32"])
    Hkv = rng.choice([1, 2])
    G = rng.choice([1, 1, 2, 4])
    d = 32 * rng.randint(1, 8) if rng.random() < 0.9 else 16 * rng.randrange(1, 16, 2)
    dv = d if rng.random() < 0.6 else 16 * rng.randint(1, 16)
    Lq = random_length(rng, 0.5) // rng.choice([1, 2])
    Lk = Lq if rng.random() < 0.4 else random_length(rng, 0.5) // rng.choice([1, 2])
    causal = rng.choice([None, None, "top_left", "bottom_right"])
    case = (fmt, out, rng.choice([1, 2]), G * Hkv, Hkv, Lq, Lk, d, dv, causal,
            rng.random() < 0.7)
    if rng.random() < 0.25:
        # A soft-capped score (a score_mod on the real score: the descale
        # factors included), its cap beside the manifest for fp8_check.py.
        cap = rng.choice([0.5, 1.0, 4.0])
        return function(0, case, softcap=cap), "", None, {".softcap": repr(cap)}
    return function(0, case), "", None


if __name__ == "__main__":
    sys.exit(run_sweep(__doc__, draw,
                       lambda n, out: "%d random FP8 kernels in %s" % (n, out)))

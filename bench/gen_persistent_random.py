#!/usr/bin/env python3
"""Random persistent producer kernels (persistent=on, kv-loads=tma-producer)
for bench/check_kernels.py: the item loop and the stage ring that runs on
across work items, asked for also where the chooser would not take it
(partial query and key tiles, mask tensors, d = 256, dv != d), so that a
wrong stage, parity or release shows up as a wrong result or a hang. Grids
range from fewer work items than SMs (each CTA loops once) to ~50 items
per CTA.

    python3 bench/gen_persistent_random.py --out DIR --cases 40 --seed 1
    # on the GPU machine:
    python3 bench/check_kernels.py DIR
"""
import sys

from gen_check_kernels import case_ir, random_length, run_sweep

OPTIONS = "mma=wgmma kv-loads=tma-producer kv-splits=1 persistent=on"


def draw(rng):
    dtype = rng.choice(["bf16", "f16"])
    B = rng.choice([1, 2, 4, 8])
    Hkv = rng.choice([1, 2, 4, 8])
    G = rng.choice([1, 1, 2, 4])

    Lq, Lk = random_length(rng, 0.6), random_length(rng, 0.6)
    if rng.random() < 0.4:
        Lk = Lq
    d, dv = rng.choice([(128, 128), (128, 128), (128, 128), (192, 128), (256, 256), (128, 64)])
    causal = rng.choice([None, None, "top_left", "top_left", "bottom_right"])
    Hq = G * Hkv
    mask = rng.choice([None, None, None, None, ("add", [B, 1, 1, Lk]),
                       ("keep", [B, 1, Lq, Lk])])
    return case_ir(dtype, B, Hq, Hkv, Lq, Lk, d, causal, mask, dv=dv), OPTIONS, None


if __name__ == "__main__":
    sys.exit(run_sweep(__doc__, draw,
                       lambda n, out: "%d random persistent kernels in %s" % (n, out)))

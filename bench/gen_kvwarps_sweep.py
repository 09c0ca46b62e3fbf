#!/usr/bin/env python3
"""A random sweep of kernels whose warps divide each K/V tile's keys
(`kv-warps`, the key-warp combine in shared memory), for
bench/check_kernels.py on the GPU machine. Draws decode and small-query
shapes (GQA packing, Lq 1 to 64, odd key counts, both causal alignments,
additive and keep masks of several broadcast forms, dv != d), a few mma.sync
prefill shapes, key tiles of 32 to 128 keys, 2 to 8 key warps and chosen or
explicit splits; draws a kernel refuses (kv-warps that do not divide its
tile or dv, too many warps) are drawn again, any other failure stops.

    python3 bench/gen_kvwarps_sweep.py --out bench/kernels_chk_kvwarps --cases 40 --seed 1
    # on the GPU machine:
    python3 bench/check_kernels.py bench/kernels_chk_kvwarps
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gen_check_kernels import case_ir, run_sweep  # noqa: E402


def draw(rng):
    """(IR text, --attn-gpu-pipeline options, None) for run_sweep."""
    dtype = rng.choice(["bf16", "f16"])
    B = rng.choice([1, 1, 2, 3])
    Hkv = rng.choice([1, 2, 4])
    G = rng.choice([1, 2, 4, 8])
    prefill = rng.random() < 0.15
    Lq = rng.choice([100, 200, 333]) if prefill else rng.choice([1, 1, 1, 2, 3, 4, 7, 16, 33, 64])
    Lk = rng.choice([rng.randint(1, 300), rng.randint(300, 5000), 64, 4096])
    d, dv = rng.choice([(128, 128), (128, 128), (64, 64), (96, 96), (128, 64), (80, 80)])
    causal = rng.choice([None, None, "top_left", "bottom_right"])
    Hq = G * Hkv
    mask = rng.choice([None, None, ("add", [B, 1, 1, Lk]), ("add", [B, Hq, Lq, Lk]),
                       ("keep", [B, 1, Lq, Lk]), ("keep", [1, 1, 1, Lk])])
    options = ["strict=true", "kv-warps=%d" % rng.choice([2, 4, 8]),
               "block-kv=%d" % rng.choice([32, 64, 128])]
    if prefill:
        options.append("mma=mma.sync")
    if rng.random() < 0.3:
        options.append("kv-splits=1")
    text = case_ir(dtype, B, Hq, Hkv, Lq, Lk, d, causal, mask, dv)
    return text, " ".join(options), None


def refused(stderr):
    """Key-warp configurations the kernels refuse, with the reason."""
    return "kv-warps" in stderr or "block-kv=128" in stderr


if __name__ == "__main__":
    sys.exit(run_sweep(__doc__.splitlines()[0], draw,
                       lambda n, out: "%d kernels in %s" % (n, out), refused))

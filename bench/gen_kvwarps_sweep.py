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
from gen_check_kernels import draw_small_query_case, run_sweep  # noqa: E402


def draw(rng):
    """(IR text, --attn-gpu-pipeline options, None) for run_sweep."""
    text, prefill = draw_small_query_case(
        rng, 0.15, [100, 200, 333],
        [(128, 128), (128, 128), (64, 64), (96, 96), (128, 64), (80, 80)])
    options = ["strict=true", "kv-warps=%d" % rng.choice([2, 4, 8]),
               "block-kv=%d" % rng.choice([32, 64, 128])]
    if prefill:
        options.append("mma=mma.sync")
    if rng.random() < 0.3:
        options.append("kv-splits=1")
    return text, " ".join(options), None


def refused(stderr):
    """Key-warp configurations the kernels refuse, with the reason."""
    return "kv-warps" in stderr or "block-kv=128" in stderr


if __name__ == "__main__":
    sys.exit(run_sweep(__doc__.splitlines()[0], draw,
                       lambda n, out: "%d kernels in %s" % (n, out), refused))

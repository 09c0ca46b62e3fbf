#!/usr/bin/env python3
"""A random sweep of mma.sync kernels whose K/V stages the TMA unit fills
(`kv-loads=tma` on mma.sync, TmaProducer.cpp): on these dense K/V tensors,
one tensor box per 64-column atom and tile into 128-byte-swizzled atoms,
which the mma.sync fragment loads and ldmatrix read through the swizzle
(the paged and packed sets compiled with kv-loads=tma cover the other form,
one bulk copy per key row). For bench/check_kernels.py on the GPU machine.
Draws decode and small-query shapes (GQA packing, Lq 1 to 64), mma.sync
prefill tiles (Q staged in swizzled atoms too), odd key counts (boxes
zero-filled past Lk), both causal alignments, additive and keep masks,
d != dv and odd multiples of 8 (the last atom zero-filled past d), 1 to 8
key warps, 32- to 128-key tiles, 2 to 4 stages, split and not. A draw the
kernels refuse (with its reason) is drawn again; any other failure stops.

    python3 bench/gen_mma_tma_sweep.py --out bench/kernels_chk_mma_tma --cases 40 --seed 1
    # on the GPU machine:
    python3 bench/check_kernels.py bench/kernels_chk_mma_tma
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gen_check_kernels import draw_small_query_case, run_sweep  # noqa: E402


def draw(rng):
    """(IR text, --attn-gpu-pipeline options, None) for run_sweep."""
    text, prefill = draw_small_query_case(
        rng, 0.3, [64, 100, 333],
        [(128, 128), (128, 128), (64, 64), (96, 96), (128, 64), (80, 80), (88, 88), (72, 64)])
    options = ["strict=true", "mma=mma.sync", "kv-loads=tma",
               "block-kv=%d" % rng.choice([32, 64, 128]),
               "kv-stages=%d" % rng.choice([2, 2, 3, 4])]
    if not prefill:
        options.append("kv-warps=%d" % rng.choice([1, 2, 4, 8]))
    if rng.random() < 0.3:
        options.append("kv-splits=1")
    return text, " ".join(options), None


def refused(stderr):
    """Tile configurations the kernels refuse, with the reason."""
    return any(x in stderr for x in ("kv-warps", "block-kv=128", "shared memory", "kv-stages"))


if __name__ == "__main__":
    sys.exit(run_sweep(__doc__, draw, refused=refused,
                       describe=lambda n, out: "%d mma.sync TMA kernels in %s" % (n, out)))

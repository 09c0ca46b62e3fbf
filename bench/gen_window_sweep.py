#!/usr/bin/env python3
"""A random sweep of the tensor-core kernels with a window score_mod (here,
no GPU): seeded draws of dtype, head dim, B, GQA group, Lq and Lk (1 to
1100: decode, split-KV and prefill grids; head dims 32 to 256; a quarter of the draws whole
128-row query tiles up to 3072 over up to 64 heads), causal alignment, chip (sm_90a:
wgmma; sm_80: mma.sync) and a pure window region in one of its spellings
(keep j + W > i; drop i − j >= W; a two-sided band lo <= j − i <= hi with
andi), so that the kernels' block skipping and their three K/V runs (far
edge, inside, diagonal) meet window edges at every offset to the tiles.
Each region keeps the score inside its band and gives -inf outside, which
is what the manifest's key_offset_min/max say: check_kernels.py --windows
rebuilds the band from them.

    python3 bench/gen_window_sweep.py --out DIR [--cases 40] [--seed 1]
    # on the GPU machine:
    python3 bench/check_kernels.py DIR --windows
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gen_check_kernels import case_ir, run_sweep  # noqa: E402

NINF = "    %ninf = arith.constant 0xFF800000 : f32\n"


def window_region(rng):
    form = rng.choice(["keep", "drop", "band"])
    w = rng.randint(1, 700)
    if form == "keep":  # j + W > i
        body = ("    %%w = arith.constant %d : index\n    %%jw = arith.addi %%j, %%w : index\n"
                "    %%in = arith.cmpi sgt, %%jw, %%i : index\n" % w + NINF +
                "    %y = arith.select %in, %s, %ninf : f32\n")
    elif form == "drop":  # i - j >= W
        body = ("    %%w = arith.constant %d : index\n    %%d = arith.subi %%i, %%j : index\n"
                "    %%out = arith.cmpi sge, %%d, %%w : index\n" % w + NINF +
                "    %y = arith.select %out, %ninf, %s : f32\n")
    else:  # lo <= j - i <= hi
        lo, hi = -w, rng.randint(-w, 300)
        body = ("    %%lo = arith.constant %d : index\n    %%hi = arith.constant %d : index\n"
                "    %%d = arith.subi %%j, %%i : index\n"
                "    %%a = arith.cmpi sge, %%d, %%lo : index\n"
                "    %%b = arith.cmpi sle, %%d, %%hi : index\n"
                "    %%in = arith.andi %%a, %%b : i1\n" % (lo, hi) + NINF +
                "    %y = arith.select %in, %s, %ninf : f32\n")
    return (" score_mod {\n  ^bb0(%s: f32, %bb: index, %h: index, %i: index, %j: index):\n"
            + body + "    attn.yield %y : f32\n  }")


def draw(rng):
    dtype = rng.choice(["bf16", "f16"])
    d = rng.choice([32, 64, 80, 96, 112, 128, 160, 192, 240, 256])
    B, hkv = rng.randint(1, 2), rng.randint(1, 2)
    hq = hkv * rng.choice([1, 2, 4])
    lq = rng.choice([1, 3, rng.randint(1, 1100)])
    lk = rng.randint(1, 1100)
    causal = rng.choice([None, "top_left", "bottom_right"])
    chip = rng.choice(["sm_90a", "sm_80"])
    if rng.random() < 0.25:
        # Whole 128-row query tiles over more heads: the prefill kernels
        # whose window leaves the unmodified wgmma pick (the overlapped P·V;
        # MaskReads::KeyBounds).
        B, hkv = rng.randint(1, 4), rng.randint(2, 8)
        hq = hkv * rng.choice([1, 2])
        lq = 128 * rng.randint(1, 24)
        lk = rng.choice([lq, rng.randint(1, 3072)])
    return (dtype, B, hq, hkv, lq, lk, d, causal, None), chip, window_region(rng)


def draw_case(rng):
    case, chip, region = draw(rng)
    # The region goes after the op's attributes, before its types.
    head, sep, tail = case_ir(*case).partition(" : tensor")
    return head + region + sep + tail, "chip=%s strict=true" % chip, None


if __name__ == "__main__":
    sys.exit(run_sweep(__doc__, draw_case, lambda n, out: "%d window kernels in %s" % (n, out)))

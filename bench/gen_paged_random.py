#!/usr/bin/env python3
"""Random paged-KV attentions (attn.paged_attention) as the chooser picks
their kernels, for bench/check_kernels.py-style runs and the ptxas sweep
(test/Conversion/AttnToGPU/random_prefill_ptxas.py --generator): page sizes
that nest with the tiles (powers of two from 8, tensor boxes on sm_90, one
per page: bench/NOTES.md v42) and others (row copies), a capacity that is
or is not a whole number of 128-key tiles, pools larger than the tables
need, head dims 32-256, GQA groups, decode and a few query rows (the
sequence's last: causal bottom-right, or none), bf16 and f16, on sm_90a,
sm_90 and sm_80.

    python3 bench/gen_paged_random.py --out DIR --cases 100 --seed 1
"""
import sys

from gen_check_kernels import run_sweep

PAGE_SIZES = (8, 16, 16, 32, 64, 128, 128, 256, 12, 24, 48, 40)


def paged_text(dtype, B, Hq, Hkv, Lq, d, page_size, max_pages, num_pages, causal):
    q = "tensor<%dx%dx%dx%dx%s>" % (B, Hq, Lq, d, dtype)
    kv = "tensor<%dx%dx%dx%dx%s>" % (num_pages, page_size, Hkv, d, dtype)
    table, lens = "tensor<%dx%dxi32>" % (B, max_pages), "tensor<%dxi32>" % B
    mode = " causal(bottom_right)" if causal else ""
    return ("func.func @paged(%%q: %s, %%k: %s, %%v: %s, %%t: %s, %%l: %s) -> %s {\n"
            "  %%o = attn.paged_attention %%q, %%k, %%v pages(%%t, %%l) scale(%r)%s"
            " : %s, %s, %s, %s, %s -> %s\n"
            "  return %%o : %s\n}\n" % (q, kv, kv, table, lens, q, d ** -0.5, mode,
                                       q, kv, kv, table, lens, q, q))


def draw(rng):
    dtype = rng.choice(["bf16", "f16"])
    chip = rng.choice(["sm_90a", "sm_90a", "sm_90", "sm_80"])
    B = rng.choice([1, 2, 4])
    Hkv = rng.choice([1, 2, 8])
    G = rng.choice([1, 1, 2, 4, 8])
    d = rng.choice([32, 64, 64, 80, 96, 128, 128, 128, 160, 256])
    Lq = rng.choice([1, 1, 1, 2, 4, 16])
    page_size = rng.choice(PAGE_SIZES)
    capacity = rng.choice([rng.randint(1, 600), rng.randint(600, 20000)])
    max_pages = max(1, -(-capacity // page_size))
    num_pages = B * max_pages + rng.choice([0, 0, 7])
    causal = rng.random() < 0.7
    text = paged_text(dtype, B, G * Hkv, Hkv, Lq, d, page_size, max_pages, num_pages, causal)
    return text, "chip=%s" % chip, None


if __name__ == "__main__":
    sys.exit(run_sweep(__doc__, draw,
                       lambda n, out: "%d random paged kernels in %s" % (n, out)))

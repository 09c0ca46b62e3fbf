#!/usr/bin/env python3
"""Compiles the correctness set for bench/check_kernels.py (here, no GPU
needed): lengths that are not multiples of the tiles (decode, tails, Lq > Lk
with fully masked rows), both causal alignments, GQA and MQA, dv = d at 64
and 128, additive and keep mask tensors of every broadcast form, the
regular 4k shapes as controls, and what only the generic CUDA-core kernel
takes (f32, head dims 20, 36, 264, a wider mask).

    python3 bench/gen_check_kernels.py --out DIR [--mma auto|mma.sync|wgmma]
    # on the GPU machine:
    python3 bench/check_kernels.py DIR
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# (dtype, B, Hq, Hkv, Lq, Lk, d, causal, mask) with mask None or
# (kind, [MB, MH, MQ, MK]) where each extent is 1 or the full one.
CASES = [
    ("bf16", 1, 2, 2, 4096, 4096, 64, "top_left", None),
    ("bf16", 1, 2, 2, 4096, 4096, 128, "top_left", None),
    ("f16", 2, 4, 4, 4096, 4096, 128, None, None),
    ("bf16", 2, 4, 4, 100, 77, 64, "bottom_right", None),
    ("bf16", 1, 8, 2, 1, 1000, 128, None, None),
    ("f16", 1, 4, 4, 1000, 1000, 64, "top_left", None),
    ("bf16", 2, 4, 1, 333, 4097, 128, None, None),
    ("f16", 1, 2, 2, 200, 120, 128, "top_left", None),
    ("bf16", 1, 2, 2, 130, 64, 64, "bottom_right", None),
    ("bf16", 2, 4, 4, 100, 100, 64, None, ("add", [2, 1, 1, 100])),
    ("bf16", 1, 2, 2, 77, 77, 128, None, ("add", [1, 2, 77, 77])),
    ("bf16", 2, 8, 8, 1024, 1024, 64, None, ("keep", [2, 8, 1024, 1024])),
    ("f16", 1, 4, 2, 256, 256, 128, "top_left", ("keep", [1, 1, 256, 256])),
    ("bf16", 4, 16, 16, 4096, 4096, 64, None, ("add", [4, 1, 1, 4096])),
    ("bf16", 4, 16, 16, 4096, 4096, 128, None, ("add", [4, 1, 1, 4096])),
    # Decode and small-Lq kernels (GQA head packing, split-KV): packed rows
    # with per-head masks, both causal alignments of a few draft tokens,
    # a group larger than one 16-row tile, MHA decode, odd Lk, and split
    # prefill grids of both families.
    ("bf16", 1, 64, 8, 1, 16384, 128, None, None),
    ("bf16", 2, 32, 8, 1, 4097, 128, "bottom_right", None),
    ("f16", 1, 32, 32, 1, 3000, 128, None, None),
    ("bf16", 1, 16, 2, 4, 2048, 64, "bottom_right", None),
    ("bf16", 1, 16, 2, 4, 2048, 64, "top_left", None),
    ("bf16", 2, 8, 2, 1, 1000, 64, None, ("add", [2, 8, 1, 1000])),
    ("bf16", 2, 8, 2, 1, 1000, 128, None, ("keep", [2, 1, 1, 1000])),
    ("f16", 1, 32, 1, 3, 5000, 128, "bottom_right", None),
    ("bf16", 1, 8, 2, 64, 4096, 128, "bottom_right", ("keep", [1, 8, 64, 4096])),
    ("bf16", 1, 1, 1, 1024, 16384, 128, None, None),
    ("bf16", 1, 2, 2, 512, 8192, 64, "bottom_right", None),
]
# The generic CUDA-core kernel (what the tensor-core kernels refuse): f32
# (Phi's d = 80 with dv = 72, GQA, bottom-right causal; a keep mask; a 4k
# control that times it), head dims no multiple of 8 (36, 20) and above 256
# (264), an f32 additive mask on f16 inputs. (..., dv, mask dtype) extend
# the tuple.
GENERIC_CASES = [
    ("f32", 1, 4, 2, 24, 40, 80, "bottom_right", None, 72),
    ("f16", 2, 3, 3, 33, 33, 36, None, ("add", [2, 1, 33, 33]), 36, "f32"),
    ("f32", 1, 8, 8, 1000, 1000, 128, "top_left", ("keep", [1, 1, 1000, 1000])),
    ("bf16", 1, 2, 1, 100, 300, 264, None, None),
    ("f16", 1, 2, 2, 4096, 4096, 20, None, None),
    ("f32", 2, 4, 4, 4096, 4096, 64, "top_left", None),
]


def case_ir(dtype, B, Hq, Hkv, Lq, Lk, d, causal, mask, dv=None, mask_dtype=None):
    def t(h, l, cols=d):
        return "tensor<%dx%dx%dx%dx%s>" % (B, h, l, cols, dtype)
    q, k, v, o = t(Hq, Lq), t(Hkv, Lk), t(Hkv, Lk, dv or d), t(Hq, Lq, dv or d)
    args = "%%q: %s, %%k: %s, %%v: %s" % (q, k, v)
    attrs = ""
    if mask:
        kind, shape = mask
        mt = "tensor<%s>" % "x".join(str(e) for e in shape + [
            "i1" if kind == "keep" else mask_dtype or dtype])
        args += ", %%m: %s" % mt
        attrs += " mask(%%m : %s)" % mt
    attrs += " scale(%r)" % (d ** -0.5)
    if causal:
        attrs += " causal(%s)" % causal
    return ("func.func @attention(%s) -> %s {\n"
            "  %%o = attn.attention %%q, %%k, %%v%s : %s, %s, %s -> %s\n"
            "  return %%o : %s\n}\n" % (args, o, attrs, q, k, v, o, o))


def random_length(rng, whole_share):
    """A sequence length of 128 to 3072 drawn for the random prefill sweeps:
    whole 128-row tiles with probability `whole_share`, else one just off
    them (a partial last tile of 63, 127, 1 or 37 rows)."""
    whole = 128 * rng.randint(1, 24)
    return whole if rng.random() < whole_share else whole + rng.choice([-65, -1, 1, 37])


def draw_small_query_case(rng, prefill_share, prefill_lengths, head_dims):
    """A random decode or small-query attention (GQA groups of 1 to 8, Lq 1
    to 64, key counts from 1 to 5000, both causal alignments, additive and
    keep masks of several broadcast forms), or with probability
    `prefill_share` a short prefill one of Lq in `prefill_lengths`; (d, dv)
    from `head_dims`. The random sweeps' shared draw: (IR text, prefill)."""
    dtype = rng.choice(["bf16", "f16"])
    B = rng.choice([1, 1, 2, 3])
    Hkv = rng.choice([1, 2, 4])
    G = rng.choice([1, 2, 4, 8])
    prefill = rng.random() < prefill_share
    Lq = rng.choice(prefill_lengths) if prefill else rng.choice([1, 1, 1, 2, 3, 4, 7, 16, 33, 64])
    Lk = rng.choice([rng.randint(1, 300), rng.randint(300, 5000), 64, 4096])
    d, dv = rng.choice(head_dims)
    causal = rng.choice([None, None, "top_left", "bottom_right"])
    Hq = G * Hkv
    mask = rng.choice([None, None, ("add", [B, 1, 1, Lk]), ("add", [B, Hq, Lq, Lk]),
                       ("keep", [B, 1, Lq, Lk]), ("keep", [1, 1, 1, Lk])])
    return case_ir(dtype, B, Hq, Hkv, Lq, Lk, d, causal, mask, dv), prefill


def run_sweep(description, draw, describe, refused=None):
    """The random sweeps' driver (gen_generic_sweep.py, gen_window_sweep.py,
    gen_kvwarps_sweep.py): --cases kernels drawn from draw(rng), each (IR
    text, --attn-gpu-pipeline options, check of attn-opt's stderr or None),
    compiled into --out; a draw whose failure `refused(stderr)` accepts (a
    configuration the kernels refuse, with its reason) is drawn again, any
    other failure stops. A draw may add a fourth element, {suffix: text},
    written beside each manifest it makes as <kernel><suffix> (what a
    checker needs that the manifest does not say, e.g. fp8_check.py's
    .softcap). describe(n, out) is the summary line."""
    import random
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--attn-opt", default=os.path.join(HERE, "..", "build", "bin", "attn-opt"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--options", default="",
                    help="more --attn-gpu-pipeline options for every draw")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rng = random.Random(a.seed)
    src = os.path.join(a.out, "src.mlir")
    compiled = 0
    while compiled < a.cases:
        text, options, expect, *sidecars = draw(rng)
        before = set(os.listdir(a.out))
        with open(src, "w") as f:
            f.write(text)
        r = subprocess.run([a.attn_opt, src, "--attn-gpu-pipeline=%s %s dump-dir=%s"
                            % (options, a.options, a.out),
                            "-o", os.devnull], capture_output=True, text=True)
        if r.returncode and refused and refused(r.stderr):
            continue
        compiled += 1
        if r.returncode or (expect and expect not in r.stderr):
            print("FAIL", text, r.stderr[-600:])
            return 1
        for suffix, content in (sidecars[0] if sidecars else {}).items():
            for f in set(os.listdir(a.out)) - before:
                if f.endswith(".json"):
                    with open(os.path.join(a.out, f[:-5] + suffix), "w") as out:
                        out.write(content)
    os.remove(src)
    print(describe(a.cases, a.out))
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attn-opt", default=os.path.join(HERE, "..", "build", "bin", "attn-opt"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--mma", default="auto", choices=["auto", "mma.sync", "wgmma"])
    ap.add_argument("--options", default="", help="more --attn-gpu-pipeline options")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    src = os.path.join(a.out, "src.mlir")
    for case in CASES + GENERIC_CASES:
        with open(src, "w") as f:
            f.write(case_ir(*case))
        r = subprocess.run([a.attn_opt, src, "--attn-gpu-pipeline=mma=%s %s dump-dir=%s"
                            % (a.mma, a.options, a.out), "-o", os.devnull],
                           capture_output=True, text=True)
        if r.returncode:
            print(r.stderr)
            return 1
    os.remove(src)
    print("%d kernels in %s" % (len(CASES + GENERIC_CASES), a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())

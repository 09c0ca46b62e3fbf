#!/usr/bin/env python3
"""Compiles the packed variable-length benchmark (issue 14, item 4) with
attn-opt (here, no GPU needed): for each shape, the varlen kernel
(attn.varlen_attention over Tq, Tk packed tokens of B sequences) and the
contiguous kernel of B equal sequences of the same total (attn.attention,
[B, H, L, d]), each the chooser's.

    python3 bench/gen_varlen_kernels.py --out bench/kernels_varlen
    # on the GPU machine:
    python3 bench/varlen_bench.py --kernels bench/kernels_varlen --out $OUT

The kernels know only B, Tq and Tk: the lengths are drawn on the GPU
machine (equal ones for timing against the contiguous kernel, random ones
for correctness). index.json lists the shapes.

    python3 bench/gen_varlen_kernels.py --sweep 40 --seed 1 --out bench/kernels_varlen_sweep
    # on the GPU machine: ragged correctness only, two draws of lengths each
    python3 bench/varlen_bench.py --sweep --kernels bench/kernels_varlen_sweep --out $OUT

draws the shapes instead (nobody chose them): B 1-24, Tq and Tk 1-3000
packed tokens, GQA groups 1-4, head dims every multiple of 8 up to 256
(d != dv at times), f16 or bf16, no mask or either causal alignment, for
the chooser on sm_90a (wgmma or mma.sync by shape) or mma.sync on sm_80.
"""
import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_decode_kernels import add_options_argument, compile_one, write_index  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

# (label, B, Lq per sequence, Lk per sequence, Hq, Hkv, d, dv, dtype, causal)
SHAPES = (
    ("prefill_gqa_d128_causal", 8, 2048, 2048, 32, 8, 128, 128, "bf16", "top_left"),
    ("prefill_mha_d64", 4, 4096, 4096, 16, 16, 64, 64, "f16", None),
    ("prefill_mha_d128_causal", 16, 1024, 1024, 16, 16, 128, 128, "bf16", "top_left"),
    ("chunked_gqa_d128", 4, 512, 4096, 32, 8, 128, 128, "bf16", "bottom_right"),
    ("decode_gqa_d128", 64, 1, 4096, 32, 8, 128, 128, "bf16", "bottom_right"),
    ("decode_mha_d128", 8, 1, 16384, 32, 32, 128, 128, "bf16", "bottom_right"),
    ("prefill_d80_causal", 6, 1000, 1000, 8, 8, 80, 80, "bf16", "bottom_right"),
    ("mla_192_128_causal", 2, 2048, 2048, 16, 16, 192, 128, "bf16", "top_left"),
)


def varlen_ir(B, Lq, Lk, Hq, Hkv, d, dv, dtype, causal):
    q = "tensor<%dx%dx%dx%s>" % (B * Lq, Hq, d, dtype)
    k = "tensor<%dx%dx%dx%s>" % (B * Lk, Hkv, d, dtype)
    v = "tensor<%dx%dx%dx%s>" % (B * Lk, Hkv, dv, dtype)
    o = "tensor<%dx%dx%dx%s>" % (B * Lq, Hq, dv, dtype)
    cu = "tensor<%dxi32>" % (B + 1)
    mode = " causal(%s)" % causal if causal else ""
    return ("func.func @varlen(%%q: %s, %%k: %s, %%v: %s, %%cq: %s, %%ck: %s) -> %s {\n"
            "  %%o = attn.varlen_attention %%q, %%k, %%v seqlens(%%cq, %%ck) scale(%r)%s"
            " : %s, %s, %s, %s, %s -> %s\n"
            "  return %%o : %s\n}\n" % (q, k, v, cu, cu, o, d ** -0.5, mode,
                                       q, k, v, cu, cu, o, o))


def contiguous_ir(B, Lq, Lk, Hq, Hkv, d, dv, dtype, causal):
    q = "tensor<%dx%dx%dx%dx%s>" % (B, Hq, Lq, d, dtype)
    k = "tensor<%dx%dx%dx%dx%s>" % (B, Hkv, Lk, d, dtype)
    v = "tensor<%dx%dx%dx%dx%s>" % (B, Hkv, Lk, dv, dtype)
    o = "tensor<%dx%dx%dx%dx%s>" % (B, Hq, Lq, dv, dtype)
    mode = " causal(%s)" % causal if causal else ""
    return ("func.func @dense(%%q: %s, %%k: %s, %%v: %s) -> %s {\n"
            "  %%o = attn.attention %%q, %%k, %%v scale(%r)%s : %s, %s, %s -> %s\n"
            "  return %%o : %s\n}\n" % (q, k, v, o, d ** -0.5, mode, q, k, v, o, o))


def packed_ir(B, Tq, Tk, Hq, Hkv, d, dv, dtype, causal):
    """varlen_ir with Tq and Tk packed tokens (any split into B sequences)."""
    text = varlen_ir(1, Tq, Tk, Hq, Hkv, d, dv, dtype, causal)
    return text.replace("tensor<2xi32>", "tensor<%dxi32>" % (B + 1))


def sweep(a):
    rng = random.Random(a.seed)
    src = os.path.join(a.out, "src.mlir")
    index = []
    while len(index) < a.sweep:
        B = rng.randint(1, 24)
        Tq, Tk = rng.randint(1, 3000), rng.randint(1, 3000)
        Hkv = rng.randint(1, 4)
        Hq = Hkv * rng.choice([1, 1, 2, 4])
        d = 8 * rng.randint(1, 32)
        dv = d if rng.random() < 0.7 else 8 * rng.randint(1, 32)
        dtype = rng.choice(["f16", "bf16"])
        causal = rng.choice([None, "top_left", "bottom_right"])
        chip = rng.choice(["sm_90a", "sm_90a", "sm_80"])
        entry = dict(label="sweep%d" % len(index), B=B, Tq=Tq, Tk=Tk, Hq=Hq, Hkv=Hkv, d=d, dv=dv,
                     dtype=dtype, causal=causal, chip=chip)
        with open(src, "w") as f:
            f.write(packed_ir(B, Tq, Tk, Hq, Hkv, d, dv, dtype, causal))
        entry["varlen"], err = compile_one(a.attn_opt, src, a.out, "chip=%s strict=true" % chip)
        if err:
            # (A draw no tensor-core kernel takes, e.g. too much shared
            # memory: say so and draw again.)
            print("refused", entry, err)
            continue
        index.append(entry)
        print(entry, flush=True)
    write_index(a.out, index)
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attn-opt", default=os.path.join(HERE, "..", "build", "bin", "attn-opt"))
    ap.add_argument("--out", default=os.path.join(HERE, "kernels_varlen"))
    ap.add_argument("--sweep", type=int, default=0, help="draw this many random shapes instead")
    ap.add_argument("--seed", type=int, default=1)
    add_options_argument(ap)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    if a.sweep:
        return sweep(a)
    src = os.path.join(a.out, "src.mlir")
    index = []
    for label, B, Lq, Lk, Hq, Hkv, d, dv, dtype, causal in SHAPES:
        entry = dict(label=label, B=B, Lq=Lq, Lk=Lk, Hq=Hq, Hkv=Hkv, d=d, dv=dv, dtype=dtype,
                     causal=causal)
        for key, ir in (("varlen", varlen_ir), ("contiguous", contiguous_ir)):
            with open(src, "w") as f:
                f.write(ir(B, Lq, Lk, Hq, Hkv, d, dv, dtype, causal))
            entry[key], err = compile_one(a.attn_opt, src, a.out, "")
            if err:
                print(label, key, err)
                return 1
        index.append(entry)
        print(entry, flush=True)
    write_index(a.out, index)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Compiles the correctness set for bench/check_kernels.py (here, no GPU
needed): lengths that are not multiples of the tiles (decode, tails, Lq > Lk
with fully masked rows), both causal alignments, GQA and MQA, dv = d at 64
and 128, additive and keep mask tensors of every broadcast form, and the
regular 4k shapes as controls.

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


def case_ir(dtype, B, Hq, Hkv, Lq, Lk, d, causal, mask):
    def t(h, l):
        return "tensor<%dx%dx%dx%dx%s>" % (B, h, l, d, dtype)
    q, kv = t(Hq, Lq), t(Hkv, Lk)
    args = "%%q: %s, %%k: %s, %%v: %s" % (q, kv, kv)
    attrs = ""
    if mask:
        kind, shape = mask
        mt = "tensor<%s>" % "x".join(str(e) for e in shape + ["i1" if kind == "keep" else dtype])
        args += ", %%m: %s" % mt
        attrs += " mask(%%m : %s)" % mt
    attrs += " scale(%r)" % (d ** -0.5)
    if causal:
        attrs += " causal(%s)" % causal
    return ("func.func @attention(%s) -> %s {\n"
            "  %%o = attn.attention %%q, %%k, %%v%s : %s, %s, %s -> %s\n"
            "  return %%o : %s\n}\n" % (args, q, attrs, q, kv, kv, q, q))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attn-opt", default=os.path.join(HERE, "..", "build", "bin", "attn-opt"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--mma", default="auto", choices=["auto", "mma.sync", "wgmma"])
    ap.add_argument("--options", default="", help="more --attn-gpu-pipeline options")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    src = os.path.join(a.out, "src.mlir")
    for case in CASES:
        with open(src, "w") as f:
            f.write(case_ir(*case))
        r = subprocess.run([a.attn_opt, src, "--attn-gpu-pipeline=mma=%s %s dump-dir=%s"
                            % (a.mma, a.options, a.out), "-o", os.devnull],
                           capture_output=True, text=True)
        if r.returncode:
            print(r.stderr)
            return 1
    os.remove(src)
    print("%d kernels in %s" % (len(CASES), a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())

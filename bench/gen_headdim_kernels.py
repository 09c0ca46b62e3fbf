#!/usr/bin/env python3
"""Compiles the head-dim set (issue 15 item 1), here (no GPU needed):

  check/  correctness kernels: d (and dv) in 32, 40, 64, 72, 80, 96, 128,
          160, 192/128, 256, 104/56 x bf16/f16 x both tensor-core families (wgmma on
          sm_90a, mma.sync as built for sm_90), lengths that are not
          multiples of the tiles, GQA, both causal settings; plus a decode
          kernel (Lq = 1, GQA packing, split-KV) per head dim;
  speed/  timing kernels: B·N = 16k tokens, bf16, H = 2048 / d query
          heads (at least 8), N = 4k and 8k, causal and not.

    python3 bench/gen_headdim_kernels.py --out DIR
    # on the GPU machine:
    python3 bench/headdim_bench.py --kernels DIR --out $OUT
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DIMS = [(32, 32), (40, 40), (64, 64), (72, 72), (80, 80), (96, 96), (128, 128), (160, 160),
        (192, 128), (256, 256), (104, 56)]


def attention_ir(dtype, B, Hq, Hkv, Lq, Lk, d, dv, causal):
    def t(h, l, e):
        return "tensor<%dx%dx%dx%dx%s>" % (B, h, l, e, dtype)
    q, k, v, o = t(Hq, Lq, d), t(Hkv, Lk, d), t(Hkv, Lk, dv), t(Hq, Lq, dv)
    attrs = " scale(%r)" % (d ** -0.5) + (" causal(%s)" % causal if causal else "")
    return ("func.func @attention(%%q: %s, %%k: %s, %%v: %s) -> %s {\n"
            "  %%o = attn.attention %%q, %%k, %%v%s : %s, %s, %s -> %s\n"
            "  return %%o : %s\n}\n" % (q, k, v, o, attrs, q, k, v, o, o))


def check_cases(dims=DIMS):
    cases = []
    for i, (d, dv) in enumerate(DIMS):
        if (d, dv) not in dims:
            continue
        for dtype in ("bf16", "f16"):
            for chip in ("sm_90a", "sm_90"):
                causal = "bottom_right" if (i + (dtype == "f16")) % 2 else None
                cases.append((chip, (dtype, 2, 8, 2, 1000, 1100, d, dv, causal)))
        # Decode: one query row, GQA packing and split-KV (mma.sync).
        cases.append(("sm_90a", ("bf16", 2, 16, 2, 1, 5000, d, dv, None)))
    return cases


def speed_cases(dims=DIMS, lengths=(4096, 8192)):
    cases = []
    for d, dv in dims:
        heads = max(8, 2048 // d)
        for n in lengths:
            for causal in (None, "top_left"):
                cases.append(("sm_90a", ("bf16", 16384 // n, heads, heads, n, n, d, dv, causal)))
    return cases


def compile_all(attn_opt, out, cases, options=""):
    os.makedirs(out, exist_ok=True)
    src = os.path.join(out, "src.mlir")
    for chip, case in cases:
        with open(src, "w") as f:
            f.write(attention_ir(*case))
        r = subprocess.run([attn_opt, src, "--attn-gpu-pipeline=chip=%s strict=true %s dump-dir=%s"
                            % (chip, options, out), "-o", os.devnull], capture_output=True, text=True)
        if r.returncode:
            sys.stderr.write("%s %s\n%s" % (chip, case, r.stderr))
            return False
    os.remove(src)
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attn-opt", default=os.path.join(HERE, "..", "build", "bin", "attn-opt"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--dims", nargs="*", default=None,
                    help="only these head dims, as d or d/dv (e.g. 256 192/128)")
    ap.add_argument("--options", default="",
                    help="more --attn-gpu-pipeline options for every kernel (an A/B set)")
    ap.add_argument("--speed-only", action="store_true")
    ap.add_argument("--lengths", nargs="*", type=int, default=[4096, 8192],
                    help="sequence lengths of the timing kernels (B·N = 16k tokens)")
    ap.add_argument("--chips", nargs="*", default=["sm_90a", "sm_90"],
                    help="check kernels for these chips only (options for one family)")
    a = ap.parse_args()
    dims = DIMS
    if a.dims:
        wanted = {tuple(int(x) for x in s.split("/")) for s in a.dims}
        wanted = {w if len(w) == 2 else (w[0], w[0]) for w in wanted}
        dims = [dv for dv in DIMS if dv in wanted]
    ok = a.speed_only or compile_all(a.attn_opt, os.path.join(a.out, "check"),
                                     [c for c in check_cases(dims) if c[0] in a.chips],
                                     a.options)
    ok = ok and compile_all(a.attn_opt, os.path.join(a.out, "speed"),
                            speed_cases(dims, a.lengths), a.options)
    print("%s kernels in %s" % ("all" if ok else "not all", a.out))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""FP8 attention kernels (and bf16 twins for the speed comparison), built
here by attn-opt's GPU pipeline for the H200 (sm_90a) or another chip, for
bench/fp8_check.py on the GPU machine.

    python3 bench/gen_fp8_kernels.py --out DIR [--attn-opt build/bin/attn-opt]
        [--chip sm_90a] [--set check|speed|all] [--options "kv-stages=4 ..."]

check: small shapes over both formats, GQA, both causal alignments, head
       dims the tensor cores take and ones they do not, every output type,
       with and without descale factors, and soft-capped scores;
speed: B·N = 16k tokens, H·d = 2048, d = 128, N = 2k..16k, causal and not
       (issue 16's grid), each with a bf16 twin.
"""
import argparse
import os
import subprocess
import sys

CHECK = [
    # (fmt, out, B, Hq, Hkv, Lq, Lk, d, dv, causal, descale)
    ("f8E4M3FN", "bf16", 1, 4, 2, 200, 200, 64, 64, "top_left", True),
    ("f8E4M3FN", "bf16", 2, 2, 2, 256, 256, 128, 128, None, True),
    ("f8E4M3FN", "f16", 1, 2, 1, 100, 300, 128, 128, "bottom_right", True),
    ("f8E4M3FN", "f32", 1, 3, 3, 77, 130, 96, 40, None, False),
    ("f8E5M2", "bf16", 1, 2, 2, 129, 129, 128, 128, "top_left", True),
    ("f8E5M2", "f16", 2, 4, 1, 64, 333, 256, 256, None, False),
    # More causal work items than SMs: persistent CTAs, GQA.
    ("f8E4M3FN", "bf16", 2, 16, 4, 2048, 2048, 128, 128, "top_left", True),
]

# Score modifications on FP8 (the soft-cap c·tanh(s/c) of Gemma 2, on the
# real score: Q·Kᵀ times scale and the descale factors): each case as
# CHECK's, then c. A cap of 1 bends every score.
SOFTCAP = [
    ("f8E4M3FN", "bf16", 1, 4, 2, 300, 300, 128, 128, "top_left", True, 1.0),
    ("f8E4M3FN", "bf16", 2, 2, 2, 256, 256, 64, 64, None, True, 1.0),
    ("f8E5M2", "f16", 1, 2, 2, 200, 200, 128, 128, None, False, 1.0),
]


def speed_cases():
    out = []
    for n in (2048, 4096, 8192, 16384):
        for causal in (None, "top_left"):
            b = 16384 // n
            out.append(("f8E4M3FN", "bf16", b, 16, 16, n, n, 128, 128, causal, True))
            out.append(("bf16", "bf16", b, 16, 16, n, n, 128, 128, causal, False))
    return out


def function(i, case, softcap=None):
    fmt, out, B, hq, hkv, lq, lk, d, dv, causal, descale = case
    t = lambda h, l, c, e: "tensor<%dx%dx%dx%dx%s>" % (B, h, l, c, e)
    qt, kt, vt, ot = t(hq, lq, d, fmt), t(hkv, lk, d, fmt), t(hkv, lk, dv, fmt), t(hq, lq, dv, out)
    args = "%%q: %s, %%k: %s, %%v: %s" % (qt, kt, vt)
    op_descale = ""
    if descale:
        args += ", %a: tensor<f32>, %b: tensor<f32>, %c: tensor<f32>"
        op_descale = " descale(%a, %b, %c : tensor<f32>, tensor<f32>, tensor<f32>)"
    c = " causal(%s)" % causal if causal else ""
    scale = repr(1.0 / d ** 0.5)
    mod = ""
    if softcap:
        mod = (" score_mod {\n  ^bb0(%%s: f32, %%ib: index, %%ih: index, %%ii: index, %%ij: index):\n"
               "    %%cap = arith.constant %r : f32\n    %%x = arith.divf %%s, %%cap : f32\n"
               "    %%t = math.tanh %%x : f32\n    %%y = arith.mulf %%t, %%cap : f32\n"
               "    attn.yield %%y : f32\n  }" % softcap)
    return ("func.func @f%d(%s) -> %s {\n  %%o = attn.attention %%q, %%k, %%v%s scale(%s)%s%s"
            " : %s, %s, %s -> %s\n  return %%o : %s\n}\n"
            % (i, args, ot, op_descale, scale, c, mod, qt, kt, vt, ot, ot))


def compile_module(a, module):
    run = subprocess.run([a.attn_opt, "-", "--attn-gpu-pipeline=chip=%s fp8-mma=on dump-dir=%s %s" % (a.chip, a.out, a.options),
                          "-o", os.devnull], input=module, capture_output=True, text=True)
    if run.returncode:
        print(run.stderr[:4000])
        return False
    # What took the generic kernel, and why (the pipeline's warnings).
    for line in run.stderr.splitlines():
        if "warning" in line:
            print(line.split("warning: ", 1)[1][:160])
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    ap.add_argument("--attn-opt", default="build/bin/attn-opt")
    ap.add_argument("--chip", default="sm_90a")
    ap.add_argument("--set", choices=("check", "speed", "all"), default="all")
    ap.add_argument("--options", default="",
                    help="more --attn-gpu-pipeline options, for sweeps (every kernel takes them)")
    a = ap.parse_args()
    cases = (CHECK if a.set in ("check", "all") else []) + \
        (speed_cases() if a.set in ("speed", "all") else [])
    os.makedirs(a.out, exist_ok=True)
    module = "".join(function(i, c) for i, c in enumerate(cases))
    if not compile_module(a, module):
        return 1
    # Each soft-capped attention alone, its cap beside its manifest
    # (<kernel>.softcap) for fp8_check.py's reference.
    for case in SOFTCAP if a.set in ("check", "all") else []:
        before = set(os.listdir(a.out))
        if not compile_module(a, function(0, case[:-1], softcap=case[-1])):
            return 1
        for f in set(os.listdir(a.out)) - before:
            if f.endswith(".json"):
                with open(os.path.join(a.out, f[:-5] + ".softcap"), "w") as out:
                    out.write(repr(case[-1]))
    print("%d attentions, %d kernels in %s" % (len(cases),
          len([f for f in os.listdir(a.out) if f.endswith(".ptx")]), a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())

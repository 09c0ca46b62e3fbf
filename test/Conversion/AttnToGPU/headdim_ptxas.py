#!/usr/bin/env python3
"""Every head dim the GPU kernels take assembles without spills: for each
(d, dv) of the list the issue names (32, 64, 80, 96, 128, 160, 192/128,
256), odd multiples of 8 (40, 72, 104/56: Q·Kᵀ's last k-step over zeroed
columns) and each tensor-core family (wgmma on sm_90a, mma.sync built for
sm_90 and sm_80), compiles one attention through --attn-gpu-pipeline
(strict: no host fallback), checks the manifest's head dims and that ptxas
reports 0 spill bytes, and prints one line per kernel.

With --generic, the generic CUDA-core kernel (f32, f16, bf16 at head dims
the tensor-core kernels refuse, some with a score_mod): built by the
pipeline's fallback, not under strict=true.

With --fp8, the FP8 tensor-core kernel (wgmma e4m3/e5m2, sm_90a, V as
Vᵀ tile images from its pre-kernel) at FP8_DIMS, both formats, causal
and not, with and without a score_mod, with descale factors, strictly.

With --score-mods, the same for attentions with a score_mod region copied
into the kernel (soft-capping, ALiBi computed from the indices, a sliding
window, a relative-position bias table read from a kernel parameter), at
d = 64, 128 and 256.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

DIMS = [(32, 32), (40, 40), (64, 64), (72, 72), (80, 80), (96, 96), (128, 128), (160, 160),
        (192, 128), (256, 256), (104, 56)]
CHIPS = ["sm_90a", "sm_90", "sm_80"]
# Shared memory one block may opt into, by chip (the CUDA programming
# guide's per-compute-capability table): a kernel asking for more does not
# launch, which ptxas cannot see.
BLOCK_SMEM_OPTIN = {"sm_80": 163 * 1024, "sm_86": 99 * 1024, "sm_87": 163 * 1024,
                    "sm_89": 99 * 1024, "sm_90": 227 * 1024, "sm_90a": 227 * 1024,
                    "sm_100": 227 * 1024, "sm_120": 99 * 1024}
# The generic kernel: what the tensor-core kernels refuse (no multiple of 8,
# above 256) and, at f32, any head dim.
GENERIC_DIMS = [(20, 20), (36, 36), (80, 72), (100, 100), (128, 128), (264, 264), (320, 200)]
# The FP8 tensor-core kernel's head dims: d a multiple of 32, dv of 16.
FP8_DIMS = [(32, 32), (64, 64), (96, 96), (128, 128), (160, 160), (192, 128), (256, 256),
            (128, 48)]
# Of those, the ones the tensor-core kernels take at f16 and bf16.
TENSOR_CORE_DIMS = {(80, 72), (128, 128)}


SCORE_MODS = {
    "softcap": """
    %cap = arith.constant 5.000000e+01 : f32
    %x = arith.divf %s, %cap : f32
    %t = math.tanh %x : f32
    %y = arith.mulf %t, %cap : f32""",
    "alibi": """
    %hi = arith.index_cast %h : index to i64
    %hf = arith.sitofp %hi : i64 to f32
    %c = arith.constant -2.000000e+00 : f32
    %e = arith.mulf %hf, %c : f32
    %slope = math.exp2 %e : f32
    %dj = arith.subi %j, %i : index
    %di = arith.index_cast %dj : index to i64
    %df = arith.sitofp %di : i64 to f32
    %bias = arith.mulf %slope, %df : f32
    %y = arith.addf %s, %bias : f32""",
    "window": """
    %w = arith.constant 64 : index
    %jw = arith.addi %j, %w : index
    %keep = arith.cmpi ugt, %jw, %i : index
    %ninf = arith.constant 0xFF800000 : f32
    %y = arith.select %keep, %s, %ninf : f32""",
    # T5-style: a bias per head and relative position, from a table that is
    # a kernel parameter (`%table`, SCORE_MOD_TENSORS).
    "relbias": """
    %off = arith.constant 319 : index
    %ji = arith.subi %j, %i : index
    %r = arith.addi %ji, %off : index
    %x = tensor.extract %table[%h, %r] : tensor<4x639xf32>
    %y = arith.addf %s, %x : f32""",
}
# The tensors a score_mod reads, as extra function arguments.
SCORE_MOD_TENSORS = {"relbias": ", %table: tensor<4x639xf32>"}


def attention(d, dv, causal, mod=None, dtype="bf16", queries=320):
    q = "tensor<1x4x%dx%dx%s>" % (queries, d, dtype)
    v = "tensor<1x4x%dx%dx%s>" % (queries, dv, dtype)
    o = v
    attrs = " scale(0.125)" + (" causal(bottom_right)" if causal else "")
    extra = SCORE_MOD_TENSORS.get(mod, "")
    if dtype.startswith("f8"):
        # FP8: a bf16 result and the three descale factors.
        o = "tensor<1x4x%dx%dxbf16>" % (queries, dv)
        extra += ", %qd: tensor<f32>, %kd: tensor<f32>, %vd: tensor<f32>"
        attrs = (" descale(%qd, %kd, %vd : tensor<f32>, tensor<f32>, tensor<f32>)" + attrs)
    if mod:
        attrs += (" score_mod {\n  ^bb0(%%s: f32, %%b: index, %%h: index, %%i: index, %%j: index):"
                  "%s\n    attn.yield %%y : f32\n  }" % SCORE_MODS[mod])
    return ("func.func @a(%%q: %s, %%k: %s, %%v: %s%s) -> %s {\n"
            "  %%o = attn.attention %%q, %%k, %%v%s : %s, %s, %s -> %s\n"
            "  return %%o : %s\n}\n" % (q, q, v, extra, o, attrs, q, q, v, o, o))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attn-opt", required=True)
    ap.add_argument("--ptxas", required=True)
    ap.add_argument("--score-mods", help="comma-separated: " + ", ".join(SCORE_MODS))
    ap.add_argument("--generic", action="store_true",
                    help="the generic CUDA-core kernel: GENERIC_DIMS x f32/f16/bf16, "
                         "without and with each score_mod")
    ap.add_argument("--fp8", action="store_true",
                    help="the FP8 tensor-core kernel: FP8_DIMS x e4m3/e5m2 on sm_90a")
    ap.add_argument("--queries", type=int, default=320,
                    help="Lq = Lk (320: a partial 128-row tile; a multiple of 128 gives a "
                         "window score_mod the unmodified pick, MaskReads::KeyBounds)")
    ap.add_argument("--chips", default=",".join(CHIPS),
                    help="comma-separated chips the head-dim list is built for")
    a = ap.parse_args()
    ok, count = True, 0
    mods = a.score_mods.split(",") if a.score_mods else [None]
    dims = [(64, 64), (128, 128), (256, 256)] if a.score_mods else DIMS
    cases = [(d, dv, chip, (i + j) % 2 == 1, mod, "bf16") for mod in mods
             for i, (d, dv) in enumerate(dims) for j, chip in enumerate(a.chips.split(","))]
    if a.generic:
        cases = [(d, dv, CHIPS[i % 3], i % 2 == 1, [None, *SCORE_MODS][i % 5], dtype)
                 for i, (d, dv) in enumerate(GENERIC_DIMS) for dtype in ("f32", "f16", "bf16")
                 if dtype == "f32" or (d, dv) not in TENSOR_CORE_DIMS]
        # FP8 (no tensor-core kernel yet: every head dim, both formats).
        cases += [(d, dv, CHIPS[i % 3], i % 2 == 0, [None, *SCORE_MODS][(i + 2) % 5], fmt)
                  for i, (d, dv) in enumerate(GENERIC_DIMS)
                  for fmt in ("f8E4M3FN", "f8E5M2")]
    if a.fp8:
        cases = [("sm_90a", i % 2 == 1, [None, "softcap", "window"][i % 3], fmt, d, dv)
                 for i, (d, dv) in enumerate(FP8_DIMS) for fmt in ("f8E4M3FN", "f8E5M2")]
        cases = [(d, dv, chip, causal, mod, fmt) for chip, causal, mod, fmt, d, dv in cases]
    with tempfile.TemporaryDirectory() as tmp:
        for d, dv, chip, causal, mod, dtype in cases:
            if True:
                out = os.path.join(tmp, "%d_%d_%s_%s_%s" % (d, dv, chip, mod, dtype))
                os.makedirs(out)
                src = os.path.join(out, "a.mlir")
                with open(src, "w") as f:
                    f.write(attention(d, dv, causal, mod, dtype, a.queries))
                # The tensor-core kernels strictly; the generic one is what
                # the pipeline falls back to.
                r = subprocess.run([a.attn_opt, src, "--attn-gpu-pipeline=chip=%s %s%s"
                                    "kv-splits=1 dump-dir=%s"
                                    % (chip, "" if a.generic else "strict=true ",
                                       "fp8-mma=on " if a.fp8 else "", out),
                                    "-o", os.devnull], capture_output=True, text=True)
                if r.returncode:
                    print("FAIL d=%d dv=%d %s: %s" % (d, dv, chip, r.stderr.strip()))
                    ok = False
                    continue
                [manifest] = [f for f in os.listdir(out) if f.endswith(".json")]
                with open(os.path.join(out, manifest)) as f:
                    m = json.load(f)
                p = subprocess.run([a.ptxas, "-arch=" + chip, "-v",
                                    os.path.join(out, manifest[:-5] + ".ptx"), "-o", os.devnull],
                                   capture_output=True, text=True)
                spills = [int(x) for x in re.findall(r"(\d+) bytes spill (?:stores|loads)", p.stderr)]
                regs = re.findall(r"Used (\d+) registers", p.stderr)
                smem = m["dynamic_shared_memory_bytes"] + m["static_shared_memory_bytes"]
                good = (p.returncode == 0 and spills and not any(spills)
                        and smem <= BLOCK_SMEM_OPTIN[chip]
                        and (m["d"], m["dv"]) == (d, dv)
                        and m["instruction"].startswith("fma") == a.generic
                        and (not a.fp8 or "e4m3" in m["instruction"]))
                ok &= good
                count += 1
                if not good and p.returncode:
                    print(p.stderr.strip()[:500])
                print("%s %s d=%d dv=%d %s causal=%d %s%s: %s registers, spills %s, %d bytes"
                      " of shared memory" % (
                          "ok" if good else "FAIL", dtype, d, dv, chip, causal, m["instruction"],
                          " score_mod=" + mod if mod else "",
                          "/".join(regs), sum(spills) if spills else "?", smem))
    print("%d kernels" % count)
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

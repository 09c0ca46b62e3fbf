#!/usr/bin/env python3
"""Compiles the score_mod GPU set (issue 15; here, no GPU): attn.attention
with a score_mod region (Gemma 2's soft-cap, ALiBi computed from the
indices, a causal sliding window, a T5-style relative-position bias table
read from a kernel parameter) and the same shapes without one, each
through --attn-gpu-pipeline for sm_90a with the config chooser's tiles.

    python3 bench/gen_score_mod.py --out bench/kernels_score_mod [--partial]
        [--options "kv-splits=3"]
    # on the GPU machine
    python3 bench/score_mod_bench.py --kernels bench/kernels_score_mod --out $OUT
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# Each region takes (s, b, h, i, j); the Python twin in score_mod_bench.py
# must compute the same function.
MODS = {
    "none": None,
    "softcap": """
    %cap = arith.constant 5.000000e+01 : f32
    %x = arith.divf %s, %cap : f32
    %t = math.tanh %x : f32
    %y = arith.mulf %t, %cap : f32
    attn.yield %y : f32""",
    # slope_h = 2^(-8 (h + 1) / H), bias slope_h * (j - i).
    "alibi": """
    %hi = arith.index_cast %h : index to i64
    %hf = arith.sitofp %hi : i64 to f32
    %one = arith.constant 1.000000e+00 : f32
    %c = arith.constant {neg8_over_h} : f32
    %h1 = arith.addf %hf, %one : f32
    %e = arith.mulf %h1, %c : f32
    %slope = math.exp2 %e : f32
    %dj = arith.subi %j, %i : index
    %di = arith.index_cast %dj : index to i64
    %df = arith.sitofp %di : i64 to f32
    %bias = arith.mulf %slope, %df : f32
    %y = arith.addf %s, %bias : f32
    attn.yield %y : f32""",
    # keep j > i - W (with causal: the last W keys up to the query), W = N/8.
    "window": """
    %w = arith.constant {window} : index
    %jw = arith.addi %j, %w : index
    %keep = arith.cmpi ugt, %jw, %i : index
    %ninf = arith.constant 0xFF800000 : f32
    %y = arith.select %keep, %s, %ninf : f32
    attn.yield %y : f32""",
    # T5-style relative-position bias: table[h, j − i + N − 1], the table
    # [H, 2N − 1] (f32) a kernel parameter (score_mod_operand_0).
    "relbias": """
    %off = arith.constant {last} : index
    %ji = arith.subi %j, %i : index
    %r = arith.addi %ji, %off : index
    %x = tensor.extract %table[%h, %r] : {table}
    %y = arith.addf %s, %x : f32
    attn.yield %y : f32""",
}

# (B, H, N, d, mods); every kernel causal. N = 16k: the sliding
# window target (W = N/8 against the full causal kernel).
SHAPES = [(4, 16, 4096, 128, list(MODS)), (8, 16, 2048, 64, list(MODS)),
          (1, 16, 16384, 128, ["none", "window"]),
          # d = 36 (no multiple of 8): the generic CUDA-core kernel, its
          # copied regions, tensor parameters and per-row window bounds.
          (2, 8, 1024, 36, ["softcap", "relbias", "window"])]
# --partial: partial 128-row query tiles, whose regions see the rows
# unclamped (bench/NOTES.md v46); the second shape's few CTAs split the keys.
PARTIAL_SHAPES = [(2, 8, 1000, 128, list(MODS)),
                  (1, 4, 777, 96, ["alibi", "relbias", "window"])]


def ir(mod, B, H, N, d):
    t = "tensor<%dx%dx%dx%dxbf16>" % (B, H, N, d)
    table = "tensor<%dx%dxf32>" % (H, 2 * N - 1)
    region = ""
    if MODS[mod]:
        body = MODS[mod].format(neg8_over_h="%.8e" % (-8.0 / H), window=N // 8, last=N - 1,
                                table=table)
        region = " score_mod {\n  ^bb0(%%s: f32, %%b: index, %%h: index, %%i: index, %%j: index):%s\n  }" % body
    extra = ", %%table: %s" % table if mod == "relbias" else ""
    return ("func.func @attention(%%q: %s, %%k: %s, %%v: %s%s) -> %s {\n"
            "  %%o = attn.attention %%q, %%k, %%v scale(%.10e) causal(top_left)%s : %s, %s, %s -> %s\n"
            "  return %%o : %s\n}\n" % (t, t, t, extra, t, d ** -0.5, region, t, t, t, t, t))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--attn-opt", default=os.path.join(HERE, "..", "build", "bin", "attn-opt"))
    ap.add_argument("--partial", action="store_true",
                    help="the partial-tile shapes instead of the benchmark set")
    ap.add_argument("--options", default="",
                    help="more --attn-gpu-pipeline options (e.g. kv-splits=3)")
    a = ap.parse_args()
    shutil.rmtree(a.out, ignore_errors=True)
    os.makedirs(a.out)
    index = []
    for (B, H, N, d, mods) in PARTIAL_SHAPES if a.partial else SHAPES:
        for mod in mods:
            with tempfile.TemporaryDirectory() as tmp:
                src = os.path.join(tmp, "in.mlir")
                open(src, "w").write(ir(mod, B, H, N, d))
                r = subprocess.run([a.attn_opt, src, "--attn-gpu-pipeline=chip=sm_90a dump-dir=%s %s" % (tmp, a.options),
                                    "-o", os.devnull], capture_output=True, text=True)
                if r.returncode:
                    raise SystemExit("%s %s: %s" % (mod, (B, H, N, d), r.stderr))
                manifests = glob.glob(os.path.join(tmp, "*.json"))
                assert len(manifests) == 1, manifests
                name = os.path.basename(manifests[0])[:-5]
                for ext in (".json", ".ptx"):
                    shutil.copy(os.path.join(tmp, name + ext), a.out)
            index.append({"mod": mod, "shape": [B, H, N, d], "window": N // 8, "kernel": name})
            print(mod, (B, H, N, d), name)
    json.dump(index, open(os.path.join(a.out, "index.json"), "w"), indent=1)


if __name__ == "__main__":
    main()

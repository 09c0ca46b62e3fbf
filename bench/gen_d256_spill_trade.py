#!/usr/bin/env python3
"""v32e: the d = 256 producer kernel (128 x 64 tiles) spills 8 bytes when
causal; its two spill-free alternatives (32-key tiles with the overlap, or
no producer) compiled beside it, as configurations of one index for
bench/prefill_sweep.py.

    python3 bench/gen_d256_spill_trade.py [--out bench/kernels_d256]
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import tempfile

from gen_check_kernels import HERE, case_ir

# name: (B, H, N, causal), B·N = 16k tokens and H·d = 2048 as in the grid.
SHAPES = {"d256-4k-causal": (4, 8, 4096, "top_left"), "d256-8k-causal": (2, 8, 8192, "top_left"),
          "d256-2k-causal": (8, 8, 2048, "top_left"), "d256-4k": (4, 8, 4096, None)}
CONFIGS = (("block-kv=64 (pick)", ""), ("block-kv=32", "block-kv=32"),
           ("kv-loads=tma", "kv-loads=tma"))


def compile_one(attn_opt, text, options, out):
    """Compiles one attention with --attn-gpu-pipeline options into `out`;
    returns the kernel's name."""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "src.mlir")
        with open(src, "w") as f:
            f.write(text)
        subprocess.run([attn_opt, src, "--attn-gpu-pipeline=%s dump-dir=%s" % (options, tmp),
                        "-o", os.devnull], check=True)
        manifest = glob.glob(os.path.join(tmp, "*.json"))[0]
        name = os.path.basename(manifest)[:-5]
        for ext in (".json", ".ptx"):
            shutil.copy(os.path.join(tmp, name + ext), out)
    return name


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attn-opt", default=os.path.join(HERE, "..", "build", "bin", "attn-opt"))
    ap.add_argument("--out", default=os.path.join(HERE, "kernels_d256"))
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    index = []
    for name, (B, H, N, causal) in SHAPES.items():
        text = case_ir("bf16", B, H, H, N, N, 256, causal, None)
        configs = {key: compile_one(a.attn_opt, text, opts, a.out) for key, opts in CONFIGS}
        index.append(dict(name=name, shape=["bf16", B, H, H, N, N, 256, bool(causal)],
                          pick=configs["block-kv=64 (pick)"], configs=configs, refused={}))
    with open(os.path.join(a.out, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
    print("%d shapes in %s" % (len(index), a.out))


if __name__ == "__main__":
    main()

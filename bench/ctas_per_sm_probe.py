#!/usr/bin/env python3
"""A probe, before building it into the chooser: do d = 64 wgmma kernels of
128-row CTAs (256 threads, no producer warpgroup) run faster when ptxas is
told to fit two CTAs per SM (`.minnctapersm 2`, i.e. at most 128 registers
per thread) instead of the one its 150-160 registers allow?

Why it might (bench/NOTES.md v32c): 128 x 128 CTAs halve the L2 traffic per
score of the 64-row ones and win at d = 64 non-causal whole tiles, but lose
10-28% on causal and partial-tile shapes, where ncu showed the SM idle
(L2 15%, SM 39%) with one CTA per SM: nothing overlaps a CTA's Q load,
pipeline ramp and epilogue. Two resident CTAs would; shared memory allows
it (Q 16 KB + 2 stages x 32 KB = 80 KB at 128 x 128, 48 KB at 128 x 64).

For each shape this compiles the chooser's pick and each configuration of
CONFIGS (here, no GPU), then writes twins of the 128-row ones whose PTX
asks for N CTAs per SM, as configurations "<options> ctas-per-sm=N" that
bench/prefill_sweep.py times beside the pick (each checked).

    python3 bench/ctas_per_sm_probe.py --out bench/kernels_ctas
    # on the GPU machine
    python3 bench/prefill_sweep.py --kernels bench/kernels_ctas --out $OUT --rounds 4
"""
import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_prefill_sweep as sweep  # noqa: E402
from ab_merge import rename  # noqa: E402

# (name, dtype, B, Hq, Hkv, Lq, Lk, d, causal): issue 16's d = 64 grid
# (B·N = 16k tokens, H = 32) and the sweep's other d = 64 shapes.
SHAPES = [("d64-%dk%s" % (n, "-causal" if causal else ""), "bf16", 16 // n, 32, 32,
           1024 * n, 1024 * n, 64, causal)
          for n in (1, 2, 4, 8, 16) for causal in (False, True)] + [
    ("cross-d64-4kx512", "bf16", 4, 32, 32, 4096, 512, 64, False),
    ("odd-d64-1999", "bf16", 8, 32, 32, 1999, 1999, 64, False),
    ("odd-d64-3001-causal", "bf16", 5, 32, 32, 3001, 3001, 64, True),
    ("gqa-d64-8k", "bf16", 2, 32, 8, 8192, 8192, 64, False),
    ("f16-d64-8k-causal", "f16", 2, 32, 32, 8192, 8192, 64, True)]

CONFIGS = ["mma=wgmma block-q=64 block-kv=128 kv-stages=2",
           "mma=wgmma block-q=128 block-kv=128 kv-stages=2",
           "mma=wgmma block-q=128 block-kv=64 kv-stages=2",
           "mma=wgmma block-q=128 block-kv=64 kv-stages=3"]

ENTRY_BOUND = re.compile(r"^(\.maxntid 256, 1, 1)$", re.M)


def write_twin(out, name, ctas):
    """The kernel `name` with `.minnctapersm ctas` after its thread bound;
    None if it has no 256-thread bound (not a 128-row kernel) or already a
    CTA-count bound."""
    with open(os.path.join(out, name + ".ptx")) as f:
        ptx = f.read()
    # (Since v33 the compiler writes the bound itself where it chooses it.)
    if len(ENTRY_BOUND.findall(ptx)) != 1 or ".minnctapersm" in ptx:
        return None
    return rename(out, name, "_cta%d" % ctas, out,
                  lambda ptx: ENTRY_BOUND.sub(r"\1\n.minnctapersm %d" % ctas, ptx))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attn-opt", default=os.path.join(sweep.HERE, "..", "build", "bin", "attn-opt"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--ctas", default="2", help="CTAs per SM to ask for, comma-separated")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    sweep.OUT = a.out
    src = os.path.join(a.out, "src.mlir")
    index = []
    for name, *shape in SHAPES:
        with open(src, "w") as f:
            f.write(sweep.shape_ir(*shape))
        pick, why = sweep.compile_one(a.attn_opt, src, "")
        if pick is None:
            sys.exit("%s: the chooser's kernel failed: %s" % (name, why))
        entry = dict(name=name, shape=shape, pick=pick, configs={"": pick}, refused={})
        for options in CONFIGS:
            kernel, why = sweep.compile_one(a.attn_opt, src, options)
            if kernel is None:
                entry["refused"][options] = why
                continue
            entry["configs"][options] = kernel
            for ctas in map(int, a.ctas.split(",")):
                twin = write_twin(a.out, kernel, ctas)
                if twin:
                    entry["configs"]["%s ctas-per-sm=%d" % (options, ctas)] = twin
        index.append(entry)
        print("%-22s pick %s; %d configs" % (name, pick, len(entry["configs"])))
    os.remove(src)
    with open(os.path.join(a.out, "index.json"), "w") as f:
        json.dump(index, f, indent=1)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Random prefill attentions as the chooser picks them assemble without
spills: draws --cases attentions with bench/gen_prefill_random.py (head
dims 64-256, whole and partial tiles, GQA, Lq != Lk, both causal
alignments, mask tensors), compiles them through --attn-gpu-pipeline and
runs ptxas on each kernel. Prints one line per spilling kernel and PASS
when every spill is one of the two measured trades: the d = 256 causal
producer kernel's 8 bytes, which bench/NOTES.md v32e measured as faster
than both spill-free kernels (32-key tiles 0.81-0.85x, no producer
0.93-0.94x); and up to 48 bytes in a kernel bounded to two CTAs per SM
(128 registers; d = 64), which v33 measured 1.01-1.36x the same kernel at
one CTA per SM (the non-causal kernel's spill outside its loop, the causal
one's three 8-byte reloads per tile, SASS in bench/results/2026-12-04-v33b).
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile


def ptx_target(ptx):
    """The chip the PTX was compiled for (its .target; the manifest's
    min_chip is the oldest chip with the kernel's instructions, which may be
    earlier)."""
    with open(ptx) as f:
        for line in f:
            if line.startswith(".target"):
                return line.split()[1].rstrip(",")
    sys.exit("no .target in " + ptx)


def spill_bytes(ptxas, ptx):
    out = subprocess.run([ptxas, "-arch=" + ptx_target(ptx), "-v", ptx, "-o", os.devnull],
                         capture_output=True, text=True)
    if out.returncode:
        sys.exit("ptxas failed on %s:\n%s" % (ptx, out.stderr[-600:]))
    return max([int(n) for n in re.findall(r"(\d+) bytes spill stores", out.stderr)] or [0])


def known_trade(manifest, spilled):
    if manifest.get("min_ctas_per_sm") == 2:
        return spilled <= 48
    return (manifest["kv_loads"] == "tma-producer" and manifest["d"] == 256
            and manifest["causal"] != "none" and spilled <= 8)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--generator", required=True)
    ap.add_argument("--attn-opt", required=True)
    ap.add_argument("--ptxas", required=True)
    ap.add_argument("--cases", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--options", default="",
                    help="more --attn-gpu-pipeline options for every draw (the generator's)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as out:
        gen = subprocess.run([sys.executable, a.generator, "--attn-opt", a.attn_opt, "--out", out,
                              "--cases", str(a.cases), "--seed", str(a.seed),
                              "--options", a.options],
                             capture_output=True, text=True)
        if gen.returncode:
            sys.exit(gen.stdout + gen.stderr)
        failed = 0
        manifests = sorted(glob.glob(os.path.join(out, "*.json")))
        for path in manifests:
            with open(path) as f:
                manifest = json.load(f)
            spilled = spill_bytes(a.ptxas, path[:-5] + ".ptx")
            if spilled and known_trade(manifest, spilled):
                print("known %d bytes %s" % (spilled, manifest["kernel"]))
            elif spilled:
                failed += 1
                print("SPILL %d bytes %s" % (spilled, manifest["kernel"]))
        print("%d kernels" % len(manifests))
        print("FAIL" if failed else "PASS")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

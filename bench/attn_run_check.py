#!/usr/bin/env python3
"""Checks the C++ runtime (tools/attn-run, libattnrt) against the Python
runtime on the GPU machine: for every dumped kernel without a mask or
pages, the same random inputs go through both launchers, and the outputs
must be bit-identical (same PTX, same launches, deterministic kernels) and
within the usual error of an fp32 reference (bench/attn_run.py).

    # here: build attn-run (CUDA toolkit found), dump kernels
    python3 bench/gen_check_kernels.py ...
    # on the GPU machine
    python3 bench/attn_run_check.py --attn-run build/bin/attn-run --kernels bench/kernels_check

Prints one line per kernel and PASS/FAIL; exit status 1 on any failure.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attn_run import Kernel, reference, rel_err  # noqa: E402


def check_one(attn_run, manifest_path, workdir):
    with open(manifest_path) as f:
        manifest = json.load(f)
    if manifest.get("mask", "none") != "none" or manifest.get("paged"):
        return "skipped"  # their extra inputs are bench/check_kernels.py's business
    kernel = Kernel(manifest_path)
    gen = torch.Generator(device="cuda").manual_seed(0)
    q, k, v, o = kernel.inputs(gen)
    kernel(q, k, v, o)
    torch.cuda.synchronize()
    files = []
    for name, t in (("q", q), ("k", k), ("v", v)):
        path = os.path.join(workdir, name + ".bin")
        t.contiguous().cpu().view(torch.uint8).numpy().tofile(path)
        files += ["--in", "%s=%s" % (name, path)]
    out_path = os.path.join(workdir, "o.bin")
    done = subprocess.run([attn_run, manifest_path, "--out", out_path] + files,
                          capture_output=True, text=True, errors="replace")
    if done.returncode:
        return "attn-run failed: " + done.stderr.strip()[:400]
    raw = torch.from_file(out_path, size=o.numel() * o.element_size(), dtype=torch.uint8)
    o_cpp = raw.view(o.dtype).reshape(o.shape)
    same = bool(torch.equal(o_cpp.view(torch.uint8), o.cpu().view(torch.uint8)))
    # The fp32 reference knows SDPA's top-left diagonal only; bottom-right
    # kernels are checked by bit-identity with the Python runtime, which
    # bench/check_kernels.py checks against a reference of both alignments.
    err = 0.0
    if manifest["causal"] in ("none", "top_left"):
        ref = reference(q, k, v, manifest["causal"] == "top_left", manifest["scale"], heads=4)
        err = rel_err(o_cpp[:1, :4].cuda().float(), ref)
    return None if same and err < 2e-2 else (
        "bit-identical: %s, rel err vs fp32 %.2e" % (same, err))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--attn-run", required=True)
    ap.add_argument("--kernels", required=True, help="a directory of <kernel>.json + .ptx")
    a = ap.parse_args()
    failures = checked = 0
    with tempfile.TemporaryDirectory() as workdir:
        for path in sorted(glob.glob(os.path.join(a.kernels, "*.json"))):
            why = check_one(a.attn_run, path, workdir)
            if why == "skipped":
                print("%-100s skipped (mask or pages)" % os.path.basename(path))
                continue
            checked += 1
            print("%-100s %s" % (os.path.basename(path), "ok" if why is None else "FAIL: " + why))
            failures += why is not None
    print("PASS" if failures == 0 and checked else "FAIL", "(%d kernels)" % checked)
    return 1 if failures or not checked else 0


if __name__ == "__main__":
    sys.exit(main())

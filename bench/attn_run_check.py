#!/usr/bin/env python3
"""Checks the C++ runtime (tools/attn-run, libattnrt) against the Python
runtime on the GPU machine: for every dumped kernel, the same random
inputs (a mask tensor and a paged cache's block table and lengths too,
where the kernel takes them) go through both launchers, and the outputs
must be bit-identical (same PTX, same launches, deterministic kernels);
kernels without a mask or pages must also be within the usual error of an
fp32 reference (bench/attn_run.py; bench/check_kernels.py checks the
others' Python results against references of their own).

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
from check_kernels import tensor_mask  # noqa: E402


def paged_inputs(kernel, generator):
    """A block table naming distinct pages of the pool in random order, and
    random sequence lengths in [1, capacity] (int32)."""
    paged = kernel.manifest["paged"]
    B = kernel.shapes[0][0]
    pages = torch.randperm(paged["num_pages"], device="cuda", generator=generator)
    need = B * paged["max_pages"]
    table = pages.repeat(-(-need // paged["num_pages"]))[:need].view(B, paged["max_pages"])
    capacity = paged["max_pages"] * paged["page_size"]
    lens = torch.randint(1, capacity + 1, (B,), device="cuda", generator=generator)
    return table.to(torch.int32).contiguous(), lens.to(torch.int32)


def extra_inputs(kernel, generator):
    """The inputs past q, k, v that this kernel's manifest lists."""
    extra = {}
    if kernel.manifest.get("mask", "none") != "none":
        extra["mask"] = tensor_mask(kernel, generator)
    if kernel.manifest.get("paged"):
        extra["block_table"], extra["seq_lens"] = paged_inputs(kernel, generator)
    return extra


def check_one(attn_run, manifest_path, workdir):
    with open(manifest_path) as f:
        manifest = json.load(f)
    kernel = Kernel(manifest_path)
    gen = torch.Generator(device="cuda").manual_seed(0)
    q, k, v, o = kernel.inputs(gen)
    extra = extra_inputs(kernel, gen)
    kernel(q, k, v, o, **extra)
    torch.cuda.synchronize()
    files = []
    for name, t in [("q", q), ("k", k), ("v", v)] + sorted(extra.items()):
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
    if manifest["causal"] in ("none", "top_left") and not extra:
        ref = reference(q, k, v, manifest["causal"] == "top_left", manifest["scale"], heads=4)
        err = rel_err(o_cpp[:1, :4].cuda().float(), ref)
    return None if same and err < 2e-2 else (
        "bit-identical: %s, rel err vs fp32 %.2e" % (same, err))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--attn-run", required=True)
    ap.add_argument("--kernels", required=True, nargs="+",
                    help="directories of <kernel>.json + .ptx")
    a = ap.parse_args()
    failures = checked = 0
    with tempfile.TemporaryDirectory() as workdir:
        for path in sorted(p for d in a.kernels for p in glob.glob(os.path.join(d, "*.json"))
                           if os.path.basename(p) != "index.json"):
            why = check_one(a.attn_run, path, workdir)
            checked += 1
            print("%-100s %s" % (os.path.basename(path), "ok" if why is None else "FAIL: " + why))
            failures += why is not None
    print("PASS" if failures == 0 and checked else "FAIL", "(%d kernels)" % checked)
    return 1 if failures or not checked else 0


if __name__ == "__main__":
    sys.exit(main())

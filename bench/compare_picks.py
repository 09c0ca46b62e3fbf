#!/usr/bin/env python3
"""Compares the decode kernels two attn-opt binaries choose on issue 14's
grid (here, no GPU needed): B x (Hq, Hkv) x Lk x {contiguous, paged 16,
paged 128}, d = 128, bf16. Prints each point's kernel name under both and
counts the points that differ. Used before a change of the streaming model
lands, to see which picks it moves and whether those are the ones a device
run timed.

    python3 bench/compare_picks.py --old OLD/attn-opt --new build/bin/attn-opt
"""
import argparse
import itertools
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_decode_kernels import decode_ir  # noqa: E402
from gen_paged_kernels import paged_ir  # noqa: E402


def kernel_name(binary, ir):
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "src.mlir")
        with open(src, "w") as f:
            f.write(ir)
        r = subprocess.run([binary, src, "--attn-gpu-pipeline=dump-dir=%s" % d, "-o", os.devnull],
                           capture_output=True, text=True)
        if r.returncode:
            return "error: " + (r.stderr.strip().splitlines() or ["failed"])[0]
        names = sorted(x[:-5] for x in os.listdir(d) if x.endswith(".json"))
        return names[0] if names else "no kernel"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--batches", default="1,8,64")
    ap.add_argument("--lengths", default="4096,16384,131072")
    ap.add_argument("--heads", default="64:8,32:8,32:32")
    ap.add_argument("--pages", default="0,16,128", help="page sizes; 0 is contiguous K/V")
    a = ap.parse_args()
    ints = lambda s: [int(x) for x in s.split(",")]  # noqa: E731
    heads = [tuple(int(x) for x in h.split(":")) for h in a.heads.split(",")]
    differ = 0
    for b, (hq, hkv), lk, page in itertools.product(ints(a.batches), heads, ints(a.lengths),
                                                    ints(a.pages)):
        ir = decode_ir(b, hq, hkv, lk, 128) if page == 0 else paged_ir(b, hq, hkv, lk, 128, page)
        old, new = kernel_name(a.old, ir), kernel_name(a.new, ir)
        differ += old != new
        print(b, hq, hkv, lk, page, "same" if old == new else "DIFF", old,
              "" if old == new else new, flush=True)
    print("differ:", differ)


if __name__ == "__main__":
    main()

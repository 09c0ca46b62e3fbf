#!/usr/bin/env python3
"""Where the B = 1 decode time goes (issue 14's 3.5 TB/s target at B = 1,
Lk = 16k): each pick of an index.json (bench/gen_decode_kernels.py) timed
four ways, in CUDA-graph replays, beside cuDNN timed the same ways.

    python3 bench/decode_floor_probe.py --kernels bench/kernels_d37 --batches 1 --out $OUT

  - flush: the L2 emptied before each call by zeroing 256 MB (triton's
    do_bench: ~50 MB of dirty lines the kernel's reads must write back) or
    by reading it (clean lines: what a decode step finds after a layer that
    read its inputs);
  - launches: the manifest's whole launch sequence (split kernel, then the
    log-sum-exp combine) or its first launch alone (the split kernel; its
    output is then partial, so it is timed, not checked).

Writes floor.jsonl and floor.md (µs and GB/s of K+V).
"""
import argparse
import json
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attn_run import Kernel, timer  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernels", default="bench/kernels_d37")
    ap.add_argument("--batches", default="1")
    ap.add_argument("--out", default=".")
    a = ap.parse_args()
    batches = {int(b) for b in a.batches.split(",")}
    with open(os.path.join(a.kernels, "index.json")) as f:
        index = [e for e in json.load(f) if e["B"] in batches]
    timers = {"dirty": timer(True), "clean": timer(True, clean_l2=True)}
    rows = []
    for e in index:
        B, Hq, Hkv, Lk, d = e["B"], e["Hq"], e["Hkv"], e["Lk"], e["d"]
        kv_bytes = 2 * B * Hkv * Lk * d * 2
        q = torch.randn(B, Hq, 1, d, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(B, Hkv, Lk, d, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(B, Hkv, Lk, d, device="cuda", dtype=torch.bfloat16)
        o = torch.empty(B, Hq, 1, d, device="cuda", dtype=torch.bfloat16)
        full = Kernel(os.path.join(a.kernels, e["kernel"] + ".json"))
        split_only = Kernel(os.path.join(a.kernels, e["kernel"] + ".json"))
        split_only.launches = split_only.launches[:1]

        def cudnn():
            with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.CUDNN_ATTENTION):
                F.scaled_dot_product_attention(q, k, v, scale=d ** -0.5, enable_gqa=True)
        row = dict(B=B, Hq=Hq, Hkv=Hkv, Lk=Lk, kernel=e["kernel"], splits=e["kv_splits"],
                   launches=len(full.launches))
        for flush, time in timers.items():
            row["full_" + flush] = time(lambda: full(q, k, v, o)) * 1e6
            row["split_" + flush] = time(lambda: split_only(q, k, v, o)) * 1e6
            row["cudnn_" + flush] = time(cudnn) * 1e6
        row["kv_mb"] = kv_bytes / 1e6
        print(json.dumps(row), flush=True)
        rows.append(row)
        del q, k, v, o
    with open(os.path.join(a.out, "floor.jsonl"), "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows)
    with open(os.path.join(a.out, "floor.md"), "w") as f:
        f.write("µs (GB/s of K+V); CUDA-graph replays\n\n| B | Lk | Hq | Hkv | splits | "
                "full dirty | full clean | split kernel dirty | split kernel clean | "
                "cuDNN dirty | cuDNN clean |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            cells = ["%.1f (%.0f)" % (r[key], r["kv_mb"] * 1e6 / r[key] / 1e3)
                     for key in ("full_dirty", "full_clean", "split_dirty", "split_clean",
                                 "cudnn_dirty", "cudnn_clean")]
            f.write("| %d | %d | %d | %d | %d | %s |\n" % (r["B"], r["Lk"], r["Hq"], r["Hkv"],
                                                          r["splits"], " | ".join(cells)))
    print(open(os.path.join(a.out, "floor.md")).read())
    return 0


if __name__ == "__main__":
    sys.exit(main())

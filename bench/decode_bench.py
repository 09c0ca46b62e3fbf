#!/usr/bin/env python3
"""The decode benchmark (issue 14) in one run on the GPU machine.

    python3 bench/decode_bench.py --kernels bench/kernels_decode --out $OUT

For each shape of <kernels>/index.json (bench/gen_decode_kernels.py; Lq = 1,
bf16, d = 128):
  1. correctness of the chooser's kernel: fresh random inputs, output
     poisoned with NaN, error against an fp32 reference (batch 0, every
     head) next to SDPA's bf16 error on the same inputs;
  2. CUDA-event medians (triton.testing.do_bench) of the chooser's kernel,
     of every kernel of its split-KV sweep, and, in the same run, of SDPA's
     CUDNN_ATTENTION and FLASH_ATTENTION backends with enable_gqa=True;
  3. the read ceiling measured in the same run (a 4 GiB bf16 sum).
Reports GB/s of K+V read (K+V bytes / median time). Writes results.jsonl
and table.md under --out.
"""
import argparse
import json
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attn_run import Kernel, sdpa_anchors, timer  # noqa: E402


# The timer main() sets: CUDA-event medians, of CUDA-graph replays with --graphs.
bench = timer(False)


def reference(q, k, v, scale):
    """Batch 0 in fp32, and SDPA bf16's relative error against it."""
    g = q.shape[1] // k.shape[1]
    kf = k[:1].float().repeat_interleave(g, dim=1)
    vf = v[:1].float().repeat_interleave(g, dim=1)
    ref = F.scaled_dot_product_attention(q[:1].float(), kf, vf, scale=scale)
    with sdpa_kernel(SDPBackend.MATH):
        same = F.scaled_dot_product_attention(q[:1], k[:1].repeat_interleave(g, dim=1),
                                              v[:1].repeat_interleave(g, dim=1), scale=scale)
    return ref, rel_err(same, ref)


def rel_err(x, ref):
    return ((x[:1].float() - ref).norm() / ref.norm()).item()


def confirm(e, kern, sweep, pick_gbps, a, tensors, gbps):
    """Medians of three timings (the first pass's and two more rounds,
    interleaved) of the pick, the sweep's a.confirm fastest and the other
    targets' picks."""
    q, k, v, o = tensors
    # The other targets' picks (gen_decode_kernels --variant pick_<target>:...) too.
    top = sorted(sweep, key=sweep.get, reverse=True)[:a.confirm]
    top += [label for label in sweep if label.startswith("pick_") and label not in top]
    kernels = {"pick": kern}
    kernels.update({label: Kernel(os.path.join(a.kernels, e["sweep"][label] + ".json"))
                    for label in top})
    times = {"pick": [pick_gbps]}
    times.update({label: [sweep[label]] for label in top})
    for _ in range(2):
        for label, kn in kernels.items():
            times[label].append(gbps(bench(lambda: kn(q, k, v, o))))
    return {label: sorted(t)[1] for label, t in times.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernels", default="bench/kernels_decode")
    ap.add_argument("--out", default=".")
    ap.add_argument("--max-gb", type=float, default=100.0,
                    help="skip shapes whose K+V exceed this (the card has ~139 GiB)")
    ap.add_argument("--graphs", action="store_true",
                    help="time CUDA-graph replays (attn-opt and the anchors alike): the "
                         "GPU's work without the host's launch cost")
    ap.add_argument("--clean-l2", action="store_true",
                    help="empty the L2 before each timed call by reading, not zeroing, 256 MB "
                         "(attn_run.timer: no dirty lines written back during the kernel)")
    ap.add_argument("--batches", default="",
                    help="only the shapes of these batch sizes (comma-separated): one "
                         "device call per part of a long sweep")
    ap.add_argument("--confirm", type=int, default=0, metavar="N",
                    help="time the pick and the sweep's N fastest again, interleaved, two "
                         "more rounds; their medians of three decide pick ÷ best (the "
                         "maximum of one noisy timing per config overrates the best)")
    a = ap.parse_args()
    global bench
    bench = timer(a.graphs, clean_l2=a.clean_l2)
    with open(os.path.join(a.kernels, "index.json")) as f:
        index = json.load(f)
    x = torch.empty(2 << 30, device="cuda", dtype=torch.bfloat16).normal_()
    read_tbps = x.numel() * 2 / bench(lambda: x.sum()) / 1e12
    del x
    print("read ceiling %.2f TB/s" % read_tbps, flush=True)
    rows = []
    out = open(os.path.join(a.out, "results.jsonl"), "w")
    if a.batches:
        index = [e for e in index if str(e["B"]) in a.batches.split(",")]
    for e in index:
        B, Hq, Hkv, Lk, d = e["B"], e["Hq"], e["Hkv"], e["Lk"], e["d"]
        kv_bytes = 2 * B * Hkv * Lk * d * 2
        row = dict(B=B, Hq=Hq, Hkv=Hkv, Lk=Lk, d=d, kernel=e["kernel"], kv_splits=e["kv_splits"])
        if kv_bytes / 1e9 > a.max_gb:
            row["skipped"] = "K+V %.0f GB exceed --max-gb" % (kv_bytes / 1e9)
            print(row, flush=True)
            out.write(json.dumps(row) + "\n")
            rows.append(row)
            continue
        torch.cuda.empty_cache()
        q = torch.randn(B, Hq, 1, d, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(B, Hkv, Lk, d, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(B, Hkv, Lk, d, device="cuda", dtype=torch.bfloat16)
        o = torch.full((B, Hq, 1, d), float("nan"), device="cuda", dtype=torch.bfloat16)
        scale = d ** -0.5
        kern = Kernel(os.path.join(a.kernels, e["kernel"] + ".json"))
        kern(q, k, v, o)
        torch.cuda.synchronize()
        row["nan"] = int(o.isnan().sum())
        ref, row["sdpa_err"] = reference(q, k, v, scale)
        row["err"] = rel_err(o, ref)
        row["correct"] = row["nan"] == 0 and row["err"] <= 2 * row["sdpa_err"] + 1e-6
        gbps = lambda t: kv_bytes / t / 1e9  # noqa: E731
        row["attn_opt"] = gbps(bench(lambda: kern(q, k, v, o)))
        sweep, wrong = {}, []
        for label, name in e["sweep"].items():
            other = kern if name == e["kernel"] else Kernel(os.path.join(a.kernels, name + ".json"))
            o.fill_(float("nan"))
            other(q, k, v, o)
            if o.isnan().any() or rel_err(o, ref) > 2 * row["sdpa_err"] + 1e-6:
                wrong.append(label)
            sweep[label] = gbps(bench(lambda: other(q, k, v, o)))
        row["sweep"] = sweep
        row["sweep_wrong"] = wrong
        if a.confirm and sweep:
            row["confirmed"] = confirm(e, kern, sweep, row["attn_opt"], a, (q, k, v, o), gbps)
        row["correct"] = row["correct"] and not wrong
        row.update(sdpa_anchors(q, k, v, scale, lambda fn: gbps(bench(fn))))
        del q, k, v, o
        print(json.dumps(row), flush=True)
        out.write(json.dumps(row) + "\n")
        out.flush()  # a run stopped at its time limit keeps what it measured
        rows.append(row)
    out.close()
    with open(os.path.join(a.out, "table.md"), "w") as f:
        f.write("read ceiling %.2f TB/s; GB/s of K+V read\n\n" % read_tbps)
        f.write("| B | Lk | Hq | Hkv | splits | attn-opt | best of sweep | cuDNN | flash | "
                "÷ cuDNN | correct |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            if "skipped" in r:
                f.write("| %d | %d | %d | %d | – | skipped: %s |||||\n"
                        % (r["B"], r["Lk"], r["Hq"], r["Hkv"], r["skipped"]))
                continue
            best = max(r["sweep"].items(), key=lambda kv: kv[1]) if r["sweep"] else ("–", 0)
            cud = r.get("cudnn")
            f.write("| %d | %d | %d | %d | %d | %.0f | %.0f (%s) | %s | %s | %s | %s |\n" % (
                r["B"], r["Lk"], r["Hq"], r["Hkv"], r["kv_splits"], r["attn_opt"], best[1], best[0],
                "%.0f" % cud if cud else "–", "%.0f" % r["flash"] if r.get("flash") else "–",
                "%.2f" % (r["attn_opt"] / cud) if cud else "–", r["correct"]))
    print(open(os.path.join(a.out, "table.md")).read())
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Head dims on the GPU machine (issue 15 item 1): the kernels that
bench/gen_headdim_kernels.py compiled.

    python3 bench/headdim_bench.py --kernels DIR --out $OUT

Every kernel (DIR/check and DIR/speed): fresh random inputs, output poisoned
with NaN, error against an fp32 reference beside PyTorch's same-precision
SDPA (math backend) on the same inputs; the bar is at most 2x that error
and no NaN. DIR/speed kernels are then timed (CUDA-event medians,
triton.testing.do_bench) beside SDPA cuDNN, SDPA flash (FA2) and
FlexAttention (torch.compile, the same causal mask), in the same run.
TFLOP/s count 2·B·H·Lq·Lk·(d + dv) FLOPs, halved when causal.
Writes results.jsonl and table.md under --out.
"""
import argparse
import json
import os
import sys

import torch
import torch.nn.functional as F
import triton
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attn_run import Kernel, rel_err  # noqa: E402
from check_kernels import combined_mask, keep_mask, sdpa  # noqa: E402


def bench(fn):
    return triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median") * 1e-3


def check(kern):
    m = kern.manifest
    q, k, v, o = kern.inputs()
    kern(q, k, v, o)
    torch.cuda.synchronize()
    causal_keep = keep_mask(q.shape[2], k.shape[2], m["causal"], q.device)
    mask32 = combined_mask(causal_keep, None, torch.float32)
    nan = int(o.isnan().sum())
    # Large grids: the references on batch 0's first K/V head group only
    # (the math backend materializes fp32 scores).
    group = q.shape[1] // k.shape[1]
    if q.shape[0] * q.shape[1] * q.shape[2] * k.shape[2] > 2 ** 30:
        q, k, v, o = q[:1, :group], k[:1, :1], v[:1, :1], o[:1, :group]
    ref = sdpa(q.float(), k.float(), v.float(), mask32, m["scale"])
    same = sdpa(q, k, v, mask32, m["scale"])
    err, base = rel_err(o, ref), rel_err(same, ref)
    return dict(err=err, sdpa_err=base, nan=nan, ok=nan == 0 and err <= 2 * base + 1e-6)


def anchors(q, k, v, causal, scale, flex):
    """Seconds of SDPA cuDNN, SDPA flash and (when `flex`) FlexAttention on
    the same inputs; an anchor that refuses the shape gives its error."""
    out = {}
    for label, be in (("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION)):
        try:
            with sdpa_kernel(be):
                fn = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale)
                fn()
                out[label] = bench(fn)
        except (RuntimeError, torch.OutOfMemoryError) as err:
            out[label] = None
            out[label + "_error"] = str(err).splitlines()[0][:120]
    if flex is None:
        return out
    try:
        from torch.nn.attention.flex_attention import create_block_mask
        bm = None
        if causal:
            bm = create_block_mask(lambda b, h, i, j: j <= i, None, None, q.shape[2], k.shape[2])
        flex(q, k, v, block_mask=bm, scale=scale)
        out["flex"] = bench(lambda: flex(q, k, v, block_mask=bm, scale=scale))
    except Exception as err:  # noqa: BLE001 - an anchor that refuses a shape is reported
        out["flex"] = None
        out["flex_error"] = str(err).splitlines()[0][:120]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernels", required=True)
    ap.add_argument("--out", default=".")
    ap.add_argument("--flex-dims", default="128,192,256",
                    help="head dims timed beside FlexAttention (one compile per shape)")
    a = ap.parse_args()
    flex_dims = {int(x) for x in a.flex_dims.split(",") if x}
    os.makedirs(a.out, exist_ok=True)
    from torch.nn.attention.flex_attention import flex_attention
    # One static compile per shape: past dynamo's default of 8 recompiles it
    # would fall back to eager (unfused) FlexAttention, which v16 timed by
    # mistake at N = 4k.
    torch._dynamo.config.cache_size_limit = 256
    if hasattr(torch._dynamo.config, "recompile_limit"):
        torch._dynamo.config.recompile_limit = 256
    flex = torch.compile(flex_attention, dynamic=False)
    rows, ok = [], True
    for part in ("check", "speed"):
        kdir = os.path.join(a.kernels, part)
        if not os.path.isdir(kdir):  # a --speed-only set
            continue
        for name in sorted(f for f in os.listdir(kdir) if f.endswith(".json")):
            kern = Kernel(os.path.join(kdir, name))
            m = kern.manifest
            res = check(kern)
            q, k, v, o = kern.inputs()
            ok &= res["ok"]
            row = dict(part=part, kernel=m["kernel"], d=q.shape[3], dv=v.shape[3],
                       causal=m["causal"], dtype=m["dtype"], shape=list(q.shape),
                       lk=k.shape[2], **res)
            if part == "speed":
                causal = m["causal"] != "none"
                B, H, N, d = q.shape
                flops = 2 * B * H * N * k.shape[2] * (d + v.shape[3]) / (2 if causal else 1)
                times = dict(attn_opt=bench(lambda: kern(q, k, v, o)))
                times.update(anchors(q, k, v, causal, m["scale"], flex if d in flex_dims else None))
                row["tflops"] = {key: flops / t / 1e12 for key, t in times.items()
                                 if isinstance(t, float)}
                row["errors"] = {key: t for key, t in times.items() if isinstance(t, str)}
            rows.append(row)
            print(json.dumps(row), flush=True)
            del q, k, v, o
            torch.cuda.empty_cache()
    with open(os.path.join(a.out, "results.jsonl"), "w") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    with open(os.path.join(a.out, "table.md"), "w") as f:
        f.write("| kernel | err (sdpa) | ok |\n|---|---|---|\n")
        for r in rows:
            f.write("| %s | %.1e (%.1e) | %s |\n" % (r["kernel"], r["err"], r["sdpa_err"], r["ok"]))
        f.write("\n| d/dv | N | causal | attn-opt | cuDNN | flash | flex | ÷ cuDNN | ÷ flex |\n"
                "|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            if r["part"] != "speed":
                continue
            t = r["tflops"]
            fmt = lambda x: "%.0f" % x if x else "-"
            ratio = lambda key: "%.2f" % (t["attn_opt"] / t[key]) if t.get(key) else "-"
            f.write("| %d/%d | %d | %s | %s | %s | %s | %s | %s | %s |\n" % (
                r["d"], r["dv"], r["shape"][2], r["causal"], fmt(t["attn_opt"]),
                fmt(t.get("cudnn")), fmt(t.get("flash")), fmt(t.get("flex")),
                ratio("cudnn"), ratio("flex")))
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

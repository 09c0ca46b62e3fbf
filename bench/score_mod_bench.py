#!/usr/bin/env python3
"""score_mod kernels on the GPU machine (issue 15): for each kernel of
<kernels>/index.json (bench/gen_score_mod.py), fresh random inputs, the
result checked against an fp32 reference that applies the same score
modification in PyTorch, then CUDA-event medians (triton do_bench) of our
kernel, FlexAttention (torch.compile'd, the same score_mod, causal and window
as block masks) and cuDNN SDPA without the modification, in the same run.
TFLOP/s count the causal work (4·B·H·N²·d / 2) for every kernel.
"""
import argparse
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attn_run import Kernel, bench, rel_err  # noqa: E402


def slopes(H, device):
    return torch.exp2(-8.0 * (torch.arange(H, device=device, dtype=torch.float32) + 1) / H)


def relbias_table(H, N, device):
    """The relative-position bias [H, 2N − 1] (f32) of gen_score_mod.py's
    `relbias`: score + table[h, j − i + N − 1]."""
    gen = torch.Generator(device=device).manual_seed(3)
    return torch.randn(H, 2 * N - 1, device=device, generator=gen)


def reference(q, k, v, mod, scale, window, heads=4):
    """fp32 on batch 0 and the first `heads` heads, the modification as
    gen_score_mod.py's region writes it."""
    qf, kf, vf = (x[:1, :heads].float() for x in (q, k, v))
    s = qf @ kf.transpose(-1, -2) * scale
    N = s.shape[-1]
    i = torch.arange(N, device=s.device)[:, None]
    j = torch.arange(N, device=s.device)[None, :]
    if mod == "softcap":
        s = 50.0 * torch.tanh(s / 50.0)
    elif mod == "alibi":
        H = q.shape[1]
        s = s + slopes(H, s.device)[:heads, None, None] * (j - i).float()
    elif mod == "window":
        s = s.masked_fill(~(j + window > i), float("-inf"))
    elif mod == "relbias":
        s = s + relbias_table(q.shape[1], N, s.device)[:heads, j - i + N - 1]
    s = s.masked_fill(j > i, float("-inf"))
    return torch.softmax(s, dim=-1) @ vf


def flex(mod, B, H, N, window, device):
    """FlexAttention with the same modification, compiled; None if absent."""
    try:
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    except ImportError:
        return None
    sl = slopes(H, device)

    def causal(b, h, qi, ki):
        return qi >= ki

    def windowed(b, h, qi, ki):
        return (qi >= ki) & (qi - ki < window)

    table = relbias_table(H, N, device)
    score_mod = {"softcap": lambda s, b, h, qi, ki: 50.0 * torch.tanh(s / 50.0),
                 "alibi": lambda s, b, h, qi, ki: s + sl[h] * (ki - qi),
                 "relbias": lambda s, b, h, qi, ki: s + table[h, ki - qi + N - 1]}.get(mod)
    mask = create_block_mask(windowed if mod == "window" else causal, None, None, N, N,
                             device=device)
    # A fresh compile per (shape, modification): every call recompiles
    # anyway, and past dynamo's recompile limit (8) flex_attention falls
    # back to its unfused eager path (v21–v22's 8 TFLOP/s at N = 16k).
    torch._dynamo.reset()
    fn = torch.compile(flex_attention)
    return lambda q, k, v, scale: fn(q, k, v, score_mod=score_mod, block_mask=mask, scale=scale)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernels", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    index = json.load(open(os.path.join(a.kernels, "index.json")))
    results = open(os.path.join(a.out, "results.jsonl"), "w")
    rows = []
    for entry in index:
        mod, (B, H, N, d), window = entry["mod"], entry["shape"], entry["window"]
        flops = 4.0 * B * H * N * N * d / 2
        kern = Kernel(os.path.join(a.kernels, entry["kernel"] + ".json"))
        scale = kern.manifest["scale"]
        gen = torch.Generator(device="cuda").manual_seed(2)
        q, k, v, o = kern.inputs(gen)
        operands = (relbias_table(H, N, q.device),) if mod == "relbias" else ()
        kern(q, k, v, o, score_mod_operands=operands)
        torch.cuda.synchronize()
        ref = reference(q, k, v, mod, scale, window)
        err = rel_err(o[:1, :4].float(), ref)
        nan = bool(torch.isnan(o).any())
        row = {"mod": mod, "shape": [B, H, N, d], "kernel": entry["kernel"], "err": err,
               "nan": nan, "ours": flops / bench(lambda: kern(q, k, v, o, score_mod_operands=operands)) / 1e12}
        f = flex(mod, B, H, N, window, q.device)
        try:
            if f:
                fo = f(q, k, v, scale)
                row["flex_err"] = rel_err(fo[:1, :4].float(), ref)
                row["flex"] = flops / bench(lambda: f(q, k, v, scale)) / 1e12
        except Exception as err:  # Inductor may find no config that fits
            row["flex_error"] = str(err).strip().splitlines()[-1][:160]
        from torch.nn.attention import SDPBackend, sdpa_kernel
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            fn = lambda: torch.nn.functional.scaled_dot_product_attention(  # noqa: E731
                q, k, v, is_causal=True, scale=scale)
            try:  # cuDNN takes head dims that are multiples of 8
                fn()
                row["cudnn_plain"] = flops / bench(fn) / 1e12
            except RuntimeError:
                row["cudnn_plain"] = None
        rows.append(row)
        results.write(json.dumps(row) + "\n")
        results.flush()
        print(json.dumps(row), flush=True)
    lines = ["| mod | B,H,N,d | err | ours TFLOP/s | Flex | ours÷Flex | cuDNN (no mod) |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        fl = r.get("flex")
        lines.append("| %s | %s | %.1e%s | %.0f | %s | %s | %.0f |" % (
            r["mod"], ",".join(map(str, r["shape"])), r["err"], " NaN!" if r["nan"] else "",
            r["ours"], "%.0f" % fl if fl else "–", "%.2f" % (r["ours"] / fl) if fl else "–",
            r["cudnn_plain"] or float("nan")))
    open(os.path.join(a.out, "table.md"), "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The whole benchmark in one run on the GPU machine.

    python3 bench/run_bench.py --kernels bench/kernels --out $OUT

For each shape of bench/kernels/index.json (B·N = 16384, H·d = 2048,
N = 1k..16k, d = 64/128, causal or not, bf16 and f16):
  1. correctness: fresh random inputs, output poisoned with NaN, error
     against an fp32 reference next to SDPA flash's own error on the same
     inputs (the bar: attn-opt <= 2x flash);
  2. timing with CUDA events (triton.testing.do_bench, median; --rounds
     rounds in rotated order after a warm-up round, each contender keeping
     its median) of attn-opt
     and, in the same run, SDPA FLASH_ATTENTION (FA2), SDPA CUDNN_ATTENTION,
     FlexAttention (bf16, every N by default; one static compile per shape) and the unfused
     matmul-softmax-matmul (N <= 8k);
  3. ceilings measured in the same run: 8192^3 bf16 matmul, 2 GiB copy.
Writes results.jsonl and table.md under --out.
"""
import argparse
import json
import os
import sys
import time

import torch
import torch.nn.functional as F
import triton
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attn_run import Kernel, interleaved, reference, rel_err, sdpa_call  # noqa: E402


def bench(fn):
    return triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median") * 1e-3


def ceilings():
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    t = bench(lambda: a @ b)
    x = torch.empty(2 << 30, device="cuda", dtype=torch.uint8)
    y = torch.empty_like(x)
    tc = bench(lambda: y.copy_(x))
    return dict(matmul_tflops=2 * 8192 ** 3 / t / 1e12, copy_tbps=2 * x.numel() / tc / 1e12)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernels", default="bench/kernels")
    ap.add_argument("--out", default=".")
    ap.add_argument("--flex", default="1024,2048,4096,8192,16384",
                    help="N values that also run FlexAttention (bf16)")
    ap.add_argument("--dtypes", default="bf16,f16")
    ap.add_argument("--variants", default="",
                    help="NAME=DIR,...: other kernel builds of the same grid (gen_kernels.py "
                         "with other tile options), each checked and timed beside the main one")
    ap.add_argument("--rounds", type=int, default=3,
                    help="timing rounds after a warm-up one, order rotated; each contender keeps its median")
    a = ap.parse_args()
    variants = {}
    for spec in filter(None, a.variants.split(",")):
        name, vdir = spec.split("=", 1)
        vindex = json.load(open(os.path.join(vdir, "index.json")))
        variants[name] = {(c["dtype"], c["d"], c["N"], c["causal"]): os.path.join(vdir, c["kernel"] + ".json")
                          for c in vindex}
    torch._dynamo.config.cache_size_limit = 256
    torch._dynamo.config.recompile_limit = 256
    from torch.nn.attention.flex_attention import flex_attention, create_block_mask
    # dynamic=False: every shape gets its own static compile. By default the
    # second shape makes torch.compile switch to a dynamic-shape kernel,
    # which measured 35-45% slower (bench/NOTES.md, v12).
    flex = torch.compile(flex_attention, dynamic=False)
    flex_ns = {int(x) for x in a.flex.split(",") if x}

    index = json.load(open(os.path.join(a.kernels, "index.json")))
    ceil = ceilings()
    print("ceilings: bf16 matmul %.0f TFLOP/s, copy %.2f TB/s" % (ceil["matmul_tflops"], ceil["copy_tbps"]), flush=True)
    rows = []
    out = open(os.path.join(a.out, "results.jsonl"), "w")
    gen = torch.Generator(device="cuda")
    for cfg in index:
        if cfg["dtype"] not in a.dtypes.split(","):
            continue
        kern = Kernel(os.path.join(a.kernels, cfg["kernel"] + ".json"))
        B, H, N, d, causal = cfg["B"], cfg["H"], cfg["N"], cfg["d"], cfg["causal"]
        flops = 4 * B * H * N * N * d / (2 if causal else 1)
        gen.manual_seed(int(time.time() * 1000) % (1 << 31))  # fresh inputs each run
        q, k, v, o = kern.inputs(gen)
        kern(q, k, v, o)
        torch.cuda.synchronize()
        ref = reference(q, k, v, causal, kern.manifest["scale"], heads=2)
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            fa2_out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        row = dict(cfg, flops=flops,
                   err=rel_err(o[:1, :2], ref), err_flash=rel_err(fa2_out[:1, :2], ref),
                   unwritten=int(o.isnan().sum()))
        row["correct"] = row["unwritten"] == 0 and row["err"] <= 2 * row["err_flash"] + 1e-6

        calls = {"attn_opt": lambda: kern(q, k, v, o)}
        row["variants"] = {}
        for name, table in variants.items():
            path = table.get((cfg["dtype"], d, N, causal))
            if not path:
                continue
            vk = Kernel(path)
            vo = torch.full_like(o, float("nan"))
            vk(q, k, v, vo)
            torch.cuda.synchronize()
            verr = rel_err(vo[:1, :2], ref)
            vok = int(vo.isnan().sum()) == 0 and verr <= 2 * row["err_flash"] + 1e-6
            calls["attn_opt@" + name] = lambda vk=vk, vo=vo: vk(q, k, v, vo)
            row["variants"][name] = dict(kernel=os.path.basename(path), err=verr, correct=vok)
        calls["sdpa_flash"] = sdpa_call(SDPBackend.FLASH_ATTENTION, q, k, v, causal)
        cudnn = sdpa_call(SDPBackend.CUDNN_ATTENTION, q, k, v, causal)
        if cudnn:
            calls["sdpa_cudnn"] = cudnn
        if N in flex_ns and cfg["dtype"] == "bf16":
            mask = create_block_mask(lambda b, h, qi, ki: qi >= ki, None, None, N, N) if causal else None
            flex(q, k, v, block_mask=mask)
            calls["flex"] = lambda mask=mask: flex(q, k, v, block_mask=mask)
        # Every contender timed in a.rounds rounds after a warm-up round, the
        # order rotated, each keeping its median: the card clocks down after
        # its first ~0.1 s of work (NOTES v29, v32), which would otherwise
        # favour what runs first.
        times = interleaved(calls, a.rounds, bench)
        times.setdefault("sdpa_cudnn", None)
        if N <= 8192 and not causal:
            scale = d ** -0.5
            times["unfused"] = bench(lambda: torch.softmax((q @ k.transpose(-1, -2)) * scale, -1) @ v)
        row["tflops"] = {name: (flops / t / 1e12 if t else None) for name, t in times.items()}
        row["ceilings"] = ceil
        rows.append(row)
        out.write(json.dumps(row) + "\n")
        out.flush()
        tf = row["tflops"]
        print("%-4s d=%-3d N=%-5d causal=%d  err %.1e (flash %.1e) %s | attn-opt %5.0f | flash %5.0f | cudnn %5s | flex %5s | unfused %5s TFLOP/s" % (
            cfg["dtype"], d, N, causal, row["err"], row["err_flash"], "ok" if row["correct"] else "WRONG",
            tf["attn_opt"], tf["sdpa_flash"], "%.0f" % tf["sdpa_cudnn"] if tf.get("sdpa_cudnn") else "-",
            "%.0f" % tf["flex"] if tf.get("flex") else "-",
            "%.0f" % tf["unfused"] if tf.get("unfused") else "-"), flush=True)
        for name, info in row["variants"].items():
            print("      variant %-10s err %.1e %s | %5.0f TFLOP/s (%.2fx flash)" % (
                name, info["err"], "ok" if info["correct"] else "WRONG",
                tf["attn_opt@" + name], tf["attn_opt@" + name] / tf["sdpa_flash"]), flush=True)
    with open(os.path.join(a.out, "table.md"), "w") as f:
        f.write("ceilings (same run): bf16 8192^3 matmul %.0f TFLOP/s; 2 GiB copy %.2f TB/s\n\n"
                % (ceil["matmul_tflops"], ceil["copy_tbps"]))
        f.write("| dtype | d | N | causal | correct | err / flash err | attn-opt | SDPA flash | cuDNN | Flex | unfused | vs flash | vs cuDNN |\n")
        f.write("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            tf = r["tflops"]
            fmt = lambda x: "%.0f" % x if x else "–"
            f.write("| %s | %d | %d | %s | %s | %.1e / %.1e | %s | %s | %s | %s | %s | %.2f | %s |\n" % (
                r["dtype"], r["d"], r["N"], "yes" if r["causal"] else "no", "yes" if r["correct"] else "NO",
                r["err"], r["err_flash"], fmt(tf["attn_opt"]), fmt(tf["sdpa_flash"]), fmt(tf.get("sdpa_cudnn")),
                fmt(tf.get("flex")), fmt(tf.get("unfused")), tf["attn_opt"] / tf["sdpa_flash"],
                "%.2f" % (tf["attn_opt"] / tf["sdpa_cudnn"]) if tf.get("sdpa_cudnn") else "–"))
    print(open(os.path.join(a.out, "table.md")).read())


if __name__ == "__main__":
    main()

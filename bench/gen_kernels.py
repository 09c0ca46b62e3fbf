#!/usr/bin/env python3
"""Compiles the benchmark grid with attn-opt (here, no GPU needed) into
PTX + launch manifests under bench/kernels/, and records compile times.

    python3 bench/gen_kernels.py [--attn-opt build/bin/attn-opt]

Grid (FlashAttention's benchmark): B·N = 16384 tokens, H·d = 2048,
N ∈ {1k, 2k, 4k, 8k, 16k}, d ∈ {64, 128}, causal or not, bf16 and f16.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def attention_ir(B, H, N, d, dtype, causal):
    t = "tensor<%dx%dx%dx%dx%s>" % (B, H, N, d, dtype)
    c = " causal(top_left)" if causal else ""
    return ("func.func @attention(%%q: %s, %%k: %s, %%v: %s) -> %s {\n"
            "  %%o = attn.attention %%q, %%k, %%v scale(%r)%s : %s, %s, %s -> %s\n"
            "  return %%o : %s\n}\n" % (t, t, t, t, d ** -0.5, c, t, t, t, t, t))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attn-opt", default=os.path.join(HERE, "..", "build", "bin", "attn-opt"))
    ap.add_argument("--out", default=os.path.join(HERE, "kernels"))
    ap.add_argument("--block-q", type=int, default=0, help="0: attn-opt's choice")
    ap.add_argument("--rows-per-warp", type=int, default=0, help="0: attn-opt's choice")
    ap.add_argument("--block-kv", type=int, default=0, help="0: attn-opt's choice")
    ap.add_argument("--head-dims", default="64,128")
    ap.add_argument("--swizzle", action="store_true")
    ap.add_argument("--kv-stages", type=int, default=0, help="0: attn-opt's choice")
    ap.add_argument("--dtypes", default="bf16,f16")
    ap.add_argument("--mma", default="auto", choices=["auto", "mma.sync", "wgmma"],
                    help="tensor-core family (wgmma compiles for sm_90a)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    index = []
    for dtype in a.dtypes.split(","):
        for d in (int(x) for x in a.head_dims.split(",")):
            for n in (1024, 2048, 4096, 8192, 16384):
                for causal in (False, True):
                    B, H = 16384 // n, 2048 // d
                    src = os.path.join(a.out, "src.mlir")
                    with open(src, "w") as f:
                        f.write(attention_ir(B, H, n, d, dtype, causal))
                    before = set(os.listdir(a.out))
                    t0 = time.perf_counter()
                    r = subprocess.run([a.attn_opt, src, "--attn-gpu-pipeline=mma=%s block-q=%d rows-per-warp=%d block-kv=%d swizzle=%d kv-stages=%d dump-dir=%s"
                                        % (a.mma, a.block_q, a.rows_per_warp, a.block_kv, a.swizzle, a.kv_stages, a.out),
                                        "-o", os.devnull], capture_output=True, text=True)
                    dt = time.perf_counter() - t0
                    if r.returncode:
                        print(r.stderr)
                        return 1
                    new = sorted(x for x in set(os.listdir(a.out)) - before if x.endswith(".json"))
                    name = new[0][:-5] if new else None
                    index.append(dict(dtype=dtype, B=B, H=H, N=n, d=d, causal=causal,
                                      kernel=name, compile_s=round(dt, 3)))
                    print("%-5s d=%-3d N=%-5d causal=%d  %s  %.2fs" % (dtype, d, n, causal, name, dt))
    os.remove(os.path.join(a.out, "src.mlir"))
    with open(os.path.join(a.out, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

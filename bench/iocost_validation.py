#!/usr/bin/env python3
"""Validates the --attn-io-cost model against the H200's hardware counters.

Runs on the GPU machine (PyTorch, CuPy, Nsight Compute; no attn-opt there):

    ncu --clock-control none --csv --page raw \
        --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,gpu__time_duration.sum \
        python3 bench/iocost_validation.py run > ncu.csv
    python3 bench/iocost_validation.py parse ncu.csv > measured.json

`run` launches, for each shape of the grid, PyTorch's FlashAttention-2
kernel (SDPA FLASH backend: the fused path) and, for some shapes, the
unfused matmul-softmax-matmul; a marker kernel separates the workloads so
that `parse` can attribute ncu's per-kernel rows. ncu flushes the caches
before each kernel, so DRAM bytes are those of a cold L2.

`compare measured.json predicted.json` prints the table for bench/NOTES.md;
predicted.json comes from attn-opt on this grid (bench/iocost_predict.py).
"""
import csv
import json
import sys

TOKENS, WIDTH = 16384, 2048  # B·N and H·d of the FlashAttention benchmark grid


def grid():
    for d in (64, 128):
        for n in (1024, 2048, 4096, 8192, 16384):
            for causal in (False, True):
                yield dict(B=TOKENS // n, H=WIDTH // d, N=n, d=d, causal=causal,
                           unfused=(not causal and n <= 4096))


def name(cfg, path):
    return "%s d=%d N=%d causal=%d" % (path, cfg["d"], cfg["N"], cfg["causal"])


def run():
    import cupy as cp
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    marker = cp.RawKernel(r'extern "C" __global__ void attnopt_marker(int i) {}',
                          "attnopt_marker")

    def mark():
        # A marker before and after each measured workload: the kernels
        # between an even marker and the next one are that workload's.
        torch.cuda.synchronize()
        marker((1,), (1,), (cp.int32(0),))
        cp.cuda.Device().synchronize()

    labels = []
    torch.manual_seed(0)
    for cfg in grid():
        B, H, N, d = cfg["B"], cfg["H"], cfg["N"], cfg["d"]
        q, k, v = (torch.randn(B, H, N, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            F.scaled_dot_product_attention(q, k, v, is_causal=cfg["causal"])  # warm-up
            mark(); labels.append(name(cfg, "fa2"))
            F.scaled_dot_product_attention(q, k, v, is_causal=cfg["causal"])
            mark()
        if cfg["unfused"]:
            qs = q * (d ** -0.5)
            torch.softmax(qs @ k.transpose(-1, -2), dim=-1) @ v  # warm-up
            mark(); labels.append(name(cfg, "unfused"))
            torch.softmax(qs @ k.transpose(-1, -2), dim=-1) @ v
            mark()
        del q, k, v
    torch.cuda.synchronize()
    with open("labels.json", "w") as f:
        json.dump(labels, f)


def parse(path, extra=None):
    """ncu CSV -> per-workload sums. `extra`: {key: metric} summed as well."""
    extra = extra or {}
    labels = json.load(open("labels.json"))
    rows = [r for r in csv.reader(l for l in open(path) if l.startswith('"'))]
    header, units, data = rows[0], rows[1], rows[2:]
    col = {h: i for i, h in enumerate(header)}
    segments, markers = {}, 0
    for r in data:
        kernel = r[col["Kernel Name"]]
        if "attnopt_marker" in kernel:
            markers += 1
            continue
        if markers % 2 == 0:
            continue  # between workloads: input generation, warm-ups
        current = markers // 2
        segments.setdefault(current, [])

        def val(metric):
            x = float(r[col[metric]].replace(",", ""))
            unit = units[col[metric]]
            scale = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1e3,
                     "MB": 1e6, "GB": 1e9, "sector": 32, "ns": 1e-9, "us": 1e-6,
                     "ms": 1e-3, "nsecond": 1e-9, "usecond": 1e-6, "msecond": 1e-3,
                     "": 1}
            return x * scale.get(unit, 1)
        segments[current].append(dict(
            kernel=kernel[:60],
            dram_read=val("dram__bytes_read.sum"), dram_write=val("dram__bytes_write.sum"),
            l2_to_sm=val("lts__t_sectors_srcunit_tex_op_read.sum"),
            time_s=val("gpu__time_duration.sum"),
            **{key: val(metric) for key, metric in extra.items()}))
    out = {}
    for i, label in enumerate(labels):
        ks = segments.get(i, [])
        out[label] = dict(kernels=[k["kernel"] for k in ks],
                          dram_read=sum(k["dram_read"] for k in ks),
                          dram_write=sum(k["dram_write"] for k in ks),
                          l2_to_sm=sum(k["l2_to_sm"] for k in ks),
                          time_s=sum(k["time_s"] for k in ks),
                          **{key: sum(k[key] for k in ks) for key in extra})
    json.dump(out, sys.stdout, indent=1)


def compare(measured_path, predicted_path):
    m, p = json.load(open(measured_path)), json.load(open(predicted_path))
    print("| path | d | N | causal | DRAM meas (MB) | DRAM pred (MB) | err | L2→SM meas (MB) | L2→SM pred (MB) | err | bound pred | time (us) | TFLOP/s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for label, meas in m.items():
        pred = p.get(label)
        if not pred:
            continue
        path, rest = label.split(" ", 1)
        kv = dict(x.split("=") for x in rest.split())
        dm = meas["dram_read"] + meas["dram_write"]
        dp = pred["dram_bytes"]
        lm, lp = meas["l2_to_sm"], pred.get("l2_bytes")
        tf = pred["flops"] / meas["time_s"] / 1e12 if meas["time_s"] else 0
        print("| %s | %s | %s | %s | %.1f | %.1f | %+.0f%% | %.1f | %s | %s | %s | %.0f | %.0f |" % (
            path, kv["d"], kv["N"], kv["causal"], dm / 1e6, dp / 1e6, 100 * (dm - dp) / dp,
            lm / 1e6, "%.1f" % (lp / 1e6) if lp else "-",
            "%+.0f%%" % (100 * (lm - lp) / lp) if lp else "-", pred["bound"],
            meas["time_s"] * 1e6, tf))


if __name__ == "__main__":
    {"run": lambda: run(), "parse": lambda: parse(sys.argv[2]),
     "compare": lambda: compare(sys.argv[2], sys.argv[3])}[sys.argv[1]]()

#!/usr/bin/env python3
"""An independent check of --attn-io-cost, on shapes the model's L2 rule was
not fitted to, and on attn-opt's own kernels.

Workloads (bf16):
  * FlashAttention-2 (SDPA FLASH backend) on new shapes: long sequences where
    the rule predicts K/V fits L2 (N=32k) and where it predicts streaming
    from DRAM (N=64k), GQA (8 K/V heads for 32 query heads) and MQA through
    enable_gqa;
  * attn-opt's v6 kernels (bench/kernels_check, compiled here by
    `gen` below), costed with their own tiles.

Here (needs attn-opt and the attnopt module):
    python3 bench/iocost_check.py gen                    # kernels + predictions
There (ncu, PyTorch, CuPy):
    ncu --clock-control none --csv --page raw --metrics <METRICS> \
        python3 bench/iocost_check.py run > ncu.csv
    python3 bench/iocost_check.py parse ncu.csv > measured.json
    python3 bench/iocost_check.py compare measured.json bench/kernels_check/predicted.json
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KDIR = os.path.join(HERE, "kernels_check")
METRICS = ("dram__bytes_read.sum,dram__bytes_write.sum,"
           "lts__t_sectors_srcunit_tex_op_read.sum,l1tex__m_xbar2l1tex_read_bytes.sum,"
           "gpu__time_duration.sum")

# (label, path, B, Hq, Hkv, N, d, causal)
FA2 = [("fa2 long-fit", 1, 16, 16, 32768, 128, False),
       ("fa2 long-stream", 1, 8, 8, 65536, 128, False),
       ("fa2 gqa", 2, 32, 8, 8192, 128, False),
       ("fa2 mqa", 1, 16, 1, 16384, 64, True)]
# Shapes for checking the revised rule (K/V re-read once per wave of CTAs
# when the heads in flight hold more than 1/4 of L2), predicted before
# they were measured: `gen` writes predicted.json, `run new` runs them.
FA2_NEW = [("fa2 d64 N=64k", 1, 16, 16, 65536, 64, False),
           ("fa2 d64 N=32k B=2", 2, 16, 16, 32768, 64, False),
           ("fa2 d128 N=24k H=32", 1, 32, 32, 24576, 128, False),
           ("fa2 gqa 32:4 N=32k", 1, 32, 4, 32768, 128, False),
           ("fa2 d128 N=32k causal", 1, 16, 16, 32768, 128, True),
           ("fa2 d64 N=8k B=4", 4, 32, 32, 8192, 64, False)]
OURS = [("ours d64", 4, 32, 32, 4096, 64, False),
        ("ours d64 causal", 1, 32, 32, 16384, 64, True),
        ("ours d128", 4, 16, 16, 4096, 128, False),
        ("ours d128 causal", 1, 16, 16, 16384, 128, True),
        ("ours gqa", 2, 32, 8, 8192, 128, False)]
FA2_TILES = {64: (128, 128), 128: (128, 64)}


def gen(attn_opt):
    sys.path.insert(0, os.path.join(HERE, "..", "build", "python"))
    import attnopt
    # A fresh directory: each compile's new .json names its kernel.
    if os.path.isdir(KDIR):
        for f in os.listdir(KDIR):
            os.remove(os.path.join(KDIR, f))
    os.makedirs(KDIR, exist_ok=True)
    pred, kernels = {}, {}
    for label, B, H, Hkv, N, d, causal in FA2 + FA2_NEW + OURS:
        if label.startswith("ours"):
            src = os.path.join(KDIR, "src.mlir")
            with open(src, "w") as f:
                f.write(attnopt.graph.attention(B, H, N, d, hkv=Hkv, causal=causal))
            before = set(os.listdir(KDIR))
            subprocess.run([attn_opt, src, "--attn-gpu-pipeline=dump-dir=" + KDIR, "-o", os.devnull],
                           check=True)
            new = [x for x in set(os.listdir(KDIR)) - before if x.endswith(".json")]
            name = new[0]
            man = json.load(open(os.path.join(KDIR, name)))
            kernels[label] = name
            bq, bkv = man["block_q"], man["block_kv"]
        else:
            bq, bkv = FA2_TILES[d]
        c = attnopt.io_cost(B=B, H=H, Lq=N, Lk=N, d=d, hkv=Hkv, dtype="bf16", causal=causal,
                            target="h200", block_q=bq, block_kv=bkv)
        pred[label] = dict(dram_bytes=c["fused_dram_bytes"], l2_bytes=c["fused_sram_l2_bytes"],
                           flops=c["flops"], bound=c["bound_fused"], regime=c["dram_regime"],
                           kv_working_set=c.get("kv_working_set_bytes"), tiles=[bq, bkv],
                           kernel=kernels.get(label))
    os.remove(os.path.join(KDIR, "src.mlir"))
    json.dump(pred, open(os.path.join(KDIR, "predicted.json"), "w"), indent=1)
    for k, v in pred.items():
        print("%-18s tiles %s regime %-22s DRAM %.0f MB  L2->SM %.0f MB" % (
            k, v["tiles"], v["regime"], v["dram_bytes"] / 1e6, v["l2_bytes"] / 1e6))


def run():
    import cupy as cp
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    sys.path.insert(0, HERE)
    from attn_run import Kernel

    marker = cp.RawKernel(r'extern "C" __global__ void attnopt_marker(int i) {}', "attnopt_marker")

    def mark():
        torch.cuda.synchronize()
        marker((1,), (1,), (cp.int32(0),))
        cp.cuda.Device().synchronize()

    pred = json.load(open(os.path.join(KDIR, "predicted.json")))
    labels = []
    torch.manual_seed(0)
    workloads = FA2_NEW if len(sys.argv) > 2 and sys.argv[2] == "new" else FA2 + OURS
    for label, B, H, Hkv, N, d, causal in workloads:
        if label.startswith("ours"):
            kern = Kernel(os.path.join(KDIR, pred[label]["kernel"]))
            q, k, v, o = kern.inputs()
            fn = lambda: kern(q, k, v, o)
        else:
            q = torch.randn(B, H, N, d, device="cuda", dtype=torch.bfloat16)
            k, v = (torch.randn(B, Hkv, N, d, device="cuda", dtype=torch.bfloat16) for _ in range(2))

            def fn():
                with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                    F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=Hkv != H)
        try:
            fn()  # warm-up (and: does the backend take this shape?)
        except RuntimeError as e:
            print("skip %s: %s" % (label, str(e)[:200]), file=sys.stderr)
            continue
        mark(); labels.append(label)
        fn()
        mark()
        del q, k, v
    torch.cuda.synchronize()
    json.dump(labels, open("labels.json", "w"))


def main():
    cmd = sys.argv[1]
    if cmd == "gen":
        gen(sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "..", "build", "bin", "attn-opt"))
    elif cmd == "run":
        run()
    elif cmd == "parse":
        # Same CSV layout and attribution as iocost_validation.py, plus the
        # L2->L1 crossbar bytes.
        sys.path.insert(0, HERE)
        import iocost_validation as v
        v.parse(sys.argv[2], extra={"xbar2l1": "l1tex__m_xbar2l1tex_read_bytes.sum"})
    elif cmd == "compare":
        m, p = json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
        print("| workload | tiles | regime (pred) | DRAM meas | DRAM pred | err | L2→SM meas | xbar→L1 meas | L2→SM pred | err | time (ms) | TFLOP/s |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for label, meas in m.items():
            pr = p[label]
            dm = meas["dram_read"] + meas["dram_write"]
            lm = meas["l2_to_sm"]
            print("| %s | %dx%d | %s | %.0f | %.0f | %+.0f%% | %.0f | %.0f | %.0f | %+.0f%% | %.2f | %.0f |" % (
                label, pr["tiles"][0], pr["tiles"][1], pr["regime"], dm / 1e6, pr["dram_bytes"] / 1e6,
                100 * (dm - pr["dram_bytes"]) / pr["dram_bytes"], lm / 1e6,
                meas.get("xbar2l1", 0) / 1e6, pr["l2_bytes"] / 1e6,
                100 * (lm - pr["l2_bytes"]) / pr["l2_bytes"], meas["time_s"] * 1e3,
                pr["flops"] / meas["time_s"] / 1e12 if meas["time_s"] else 0))


if __name__ == "__main__":
    main()

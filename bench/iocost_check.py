#!/usr/bin/env python3
"""An independent check of --attn-io-cost, on shapes the model's L2 rule was
not fitted to, and on attn-opt's own kernels.

Workloads (bf16):
  * FlashAttention-2 (SDPA FLASH backend) on new shapes: long sequences where
    the rule predicts K/V fits L2 (N=32k) and where it predicts streaming
    from DRAM (N=64k), GQA (8 K/V heads for 32 query heads) and MQA through
    enable_gqa;
  * attn-opt's v6 kernels (bench/kernels_check, compiled here by
    `gen` below), costed with their own tiles;
  * `gen wg` / `run wg`: attn-opt's default (wgmma) kernels over issue 4's
    grid (bf16, B·N = 16k, H·d = 2048, N = 1k..16k, d = 64/128, causal or
    not) plus three long shapes, each costed with its own tiles and with
    the CTAs per SM that its ptxas registers and shared memory allow
    (bench/kernels_wgcheck).

Here (needs attn-opt and the attnopt module):
    python3 bench/iocost_check.py gen [wg|wg2]           # kernels + predictions
There (ncu, PyTorch, CuPy):
    ncu --clock-control none --csv --page raw --metrics <METRICS> \
        python3 bench/iocost_check.py run [new|wg|wg2] > ncu.csv
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
WG = [("wg d%d N=%dk%s" % (d, n // 1024, " causal" if c else ""), 16384 // n, 2048 // d,
       2048 // d, n, d, c)
      for d in (64, 128) for n in (1024, 2048, 4096, 8192, 16384) for c in (False, True)]
# An independent check of the fractional heads-in-flight rule (committed
# before measuring): shapes where C / T lies between 1 and 2, so counting
# whole heads and counting fractions disagree, plus controls.
WG_NEW = [("wg2 d64 N=32k", 1, 16, 16, 32768, 64, False),
          ("wg2 d64 N=32k causal", 1, 16, 16, 32768, 64, True),
          ("wg2 d128 N=16k B=2", 2, 16, 16, 16384, 128, False),
          ("wg2 d128 N=16k gqa 16:4", 2, 16, 4, 16384, 128, False),
          ("wg2 d128 N=24k", 1, 16, 16, 24576, 128, False),
          ("fa2 d128 N=16k B=2", 2, 16, 16, 16384, 128, False)]
WG += [("wg d128 N=32k", 1, 16, 16, 32768, 128, False),
       ("wg d64 N=64k", 1, 16, 16, 65536, 64, False),
       ("wg gqa 32:4 N=32k", 1, 32, 4, 32768, 128, False)]


def ctas_per_sm(ptx, manifest):
    """Resident CTAs per H200 SM for a kernel: the smallest of the register,
    shared-memory and thread limits (registers from ptxas, allocated per
    thread in multiples of 8; 1 KB of shared memory reserved per CTA)."""
    out = subprocess.run(["/usr/local/cuda/bin/ptxas", "-arch=sm_90a", "-v", ptx, "-o", os.devnull],
                         capture_output=True, text=True).stderr
    regs = int(out.split("Used ")[1].split(" registers")[0])
    threads = manifest["block"]["value"][0]
    smem = manifest["dynamic_shared_memory_bytes"] + manifest["static_shared_memory_bytes"]
    by_regs = 65536 // (((regs + 7) // 8 * 8) * threads)
    by_smem = 233472 // (smem + 1024)
    return max(1, min(by_regs, by_smem, 2048 // threads, 32)), regs


# Workload set -> (workloads, directory of kernels and predictions).
SETS = {"": (FA2 + FA2_NEW + OURS, KDIR), "new": (FA2_NEW, KDIR),
        "wg": (WG, os.path.join(HERE, "kernels_wgcheck")),
        "wg2": (WG_NEW, os.path.join(HERE, "kernels_wgcheck2"))}


def gen(attn_opt, which=""):
    sys.path.insert(0, os.path.join(HERE, "..", "build", "python"))
    import attnopt
    workloads, kdir = SETS[which]
    wg = which in ("wg", "wg2")
    # A fresh directory: each compile's new .json names its kernel.
    if os.path.isdir(kdir):
        for f in os.listdir(kdir):
            os.remove(os.path.join(kdir, f))
    os.makedirs(kdir, exist_ok=True)
    pred, kernels = {}, {}
    for label, B, H, Hkv, N, d, causal in workloads:
        occupancy = {}
        if label.startswith("ours") or label.startswith("wg"):
            src = os.path.join(kdir, "src.mlir")
            with open(src, "w") as f:
                f.write(attnopt.graph.attention(B, H, N, d, hkv=Hkv, causal=causal))
            before = set(os.listdir(kdir))
            subprocess.run([attn_opt, src, "--attn-gpu-pipeline=dump-dir=" + kdir, "-o", os.devnull],
                           check=True)
            new = [x for x in set(os.listdir(kdir)) - before if x.endswith(".json")]
            name = new[0]
            man = json.load(open(os.path.join(kdir, name)))
            kernels[label] = name
            bq, bkv = man["block_q"], man["block_kv"]
            if wg:
                occ, regs = ctas_per_sm(os.path.join(kdir, name[:-5] + ".ptx"), man)
                occupancy = dict(ctas_per_sm=occ)
        else:
            bq, bkv = FA2_TILES[d]
        c = attnopt.io_cost(B=B, H=H, Lq=N, Lk=N, d=d, hkv=Hkv, dtype="bf16", causal=causal,
                            target="h200", block_q=bq, block_kv=bkv, **occupancy)
        pred[label] = dict(dram_bytes=c["fused_dram_bytes"], l2_bytes=c["fused_sram_l2_bytes"],
                           flops=c["flops"], bound=c["bound_fused"], regime=c["dram_regime"],
                           kv_working_set=c.get("kv_working_set_bytes"), tiles=[bq, bkv],
                           kernel=kernels.get(label), **occupancy)
    os.remove(os.path.join(kdir, "src.mlir"))
    json.dump(pred, open(os.path.join(kdir, "predicted.json"), "w"), indent=1)
    for k, v in pred.items():
        print("%-22s tiles %s ctas/SM %s regime %-22s DRAM %.0f MB  L2->SM %.0f MB" % (
            k, v["tiles"], v.get("ctas_per_sm", "-"), v["regime"], v["dram_bytes"] / 1e6,
            v["l2_bytes"] / 1e6))


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

    which = sys.argv[2] if len(sys.argv) > 2 else ""
    workloads, kdir = SETS[which]
    if which == "":
        workloads = FA2 + OURS  # the first check's workloads; `new` ran apart
    pred = json.load(open(os.path.join(kdir, "predicted.json")))
    labels = []
    torch.manual_seed(0)
    for label, B, H, Hkv, N, d, causal in workloads:
        if label.startswith("ours") or label.startswith("wg"):
            kern = Kernel(os.path.join(kdir, pred[label]["kernel"]))
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
        which = next((x for x in sys.argv[2:] if x in SETS), "")
        args = [x for x in sys.argv[2:] if x not in SETS]
        gen(args[0] if args else os.path.join(HERE, "..", "build", "bin", "attn-opt"), which)
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
        print("| workload | tiles | CTAs/SM | regime (pred) | DRAM meas | DRAM pred | err | L2→SM meas | xbar→L1 meas | L2→SM pred | err | time (ms) | TFLOP/s |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for label, meas in m.items():
            pr = p[label]
            dm = meas["dram_read"] + meas["dram_write"]
            lm = meas["l2_to_sm"]
            print("| %s | %dx%d | %s | %s | %.0f | %.0f | %+.0f%% | %.0f | %.0f | %.0f | %+.0f%% | %.2f | %.0f |" % (
                label, pr["tiles"][0], pr["tiles"][1], pr.get("ctas_per_sm", "–"), pr["regime"], dm / 1e6, pr["dram_bytes"] / 1e6,
                100 * (dm - pr["dram_bytes"]) / pr["dram_bytes"], lm / 1e6,
                meas.get("xbar2l1", 0) / 1e6, pr["l2_bytes"] / 1e6,
                100 * (lm - pr["l2_bytes"]) / pr["l2_bytes"], meas["time_s"] * 1e3,
                pr["flops"] / meas["time_s"] / 1e12 if meas["time_s"] else 0))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""One kernel configuration, one chooser: checks that the kernel the cost
model records (--attn-io-cost: #attn.kernel_config) is the kernel that runs.

For each case (head dim x causal/sequence length x tensor-core family and
target) it compiles one attention three ways and checks:
  * the tiles, rows per warp and stages of the recorded kernel_config are
    those of the --attn-gpu-pipeline's launch manifest;
  * the hand-run pass sequence (detect, io-cost, lower-to-gpu, bufferize,
    gpu-lower-to-nvvm-pipeline, dump) writes byte-identical PTX and the same
    manifest as --attn-gpu-pipeline.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

CASES = [  # (d, N, causal, batch, heads): 1 x 4 launches a CTA per work
    # item; 16 x 16 at 4k causal gets persistent CTAs. (The stage count
    # follows the key run and the schedule: stagesForSchedule.)
    (64, 1024, False, 1, 4), (64, 1024, True, 1, 4), (64, 4096, True, 1, 4),
    (128, 1024, False, 1, 4), (128, 1024, True, 1, 4), (128, 4096, True, 1, 4),
    (128, 4096, True, 16, 16),
]
TARGETS = [  # (io-cost target, chip, mma)
    ("h200", "sm_90a", "wgmma"),
    ("h200", "sm_90a", "mma.sync"),
    ("a100", "sm_80", "mma.sync"),
]


def module(d, n, causal, batch, heads):
    t = "tensor<%dx%dx%dx%dxbf16>" % (batch, heads, n, d)
    c = " causal(top_left)" if causal else ""
    return ("func.func @f(%%q: %s) -> %s {\n"
            "  %%o = attn.attention %%q, %%q, %%q scale(0.125)%s : %s, %s, %s -> %s\n"
            "  return %%o : %s\n}\n" % (t, t, c, t, t, t, t, t))


def run(args):
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("FAIL: %s\n%s" % (" ".join(args), r.stderr[-3000:]))
    return r.stdout


def dumped(directory):
    files = sorted(os.listdir(directory))
    ptx = [f for f in files if f.endswith(".ptx")]
    assert len(ptx) == 1, files
    base = os.path.join(directory, ptx[0][:-4])
    with open(base + ".ptx", "rb") as p, open(base + ".json") as j:
        return ptx[0][:-4], p.read(), json.load(j)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--attn-opt", required=True)
    a = ap.parse_args()
    checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        for d, n, causal, batch, heads in CASES:
            src = os.path.join(tmp, "in.mlir")
            with open(src, "w") as f:
                f.write(module(d, n, causal, batch, heads))
            for target, chip, mma in TARGETS:
                name = "%dx%d d=%d N=%d%s %s/%s" % (batch, heads, d, n, " causal" if causal else "",
                                                   chip, mma)
                costed = run([a.attn_opt, src, "--attn-io-cost=target=%s mma=%s" % (target, mma)])
                m = re.search(r"kernel_config = #attn.kernel_config<family = \"([^\"]+)\", "
                              r"block_q = (\d+), block_kv = (\d+), rows_per_warp = (\d+), "
                              r"kv_stages = (\d+)", costed)
                assert m, "no kernel_config recorded: " + name
                config = dict(family=m.group(1), block_q=int(m.group(2)), block_kv=int(m.group(3)),
                              rows_per_warp=int(m.group(4)), kv_stages=int(m.group(5)))
                pipe, hand = os.path.join(tmp, "pipe"), os.path.join(tmp, "hand")
                for x in (pipe, hand):
                    subprocess.run(["rm", "-rf", x])
                run([a.attn_opt, src, "--attn-gpu-pipeline=chip=%s mma=%s dump-dir=%s" % (chip, mma, pipe),
                     "-o", os.devnull])
                run([a.attn_opt, src, "--attn-detect", "--attn-io-cost=target=%s mma=%s" % (target, mma),
                     "--attn-lower-to-gpu",
                     "--one-shot-bufferize=bufferize-function-boundaries "
                     "function-boundary-type-conversion=identity-layout-map",
                     "--gpu-lower-to-nvvm-pipeline=cubin-chip=%s cubin-features=+ptx80 "
                     "cubin-format=isa kernel-bare-ptr-calling-convention=true" % chip,
                     "--attn-dump-gpu-kernels=dump-dir=%s" % hand, "-o", os.devnull])
                pname, pptx, pman = dumped(pipe)
                hname, hptx, hman = dumped(hand)
                problems = []
                if pname != hname or pptx != hptx:
                    problems.append("hand-run kernel %s differs from the pipeline's %s" % (hname, pname))
                if pman != hman:
                    problems.append("hand-run manifest differs from the pipeline's")
                for key in ("block_q", "block_kv", "rows_per_warp", "kv_stages"):
                    if pman[key] != config[key]:
                        problems.append("%s: recorded %s, manifest %s" % (key, config[key], pman[key]))
                if config["family"] != mma:
                    problems.append("recorded family %s, asked %s" % (config["family"], mma))
                if problems:
                    sys.exit("FAIL %s: %s" % (name, "; ".join(problems)))
                print("ok %s: %s %dx%d w%d s%d" % (name, config["family"], config["block_q"],
                                                    config["block_kv"], config["rows_per_warp"],
                                                    config["kv_stages"]))
                checked += 1
    print("%d cases: recorded config = manifest tiles, pipeline = hand-run PTX" % checked)
    print("PASS")


if __name__ == "__main__":
    main()

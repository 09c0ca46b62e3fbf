#!/usr/bin/env python3
"""attnopt, end to end on one attention block, in the order a compiler
engineer would look at it:

  1. build the unfused graph from shapes (attnopt.graph);
  2. detect it: the chain becomes one attn.attention;
  3. cost it on the H200: bytes, intensity, bound, tiles;
  4. write the roofline chart;
  5. fuse it into the tiled online-softmax loops;
  6. compile the bf16 version to tensor-core PTX, and run it if a GPU is here.
"""
import os
import sys

import attnopt
from attnopt import graph

out_dir = sys.argv[1] if len(sys.argv) > 1 else "."

# 1. A causal block, as the primitives a framework would emit.
unfused = graph.unfused_attention(1, 16, 4096, 64, causal=True, dtype="f32")

# 2. Detect.
found = attnopt.detect(unfused, explain=True)
print("attention ops found:", found.count)
print(next(l.strip() for l in found.ir.splitlines() if "attn.attention" in l)[:160])

# 3. Cost, from the IR and from plain shapes: the same numbers.
report = attnopt.io_cost(found.ir, target="h200")
a = report["attention"][0]
print("%-24s %14s %14s" % ("", "unfused", "fused"))
print("%-24s %14.3e %14.3e" % ("DRAM bytes", a["naive_hbm_bytes"], a["fused_dram_bytes"]))
print("%-24s %14.1f %14.1f" % ("intensity (FLOP/B)", a["intensity_naive"], a["intensity_fused"]))
print("%-24s %14s %14s" % ("bound", a["bound_naive"], a["bound_fused"]))
print("%-24s %14.1f %14.1f" % ("predicted time (us)", a["predicted_time_naive_s"] * 1e6,
                               a["predicted_time_fused_s"] * 1e6))
print("tiles: block_q=%d block_kv=%d; ridge %.0f FLOP/B" % (a["block_q"], a["block_kv"], a["ridge"]))
same = attnopt.io_cost(B=1, H=16, Lq=4096, Lk=4096, d=64, dtype="f32", causal=True)
assert same["flops"] == a["flops"]

# 4. The roofline chart of both paths.
svg = os.path.join(out_dir, "roofline.svg")
attnopt.run_pipeline(unfused, "attn-io-cost{roofline=%s}" % svg)
print("roofline chart:", svg)

# 5. Fuse with the tiles the cost model chose.
fused = attnopt.run_pipeline(found.ir, "attn-io-cost,func.func(attn-fuse),canonicalize")
print("fused loops:", fused.count("scf.for"), "| online steps:", fused.count("attn.online_attention"))

# 6. Compile to PTX (no GPU needed) and run where there is one.
kernel = attnopt.compile(graph.attention(1, 16, 4096, 64, causal=True, dtype="bf16"))
print("kernel:", kernel.name, "| grid", kernel.manifest["grid"]["value"],
      "| block", kernel.manifest["block"]["value"], "| PTX lines:", kernel.ptx.count("\n"))
try:
    import torch
    has_gpu = torch.cuda.is_available()
except ImportError:
    has_gpu = False
if has_gpu:
    q, k, v = (torch.randn(1, 16, 4096, 64, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    out = attnopt.runtime.launch(kernel, q, k, v)
    ref = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=True)
    print("relative error vs fp32 SDPA: %.2e" % ((out.float() - ref).norm() / ref.norm()).item())
else:
    print("no GPU here: skipping the launch")

#!/usr/bin/env python3
"""v30d's illegal-instruction repro (a check, not a benchmark), for the GPU
machine: launches one split-KV TMA decode kernel (B = 1, Hq = 64, Hkv = 8,
Lk = 4096, d = 128) and checks that its tensor maps in device memory still
hold what the runtime encoded. Before runtime.py kept the split-KV
workspace alive through the launches, the maps were allocated into the
just-freed workspace and the kernel's partial outputs overwrote them (every
byte changed; the next launch's TMA load trapped).

    python3 bench/tensor_map_clobber_check.py KERNEL_NAME KERNEL_DIR
"""
import sys, torch
sys.path.insert(0, "bench")
import attn_run
from attn_run import Kernel
name = sys.argv[1]
kern = Kernel("%s/%s.json" % (sys.argv[2], name))
q = torch.randn(1, 64, 1, 128, device="cuda", dtype=torch.bfloat16)
k = torch.randn(1, 8, 4096, 128, device="cuda", dtype=torch.bfloat16)
v = torch.randn_like(k)
o = torch.empty(1, 64, 1, 128, device="cuda", dtype=torch.bfloat16)
kern(q, k, v, o); torch.cuda.synchronize()
maps = list(kern._map_buffers.values())[0]
shapes = {p["name"]: p["shape"] for p in kern.manifest["params"]}
ptrs = {"k": k.data_ptr(), "v": v.data_ptr()}
for m in kern.tensor_maps:
    fresh = bytes(attn_run.runtime.encode_tensor_map(kern._driver, kern.manifest["dtype"],
                  ptrs[m["tensor"]], shapes[m["tensor"]], m["box"], m["swizzle"]))
    dev = bytes(maps[m["arg"]].cpu().numpy().tobytes())
    diff = [i for i in range(128) if fresh[i] != dev[i]]
    print(m["arg"], hex(maps[m["arg"]].data_ptr()), "bytes changed by the first launch:", len(diff), diff[:16], flush=True)
print("o nan", o.isnan().sum().item(), flush=True)

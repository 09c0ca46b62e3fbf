#!/usr/bin/env python3
"""Times the FP8 kernels' Vᵀ pre-kernel (the manifest's first launch, `_vt`)
alone, beside the whole call, on the GPU machine:

    python3 bench/vt_prekernel_time.py bench/kernels_fp8v43d

Per kernel: the pre-kernel's median time (triton's do_bench, L2 flushed),
its bytes (V read once, the Vᵀ images written once) per second, and its
share of the whole call (pre-kernel and attention kernel).
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attn_run import Kernel  # noqa: E402
from fp8_check import FP8  # noqa: E402


def main():
    import triton
    kdir = sys.argv[1]
    print("%-62s %9s %8s %9s %6s" % ("kernel", "vt (us)", "GB/s", "call (us)", "share"))
    for name in sorted(f for f in os.listdir(kdir) if f.endswith(".json")):
        kern = Kernel(os.path.join(kdir, name))
        m = kern.manifest
        if m["dtype"] not in FP8 or len(kern.launches) < 2 or m["Lk"] < 2048:
            continue
        dtype = FP8[m["dtype"]]
        q, k, v = (torch.randn(s, device="cuda").to(dtype) for s in kern.shapes[:3])
        out_dtype = {"bf16": torch.bfloat16, "f16": torch.float16}[m["output_dtype"]]
        o = torch.empty(kern.shapes[3], device="cuda", dtype=out_dtype)
        one = torch.ones((), device="cuda")
        descale = (one, one, one) if m.get("descale") else None
        [(ws_name, ws_shape, _)] = kern.workspace
        images = torch.empty(ws_shape, device="cuda", dtype=torch.uint8)
        function, _, _, _, args = kern.launches[0]
        pointers = {"v": v.data_ptr(), ws_name: images.data_ptr()}
        stream = torch.cuda.current_stream().cuda_stream
        vt = triton.testing.do_bench(lambda: function([pointers[a] for a in args], stream),
                                     return_mode="median")
        call = triton.testing.do_bench(lambda: kern(q, k, v, o, descale=descale),
                                       return_mode="median")
        moved = v.numel() + images.numel()
        print("%-62s %9.1f %8.0f %9.1f %5.1f%%" % (m["kernel"][:62], vt * 1e3,
                                                  moved / vt / 1e6, call * 1e3,
                                                  100 * vt / call), flush=True)


if __name__ == "__main__":
    main()

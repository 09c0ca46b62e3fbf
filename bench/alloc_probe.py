#!/usr/bin/env python3
"""One dumped kernel timed on inputs at different relative addresses (a
spacer of `pad` MB allocated between Q, K and V): whether its speed
depends on where K and V sit (DRAM channel mapping), not on its code.

    python3 bench/alloc_probe.py KERNEL.json [pads MB, comma-separated]
"""
import sys

import torch

from attn_run import Kernel, interleaved


def inputs(kern, pad_mb):
    spacers, out = [], []
    for s in kern.shapes[:3]:
        spacers.append(torch.empty(pad_mb << 20, dtype=torch.uint8, device="cuda"))
        out.append(torch.randn(s, device="cuda", dtype=kern.dtype))
    o = torch.empty(kern.shapes[3], device="cuda", dtype=kern.dtype)
    return out + [o], spacers


def main():
    kern = Kernel(sys.argv[1])
    pads = [int(x) for x in (sys.argv[2] if len(sys.argv) > 2 else "0,1,2,3,5,8").split(",")]
    kv_bytes = 2 * kern.shapes[1][0] * kern.shapes[1][1] * kern.shapes[1][2] * kern.shapes[1][3] * 2
    calls, keep = {}, []
    for pad in pads:
        (q, k, v, o), spacers = inputs(kern, pad)
        keep.append((q, k, v, o, spacers))
        calls["pad %d MB (k %% 2^30 = %d MB, v - k = %d MB)" % (
            pad, (k.data_ptr() % (1 << 30)) >> 20, (v.data_ptr() - k.data_ptr()) >> 20)] = \
            (lambda q=q, k=k, v=v, o=o: kern(q, k, v, o))
    torch.cuda.synchronize()
    for label, t in interleaved(calls, 7).items():
        print("%-60s %.0f GB/s" % (label, kv_bytes / t / 1e9), flush=True)


if __name__ == "__main__":
    main()

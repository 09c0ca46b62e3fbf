#!/usr/bin/env python3
"""The TMA tensor maps' L2 promotion (none, 64 B, 128 B, 256 B; the
manifest's `l2_promotion` overridden per copy of the kernel) on dumped
kernels, interleaved CUDA-event medians: the probe behind NOTES v36e/v36f
(where the runtime still encoded a fixed 256 B).

    python3 bench/l2promo_probe.py bench/kernels_ncu36 [rounds]
"""
import os
import sys

import torch

from attn_run import Kernel, interleaved

PROMOTIONS = ("none", "64B", "128B", "256B")


def main():
    kdir = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 9
    for name in sorted(f for f in os.listdir(kdir) if f.startswith("attn_") and f.endswith(".json")):
        calls = {}
        for label in PROMOTIONS:
            kern = Kernel(os.path.join(kdir, name))  # fresh map cache per promotion
            for m in kern.tensor_maps:
                m["l2_promotion"] = label
            q, k, v, o = kern.inputs()
            kern(q, k, v, o)  # encodes (and caches) this promotion's maps
            calls[label] = (lambda kern=kern, q=q, k=k, v=v, o=o: kern(q, k, v, o))
        torch.cuda.synchronize()
        times = interleaved(calls, rounds)
        kv_bytes = 2 * k.numel() * k.element_size()
        print(name[:90], " ".join("%s %.0f GB/s" % (l, kv_bytes / t / 1e9) for l, t in times.items()),
              flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Runs an attn-opt kernel (PTX + launch manifest) on an NVIDIA GPU.

The GPU machine has no MLIR: attn-opt writes <kernel>.ptx and <kernel>.json
here (--attn-gpu-pipeline="dump-dir=..."), this module loads them there with
CuPy (the CUDA driver's module loader, cuModuleLoadData underneath) and
launches them on PyTorch tensors by bare pointers, as the manifest says.

    python3 bench/attn_run.py bench/kernels/<kernel>.json   # check + time one kernel
"""
import json
import os
import sys

import cupy as cp
import torch

DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16}


class Kernel:
    def __init__(self, manifest_path):
        with open(manifest_path) as f:
            self.manifest = json.load(f)
        ptx = os.path.splitext(manifest_path)[0] + ".ptx"
        self.module = cp.RawModule(path=ptx)
        self.function = self.module.get_function(self.manifest["kernel"])
        self.grid = tuple(self.manifest["grid"]["value"])
        self.block = tuple(self.manifest["block"]["value"])
        self.dtype = DTYPES[self.manifest["dtype"]]
        self.shapes = [tuple(p["shape"]) for p in self.manifest["params"]]

    def inputs(self, generator=None):
        """Fresh random Q, K, V (never zeros) and an output poisoned with NaN."""
        q, k, v = (torch.randn(s, device="cuda", dtype=self.dtype, generator=generator)
                   for s in self.shapes[:3])
        o = torch.full(self.shapes[3], float("nan"), device="cuda", dtype=self.dtype)
        return q, k, v, o

    def __call__(self, q, k, v, o):
        for t, s in zip((q, k, v, o), self.shapes):
            assert tuple(t.shape) == s and t.is_contiguous() and t.dtype == self.dtype
        stream = cp.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream)
        with stream:
            self.function(self.grid, self.block,
                          tuple(cp.uint64(t.data_ptr()) for t in (q, k, v, o)))
        return o


def reference(q, k, v, causal, scale, heads=None):
    """fp32 attention on up to `heads` (batch 0) heads; GQA by repeating K/V."""
    hq, hkv = q.shape[1], k.shape[1]
    sel = slice(0, heads or hq)
    qf = q[:1, sel].float()
    kf = k[:1].float().repeat_interleave(hq // hkv, dim=1)[:, sel]
    vf = v[:1].float().repeat_interleave(hq // hkv, dim=1)[:, sel]
    return torch.nn.functional.scaled_dot_product_attention(
        qf, kf, vf, is_causal=causal, scale=scale)


def rel_err(x, ref):
    return ((x.float() - ref).norm() / ref.norm()).item()


if __name__ == "__main__":
    kern = Kernel(sys.argv[1])
    q, k, v, o = kern.inputs()
    m = kern.manifest
    kern(q, k, v, o)
    torch.cuda.synchronize()
    ref = reference(q, k, v, m["causal"] != "none", m["scale"], heads=2)
    print("rel err %.2e, NaN left: %d" % (rel_err(o[:1, :2], ref), int(o.isnan().sum())))

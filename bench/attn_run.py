#!/usr/bin/env python3
"""Runs an attn-opt kernel (PTX + launch manifest) on an NVIDIA GPU.

The GPU machine has no MLIR: attn-opt writes <kernel>.ptx and <kernel>.json
here (--attn-gpu-pipeline="dump-dir=..."), and attnopt's runtime module
(python-bindings/attnopt/runtime.py) loads them there with the CUDA
driver (through ctypes) and launches them by bare pointers, as the manifest
says.

    python3 bench/attn_run.py bench/kernels/<kernel>.json   # check + time one kernel
"""
import os
import sys

import importlib.util

import torch

# The launcher is attnopt's own runtime module, loaded by path: the GPU
# machine has no MLIR, so the attnopt package (whose core links it) cannot
# be imported there, but runtime.py imports nothing from it.
_spec = importlib.util.spec_from_file_location(
    "attnopt_runtime", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                    "python-bindings", "attnopt", "runtime.py"))
runtime = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(runtime)


class Kernel(runtime.LoadedKernel):
    """A dumped kernel plus the benchmark's input maker."""

    def __init__(self, manifest_path):
        loaded = runtime.LoadedKernel.from_files(manifest_path)
        self.__dict__.update(loaded.__dict__)
        self.dtype = self.torch_dtype

    def inputs(self, generator=None):
        """Fresh random Q, K, V (never zeros) and an output poisoned with NaN."""
        q, k, v = (torch.randn(s, device="cuda", dtype=self.dtype, generator=generator)
                   for s in self.shapes[:3])
        o = torch.full(self.shapes[3], float("nan"), device="cuda", dtype=self.dtype)
        return q, k, v, o


def reference(q, k, v, causal, scale, heads=None):
    """fp32 attention on up to `heads` (batch 0) heads; GQA by repeating K/V."""
    hq, hkv = q.shape[1], k.shape[1]
    sel = slice(0, heads or hq)
    qf = q[:1, sel].float()
    kf = k[:1].float().repeat_interleave(hq // hkv, dim=1)[:, sel]
    vf = v[:1].float().repeat_interleave(hq // hkv, dim=1)[:, sel]
    return torch.nn.functional.scaled_dot_product_attention(
        qf, kf, vf, is_causal=causal, scale=scale)


def sdpa_call(backend, q, k, v, causal, scale=None):
    """SDPA with one backend (torch.nn.attention.SDPBackend) on these inputs
    and top-left causal mask as a callable, or None where that backend
    refuses the shape."""
    from torch.nn.attention import sdpa_kernel

    def fn():
        with sdpa_kernel(backend):
            torch.nn.functional.scaled_dot_product_attention(
                q, k, v, is_causal=causal, scale=scale, enable_gqa=True)
    try:
        fn()
        return fn
    except RuntimeError:
        return None


def sdpa_anchors(q, k, v, scale, rate):
    """SDPA's cuDNN and flash backends (enable_gqa=True) on the same inputs:
    {"cudnn": rate(fn), "flash": rate(fn)}, where `rate` times a callable;
    a backend that refuses the shape gives None and its error."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    F = torch.nn.functional
    row = {}
    for label, be in (("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION)):
        try:
            with sdpa_kernel(be):
                F.scaled_dot_product_attention(q, k, v, scale=scale, enable_gqa=True)
                row[label] = rate(lambda: F.scaled_dot_product_attention(
                    q, k, v, scale=scale, enable_gqa=True))
        except (RuntimeError, torch.OutOfMemoryError) as err:
            row[label] = None
            row[label + "_error"] = str(err).splitlines()[0][:120]
            torch.cuda.empty_cache()
    return row


def bench(fn):
    """CUDA-event median of `fn` in seconds (triton's do_bench)."""
    return timer(False, warmup=5, rep=40)(fn)


def interleaved(calls, rounds, time=None):
    """Each callable's median over `rounds` rounds of CUDA-event medians,
    the order rotated every round, after one warm-up round whose times are
    dropped. The card runs faster for the first ~0.1 s after an idle spell
    and then clocks down (NOTES v29, v32: the same kernel 6-11% faster when
    timed first), so a fixed order, or the best of rotated rounds, favours
    whatever runs first after the host's own work. `time` times one
    callable (default: bench)."""
    time = time or bench
    keys = list(calls)
    for key in keys:
        time(calls[key])
    samples = {key: [] for key in keys}
    for r in range(rounds):
        shift = r * len(keys) // rounds
        for key in keys[shift:] + keys[:shift]:
            samples[key].append(time(calls[key]))
    return {key: sorted(ts)[len(ts) // 2] for key, ts in samples.items()}


def graphed(fn):
    """`fn` captured once in a CUDA graph; the returned callable replays it.
    Timing the replay measures the GPU's work without the host's cost of
    issuing it, which for attn-opt's Python launches (argument checks,
    workspace, ctypes cuLaunchKernel) can exceed a 15 µs decode kernel; a
    serving loop replays graphs for that reason."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        fn()  # warm-up off the capture, as torch.cuda.graph asks
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn()
    return graph.replay


def timer(graphs, warmup=10, rep=100, clean_l2=False):
    """A timer: the CUDA-event median in seconds of a callable (triton's
    do_bench), of its CUDA-graph replay when `graphs`.

    do_bench empties the L2 before each call by zeroing 256 MB, which leaves
    it full of dirty lines: a kernel that streams more than the L2 then
    writes ~50 MB back to DRAM beside its own reads (v27: a ~17 µs floor at
    B = 1, Lk = 16k decode, cuDNN's too). With `clean_l2` the L2 is emptied
    by reading 256 MB instead, so it holds clean lines, as after a kernel
    that read its inputs; both flushes are reported where it matters."""
    import triton
    if clean_l2:
        return _clean_l2_timer(graphs, warmup, rep)

    def time(fn):
        return triton.testing.do_bench(graphed(fn) if graphs else fn, warmup=warmup, rep=rep,
                                       return_mode="median") * 1e-3
    return time


def _clean_l2_timer(graphs, warmup, rep):
    filler = torch.ones(64 << 20, device="cuda", dtype=torch.int32)  # 256 MB

    def time(fn):
        run = graphed(fn) if graphs else fn
        for _ in range(warmup):
            run()
        events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                  for _ in range(rep)]
        for start, end in events:
            filler.sum()
            start.record()
            run()
            end.record()
        torch.cuda.synchronize()
        times = sorted(start.elapsed_time(end) for start, end in events)
        return times[len(times) // 2] * 1e-3
    return time


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

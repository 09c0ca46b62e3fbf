#!/usr/bin/env python3
"""FP8 attention kernels on the GPU: correctness against fp64, speed beside
our own bf16 kernel of the same shape and SDPA's cuDNN (bf16).

    python3 bench/fp8_check.py bench/kernels_fp8        # every FP8 manifest there

For each FP8 kernel (manifest dtype f8E4M3FN or f8E5M2):
  * inputs: real values ~ N(0, 1) quantized per tensor (amax scaled to the
    format's largest finite value, the scale's inverse as the descale
    factor, as FP8 inference quantizes); fresh per kernel;
  * reference: fp64 attention on the dequantized values (what the op means);
  * baselines (the numerics contract's "unfused, same precision"): the
    unfused FP8 chain, S = Q·Kᵀ in f32, P = softmax(S) stored as FP8 (e4m3),
    O = P·V in f32, rounded to the output type; and bf16 SDPA on the
    dequantized values, for information;
  * pass: error <= 2x the FP8-chain error (+1e-6), no NaN, dead rows 0;
    small shapes with descale factors run again with -Q and -q_descale
    (the same real Q, a negative descale product); a kernel with a
    <kernel>.softcap file beside its manifest soft-caps the reference's
    scores (gen_fp8_kernels.py's SOFTCAP cases).
  * N >= 2048: CUDA-event medians (triton.testing.do_bench) of the FP8
    kernel, of the bf16 kernel of the same shape when the folder has one
    (manifest "dtype" bf16, same B/Hq/Hkv/Lq/Lk/d/dv/causal), and SDPA cuDNN.
"""
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attn_run import Kernel, rel_err  # noqa: E402

FP8 = {"f8E4M3FN": torch.float8_e4m3fn, "f8E5M2": torch.float8_e5m2}


def quantize(x, dtype):
    """(FP8 tensor, descale as a 0-d float32 CUDA tensor)."""
    amax = x.abs().amax().clamp(min=1e-12)
    scale = torch.finfo(dtype).max / amax
    return (x * scale).to(dtype), (1.0 / scale).float().reshape(())


def flip_signs(x8):
    """-x for an 8-bit float tensor, exactly (its sign bits flipped)."""
    return (x8.view(torch.uint8) ^ 0x80).view(x8.dtype)


def masked_scores(q, k, causal, scale, softcap=None):
    """S = Q·Kᵀ·scale in q's precision, GQA by repeating K, soft-capped
    (c·tanh(S/c)) when asked, -inf above the causal diagonal (top-left or
    bottom-right)."""
    k = k.repeat_interleave(q.shape[1] // k.shape[1], dim=1)
    s = torch.matmul(q, k.transpose(-1, -2)) * scale
    if softcap:
        s = torch.tanh(s / softcap) * softcap
    lq, lk = s.shape[-2], s.shape[-1]
    if causal != "none":
        shift = lk - lq if causal == "bottom_right" else 0
        i = torch.arange(lq, device=q.device)[:, None]
        j = torch.arange(lk, device=q.device)[None, :]
        s = s.masked_fill(j > i + shift, float("-inf"))
    return s


def attention64(q, k, v, causal, scale, softcap=None):
    """fp64 attention (inputs already fp64); rows that see no key give 0."""
    s = masked_scores(q, k, causal, scale, softcap)
    v = v.repeat_interleave(q.shape[1] // v.shape[1], dim=1)
    m = s.amax(-1, keepdim=True)
    dead = torch.isneginf(m)
    p = torch.exp(s - torch.where(dead, torch.zeros_like(m), m))
    o = torch.matmul(p, v) / p.sum(-1, keepdim=True).clamp(min=1e-300)
    return o.masked_fill(dead, 0), dead


def fp8_chain(q, k, v, causal, scale, out_dtype, softcap=None):
    """The unfused FP8 chain: f32 scores, P stored as e4m3, f32 P·V."""
    p = torch.softmax(masked_scores(q, k, causal, scale, softcap), -1).nan_to_num(0.0)
    p = p.to(torch.float8_e4m3fn).float()
    v = v.repeat_interleave(q.shape[1] // v.shape[1], dim=1)
    return torch.matmul(p, v).to(out_dtype).float()


def same_shape(a, b):
    keys = ("B", "Hq", "Hkv", "Lq", "Lk", "d", "dv", "causal")
    return all(a.get(x) == b.get(x) for x in keys)


def main():
    kdir = sys.argv[1]
    import triton
    manifests = sorted(f for f in os.listdir(kdir) if f.endswith(".json"))
    kernels = [Kernel(os.path.join(kdir, f)) for f in manifests]
    bf16 = [kern for kern in kernels if kern.manifest["dtype"] == "bf16"]
    ok = True
    print("%-70s %9s %9s %9s %4s | %s" % ("kernel", "err", "fp8-chain", "bf16-sdpa", "NaN",
                                          "TFLOP/s: fp8 / bf16 ours / cuDNN bf16"))
    for kern in kernels:
        m = kern.manifest
        if m["dtype"] not in FP8:
            continue
        dtype, out_dtype = FP8[m["dtype"]], getattr(torch, {"bf16": "bfloat16", "f16": "float16",
                                                            "f32": "float32"}[m["output_dtype"]])
        shapes = kern.shapes
        capfile = os.path.join(kdir, m["kernel"] + ".softcap")
        softcap = float(open(capfile).read()) if os.path.exists(capfile) else None
        real = [torch.randn(s, device="cuda") for s in shapes[:3]]
        if m.get("descale"):
            (q8, qd), (k8, kd), (v8, vd) = (quantize(x, dtype) for x in real)
            descale = (qd, kd, vd)
        else:
            # No factors: the FP8 values are the real ones (N(0, 1) rounded;
            # scaled up to the format's range they would make every softmax
            # one-hot, a check that cannot fail).
            q8, k8, v8 = (x.to(dtype) for x in real)
            qd = kd = vd = torch.ones((), device="cuda")
            descale = None
        out = torch.full(shapes[3], float("nan"), device="cuda", dtype=out_dtype)
        kern(q8, k8, v8, out, descale=descale)
        torch.cuda.synchronize()
        # Large shapes: the references on batch 0's first two K/V heads and
        # their query heads (an fp64 S of B·H·N² would not fit an 80 GB card).
        hq, hkv = shapes[0][1], shapes[1][1]
        full, whole = [(q8, qd), (k8, kd), (v8, vd)], out
        if shapes[0][0] * hq * shapes[0][2] * shapes[1][2] > 2 ** 28:
            kv_heads = min(hkv, 2)
            heads = kv_heads * (hq // hkv)
            full = [(q8[:1, :heads], qd), (k8[:1, :kv_heads], kd), (v8[:1, :kv_heads], vd)]
            out = out[:1, :heads]
            hq, hkv = heads, kv_heads
        deq = [x8.double() * d.double() for x8, d in full]
        ref, dead = attention64(*deq, m["causal"], m["scale"], softcap)
        chain = fp8_chain(*(x.float() for x in deq), m["causal"], m["scale"], out_dtype, softcap)
        bq, bk, bv = (x.to(torch.bfloat16) for x in deq)
        sdpa = F.scaled_dot_product_attention(
            bq, bk.repeat_interleave(hq // hkv, 1), bv.repeat_interleave(hq // hkv, 1),
            is_causal=m["causal"] == "top_left", scale=m["scale"]) \
            if m["causal"] != "bottom_right" and not softcap else None
        ref32 = ref.float()
        base = rel_err(chain, ref32)
        sdpa_err = rel_err(sdpa, ref32) if sdpa is not None else float("nan")

        def verdict(o, whole_o):
            e = rel_err(o, ref32)
            n = int(whole_o.isnan().sum())
            dead_zero = bool((o.float().masked_select(dead.expand(*o.shape[:-1], 1)) == 0).all())
            return e, n, n == 0 and e <= 2 * base + 1e-6 and dead_zero

        err, nan, good = verdict(out, whole)
        if descale is not None and out is whole:
            # The same real Q as -Q8 with -q_descale: a negative descale
            # product, which the kernel folds into Q's signs.
            neg = torch.full(shapes[3], float("nan"), device="cuda", dtype=out_dtype)
            kern(flip_signs(q8), k8, v8, neg, descale=(-qd, kd, vd))
            torch.cuda.synchronize()
            neg_err, neg_nan, neg_good = verdict(neg, neg)
            print("%-70s %9.2e %9s %9s %4d  %s (q_descale < 0)" % (
                m["kernel"][:70], neg_err, "", "", neg_nan, "ok" if neg_good else "WRONG"))
            ok &= neg_good
        if out is not whole:
            out = whole
            deq = [x8.double() * d.double() for x8, d in ((q8, qd), (k8, kd), (v8, vd))]
            hq, hkv = shapes[0][1], shapes[1][1]
            bq, bk, bv = (x.to(torch.bfloat16) for x in deq)
        ok &= good
        line = "%-70s %9.2e %9.2e %9.2e %4d" % (m["kernel"][:70], err, base, sdpa_err, nan)
        if shapes[0][2] >= 2048:
            B, H, N, d = shapes[0]
            flops = 4 * B * H * N * shapes[1][2] * d / (2 if m["causal"] != "none" else 1)
            rate = lambda fn: flops / triton.testing.do_bench(fn, return_mode="median") / 1e9
            line += " | %.0f" % rate(lambda: kern(q8, k8, v8, out, descale=descale))
            twin = [b for b in bf16 if same_shape(b.manifest, m)]
            if twin:
                tq, tk, tv = (x.to(torch.bfloat16).contiguous() for x in deq)
                to = torch.empty(shapes[3], device="cuda", dtype=torch.bfloat16)
                line += " / %.0f" % rate(lambda: twin[0](tq, tk, tv, to))
            else:
                line += " / -"
            if m["causal"] != "bottom_right":
                from torch.nn.attention import SDPBackend, sdpa_kernel
                kk, vv = bk.repeat_interleave(hq // hkv, 1), bv.repeat_interleave(hq // hkv, 1)

                def cudnn():
                    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                        F.scaled_dot_product_attention(bq, kk, vv, is_causal=m["causal"] == "top_left",
                                                       scale=m["scale"])
                line += " / %.0f" % rate(cudnn)
        print(line + ("  ok" if good else "  WRONG"), flush=True)
    print("PASS" if ok else "FAIL", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The packed variable-length benchmark (issue 14, item 4) in one run on the
GPU machine.

    python3 bench/varlen_bench.py --kernels bench/kernels_varlen --out $OUT

For each shape of <kernels>/index.json (bench/gen_varlen_kernels.py):
  1. correctness, equal lengths: the varlen kernel on B packed sequences of
     Lq queries and Lk keys, each of the first sequences against an fp32
     reference, beside SDPA's same-precision error (math backend) on
     sequence 0 (the contract: at most 2x it, no NaN);
  2. correctness, ragged: random lengths summing to less than the packed
     tokens, cu[0] > 0 (rows before the first sequence), an empty sequence
     and one without keys; every token outside a sequence poisoned with NaN
     in K and V and the output NaN-filled: each sequence against its fp32
     reference, every row outside a sequence (and every row that sees no
     key) must be 0;
  3. CUDA-event medians (triton.testing.do_bench) of the varlen kernel, the
     contiguous kernel on the same equal-length batch as [B, H, L, d], and
     in the same run SDPA cuDNN and flash on [B, H, L, d] where they take
     the shape (is_causal is top-left, so bottom-right shapes with Lq < Lk
     have no SDPA anchor), and PyTorch's varlen_attn or flash-attn's
     varlen function where importable.
TFLOP/s count the score pairs each query sees (exactly, causal included),
2·(d + dv) FLOPs per pair; decode rows also report GB/s of K+V read.
"""
import argparse
import json
import os
import sys

import torch
import torch.nn.functional as F
import triton
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attn_run import Kernel  # noqa: E402

DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16}


def bench(fn):
    return triton.testing.do_bench(fn, warmup=10, rep=100, return_mode="median") * 1e-3


def seen_mask(lq, lk, causal, device):
    """[lq, lk] bool: which keys each query sees."""
    i = torch.arange(lq, device=device)[:, None]
    j = torch.arange(lk, device=device)[None, :]
    if causal == "top_left":
        return j <= i
    if causal == "bottom_right":
        return j <= i + (lk - lq)
    return torch.ones(lq, lk, dtype=torch.bool, device=device)


def pairs(lq, lk, causal):
    """(query, key) pairs a sequence computes."""
    return int(seen_mask(lq, lk, causal, "cpu").sum())


def attention(q, k, v, scale, causal, dtype=torch.float32):
    """One sequence: q [Lq, Hq, d], k/v [Lk, Hkv, d] -> [Lq, Hq, dv] in
    `dtype` arithmetic; a query that sees no key gives 0."""
    lq, lk, hq, hkv = q.shape[0], k.shape[0], q.shape[1], k.shape[1]
    if lq == 0:
        return torch.zeros(0, hq, v.shape[2], device=q.device)
    g = hq // hkv
    qf = q.to(dtype).transpose(0, 1)
    kf = k.to(dtype).transpose(0, 1).repeat_interleave(g, 0)
    vf = v.to(dtype).transpose(0, 1).repeat_interleave(g, 0)
    s = (qf @ kf.transpose(1, 2)) * scale
    s = s.masked_fill(~seen_mask(lq, lk, causal, q.device), float("-inf"))
    p = torch.softmax(s.float(), -1).nan_to_num(0.0).to(dtype)
    return (p @ vf).float().transpose(0, 1)


def rel_err(x, ref):
    n = ref.norm()
    return ((x.float() - ref).norm() / (n if n > 0 else 1)).item()


def check(kern, q, k, v, cu_q, cu_k, scale, causal, limit_err, sequences):
    """Runs `kern` on NaN-filled output; every listed sequence against its
    fp32 reference, rows outside every sequence must be 0."""
    o = torch.full((q.shape[0], q.shape[1], v.shape[2]), float("nan"), device="cuda",
                   dtype=q.dtype)
    kern(q, k, v, o, cu_seqlens_q=cu_q, cu_seqlens_k=cu_k, check_bounds=True)
    cq, ck = cu_q.tolist(), cu_k.tolist()
    worst, good = 0.0, not bool(o.isnan().any())
    for b in sequences:
        ref = attention(q[cq[b]:cq[b + 1]], k[ck[b]:ck[b + 1]], v[ck[b]:ck[b + 1]], scale, causal)
        err = rel_err(o[cq[b]:cq[b + 1]], ref)
        worst = max(worst, err)
        good = good and err <= limit_err
    outside = torch.cat([o[:cq[0]], o[cq[-1]:]])
    good = good and bool((outside == 0).all())
    return good, worst


def ragged_lengths(B, total, gen, lo=0):
    """B random lengths in [lo, ...] summing to at most total - 3 (so that the
    batch can start at token 3 and leave a tail)."""
    w = torch.rand(B, generator=gen, device="cuda")
    lens = (w / w.sum() * (total - 3 - B * lo) * 0.9).long() + lo
    return lens


def anchors(e, q, k, v, scale, rate):
    """SDPA cuDNN / flash on [B, H, L, d], and PyTorch's or flash-attn's
    varlen functions on the packed tensors, each where it takes the shape."""
    row = {}
    B, Lq, Lk, causal = e["B"], e["Lq"], e["Lk"], e["causal"]
    qb = q.view(B, Lq, *q.shape[1:]).transpose(1, 2)
    kb = k.view(B, Lk, *k.shape[1:]).transpose(1, 2)
    vb = v.view(B, Lk, *v.shape[1:]).transpose(1, 2)
    is_causal = causal == "top_left" or (causal == "bottom_right" and Lq == Lk)
    sdpa_ok = not causal or is_causal or Lq == 1
    for label, be in (("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION)):
        if not sdpa_ok:
            row[label + "_error"] = "SDPA's is_causal is top-left only"
            continue
        try:
            with sdpa_kernel(be):
                fn = lambda: F.scaled_dot_product_attention(  # noqa: E731
                    qb, kb, vb, scale=scale, is_causal=is_causal and Lq > 1, enable_gqa=True)
                fn()
                row[label] = rate(fn)
        except (RuntimeError, torch.OutOfMemoryError) as err:
            row[label + "_error"] = str(err).splitlines()[0][:120]
    cu_q = torch.arange(B + 1, device="cuda", dtype=torch.int32) * Lq
    cu_k = torch.arange(B + 1, device="cuda", dtype=torch.int32) * Lk
    try:
        import inspect
        from torch.nn.attention.varlen import varlen_attn
        params = inspect.signature(varlen_attn).parameters
        row["torch_varlen_signature"] = str(inspect.signature(varlen_attn))[:300]
        kw = {"scale": scale} if "scale" in params else {}
        top_left = causal == "top_left" or (causal == "bottom_right" and Lq == Lk)
        if causal and not top_left and Lq > 1:
            raise RuntimeError("bottom-right causal with Lq < Lk: not compared")
        if top_left and Lq > 1:
            if "is_causal" in params:
                kw["is_causal"] = True
            else:
                kw["window_size"] = (-1, 0)
        fn = lambda: varlen_attn(q, k, v, cu_q, cu_k, Lq, Lk, **kw)  # noqa: E731
        fn()
        row["torch_varlen"] = rate(fn)
    except Exception as err:  # ImportError, or a shape it refuses
        row["torch_varlen_error"] = str(err).splitlines()[0][:120] if str(err) else repr(err)
    try:
        from flash_attn import flash_attn_varlen_func
        fn = lambda: flash_attn_varlen_func(q, k, v, cu_q, cu_k, Lq, Lk,  # noqa: E731
                                            softmax_scale=scale, causal=causal is not None)
        fn()
        row["fa2_varlen"] = rate(fn)
    except Exception as err:
        row["fa2_varlen_error"] = str(err).splitlines()[0][:120] if str(err) else repr(err)
    return row


def run_shape(a, e, gen):
    B, Lq, Lk, Hq, Hkv, d, dv = (e[x] for x in ("B", "Lq", "Lk", "Hq", "Hkv", "d", "dv"))
    causal, dtype, scale = e["causal"], DTYPES[e["dtype"]], e["d"] ** -0.5
    Tq, Tk = B * Lq, B * Lk
    row = {x: e[x] for x in ("label", "B", "Lq", "Lk", "Hq", "Hkv", "d", "dv", "causal")}
    q = torch.randn(Tq, Hq, d, device="cuda", dtype=dtype, generator=gen)
    k = torch.randn(Tk, Hkv, d, device="cuda", dtype=dtype, generator=gen)
    v = torch.randn(Tk, Hkv, dv, device="cuda", dtype=dtype, generator=gen)
    kern = Kernel(os.path.join(a.kernels, e["varlen"] + ".json"))
    dense = Kernel(os.path.join(a.kernels, e["contiguous"] + ".json"))
    # The same-precision unfused error on sequence 0: the contract's scale.
    ref0 = attention(q[:Lq], k[:Lk], v[:Lk], scale, causal)
    row["unfused_err"] = rel_err(attention(q[:Lq], k[:Lk], v[:Lk], scale, causal, dtype), ref0)
    limit = 2 * row["unfused_err"] + 1e-6
    cu_q = torch.arange(B + 1, device="cuda", dtype=torch.int32) * Lq
    cu_k = torch.arange(B + 1, device="cuda", dtype=torch.int32) * Lk
    row["equal_correct"], row["equal_err"] = check(kern, q, k, v, cu_q, cu_k, scale, causal,
                                                   limit, range(min(B, 3)))
    # Ragged: random lengths, an empty sequence, one without keys, padding
    # at both ends poisoned with NaN.
    lq = ragged_lengths(B, Tq, gen, lo=0)
    lk = ragged_lengths(B, Tk, gen, lo=0)
    if B > 2:
        lq[1] = 0
        lk[2] = 0
    cq = torch.cat([torch.zeros(1, device="cuda", dtype=torch.long), lq.cumsum(0)]) + 3
    ck = torch.cat([torch.zeros(1, device="cuda", dtype=torch.long), lk.cumsum(0)]) + 3
    kr, vr = k.clone(), v.clone()
    for t in (kr, vr):
        t[:3] = float("nan")
        t[int(ck[-1]):] = float("nan")
    row["ragged_correct"], row["ragged_err"] = check(
        kern, q, kr, vr, cq.to(torch.int32), ck.to(torch.int32), scale, causal, limit,
        range(min(B, 6)))
    row["ragged_lengths_q"], row["ragged_lengths_k"] = lq[:6].tolist(), lk[:6].tolist()
    del kr, vr
    # Timing on equal lengths, beside the contiguous kernel of the same batch.
    flops = 2 * (d + dv) * Hq * B * pairs(Lq, Lk, causal)
    kv_bytes = Tk * Hkv * (d + dv) * 2
    rate = (lambda t: kv_bytes / t / 1e9) if Lq == 1 else (lambda t: flops / t / 1e12)
    row["unit"] = "GB/s" if Lq == 1 else "TFLOP/s"
    o = torch.empty(Tq, Hq, dv, device="cuda", dtype=dtype)
    row["varlen"] = rate(bench(lambda: kern(q, k, v, o, cu_seqlens_q=cu_q, cu_seqlens_k=cu_k)))
    qb = q.view(B, Lq, Hq, d).transpose(1, 2).contiguous()
    kb = k.view(B, Lk, Hkv, d).transpose(1, 2).contiguous()
    vb = v.view(B, Lk, Hkv, dv).transpose(1, 2).contiguous()
    ob = torch.empty(B, Hq, Lq, dv, device="cuda", dtype=dtype)
    dense(qb, kb, vb, ob)
    row["contiguous_matches"] = rel_err(o, ob.transpose(1, 2).reshape(Tq, Hq, dv).float()) < 1e-2
    row["contiguous"] = rate(bench(lambda: dense(qb, kb, vb, ob)))
    del qb, kb, vb, ob
    row.update(anchors(e, q, k, v, scale, lambda fn: rate(bench(fn))))
    return row


def sorted_bounds(B, T, gen):
    """cu [B + 1]: B + 1 sorted draws from [0, T], so that sequences may be
    empty and tokens before the first and after the last are left over."""
    return torch.randint(0, T + 1, (B + 1,), device="cuda", generator=gen).sort().values.to(
        torch.int32)


def run_sweep_case(a, e, gen):
    """Ragged correctness only (two draws of lengths), for a drawn shape."""
    B, Tq, Tk, Hq, Hkv, d, dv = (e[x] for x in ("B", "Tq", "Tk", "Hq", "Hkv", "d", "dv"))
    causal, dtype, scale = e["causal"], DTYPES[e["dtype"]], d ** -0.5
    row = dict(e)
    kern = Kernel(os.path.join(a.kernels, e["varlen"] + ".json"))
    q = torch.randn(Tq, Hq, d, device="cuda", dtype=dtype, generator=gen)
    k = torch.randn(Tk, Hkv, d, device="cuda", dtype=dtype, generator=gen)
    v = torch.randn(Tk, Hkv, dv, device="cuda", dtype=dtype, generator=gen)
    row["correct"], row["err"] = True, 0.0
    for _ in range(2):
        cq, ck = sorted_bounds(B, Tq, gen), sorted_bounds(B, Tk, gen)
        kr, vr = k.clone(), v.clone()
        for t in (kr, vr):
            t[:int(ck[0])] = float("nan")
            t[int(ck[-1]):] = float("nan")
        # The contract's scale: the unfused same-precision error of the
        # longest sequence.
        lq, lk = (cq[1:] - cq[:-1]).tolist(), (ck[1:] - ck[:-1]).tolist()
        b = max(range(B), key=lambda i: lq[i] * lk[i])
        cql, ckl = cq.tolist(), ck.tolist()
        sq, sk = slice(cql[b], cql[b + 1]), slice(ckl[b], ckl[b + 1])
        ref = attention(q[sq], k[sk], v[sk], scale, causal)
        unfused = rel_err(attention(q[sq], k[sk], v[sk], scale, causal, dtype), ref)
        good, err = check(kern, q, kr, vr, cq, ck, scale, causal, 2 * unfused + 1e-6, range(B))
        row["correct"] = row["correct"] and good
        row["err"] = max(row["err"], err)
        row.setdefault("unfused_err", unfused)
    # The launcher's contract check rejects decreasing lengths.
    if B > 1:
        bad = torch.arange(B + 1, 0, -1, device="cuda", dtype=torch.int32)
        try:
            kern(q, k, v, cu_seqlens_q=bad, cu_seqlens_k=bad, check_bounds=True)
            row["contract_checked"] = False
        except ValueError:
            row["contract_checked"] = True
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernels", default="bench/kernels_varlen")
    ap.add_argument("--out", default=".")
    ap.add_argument("--sweep", action="store_true",
                    help="drawn shapes (gen_varlen_kernels.py --sweep): ragged correctness only")
    a = ap.parse_args()
    with open(os.path.join(a.kernels, "index.json")) as f:
        index = json.load(f)
    if a.sweep:
        gen = torch.Generator(device="cuda").manual_seed(0)
        bad = 0
        with open(os.path.join(a.out, "sweep.jsonl"), "w") as out:
            for e in index:
                try:
                    row = run_sweep_case(a, e, gen)
                except Exception as err:
                    row = dict(e, correct=False, error=repr(err)[:300])
                bad += not row["correct"] or row.get("contract_checked") is False
                print(("PASS " if row["correct"] else "WRONG ") + json.dumps(row), flush=True)
                out.write(json.dumps(row) + "\n")
        print("%d of %d correct" % (len(index) - bad, len(index)))
        return 1 if bad else 0
    gen = torch.Generator(device="cuda").manual_seed(0)
    rows, out = [], open(os.path.join(a.out, "results.jsonl"), "w")
    for e in index:
        torch.cuda.empty_cache()
        try:
            row = run_shape(a, e, gen)
        except Exception as err:  # one shape's failure must not lose the others
            row = dict(label=e["label"], error=repr(err)[:300])
        print(json.dumps(row), flush=True)
        out.write(json.dumps(row) + "\n")
        rows.append(row)
    out.close()
    fmt = lambda r, key: "%.0f" % r[key] if r.get(key) else "–"  # noqa: E731
    with open(os.path.join(a.out, "table.md"), "w") as f:
        f.write("| shape | unit | varlen | contiguous | varlen ÷ contig | cuDNN | flash | "
                "torch varlen | FA2 varlen | correct (equal, ragged) | err (equal, ragged, "
                "unfused) |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            if "error" in r:
                f.write("| %s | error: %s ||||||||||\n" % (r["label"], r["error"]))
                continue
            f.write("| %s | %s | %s | %s | %.2f | %s | %s | %s | %s | %s, %s | %.4f, %.4f, %.4f |\n"
                    % (r["label"], r["unit"], fmt(r, "varlen"), fmt(r, "contiguous"),
                       r["varlen"] / r["contiguous"], fmt(r, "cudnn"), fmt(r, "flash"),
                       fmt(r, "torch_varlen"), fmt(r, "fa2_varlen"), r["equal_correct"],
                       r["ragged_correct"], r["equal_err"], r["ragged_err"], r["unfused_err"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

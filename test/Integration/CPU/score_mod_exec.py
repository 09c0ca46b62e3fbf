#!/usr/bin/env python3
"""Runs random attn.attention problems with a score_mod region through
attn-opt's CPU pipeline, fused (the region inlined into each online-softmax
step) and unfused (fuse=false: the region inlined into the naive
decomposition), and checks both against an fp64 numpy reference.

Each seed draws a problem (rank 2-4, GQA, Lq != Lk, d != dv, optional
causal alignment) and one modification:
  softcap  c * tanh(s / c)                 (Gemma 2; scores pushed large)
  alibi    s + slope_h * (j - i)           (slopes 2^(-8 (h+1) / H))
  bias     s + B[b, h, i, j]               (a T5-style bias tensor, read
                                            with tensor.extract from above)
  window   s where i - j < W, else -inf    (sliding window; with causal,
                                            Mistral's mask; rows may be
                                            fully masked)
  document s where doc_q[i] == doc_k[j],   (packed sequences: i32 document
           else -inf                        ids of queries and keys, two
                                            tensors read with tensor.extract;
                                            a query whose document has no
                                            key sees nothing)
Checks: no NaN; rows that see no key exactly 0; fused and unfused within
1e-5 of fp64, and the fused error at most 2x the unfused one (the
numerics contract).
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attn_exec import (dense, exec_arguments, lower_and_run, parse_memrefs,  # noqa: E402
                       single_op_module, ttype)

MODS = ("softcap", "alibi", "bias", "window", "document")


def draw(rng, mod):
    rank = int(rng.integers(2, 5))
    B = int(rng.integers(1, 3)) if rank == 4 else 1
    hkv = int(rng.integers(1, 3)) if rank >= 3 else 1
    hq = hkv * int(rng.integers(1, 3)) if rank >= 3 else 1
    lq, lk = int(rng.integers(1, 20)), int(rng.integers(1, 20))
    d, dv = int(rng.choice([4, 8, 16])), int(rng.choice([4, 8]))
    causal = [None, "top_left", "bottom_right"][int(rng.integers(0, 3))]
    return rank, B, hq, hkv, lq, lk, d, dv, causal


def region(mod, rank, hq, param):
    """The score_mod region's text and its reference on fp64 scores
    s[b, h, i, j] (4-D, whatever the rank)."""
    idx = ["%b", "%h", "%i", "%j"][4 - rank:]
    head = "  ^bb0(%s: f32, " + ", ".join("%s: index" % x for x in idx) + "):\n"
    def as_f32(x, name):
        return ("    %%%s_i = arith.index_cast %s : index to i64\n"
                "    %%%s = arith.sitofp %%%s_i : i64 to f32\n" % (name, x, name, name))
    if mod == "softcap":
        body = ("    %%c = arith.constant %r : f32\n    %%x = arith.divf %%s, %%c : f32\n"
                "    %%t = math.tanh %%x : f32\n    %%y = arith.mulf %%c, %%t : f32\n" % param)
        ref = lambda s: param * np.tanh(s / param)  # noqa: E731
    elif mod == "alibi":
        h = "%h" if rank >= 3 else None
        body = as_f32("%j", "jf") + as_f32("%i", "if_")
        body += "    %d = arith.subf %jf, %if_ : f32\n"
        if h:
            # slope_h = 2^(-8 (h + 1) / H)
            body += as_f32(h, "hf") + (
                "    %%one = arith.constant 1.0 : f32\n    %%h1 = arith.addf %%hf, %%one : f32\n"
                "    %%m8 = arith.constant %r : f32\n    %%e = arith.mulf %%h1, %%m8 : f32\n"
                "    %%slope = math.exp2 %%e : f32\n" % (-8.0 / hq))
        else:
            body += "    %%slope = arith.constant %r : f32\n" % 2.0 ** -8
        body += "    %ab = arith.mulf %slope, %d : f32\n    %y = arith.addf %s, %ab : f32\n"
        def ref(s):
            H, L, K = s.shape[1], s.shape[2], s.shape[3]
            slope = (2.0 ** (-8.0 * (np.arange(H) + 1) / hq)) if rank >= 3 else np.array([2.0 ** -8])
            dist = np.arange(K)[None, :] - np.arange(L)[:, None]
            return s + slope[None, :, None, None] * dist[None, None]
    elif mod == "bias":
        body = "    %%x = tensor.extract %%bias[%s] : %s\n    %%y = arith.addf %%s, %%x : f32\n" % (
            ", ".join(idx), param[1])
        ref = lambda s: s + param[0].reshape(s.shape)  # noqa: E731
    elif mod == "document":
        (doc_q, tq), (doc_k, tk) = param
        body = ("    %%dq = tensor.extract %%doc_q[%s] : %s\n"
                "    %%dk = tensor.extract %%doc_k[%s] : %s\n"
                "    %%same = arith.cmpi eq, %%dq, %%dk : i32\n"
                "    %%ninf = arith.constant 0xFF800000 : f32\n"
                "    %%y = arith.select %%same, %%s, %%ninf : f32\n" % (idx[-2], tq, idx[-1], tk))
        def ref(s):
            same = doc_q[:, None] == doc_k[None, :]
            return np.where(same[None, None], s, -np.inf)
    else:  # window
        body = ("    %%w = arith.constant %d : index\n    %%dd = arith.subi %%i, %%j : index\n"
                "    %%in = arith.cmpi slt, %%dd, %%w : index\n"
                "    %%ninf = arith.constant 0xFF800000 : f32\n"
                "    %%y = arith.select %%in, %%s, %%ninf : f32\n" % param)
        def ref(s):
            L, K = s.shape[2], s.shape[3]
            inside = (np.arange(L)[:, None] - np.arange(K)[None, :]) < param
            return np.where(inside[None, None], s, -np.inf)
    return " score_mod {\n" + head + body + "    attn.yield %y : f32\n  }", ref


def reference(q, k, v, scale, causal, mod_ref):
    hq, hkv = q.shape[1], k.shape[1]
    k = np.repeat(k, hq // hkv, axis=1)
    v = np.repeat(v, hq // hkv, axis=1)
    s = mod_ref(np.einsum("bhqd,bhkd->bhqk", q, k) * scale)
    lq, lk = s.shape[2], s.shape[3]
    if causal:
        shift = 0 if causal == "top_left" else lk - lq
        seen = np.arange(lk)[None, :] <= np.arange(lq)[:, None] + shift
        s = np.where(seen[None, None], s, -np.inf)
    m = s.max(axis=-1, keepdims=True)
    dead = ~np.isfinite(m)
    p = np.exp(s - np.where(dead, 0, m))
    den = p.sum(axis=-1, keepdims=True)
    o = np.einsum("bhqk,bhkd->bhqd", p / np.where(den == 0, 1, den), v)
    return np.where(dead, 0, o), dead[..., 0]


def main():
    ap = exec_arguments(__doc__)
    ap.add_argument("--mod", choices=MODS, required=True)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    rank, B, hq, hkv, lq, lk, d, dv, causal = draw(rng, a.mod)
    print("problem: mod=%s rank=%d B=%d Hq=%d Hkv=%d Lq=%d Lk=%d d=%d dv=%d causal=%s"
          % (a.mod, rank, B, hq, hkv, lq, lk, d, dv, causal))
    lead = [B, hq][4 - rank:] if rank >= 3 else []
    lead_kv = [B, hkv][4 - rank:] if rank >= 3 else []
    q = rng.standard_normal(lead + [lq, d]).astype(np.float32)
    k = rng.standard_normal(lead_kv + [lk, d]).astype(np.float32)
    v = rng.standard_normal(lead_kv + [lk, dv]).astype(np.float32)
    scale = 1.0 / np.sqrt(d)
    operands = [("q", dense(q), ttype(q.shape)), ("k", dense(k), ttype(k.shape)),
                ("v", dense(v), ttype(v.shape))]
    param = {"softcap": float(rng.uniform(0.5, 2.0)), "alibi": None,
             "window": int(rng.integers(1, 6))}.get(a.mod)
    if a.mod == "softcap":
        scale *= 8.0  # large scores, so that the cap matters
    if a.mod == "bias":
        bias = rng.standard_normal(lead + [lq, lk]).astype(np.float32)
        operands.append(("bias", dense(bias), ttype(bias.shape)))
        param = (bias.astype(np.float64), ttype(bias.shape))
    if a.mod == "document":
        # Sorted document ids (packed sequences); the queries' may name a
        # document without keys.
        doc_q = np.sort(rng.integers(0, 4, lq)).astype(np.int32)
        doc_k = np.sort(rng.integers(0, 4, lk)).astype(np.int32)
        operands += [("doc_q", dense(doc_q), ttype([lq], "i32")),
                     ("doc_k", dense(doc_k), ttype([lk], "i32"))]
        param = ((doc_q, ttype([lq], "i32")), (doc_k, ttype([lk], "i32")))
    text, mod_ref = region(a.mod, rank, hq, param)
    c = " causal(%s)" % causal if causal else ""
    module = single_op_module("modded", "attn.attention %%q, %%k, %%v scale(%r)%s%s"
                              % (float(scale), c, text),
                              operands, ttype(lead + [lq, dv]), op_operands=3)
    as4 = lambda x: x.reshape([1] * (4 - x.ndim) + list(x.shape)).astype(np.float64)  # noqa: E731
    ref, dead = reference(as4(q), as4(k), as4(v), scale, causal, mod_ref)
    ref = ref.reshape(-1)
    live = ~np.repeat(dead.reshape(-1), dv)
    errors = {}
    ok = True
    for label, options in (("fused", "detect=false block-q=4 block-kv=3"), ("unfused", "detect=false fuse=false")):
        printed, _ = lower_and_run(a.attn_opt, a.runner, a.shared_libs, module,
                                   "--attn-cpu-pipeline=" + options)
        if printed is None:
            return 1
        out = parse_memrefs(printed)[0]
        ok = ok and bool(np.all(np.isfinite(out))) and bool(np.all(out[~live] == 0))
        err = np.max(np.abs(out[live] - ref[live])) / max(np.max(np.abs(ref[live])), 1e-30) \
            if live.any() else 0.0
        errors[label] = float(err)
    ok = ok and errors["fused"] <= 1e-5 and errors["unfused"] <= 1e-5
    ok = ok and errors["fused"] <= 2 * errors["unfused"] + 1e-7
    print("fused-vs-fp64 %.2e  unfused-vs-fp64 %.2e  rows that see no key: %d"
          % (errors["fused"], errors["unfused"], int(dead.sum())))
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

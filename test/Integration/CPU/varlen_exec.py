#!/usr/bin/env python3
"""Runs random attn.varlen_attention problems through attn-opt's CPU
pipeline (--attn-unpack-varlen, then one fused attention per sequence) or
the GPU pipeline's host fallback, and checks them against an fp64 reference
computed per sequence.

Each seed draws a packed batch: 1-4 sequences with independent query and
key lengths in [1, 9] (with 2+ sequences, the first has no keys; with 3+, the
last has no queries), GQA groups, d != dv, no mask or either causal
alignment, and spare token rows before the first sequence and after the
last. The spare key rows are NaN, so a read outside a sequence shows; spare
query rows must come out exactly 0. Checks: no NaN; a query that sees no
key gives exactly 0; elsewhere max |O - ref| / max |ref| <= 1e-5 (f32).
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attn_exec import (dense, exec_arguments, int_literal,  # noqa: E402
                       lower_and_run, parse_memrefs, single_op_module, ttype)


def draw(rng):
    B = int(rng.integers(1, 5))
    hkv = int(rng.integers(1, 3))
    hq = hkv * int(rng.integers(1, 3))
    d, dv = int(rng.choice([4, 8])), int(rng.choice([4, 6]))
    lq = rng.integers(1, 10, size=B)
    lk = rng.integers(1, 10, size=B)
    # Empty sequences at the ends, and always one with queries and keys
    # between them, so that every problem checks numbers.
    if B > 2:
        lk[0], lq[-1] = 0, 0
    elif B == 2:
        lk[0] = 0
    causal = [None, "top_left", "bottom_right"][int(rng.integers(0, 3))]
    return B, hq, hkv, d, dv, lq, lk, causal


def cumulative(lengths, lead):
    return (lead + np.concatenate([[0], np.cumsum(lengths)])).astype(np.int32)


def reference_rows(q, k, v, scale, causal, hq, hkv):
    """fp64 softmax attention of one sequence: [Lq, Hq, dv] and which
    (query, head) pairs see no key."""
    lq, lk = q.shape[0], k.shape[0]
    kb = np.repeat(k.astype(np.float64), hq // hkv, axis=1)
    vb = np.repeat(v.astype(np.float64), hq // hkv, axis=1)
    s = np.einsum("qhd,khd->hqk", q.astype(np.float64), kb) * scale
    i, j = np.arange(lq)[:, None], np.arange(lk)[None, :]
    shift = {None: None, "top_left": 0, "bottom_right": lk - lq}[causal]
    seen = np.ones((lq, lk), bool) if shift is None else j <= i + shift
    s = np.where(seen[None], s, -np.inf)
    out = np.zeros((lq, hq, v.shape[2]))
    for h in range(hq):
        for r in range(lq):
            if seen[r].any():
                p = np.exp(s[h, r] - s[h, r].max())
                out[r, h] = (p / p.sum()) @ vb[:, h]
    return out, ~seen.any(axis=1)


def module_text(q, k, v, cuq, cuk, scale, causal):
    ot = ttype([q.shape[0], q.shape[1], v.shape[2]])
    c = " causal(%s)" % causal if causal else ""
    return single_op_module(
        "varlen", "attn.varlen_attention %%q, %%k, %%v seqlens(%%cq, %%ck) scale(%r)%s"
        % (float(scale), c),
        [("q", dense(q), ttype(q.shape)), ("k", dense(k), ttype(k.shape)),
         ("v", dense(v), ttype(v.shape)), ("cq", int_literal(cuq), ttype(cuq.shape, "i32")),
         ("ck", int_literal(cuk), ttype(cuk.shape, "i32"))], ot)


def run(a, module):
    """The module's printed output, or None after printing why it failed."""
    flag = ("--attn-gpu-pipeline" if a.pipeline == "gpu" else "--attn-cpu-pipeline")
    if a.pipeline_options:
        flag += "=" + a.pipeline_options
    printed, stderr = lower_and_run(a.attn_opt, a.runner, a.shared_libs, module, flag)
    # (f32 batches: the tensor-core kernels take f16 and bf16 only.)
    if printed is not None and a.pipeline == "gpu" and "f16 or bf16 inputs only" not in stderr:
        print(stderr[:4000] + "\nFAIL: the GPU pipeline did not report the fallback")
        return None
    return printed


def main():
    ap = exec_arguments(__doc__)
    ap.add_argument("--pipeline", choices=("cpu", "gpu"), default="cpu")
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    B, hq, hkv, d, dv, lq, lk, causal = draw(rng)
    print("problem: B=%d Hq=%d Hkv=%d d=%d dv=%d Lq=%s Lk=%s causal=%s"
          % (B, hq, hkv, d, dv, list(map(int, lq)), list(map(int, lk)), causal))
    scale = 1.0 / np.sqrt(d)
    cuq, cuk = cumulative(lq, 1), cumulative(lk, 2)
    tq, tk = int(cuq[-1]) + 2, int(cuk[-1]) + 1
    q = rng.standard_normal((tq, hq, d)).astype(np.float32)
    k = rng.standard_normal((tk, hkv, d)).astype(np.float32)
    v = rng.standard_normal((tk, hkv, dv)).astype(np.float32)
    inside = np.zeros(tk, bool)
    inside[cuk[0]:cuk[-1]] = True
    k[~inside], v[~inside] = np.nan, np.nan
    printed = run(a, module_text(q, k, v, cuq, cuk, scale, causal))
    if printed is None:
        return 1
    out = parse_memrefs(printed)[0].reshape(tq, hq, dv)
    ok, dead, worst, checked = bool(np.all(np.isfinite(out))), 0, 0.0, 0
    covered = np.zeros(tq, bool)
    for b in range(B):
        rows = slice(cuq[b], cuq[b + 1])
        keys = slice(cuk[b], cuk[b + 1])
        covered[rows] = True
        ref, blind = reference_rows(q[rows], k[keys], v[keys], scale, causal, hq, hkv)
        got = out[rows]
        dead += int(blind.sum()) * hq
        ok = ok and bool(np.all(got[blind] == 0))
        live = ~blind
        checked += int(live.sum()) * hq
        if live.any():
            err = np.max(np.abs(got[live] - ref[live])) / max(np.max(np.abs(ref[live])), 1e-30)
            worst = max(worst, float(err))
    ok = ok and bool(np.all(out[~covered] == 0)) and worst <= 1e-5 and checked > 0
    print("rows checked: %d, max rel err %.2e; rows that see no key: %d, all zero; "
          "spare rows %d, all zero" % (checked, worst, dead, int((~covered).sum())))
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

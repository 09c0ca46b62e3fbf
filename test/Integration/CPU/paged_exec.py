#!/usr/bin/env python3
"""Runs random attn.paged_attention problems through attn-opt's CPU pipeline
(--attn-gather-paged-kv, then the fused attention) and checks them against
an fp64 reference computed per sequence from its contiguous keys.

Each seed draws a problem: batch 1-3, GQA groups, 1-3 queries, page sizes
1 to 8, 1-5 pages per sequence, lengths in [0, capacity] (one empty
sequence and one full one when the batch allows), no mask or either causal
alignment, and a pool whose pages are shuffled, with spare pages. Every
pool slot no sequence's keys use is NaN, so a read past a sequence's end
shows. Checks: no NaN; a query that sees no key gives exactly 0; elsewhere
max |O - ref| / max |ref| <= 1e-5 (f32).
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attn_exec import (dense, exec_arguments, int_literal,  # noqa: E402
                       lower_and_run, parse_memrefs, single_op_module, ttype)


def draw(rng):
    B = int(rng.integers(1, 4))
    hkv = int(rng.integers(1, 3))
    hq = hkv * int(rng.integers(1, 3))
    lq = int(rng.integers(1, 4))
    d, dv = int(rng.choice([4, 8])), int(rng.choice([4, 6]))
    S = int(rng.choice([1, 2, 3, 4, 8]))
    N = int(rng.integers(1, 6))
    lens = rng.integers(0, N * S + 1, size=B)
    if B > 1:
        lens[0], lens[-1] = 0, N * S
    causal = [None, "top_left", "bottom_right"][int(rng.integers(0, 3))]
    return B, hq, hkv, lq, d, dv, S, N, lens.astype(np.int32), causal


def main():
    ap = exec_arguments(__doc__)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    B, hq, hkv, lq, d, dv, S, N, lens, causal = draw(rng)
    print("problem: B=%d Hq=%d Hkv=%d Lq=%d d=%d dv=%d page=%d pages/seq=%d lens=%s causal=%s"
          % (B, hq, hkv, lq, d, dv, S, N, [int(x) for x in lens], causal))
    scale = 1.0 / np.sqrt(d)
    P = B * N + 2  # spare pages stay NaN
    kpool = np.full((P, S, hkv, d), np.nan, np.float32)
    vpool = np.full((P, S, hkv, dv), np.nan, np.float32)
    table = rng.permutation(P)[:B * N].reshape(B, N).astype(np.int32)
    q = rng.standard_normal((B, hq, lq, d)).astype(np.float32)
    keys, values = [], []
    for b in range(B):
        kb = rng.standard_normal((hkv, lens[b], d)).astype(np.float32)
        vb = rng.standard_normal((hkv, lens[b], dv)).astype(np.float32)
        for j in range(lens[b]):
            kpool[table[b, j // S], j % S] = kb[:, j]
            vpool[table[b, j // S], j % S] = vb[:, j]
        keys.append(kb)
        values.append(vb)
    # Entries past a sequence's pages may hold anything: make them garbage.
    for b in range(B):
        used = -(-int(lens[b]) // S)
        table[b, used:] = rng.integers(-1000, 1000, size=N - used)

    ot = ttype([B, hq, lq, dv])
    c = " causal(%s)" % causal if causal else ""
    module = single_op_module(
        "paged", "attn.paged_attention %%q, %%k, %%v pages(%%t, %%l) scale(%r)%s"
        % (float(scale), c),
        [("q", dense(q), ttype([B, hq, lq, d])), ("k", dense(kpool), ttype([P, S, hkv, d])),
         ("v", dense(vpool), ttype([P, S, hkv, dv])), ("t", int_literal(table), ttype([B, N], "i32")),
         ("l", int_literal(lens), ttype([B], "i32"))], ot)
    printed, _ = lower_and_run(a.attn_opt, a.runner, a.shared_libs, module,
                               "--attn-cpu-pipeline=" + a.pipeline_options)
    if printed is None:
        return 1
    out = parse_memrefs(printed)[0].reshape(B, hq, lq, dv)
    ok, dead = bool(np.all(np.isfinite(out))), 0
    worst = 0.0
    for b in range(B):
        L = int(lens[b])
        kb = np.repeat(keys[b].astype(np.float64), hq // hkv, axis=0)
        vb = np.repeat(values[b].astype(np.float64), hq // hkv, axis=0)
        s = np.einsum("hqd,hkd->hqk", q[b].astype(np.float64), kb) * scale
        i, j = np.arange(lq)[:, None], np.arange(L)[None, :]
        shift = {None: None, "top_left": 0, "bottom_right": L - lq}[causal]
        seen = np.ones((lq, L), bool) if shift is None else j <= i + shift
        s = np.where(seen[None], s, -np.inf)
        for h in range(hq):
            for r in range(lq):
                if not seen[r].any():
                    dead += 1
                    ok = ok and bool(np.all(out[b, h, r] == 0))
                    continue
                p = np.exp(s[h, r] - s[h, r].max())
                ref = (p / p.sum()) @ vb[h]
                worst = max(worst, np.max(np.abs(out[b, h, r] - ref)) / max(np.max(np.abs(ref)), 1e-30))
    ok = ok and worst <= 1e-5
    print("rows that see no key: %d, all zero; max rel err %.2e" % (dead, worst))
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

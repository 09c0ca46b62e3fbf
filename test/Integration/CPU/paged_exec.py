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
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attn_exec import dense, parse_memrefs, ttype  # noqa: E402


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
    ap = argparse.ArgumentParser()
    ap.add_argument("--attn-opt", required=True)
    ap.add_argument("--runner", required=True)
    ap.add_argument("--shared-libs", required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--pipeline-options", default="")
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

    qt, ot = ttype([B, hq, lq, d]), ttype([B, hq, lq, dv])
    kt, vt = ttype([P, S, hkv, d]), ttype([P, S, hkv, dv])
    tt, lt = ttype([B, N], "i32"), ttype([B], "i32")
    c = " causal(%s)" % causal if causal else ""
    ints = lambda x: "dense<%s>" % np.array2string(x, separator=", ").replace("\n", "")  # noqa: E731
    memref_t = ot.replace("tensor", "memref")
    module = "\n".join([
        "func.func private @printMemrefF32(memref<*xf32>)",
        "func.func @paged(%%q: %s, %%k: %s, %%v: %s, %%t: %s, %%l: %s) -> %s {" % (qt, kt, vt, tt, lt, ot),
        "  %%o = attn.paged_attention %%q, %%k, %%v pages(%%t, %%l) scale(%r)%s"
        " : %s, %s, %s, %s, %s -> %s" % (float(scale), c, qt, kt, vt, tt, lt, ot),
        "  return %o : " + ot, "}",
        "func.func @main() {",
        "  %%q = arith.constant %s : %s" % (dense(q), qt),
        "  %%k = arith.constant %s : %s" % (dense(kpool), kt),
        "  %%v = arith.constant %s : %s" % (dense(vpool), vt),
        "  %%t = arith.constant %s : %s" % (ints(table), tt),
        "  %%l = arith.constant %s : %s" % (ints(lens), lt),
        "  %%o = call @paged(%%q, %%k, %%v, %%t, %%l) : (%s, %s, %s, %s, %s) -> %s"
        % (qt, kt, vt, tt, lt, ot),
        "  %%ob = bufferization.to_buffer %%o : %s to %s" % (ot, memref_t),
        "  %%oc = memref.cast %%ob : %s to memref<*xf32>" % memref_t,
        "  call @printMemrefF32(%oc) : (memref<*xf32>) -> ()",
        "  return", "}"]) + "\n"
    with tempfile.NamedTemporaryFile("w", suffix=".mlir") as src:
        src.write(module)
        src.flush()
        lowered = subprocess.run(
            [a.attn_opt, src.name, "--attn-cpu-pipeline=" + a.pipeline_options],
            capture_output=True, text=True)
        if lowered.returncode:
            print(lowered.stderr[:4000] + "\nFAIL: attn-opt failed")
            return 1
        run = subprocess.run([a.runner, "-e", "main", "-entry-point-result=void",
                              "-shared-libs=" + a.shared_libs],
                             input=lowered.stdout, capture_output=True, text=True)
        if run.returncode:
            print(run.stderr[:4000] + "\nFAIL: mlir-runner failed")
            return 1
    out = parse_memrefs(run.stdout)[0].reshape(B, hq, lq, dv)
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

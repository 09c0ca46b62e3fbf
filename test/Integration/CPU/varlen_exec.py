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
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attn_exec import dense, parse_memrefs, ttype  # noqa: E402


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
    qt, kt, vt = ttype(q.shape), ttype(k.shape), ttype(v.shape)
    ot = ttype([q.shape[0], q.shape[1], v.shape[2]])
    ct, kct = ttype(cuq.shape, "i32"), ttype(cuk.shape, "i32")
    c = " causal(%s)" % causal if causal else ""
    ints = lambda x: "dense<%s>" % np.array2string(x, separator=", ").replace("\n", "")  # noqa: E731
    memref_t = ot.replace("tensor", "memref")
    return "\n".join([
        "func.func private @printMemrefF32(memref<*xf32>)",
        "func.func @varlen(%%q: %s, %%k: %s, %%v: %s, %%cq: %s, %%ck: %s) -> %s {"
        % (qt, kt, vt, ct, kct, ot),
        "  %%o = attn.varlen_attention %%q, %%k, %%v seqlens(%%cq, %%ck) scale(%r)%s"
        " : %s, %s, %s, %s, %s -> %s" % (float(scale), c, qt, kt, vt, ct, kct, ot),
        "  return %o : " + ot, "}",
        "func.func @main() {",
        "  %%q = arith.constant %s : %s" % (dense(q), qt),
        "  %%k = arith.constant %s : %s" % (dense(k), kt),
        "  %%v = arith.constant %s : %s" % (dense(v), vt),
        "  %%cq = arith.constant %s : %s" % (ints(cuq), ct),
        "  %%ck = arith.constant %s : %s" % (ints(cuk), kct),
        "  %%o = call @varlen(%%q, %%k, %%v, %%cq, %%ck) : (%s, %s, %s, %s, %s) -> %s"
        % (qt, kt, vt, ct, kct, ot),
        "  %%ob = bufferization.to_buffer %%o : %s to %s" % (ot, memref_t),
        "  %%oc = memref.cast %%ob : %s to memref<*xf32>" % memref_t,
        "  call @printMemrefF32(%oc) : (memref<*xf32>) -> ()",
        "  return", "}"]) + "\n"


def run(a, module):
    """The module's printed output, or None after printing why it failed."""
    flag = ("--attn-gpu-pipeline" if a.pipeline == "gpu" else "--attn-cpu-pipeline")
    if a.pipeline_options:
        flag += "=" + a.pipeline_options
    with tempfile.NamedTemporaryFile("w", suffix=".mlir") as src:
        src.write(module)
        src.flush()
        lowered = subprocess.run([a.attn_opt, src.name, flag], capture_output=True, text=True)
        if lowered.returncode:
            print(lowered.stderr[:4000] + "\nFAIL: attn-opt failed")
            return None
        if a.pipeline == "gpu" and "no GPU kernel yet" not in lowered.stderr:
            print(lowered.stderr[:4000] + "\nFAIL: the GPU pipeline did not report the fallback")
            return None
        done = subprocess.run([a.runner, "-e", "main", "-entry-point-result=void",
                               "-shared-libs=" + a.shared_libs],
                              input=lowered.stdout, capture_output=True, text=True)
        if done.returncode:
            print(done.stderr[:4000] + "\nFAIL: mlir-runner failed")
            return None
    return done.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attn-opt", required=True)
    ap.add_argument("--runner", required=True)
    ap.add_argument("--shared-libs", required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--pipeline", choices=("cpu", "gpu"), default="cpu")
    ap.add_argument("--pipeline-options", default="")
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

#!/usr/bin/env python3
"""Every fused DRAM measurement stored under bench/results (FlashAttention-2
and attn-opt's kernels on the H200, ncu, cold L2) against candidate rules
for the K/V re-reads of --attn-io-cost. The model's rule lives in
lib/Analysis/IOCost.cpp; this script re-states its inputs so that a change
can be tried on all the data before the C++ changes.

    python3 bench/iocost_dram_rules.py
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
RES = os.path.join(HERE, "results")
L2 = 60 * 1024 * 1024  # the H200 preset's L2 bytes
SMS = 132
E = 2  # bf16


def ceil_div(a, b):
    return -(-a // b)


def points():
    """(label, B, Hq, Hkv, N, d, causal, block_q, ctas_per_sm, measured DRAM)."""
    out = []
    m = json.load(open(os.path.join(RES, "2026-11-29-iocost", "measured.json")))
    for label, v in m.items():
        if not label.startswith("fa2"):
            continue
        f = dict(x.split("=") for x in label.split()[1:])
        d, n, c = int(f["d"]), int(f["N"]), f["causal"] == "1"
        out.append((label, 16384 // n, 2048 // d, 2048 // d, n, d, c, 128, 2,
                    v["dram_read"] + v["dram_write"]))
    import importlib.util
    spec = importlib.util.spec_from_file_location("chk", os.path.join(HERE, "iocost_check.py"))
    chk = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(chk)
    shapes = {w[0]: w[1:] for w in chk.FA2 + chk.FA2_NEW}
    for run in ("2026-11-29-iocost-check", "2026-11-29-iocost-check2"):
        m = json.load(open(os.path.join(RES, run, "measured.json")))
        for label, v in m.items():
            if label in shapes:
                out.append((label,) + shapes[label] + (128, 2, v["dram_read"] + v["dram_write"]))
    m = json.load(open(os.path.join(RES, "2026-11-29-iocost-wg", "measured.json")))
    p = json.load(open(os.path.join(RES, "iocost_wg_predicted.json")))
    wg = {w[0]: w[1:] for w in chk.WG}
    for label, v in m.items():
        out.append((label,) + tuple(wg[label]) + (p[label]["tiles"][0], p[label]["ctas_per_sm"],
                                                  v["dram_read"] + v["dram_write"]))
    return out


def predict(B, H, Hkv, N, d, causal, bq, cps, rule):
    q = o = E * B * H * N * d
    kv = E * B * Hkv * N * 2 * d
    T = ceil_div(N, bq)
    C = SMS * cps
    if rule == 3:
        # The model now: C / T query heads in flight as a fraction, at least
        # one K/V head.
        kv_heads = min(max(1.0, min(C / T, B * H) / (H // Hkv)), B * Hkv)
    else:
        heads = min(ceil_div(C, T), B * H)
        kv_heads = min(ceil_div(heads, H // Hkv), B * Hkv)
    w = kv_heads * E * N * 2 * d
    if rule in (1, 2) and T <= C:
        # All query tiles of a head run in one wave: K/V read once.
        return q + kv + o
    if w <= L2 / 4:
        return q + kv + o
    extra = kv * (T - 1) / C
    if rule == 2:
        # Re-reads miss the L2 in proportion to how far the K/V in flight
        # exceeds a quarter of it, all of them from half of it on.
        extra *= min(1.0, (w - L2 / 4) / (L2 / 4))
    return q + min(kv + extra, kv * T) + o


def main():
    pts = points()
    names = {0: "whole heads in flight (before)", 1: "+ one wave when T <= C",
             2: "+ partial re-reads", 3: "fractional heads in flight (the model now)"}
    for rule in (0, 1, 2, 3):
        errs = []
        for label, B, H, Hkv, N, d, c, bq, cps, meas in pts:
            pred = predict(B, H, Hkv, N, d, c, bq, cps, rule)
            errs.append((label, 100 * (meas - pred) / pred))
        within = sum(abs(e) <= 15 for _, e in errs)
        print("rule %d (%s): %d/%d within ±15%%; worst %s" % (
            rule, names[rule], within, len(errs),
            ", ".join("%s %+.0f%%" % x for x in sorted(errs, key=lambda x: -abs(x[1]))[:6])))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Replays the decode chooser's streaming model (lib/Analysis/KVSplitModels.cpp)
on the decode sweeps already measured, to refit it without a GPU.

    python3 bench/decode_model_replay.py [--model refit|refit42|v68] [--set NAME=VALUE] [--check-picks]

A mirror, in Python, of chooseStreamingSplits for what the sweeps ran:
contiguous bf16 K/V at d = dv = 128 streamed in TMA boxes, Lq = 1. For every
swept shape it takes the model's pick among the configurations the sweep
timed (so every pick has a measured rate) and prints pick ÷ best of the
sweep; then the picks among every split count (what the compiler does),
against the sweep of the GPU they are for where it timed them.
`--check-picks` compiles each shape's pick with attn-opt (both presets)
and checks that the mirror's unrestricted pick is the compiler's: the
mirror is only evidence while it agrees with the C++ model.

Sweeps (GB/s of K+V, do_bench medians; `confirmed` medians of three where a
run has them):
  h200: results/2026-12-04-v37/decode (powers of two, 8 tiles, 26 shapes);
  h100: results/2026-12-07-v68 (the same grid), v68b (every split count
        2-16 on 128-key tiles at four B = 1 shapes; two passes averaged)
        and v69 (the grid again, with every split count 1-16 at B = 1:
        the refit's proof, not part of its fit).
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results")
SMS = 132
HBM = {"h100": 3.35e12, "h200": 4.8e12}
TILES = ((64, 1), (64, 2), (64, 4), (64, 8), (32, 1), (32, 2), (32, 4), (32, 8),
         (128, 1), (128, 2), (128, 4), (128, 8))


def legal(bkv, warps):
    keys = bkv // warps
    return keys % 16 == 0 and keys >= 16 and keys <= 64


def resident(bkv, warps):
    """residentCTAsPerSM for a 2-stage box decode kernel at d = dv = 128."""
    smem = 2 * bkv * 256 * 2 + 1040  # 2 stages of K and V rows, barriers, atom alignment
    by_smem = (227 * 1024 + 1024) // (smem + 1024)
    by_regs = 65536 // (255 * 32 * warps)
    return max(1, min(by_smem, by_regs, 32))


class Model:
    """The streaming model's constants and form for box-streamed K/V:
    `refit` is the compiler's (session 42's refit with the combine's
    0.06 µs per split since session 43), `refit42` session 42's (2 µs per
    split grid whatever S), `v68` the one v68 measured (copy and math
    summed per tile, the DRAM met by the busiest SM's share, 8 µs per split
    grid). --set overrides a constant of any."""

    def __init__(self, kind, **kw):
        self.kind = kind
        self.tile_sec = kw.get("tile_sec", 0.569e-6)
        self.sec_per_byte = kw.get("sec_per_byte", 3.52e-12)
        self.best_keys = kw.get("best_keys", 17.6)
        self.sq = kw.get("sq", 0.54e-9)
        self.p = kw.get("p", 3.0)
        self.split_sec = kw.get("split_sec", 8e-6 if kind == "v68" else 2e-6)
        # The refit (kind "refit"): a tile is its copy or its math,
        # whichever is longer, and a grid that doubles some TPCs up loses
        # `alpha`·f·(1 − f) of its rate, f the doubled TPCs' fraction.
        self.copy_rate = kw.get("copy_rate", 83e9)
        self.math_sec = kw.get("math_sec", 0.585e-6)
        self.math_keys = kw.get("math_keys", 9.8)
        self.math_sq = kw.get("math_sq", 0.397e-9)
        self.alpha = kw.get("alpha", 0.16)
        self.dram_eff = kw.get("dram_eff", 1.0)  # of the preset's HBM, reachable by reads
        # Seconds a split grid costs per split beyond its launch, against
        # its partials' reads at the DRAM's rate (measured, cause open:
        # bench/NOTES.md v70, v70d).
        # (refit42: session 42's refit, 2 µs per split grid whatever S.)
        self.split_per = kw.get("split_per", 0.0 if kind == "refit42" else 0.06e-6)
        self.stat_words = 1 if kind == "refit42" else 2  # (m, ℓ) per row
        if kind == "refit42":
            self.kind = "refit"

    def tile_seconds(self, bkv, warps):
        tile_bytes = bkv * 256 * 2
        if self.kind == "refit":
            off = bkv / warps - self.math_keys
            return max(tile_bytes / self.copy_rate, self.math_sec + self.math_sq * off * off)
        off = bkv / warps - self.best_keys
        return self.tile_sec + tile_bytes * self.sec_per_byte + self.sq * off * off

    def seconds(self, B, Hq, Hkv, Lk, bkv, warps, S, gpu):
        hbm = HBM[gpu]
        ctas = B * Hkv * S
        per_cta = Lk * 512 / S
        tile_bytes = bkv * 512
        tsec = self.tile_seconds(bkv, warps)
        per_sm = math.ceil(ctas / SMS)
        res = resident(bkv, warps)
        rounds = math.ceil(per_sm / res)
        together = min(per_sm, res)
        demand = together * tile_bytes / tsec
        busy = min(ctas, SMS)
        if self.kind == "refit":
            # The busiest SM's CTAs at their own rate, against every CTA's
            # bytes at the DRAM's (work-conserving: an SM with one CTA more
            # than another does not hold the DRAM back while others stream),
            # less the TPC imbalance; a smooth maximum (p-norm) of the two.
            tpcs = SMS // 2
            f = min(max(busy - tpcs, 0), tpcs) / tpcs
            t_sm = rounds * together * per_cta / demand
            t_dram = ctas * per_cta / (hbm * self.dram_eff * (1 - self.alpha * f * (1 - f)))
            t = (t_sm ** self.p + t_dram ** self.p) ** (1 / self.p) + rounds * tsec
        else:
            rate = ((busy * demand) ** -self.p + hbm ** -self.p) ** (-1 / self.p) / busy
            t = rounds * (together * per_cta / rate + tsec)
        if S > 1:
            t += self.split_sec + max(2 * S * B * Hq * (128 + self.stat_words) * 4 / HBM[gpu],
                                        S * self.split_per)
        return t

    def candidates(self, B, Hq, Hkv, Lk, gpu, measured=None):
        out = []
        for bkv, warps in TILES:
            if not legal(bkv, warps):
                continue
            tiles = math.ceil(Lk / bkv)
            most = max(1, min(tiles // 2, 4096))
            last = 0
            for S in range(1, most + 1):
                keys = math.ceil(tiles / S) * bkv
                S = math.ceil(Lk / keys)
                if S == last:
                    continue
                last = S
                if measured is not None and label(S, bkv, warps) not in measured:
                    continue
                out.append(((S, bkv, warps), self.seconds(B, Hq, Hkv, Lk, bkv, warps, S, gpu)))
        return out

    def pick(self, B, Hq, Hkv, Lk, gpu, measured=None):
        cands = self.candidates(B, Hq, Hkv, Lk, gpu, measured)
        if not cands:
            return None
        fastest = min(t for _, t in cands)
        ok = [c for c, t in cands if t <= 1.03 * fastest]
        return min(ok, key=lambda c: (c[0], -c[1], c[2]))


def label(S, bkv, warps):
    return "splits=%d,bkv=%d,warps=%d" % (S, bkv, warps)


def parse_kernel(name):
    bkv = re.search(r"_bk(\d+)_", name)
    split = re.search(r"_split(\d+)_", name)
    warps = re.search(r"_kw(\d+)_", name)
    return (int(split.group(1)) if split else 1, int(bkv.group(1)),
            int(warps.group(1)) if warps else 1)


def load(path):
    return [json.loads(l) for l in open(os.path.join(RESULTS, path))]


def sweeps():
    """(name, gpu, rows): every row with a `timed` dict of label -> GB/s.
    A row's `pick_h100` is labelled by the model that chose it (v68's
    before session 42, the refit's in v69), which --check-picks checks is
    the compiler's (the kernel names are not committed)."""
    def timed(r, picker):
        t = dict(r["sweep"])
        if "pick_h100" in t:
            h100 = label(*Model(picker).pick(r["B"], r["Hq"], r["Hkv"], r["Lk"], "h100"))
            t[h100] = t.get(h100, t["pick_h100"])
        t.update({k: v for k, v in r.get("confirmed", {}).items()})
        t[label(*parse_kernel(r["kernel"]))] = r.get("confirmed", {}).get("pick", r["attn_opt"])
        return {k: v for k, v in t.items() if k.startswith("splits=")}
    out = []
    rows = load("2026-12-04-v37/decode/results.jsonl")
    out.append(("v37", "h200", [dict(r, timed=timed(r, "v68")) for r in rows if r.get("sweep")]))
    rows = load("2026-12-07-v68/b1/r/results.jsonl") + load("2026-12-07-v68/b864/r/results.jsonl")
    out.append(("v68", "h100", [dict(r, timed=timed(r, "v68")) for r in rows if r.get("sweep")]))
    a = load("2026-12-07-v68b/r/a/results.jsonl")
    b = load("2026-12-07-v68b/r/b/results.jsonl")
    merged = []
    for ra, rb in zip(a, b):
        ta, tb = timed(ra, "v68"), timed(rb, "v68")
        merged.append(dict(ra, timed={k: (ta[k] + tb[k]) / 2 for k in ta if k in tb}))
    out.append(("v68b", "h100", merged))
    rows = [r for part in ("a/r/kernels_dsweep69a", "b/r/kernels_dsweep69b",
                           "b/r/kernels_dsweep69c")
            for r in load("2026-12-07-v69/%s/results.jsonl" % part)]
    out.append(("v69", "h100", [dict(r, timed=timed(r, "refit42")) for r in rows if r.get("sweep")]))
    # v69c's random shapes at d = 128 (the mirror's head dim).
    rows = load("2026-12-07-v69c/r/results.jsonl")
    out.append(("v69c", "h100", [dict(r, timed=timed(r, "refit42")) for r in rows
                                 if r.get("sweep") and r.get("d", 128) == 128]))
    # v70: v69c's shapes again and 8 more (--random 8 --seed 70), picked by
    # the refit with the combine's per-split cost.
    for part in ("v70a", "v70b"):
        rows = load("2026-12-07-v70/a/%s/results.jsonl" % part)
        out.append((part, "h100", [dict(r, timed=timed(r, "refit")) for r in rows
                                   if r.get("sweep") and r.get("d", 128) == 128]))
    return out


def replay(model, verbose):
    worst = {}
    for name, gpu, rows in sweeps():
        ratios = []
        for r in rows:
            t = r["timed"]
            p = model.pick(r["B"], r["Hq"], r["Hkv"], r["Lk"], gpu, measured=t)
            best = max(t, key=t.get)
            ratio = t[label(*p)] / t[best]
            ratios.append(ratio)
            if verbose:
                print("%s %s B=%d Lk=%d (%d,%d): pick %s %.0f best %s %.0f -> %.3f%s" % (
                    name, gpu, r["B"], r["Lk"], r["Hq"], r["Hkv"], label(*p), t[label(*p)],
                    best, t[best], ratio, "  MISS" if ratio < 0.95 else ""))
        geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
        print("%s (%s): within 5%% at %d of %d; worst %.3f; geomean %.3f" % (
            name, gpu, sum(x >= 0.95 for x in ratios), len(ratios), min(ratios), geo))
        worst[name] = min(ratios)
    return worst


def unrestricted(model, verbose):
    """The picks the compiler would make (every split count) per preset,
    against the sweeps of that GPU where they timed the pick."""
    data = {}
    for _, gpu, rows in sweeps():
        for r in rows:
            data.setdefault((gpu, r["B"], r["Lk"], r["Hq"], r["Hkv"]), {}).update(r["timed"])
    ratios, untimed = {"h100": [], "h200": []}, []
    for (gpu, B, Lk, Hq, Hkv), t in sorted(data.items()):
        p = model.pick(B, Hq, Hkv, Lk, gpu)
        if label(*p) not in t:
            untimed.append("%s B=%d Lk=%d (%d,%d) %s" % (gpu, B, Lk, Hq, Hkv, label(*p)))
            continue
        ratios[gpu].append(t[label(*p)] / max(t.values()))
        if verbose:
            print("  %s B=%d Lk=%d (%d,%d): %s %.3f of the best" % (
                gpu, B, Lk, Hq, Hkv, label(*p), ratios[gpu][-1]))
    for gpu, v in ratios.items():
        print("unrestricted %s picks: within 5%% at %d of %d timed; worst %.3f; geomean %.3f"
              % (gpu, sum(x >= 0.95 for x in v), len(v), min(v),
                 math.exp(sum(map(math.log, v)) / len(v))))
    print("picks no sweep timed: %d%s" % (len(untimed), "".join("\n  " + u for u in untimed)))


def check_picks(attn_opt, model):
    """The mirror's unrestricted pick against the compiler's, per preset."""
    sys.path.insert(0, HERE)
    from gen_decode_kernels import decode_ir
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for B in (1, 8, 64):
            for Lk in (4096, 16384, 131072):
                for Hq, Hkv in ((64, 8), (32, 8), (32, 32)):
                    src = os.path.join(tmp, "d.mlir")
                    open(src, "w").write(decode_ir(B, Hq, Hkv, Lk, 128))
                    for gpu in ("h100", "h200"):
                        r = subprocess.run([attn_opt, src, "--attn-gpu-pipeline=chip=sm_90a "
                                            "target=%s" % gpu], capture_output=True, text=True)
                        name = r.stdout.split("gpu.binary @")[1].split("_module")[0]
                        got = parse_kernel(name)
                        want = model.pick(B, Hq, Hkv, Lk, gpu)
                        bad += got != want
                        print("B=%d Lk=%d (%d,%d) %s: compiler %s mirror %s%s" % (
                            B, Lk, Hq, Hkv, gpu, got, want, "" if got == want else "  DIFFER"))
    print("mirror differs from the compiler at %d picks" % bad)
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="refit", choices=("refit", "refit42", "v68"))
    ap.add_argument("--set", action="append", default=[],
                    help="NAME=VALUE: a model constant (e.g. alpha=0.2)")
    ap.add_argument("--check-picks", action="store_true")
    ap.add_argument("--attn-opt", default=os.path.join(HERE, "..", "build", "bin", "attn-opt"))
    ap.add_argument("-v", action="store_true")
    a = ap.parse_args()
    kw = {k: float(v) for k, v in (x.split("=") for x in a.set)}
    if a.check_picks:
        sys.exit(1 if check_picks(a.attn_opt, Model(a.model, **kw)) else 0)
    replay(Model(a.model, **kw), a.v)
    unrestricted(Model(a.model, **kw), a.v)


if __name__ == "__main__":
    main()

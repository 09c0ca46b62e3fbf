#!/usr/bin/env python3
"""Compiles the decode benchmark (issue 14) with attn-opt (here, no GPU
needed) into PTX + launch manifests, with the split-KV sweep beside the
chooser's pick.

    python3 bench/gen_decode_kernels.py --out bench/kernels_decode

Grid: B in {1, 8, 64}, Lk in {4k, 16k, 128k}, (Hq, Hkv) in {(64, 8),
(32, 8), (32, 32)}, d = 128, bf16, Lq = 1. For each shape: the chooser's
kernel (`kernel`), and for the sweep every split count of SWEEP[B] with
every (block-kv, kv-warps) of TILES at 2 stages (v13c: more stages never
won), each kernel once. index.json lists them.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# Split counts per batch: a grid of B·Hkv CTAs needs fewer splits as B
# grows (v13b's best: 16-32 at B = 1, 2-4 at B = 8, none at B = 64).
SWEEP = {1: (1, 2, 4, 8, 16, 32), 8: (1, 2, 4, 8), 64: (1, 2)}
# (block-kv, kv-warps): every legal pair at d = 128 (at least 16 keys per
# warp, at most 64 for one warp).
TILES = ((32, 1), (32, 2), (64, 1), (64, 2), (64, 4), (128, 2), (128, 4), (128, 8))


def decode_ir(B, Hq, Hkv, Lk, d, dtype="bf16"):
    q = "tensor<%dx%dx1x%dx%s>" % (B, Hq, d, dtype)
    kv = "tensor<%dx%dx%dx%dx%s>" % (B, Hkv, Lk, d, dtype)
    return ("func.func @decode(%%q: %s, %%k: %s, %%v: %s) -> %s {\n"
            "  %%o = attn.attention %%q, %%k, %%v scale(%r) : %s, %s, %s -> %s\n"
            "  return %%o : %s\n}\n" % (q, kv, kv, q, d ** -0.5, q, kv, kv, q, q))


def add_options_argument(ap):
    """--options: more --attn-gpu-pipeline options for every kernel (an A/B
    of one choice over a whole generator's set, e.g. kv-loads=tma)."""
    def set_options(value):
        global EXTRA_OPTIONS
        EXTRA_OPTIONS = value
        return value
    ap.add_argument("--options", default="", type=set_options,
                    help="more --attn-gpu-pipeline options for every kernel")


def write_index(out, index):
    """The shape list a benchmark reads: <out>/index.json."""
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump(index, f, indent=1)


#: Options every compile_one call adds (the generators' --options).
EXTRA_OPTIONS = ""


def compile_one(attn_opt, src, out, options):
    options = (EXTRA_OPTIONS + " " + options).strip()
    before = set(os.listdir(out))
    r = subprocess.run([attn_opt, src, "--attn-gpu-pipeline=%s dump-dir=%s" % (options, out),
                        "-o", os.devnull], capture_output=True, text=True)
    if r.returncode:
        return None, r.stderr.strip().splitlines()[0] if r.stderr.strip() else "failed"
    new = sorted(x for x in set(os.listdir(out)) - before if x.endswith(".json"))
    if new:
        return new[0][:-5], None
    # Already compiled by an earlier option set: read the chosen name back.
    r = subprocess.run([attn_opt, src, "--attn-gpu-pipeline=%s" % options],
                       capture_output=True, text=True)
    for line in r.stdout.splitlines():
        if "gpu.binary @" in line:
            return line.split("gpu.binary @")[1].split("_module")[0], None
    return None, "no kernel"


def random_shapes(n, seed, max_kv_bytes=8e9):
    """`n` decode shapes off issue 14's grid: batches 1-32, 1-16 K/V heads
    in groups of 1-8 query heads (5 and 7 too), any Lk from 1k to 96k (a
    multiple of 64 or not), d = 64 or 128; K+V at most `max_kv_bytes`."""
    import random
    rng = random.Random(seed)
    shapes = []
    while len(shapes) < n:
        B = rng.choice((1, 1, 2, 3, 4, 6, 16, 32))
        Hkv = rng.choice((1, 2, 4, 8, 16))
        group = rng.choice((1, 2, 4, 5, 7, 8))
        Lk = rng.randrange(1024, 98304)
        d = rng.choice((64, 128))
        if 2 * B * Hkv * Lk * d * 2 <= max_kv_bytes:
            shapes.append((B, group * Hkv, Hkv, Lk, d))
    return shapes


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attn-opt", default=os.path.join(HERE, "..", "build", "bin", "attn-opt"))
    ap.add_argument("--out", default=os.path.join(HERE, "kernels_decode"))
    ap.add_argument("--batches", default="1,8,64")
    ap.add_argument("--lengths", default="4096,16384,131072")
    ap.add_argument("--heads", default="64:8,32:8,32:32",
                    help="(Hq:Hkv) pairs; other pairs and --head-dim give shapes the chooser "
                         "was not fitted on")
    ap.add_argument("--head-dim", type=int, default=128)
    ap.add_argument("--no-sweep", action="store_true")
    ap.add_argument("--variant", action="append", default=[], metavar="LABEL:OPTIONS",
                    help="one more kernel per shape, compiled with OPTIONS (the pick's "
                         "config re-chosen under them) and timed as sweep point LABEL")
    ap.add_argument("--sweep-splits", default="",
                    help="split counts of the sweep (comma-separated) instead of SWEEP[B]")
    ap.add_argument("--sweep-tiles", default="",
                    help="(block-kv:kv-warps) pairs of the sweep (comma-separated) instead "
                         "of TILES")
    ap.add_argument("--random", type=int, default=0, metavar="N",
                    help="N shapes drawn at random (random_shapes) instead of the grid: the "
                         "chooser out of the sample it was fitted on")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sweep-points", default="",
                    help="more sweep points (comma-separated SPLITS:BLOCK_KV:KV_WARPS) beside "
                         "the splits x tiles product, e.g. split counts on one tile only")
    add_options_argument(ap)
    a = ap.parse_args()
    splits_of = (lambda B: [int(x) for x in a.sweep_splits.split(",")]) if a.sweep_splits \
        else (lambda B: SWEEP.get(B, SWEEP[1]))
    tiles = [tuple(int(x) for x in t.split(":")) for t in a.sweep_tiles.split(",")] \
        if a.sweep_tiles else TILES
    os.makedirs(a.out, exist_ok=True)
    src = os.path.join(a.out, "src.mlir")
    index = []
    if a.random:
        shapes = random_shapes(a.random, a.seed)
    else:
        shapes = [(B, Hq, Hkv, Lk, a.head_dim) for B in (int(x) for x in a.batches.split(","))
                  for Lk in (int(x) for x in a.lengths.split(","))
                  for Hq, Hkv in (tuple(int(h) for h in pair.split(":"))
                                  for pair in a.heads.split(","))]
    for B, Hq, Hkv, Lk, d in shapes:
        with open(src, "w") as f:
            f.write(decode_ir(B, Hq, Hkv, Lk, d))
        chosen, err = compile_one(a.attn_opt, src, a.out, "")
        if err:
            print(err)
            return 1
        with open(os.path.join(a.out, chosen + ".json")) as f:
            man = json.load(f)
        entry = dict(B=B, Hq=Hq, Hkv=Hkv, Lk=Lk, d=d, kernel=chosen,
                     kv_splits=man["kv_splits"], block_kv=man["block_kv"],
                     kv_stages=man["kv_stages"], kv_warps=man["kv_warps"], sweep={})
        variants = [tuple(v.split(":", 1)) for v in a.variant]
        if not a.no_sweep:
            variants += [("splits=%d,bkv=%d,warps=%d" % (s, bkv, w),
                          "kv-splits=%d kv-stages=2 block-kv=%d kv-warps=%d" % (s, bkv, w))
                         for s in splits_of(B) for bkv, w in tiles]
            for point in filter(None, a.sweep_points.split(",")):
                s, bkv, w = (int(x) for x in point.split(":"))
                label = "splits=%d,bkv=%d,warps=%d" % (s, bkv, w)
                if label not in dict(variants):
                    variants.append((label, "kv-splits=%d kv-stages=2 block-kv=%d "
                                            "kv-warps=%d" % (s, bkv, w)))
        if variants:
            for label, options in variants:
                name, err = compile_one(a.attn_opt, src, a.out, options)
                if name:
                    entry["sweep"][label] = name
        index.append(entry)
        print("B=%-3d Lk=%-6d Hq=%-2d Hkv=%-2d %s (%d splits, %d warps), %d sweep kernels"
              % (B, Lk, Hq, Hkv, chosen, man["kv_splits"], man["kv_warps"],
                 len(entry["sweep"])), flush=True)
    os.remove(src)
    write_index(a.out, index)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Compiles given (split count, block-kv) picks for the paged decode shapes
of an earlier sweep, next to that sweep's best and chosen kernels, so that
one run on the GPU machine compares them on the same inputs (here, no GPU
needed). Used to test a change of the streaming model before it goes into
the chooser: the picks are what the changed model would choose.

    python3 bench/gen_paged_picks.py --sweep-dir bench/kernels_paged_sweep \\
        --results bench/results/<run>/results.jsonl --picks PICKS.json --out DIR
    # PICKS.json: [[B, Hq, Hkv, Lk, splits, block_kv], ...]
    # on the GPU machine:
    python3 bench/paged_bench.py --kernels DIR --out $OUT
"""
import argparse
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_decode_kernels import compile_one  # noqa: E402
from gen_paged_kernels import paged_ir  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attn-opt", default=os.path.join(HERE, "..", "build", "bin", "attn-opt"))
    ap.add_argument("--sweep-dir", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--picks", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.sweep_dir, "index.json")) as f:
        index = json.load(f)
    with open(a.results) as f:
        measured = [json.loads(line) for line in f]
    with open(a.picks) as f:
        picks = {tuple(p[:4]): tuple(p[4:]) for p in json.load(f)}

    def copy(name):
        for ext in (".json", ".ptx"):
            shutil.copy(os.path.join(a.sweep_dir, name + ext), a.out)

    src = os.path.join(a.out, "src.mlir")
    out_index = []
    for e, r in zip(index, measured):
        key = (e["B"], e["Hq"], e["Hkv"], e["Lk"])
        if key not in picks:
            continue
        best = max(r["sweep16"], key=r["sweep16"].get)
        entry = dict(B=e["B"], Hq=e["Hq"], Hkv=e["Hkv"], Lk=e["Lk"], d=e["d"],
                     contiguous=e["contiguous"], paged={"16": e["paged"]["16"]},
                     sweep={"best " + best: e["sweep"][best]})
        for name in (e["contiguous"], e["paged"]["16"], e["sweep"][best]):
            copy(name)
        splits, block_kv = picks[key]
        with open(src, "w") as f:
            f.write(paged_ir(e["B"], e["Hq"], e["Hkv"], e["Lk"], e["d"], 16))
        name, err = compile_one(a.attn_opt, src, a.out,
                                "kv-splits=%d block-kv=%d" % (splits, block_kv))
        if err:
            print(err)
            return 1
        entry["sweep"]["pick splits=%d,bkv=%d" % (splits, block_kv)] = name
        out_index.append(entry)
    os.remove(src)
    with open(os.path.join(a.out, "index.json"), "w") as f:
        json.dump(out_index, f, indent=1)
    print("%d shapes in %s" % (len(out_index), a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Merges two kernel sets of bench/gen_prefill_sweep.py, compiled from the
same shapes and options by two builds of attn-opt (A: before a change, B:
after it), into one set that bench/prefill_sweep.py times side by side:
B's kernels are renamed with a suffix (entry point in the PTX, names in the
manifest) and each of A's swept configurations `key` gets a twin
`key build=B`. Only the configurations whose key contains --filter are kept.
Decode sets (bench/gen_decode_kernels.py) merge likewise: A's pick of each
shape, and B's as its sweep point `build=B`.

    python3 bench/ab_merge.py --a DIR_A --b DIR_B --out DIR [--filter overlap-pv=on]
"""
import argparse
import json
import os
import shutil


def rename(src_dir, name, suffix, out_dir, patch=lambda ptx: ptx):
    """Copies kernel `name` (PTX and manifest) from src_dir to out_dir as
    name + suffix, its PTX passed through `patch` first."""
    new = name + suffix
    with open(os.path.join(src_dir, name + ".ptx")) as f:
        ptx = patch(f.read())
    with open(os.path.join(out_dir, new + ".ptx"), "w") as f:
        f.write(ptx.replace(name, new))
    with open(os.path.join(src_dir, name + ".json")) as f:
        manifest = f.read()
    with open(os.path.join(out_dir, new + ".json"), "w") as f:
        f.write(manifest.replace(name, new))
    return new


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--a", required=True)
    ap.add_argument("--b", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--filter", default="")
    ap.add_argument("--suffix", default="_b")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.a, "index.json")) as f:
        index_a = json.load(f)
    with open(os.path.join(a.b, "index.json")) as f:
        index_b = json.load(f)
    if index_a and "kernel" in index_a[0]:
        merged = merge_decode(a, index_a)
    else:
        merged = merge_prefill(a, index_a, index_b)
    with open(os.path.join(a.out, "index.json"), "w") as f:
        json.dump(merged, f, indent=1)


def merge_decode(a, index_a):
    """bench/gen_decode_kernels.py sets: each shape's pick from A stays the
    pick, B's pick of the same shape is timed beside it as sweep point
    `build=B` (decode_bench.py times a shape's sweep in the same pass)."""
    with open(os.path.join(a.b, "index.json")) as f:
        index_b = {(e["B"], e["Hq"], e["Hkv"], e["Lk"], e["d"]): e for e in json.load(f)}
    merged = []
    for entry in index_a:
        twin = index_b[(entry["B"], entry["Hq"], entry["Hkv"], entry["Lk"], entry["d"])]
        for ext in (".ptx", ".json"):
            shutil.copy(os.path.join(a.a, entry["kernel"] + ext), a.out)
        sweep = {"build=B": rename(a.b, twin["kernel"], a.suffix, a.out)}
        merged.append(dict(entry, sweep=sweep))
    print("%d shapes, %d kernels" % (len(merged), 2 * len(merged)))
    return merged


def merge_prefill(a, index_a, index_b):
    index_b = {e["name"]: e for e in index_b}
    merged = []
    for entry in index_a:
        twin = index_b[entry["name"]]
        configs = {}
        for key, name in entry["configs"].items():
            if a.filter not in key or key not in twin["configs"]:
                continue
            for ext in (".ptx", ".json"):
                shutil.copy(os.path.join(a.a, name + ext), a.out)
            configs[key] = name
            configs[key + " build=B"] = rename(a.b, twin["configs"][key], a.suffix, a.out)
        for ext in (".ptx", ".json"):
            shutil.copy(os.path.join(a.a, entry["pick"] + ext), a.out)
        merged.append(dict(entry, configs=configs, refused={}))
    print("%d shapes, %d kernels" % (len(merged), sum(len(e["configs"]) for e in merged)))
    return merged


if __name__ == "__main__":
    main()

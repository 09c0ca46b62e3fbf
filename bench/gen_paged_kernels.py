#!/usr/bin/env python3
"""Compiles the paged-KV decode benchmark (issue 14) with attn-opt (here,
no GPU needed): for each decode shape, the contiguous kernel and the paged
kernels (attn.paged_attention) at page sizes 16 and 128, each the chooser's.

    python3 bench/gen_paged_kernels.py --out bench/kernels_paged
    # on the GPU machine:
    python3 bench/paged_bench.py --kernels bench/kernels_paged --out $OUT

Grid: B in {1, 8, 64}, Lk in {4k, 16k, 128k}, (Hq, Hkv) in {(64, 8),
(32, 8), (32, 32)}, d = 128, bf16, Lq = 1; the pool holds exactly B·Lk/S
pages and the block table Lk/S entries per sequence. index.json lists them.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_decode_kernels import (SWEEP, TILES, add_options_argument, compile_one,  # noqa: E402
                                decode_ir, write_index)  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PAGE_SIZES = (16, 128)


def contiguous_causal_ir(B, Hq, Hkv, Lq, Lk, d, dtype="bf16"):
    """Chunked prefill over contiguous K/V: Lq queries, the sequence's last."""
    q = "tensor<%dx%dx%dx%dx%s>" % (B, Hq, Lq, d, dtype)
    kv = "tensor<%dx%dx%dx%dx%s>" % (B, Hkv, Lk, d, dtype)
    return ("func.func @chunk(%%q: %s, %%k: %s, %%v: %s) -> %s {\n"
            "  %%o = attn.attention %%q, %%k, %%v scale(%r) causal(bottom_right)"
            " : %s, %s, %s -> %s\n"
            "  return %%o : %s\n}\n" % (q, kv, kv, q, d ** -0.5, q, kv, kv, q, q))


def paged_ir(B, Hq, Hkv, Lk, d, page_size, dtype="bf16", Lq=1):
    pages, per_seq = B * Lk // page_size, Lk // page_size
    q = "tensor<%dx%dx%dx%dx%s>" % (B, Hq, Lq, d, dtype)
    kv = "tensor<%dx%dx%dx%dx%s>" % (pages, page_size, Hkv, d, dtype)
    table, lens = "tensor<%dx%dxi32>" % (B, per_seq), "tensor<%dxi32>" % B
    return ("func.func @decode(%%q: %s, %%k: %s, %%v: %s, %%t: %s, %%l: %s) -> %s {\n"
            "  %%o = attn.paged_attention %%q, %%k, %%v pages(%%t, %%l) scale(%r)"
            " causal(bottom_right) : %s, %s, %s, %s, %s -> %s\n"
            "  return %%o : %s\n}\n" % (q, kv, kv, table, lens, q, d ** -0.5,
                                       q, kv, kv, table, lens, q, q))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attn-opt", default=os.path.join(HERE, "..", "build", "bin", "attn-opt"))
    ap.add_argument("--out", default=os.path.join(HERE, "kernels_paged"))
    ap.add_argument("--batches", default="1,8,64")
    ap.add_argument("--lengths", default="4096,16384,131072")
    ap.add_argument("--sweep", action="store_true",
                    help="also compile, for 16-token pages, every split count of SWEEP[B] "
                         "with every (block-kv, kv-warps) of TILES (the chooser's stages), "
                         "to check its pick")
    ap.add_argument("--neighbours", action="store_true",
                    help="also compile, for each page size, the row-copy kernel the chooser "
                         "takes with kv-loads=cp.async (the picks before v42) and, for "
                         "16-token pages, the chooser's pick at half and twice its split "
                         "count and at the other 64- and 128-key tiles")
    ap.add_argument("--prefill", action="store_true",
                    help="chunked prefill instead: a few Lq > 1 shapes, causal bottom-right "
                         "(the wgmma kernels on sm_90a), for correctness")
    add_options_argument(ap)
    a = ap.parse_args()
    if a.prefill:
        return prefill(a)
    os.makedirs(a.out, exist_ok=True)
    src = os.path.join(a.out, "src.mlir")
    index = []
    for B in (int(x) for x in a.batches.split(",")):
        for Lk in (int(x) for x in a.lengths.split(",")):
            for Hq, Hkv in ((64, 8), (32, 8), (32, 32)):
                entry = dict(B=B, Hq=Hq, Hkv=Hkv, Lk=Lk, d=128, paged={})
                with open(src, "w") as f:
                    f.write(decode_ir(B, Hq, Hkv, Lk, 128))
                entry["contiguous"], err = compile_one(a.attn_opt, src, a.out, "")
                for S in PAGE_SIZES:
                    if err:
                        break
                    with open(src, "w") as f:
                        f.write(paged_ir(B, Hq, Hkv, Lk, 128, S))
                    entry["paged"][str(S)], err = compile_one(a.attn_opt, src, a.out, "")
                if a.neighbours and not err:
                    entry["sweeps"] = neighbours(a, src, B, Hq, Hkv, Lk, entry["paged"])
                if a.sweep and not err:
                    entry["sweep"] = {}
                    with open(src, "w") as f:
                        f.write(paged_ir(B, Hq, Hkv, Lk, 128, 16))
                    for splits in SWEEP.get(B, SWEEP[1]):
                        for bkv, warps in TILES:
                            label = "splits=%d,bkv=%d,warps=%d" % (splits, bkv, warps)
                            name, _ = compile_one(
                                a.attn_opt, src, a.out,
                                "kv-splits=%d block-kv=%d kv-warps=%d" % (splits, bkv, warps))
                            if name:
                                entry["sweep"][label] = name
                if err:
                    print(err)
                    return 1
                index.append(entry)
                print(entry, flush=True)
    write_index(a.out, index)
    return 0


def neighbours(a, src, B, Hq, Hkv, Lk, picks):
    """{page size: {label: kernel}}: the row-copy pick of each page size and,
    for 16-token pages, the chooser's pick's neighbours (split count halved
    and doubled; the other 64- and 128-key tiles at its split count)."""
    sweeps = {}
    for S, pick in picks.items():
        with open(src, "w") as f:
            f.write(paged_ir(B, Hq, Hkv, Lk, 128, int(S)))
        with open(os.path.join(a.out, pick + ".json")) as f:
            m = json.load(f)
        splits, bkv, warps = m["kv_splits"], m["block_kv"], m["kv_warps"]
        variants = {"rows (kv-loads=cp.async)": "kv-loads=cp.async"}
        if S == "16":
            for other in sorted({max(1, splits // 2), splits * 2} - {splits}):
                variants["splits=%d,bkv=%d,warps=%d" % (other, bkv, warps)] = (
                    "kv-splits=%d block-kv=%d kv-warps=%d" % (other, bkv, warps))
            for tb, tw in ((64, 2), (64, 4), (128, 4), (128, 8)):
                if (tb, tw) != (bkv, warps):
                    variants["splits=%d,bkv=%d,warps=%d" % (splits, tb, tw)] = (
                        "kv-splits=%d block-kv=%d kv-warps=%d" % (splits, tb, tw))
        sweeps[S] = {}
        for label, options in variants.items():
            name, _ = compile_one(a.attn_opt, src, a.out, options)
            if name:
                sweeps[S][label] = name
    return sweeps


def prefill(a):
    os.makedirs(a.out, exist_ok=True)
    src = os.path.join(a.out, "src.mlir")
    index = []
    # The chooser's kernels (wgmma on sm_90a), and mma.sync for one shape.
    for B, Hq, Hkv, Lq, Lk, d, options in ((2, 16, 4, 256, 4096, 128, ""),
                                           (3, 8, 8, 100, 1024, 64, ""),
                                           (2, 16, 4, 256, 4096, 128, "mma=mma.sync")):
        entry = dict(B=B, Hq=Hq, Hkv=Hkv, Lq=Lq, Lk=Lk, d=d, options=options, paged={})
        with open(src, "w") as f:
            f.write(contiguous_causal_ir(B, Hq, Hkv, Lq, Lk, d))
        entry["contiguous"], err = compile_one(a.attn_opt, src, a.out, options)
        for S in PAGE_SIZES:
            if err:
                break
            with open(src, "w") as f:
                f.write(paged_ir(B, Hq, Hkv, Lk, d, S, Lq=Lq))
            entry["paged"][str(S)], err = compile_one(a.attn_opt, src, a.out, options)
        if err:
            print(err)
            return 1
        index.append(entry)
        print(entry, flush=True)
    write_index(a.out, index)
    return 0


if __name__ == "__main__":
    sys.exit(main())

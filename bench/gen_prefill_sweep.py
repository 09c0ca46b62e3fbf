#!/usr/bin/env python3
"""Compiles the prefill chooser-vs-sweep set (issue 16; here, no GPU): for
every shape, the kernel the config chooser picks (no tile options, sm_90a)
and every legal configuration of a sweep over both tensor-core families:

  wgmma:    block_q {64, 128} x block_kv {64, 128} x kv_stages {2, 3}
  mma.sync: block_q {64, 128} x rows_per_warp {16, 32} x block_kv {64, 128}
            x kv_stages {2, 3}

With --kv-loads, the sweep is instead the wgmma configurations, each with
K/V filled by cp.async and by TMA (kv-loads=cp.async / tma), and the pick
as chosen (v28: TMA against cp.async, tile for tile). With --producer,
the wgmma configurations of 128-row CTAs, each with TMA issued by a
computing thread and by a producer warpgroup (kv-loads=tma /
tma-producer), and the pick as chosen (v29: warp specialization). With
--overlap, the same configurations with a producer warpgroup, each with
and without the P·V overlapped with the next tile's softmax (overlap-pv=
off / on; v29b). With --full, the tile sweep, the producer kernels without
the overlap, and those with it each with and without persistent CTAs
(persistent=off / on; v34): every configuration the chooser picks among.

Configurations the lowering refuses (illegal for the shape) are skipped and
listed. Shapes: issue 16's grid (B*N = 16k tokens, H*d = 2048, d in {64,
128}) and ten others (GQA, cross-attention Lq != Lk, odd lengths, f16).

    python3 bench/gen_prefill_sweep.py --out bench/kernels_prefill_sweep
    # on the GPU machine
    python3 bench/prefill_sweep.py --kernels bench/kernels_prefill_sweep --out $OUT
"""
import argparse
import importlib.util
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# (name, dtype, B, Hq, Hkv, Lq, Lk, d, causal)
GRID = [("d64-1k", "bf16", 16, 32, 32, 1024, 1024, 64, False),
        ("d64-4k", "bf16", 4, 32, 32, 4096, 4096, 64, False),
        ("d64-4k-causal", "bf16", 4, 32, 32, 4096, 4096, 64, True),
        ("d64-16k", "bf16", 1, 32, 32, 16384, 16384, 64, False),
        ("d128-1k", "bf16", 16, 16, 16, 1024, 1024, 128, False),
        ("d128-1k-causal", "bf16", 16, 16, 16, 1024, 1024, 128, True),
        ("d128-4k", "bf16", 4, 16, 16, 4096, 4096, 128, False),
        ("d128-4k-causal", "bf16", 4, 16, 16, 4096, 4096, 128, True),
        ("d128-8k", "bf16", 2, 16, 16, 8192, 8192, 128, False),
        ("d128-16k", "bf16", 1, 16, 16, 16384, 16384, 128, False),
        ("d128-16k-causal", "bf16", 1, 16, 16, 16384, 16384, 128, True)]
OTHERS = [("gqa-d128-4k", "bf16", 4, 16, 4, 4096, 4096, 128, False),
          ("gqa-d128-4k-causal", "bf16", 4, 16, 4, 4096, 4096, 128, True),
          ("cross-d128-1kx8k", "bf16", 2, 16, 16, 1024, 8192, 128, False),
          ("cross-d64-4kx512", "bf16", 4, 32, 32, 4096, 512, 64, False),
          ("odd-d128-3000-causal", "bf16", 5, 16, 16, 3000, 3000, 128, True),
          ("odd-d64-1999", "bf16", 8, 32, 32, 1999, 1999, 64, False),
          ("f16-d128-4k", "f16", 4, 16, 16, 4096, 4096, 128, False),
          ("f16-d64-8k-causal", "f16", 2, 32, 32, 8192, 8192, 64, True),
          ("d128-2k", "bf16", 8, 16, 16, 2048, 2048, 128, False),
          ("d128-2k-causal", "bf16", 8, 16, 16, 2048, 2048, 128, True)]

# v28d: shapes the TMA tile rules were not fitted on (head dims other than
# 64 and 128, GQA at d = 64, cross-attention with Lq < Lk, odd causal).
OUT_OF_SAMPLE = [("d96-4k-causal", "bf16", 4, 21, 21, 4096, 4096, 96, True),
                 ("d256-4k", "bf16", 4, 8, 8, 4096, 4096, 256, False),
                 ("d32-4k-causal", "bf16", 4, 64, 64, 4096, 4096, 32, True),
                 ("gqa-d64-8k", "bf16", 2, 32, 8, 8192, 8192, 64, False),
                 ("f16-d80-2k-causal", "f16", 8, 25, 25, 2048, 2048, 80, True),
                 ("cross-d128-512x4k", "bf16", 8, 16, 16, 512, 4096, 128, False),
                 ("odd-d64-3001-causal", "bf16", 5, 32, 32, 3001, 3001, 64, True),
                 ("d192v128-8k", "bf16", 2, 10, 10, 8192, 8192, 192, False, 128)]

SWEEP = ([dict(mma="wgmma", block_q=bq, block_kv=bk, kv_stages=st)
          for bq, bk, st in itertools.product((64, 128), (64, 128), (2, 3))] +
         [dict(mma="mma.sync", block_q=bq, rows_per_warp=w, block_kv=bk, kv_stages=st)
          for bq, w, bk, st in itertools.product((64, 128), (16, 32), (64, 128), (2, 3))])


KV_LOADS_SWEEP = [dict(cfg, kv_loads=loads) for cfg in SWEEP if cfg["mma"] == "wgmma"
                  for loads in ("cp.async", "tma")]


PRODUCER_SWEEP = [dict(cfg, kv_loads=loads) for cfg in SWEEP
                  if cfg["mma"] == "wgmma" and cfg["block_q"] == 128
                  for loads in ("tma", "tma-producer")]


OVERLAP_SWEEP = [dict(cfg, kv_loads="tma-producer", overlap_pv=overlap) for cfg in SWEEP
                 if cfg["mma"] == "wgmma" and cfg["block_q"] == 128
                 for overlap in ("off", "on")]


# The overlapped producer kernels with and without persistent CTAs (v34:
# the chooser takes them for causal d = 128 grids whose query tiles pair).
PERSISTENT_SWEEP = [dict(cfg, persistent=persistent) for cfg in OVERLAP_SWEEP
                    if cfg["overlap_pv"] == "on" for persistent in ("off", "on")]


def _load_graph():
    """attnopt's IR builders (python-bindings/attnopt/graph.py, pure
    Python), loaded by path: the compiler library need not be built."""
    spec = importlib.util.spec_from_file_location(
        "attnopt_graph", os.path.join(HERE, "..", "python-bindings", "attnopt", "graph.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def shape_ir(dtype, B, Hq, Hkv, Lq, Lk, d, causal, dv=None):
    return _load_graph().attention(B, Hq, Lq, d, Lk=Lk, dv=dv, hkv=Hkv, dtype=dtype,
                                   causal=causal)


def compile_one(attn_opt, src, options):
    """The kernel's name (its manifest in the dump dir), or None with the
    lowering's reason when the configuration is refused."""
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run([attn_opt, src, "--attn-gpu-pipeline=strict=true %s dump-dir=%s"
                            % (options, tmp), "-o", os.devnull], capture_output=True, text=True)
        if r.returncode:
            return None, r.stderr.strip().splitlines()[0][:200] if r.stderr else "failed"
        names = [f[:-5] for f in os.listdir(tmp) if f.endswith(".json")]
        for f in os.listdir(tmp):
            shutil.copy(os.path.join(tmp, f), os.path.join(OUT, f))
        return names[0], None


def options_text(cfg):
    return " ".join("%s=%s" % (k.replace("_", "-"), v) for k, v in cfg.items())


def main():
    global OUT
    ap = argparse.ArgumentParser()
    ap.add_argument("--attn-opt", default=os.path.join(HERE, "..", "build", "bin", "attn-opt"))
    ap.add_argument("--out", default=os.path.join(HERE, "kernels_prefill_sweep"))
    ap.add_argument("--out-of-sample", action="store_true",
                    help="the OUT_OF_SAMPLE shapes instead of the grid and the others")
    ap.add_argument("--kv-loads", action="store_true",
                    help="sweep the wgmma configurations with cp.async and with TMA loads")
    ap.add_argument("--producer", action="store_true",
                    help="sweep the 128-row wgmma configurations with TMA issued by a "
                         "computing thread and by a producer warpgroup")
    ap.add_argument("--overlap", action="store_true",
                    help="sweep the producer-warpgroup configurations with and without "
                         "the overlapped P·V")
    ap.add_argument("--full", action="store_true",
                    help="the tile sweep and the producer/overlap/persistent sweep together: "
                         "every configuration the chooser picks among (the chooser's proof)")
    ap.add_argument("--pick-only", action="store_true",
                    help="one configuration per shape, the chooser's own (no options): "
                         "for ab_merge.py, which times two builds' picks side by side")
    ap.add_argument("--only", nargs="*", default=None, help="these shape names only")
    ap.add_argument("--shape", action="append", default=[],
                    help="a shape of your own, NAME:DTYPE:B:HQ:HKV:LQ:LK:D:CAUSAL (CAUSAL 0 or "
                         "1), instead of the built-in lists (repeatable)")
    ap.add_argument("--options", default="",
                    help="more --attn-gpu-pipeline options for every compile, the pick's "
                         "included (e.g. persistent=on: with --pick-only, one side of an "
                         "A/B of an option)")
    a = ap.parse_args()
    full = SWEEP + [c for c in OVERLAP_SWEEP if c["overlap_pv"] == "off"] + PERSISTENT_SWEEP
    sweep = ([{}] if a.pick_only else full if a.full else OVERLAP_SWEEP if a.overlap
             else PRODUCER_SWEEP if a.producer else KV_LOADS_SWEEP if a.kv_loads else SWEEP)
    OUT = a.out
    os.makedirs(OUT, exist_ok=True)
    index = []
    src = os.path.join(OUT, "src.mlir")
    own = []
    for text in a.shape:
        name, dtype, *dims = text.split(":")
        *extents, causal = [int(x) for x in dims]
        own.append((name, dtype, *extents, bool(causal)))
    shapes = own or (OUT_OF_SAMPLE if a.out_of_sample else GRID + OTHERS)
    for name, *shape in shapes:
        if a.only is not None and name not in a.only:
            continue
        with open(src, "w") as f:
            f.write(shape_ir(*shape))
        pick, why = compile_one(a.attn_opt, src, a.options)
        if pick is None:
            print("%s: the chooser's kernel failed: %s" % (name, why))
            return 1
        entry = dict(name=name, shape=shape, pick=pick, configs={}, refused={})
        for cfg in sweep:
            kernel, why = compile_one(a.attn_opt, src, options_text(cfg) + " " + a.options)
            key = options_text(cfg)
            if kernel:
                entry["configs"][key] = kernel
            else:
                entry["refused"][key] = why
        index.append(entry)
        print("%-22s pick %s; %d configs, %d refused" % (
            name, pick, len(entry["configs"]), len(entry["refused"])))
    if os.path.exists(src):
        os.remove(src)
    if not index:
        print("no shape selected (--only names shapes of the list in use: --shape's "
              "own when given, else the built-in ones)")
        return 1
    with open(os.path.join(OUT, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

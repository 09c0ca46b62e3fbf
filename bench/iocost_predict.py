#!/usr/bin/env python3
"""attn-opt's predictions for bench/iocost_validation.py's grid.

Runs here (it needs the attnopt module): the fused path is costed with
FlashAttention-2's own tiles (128x128 at d=64, 128x64 at d=128: the kernel
measured on the H200 is FA2's, not ours), the unfused path with the
per-op bytes of the same chain as PyTorch runs it (softmax(Q·Kᵀ)·V with the
scale on Q: S written, read, P written, read).

    PYTHONPATH=build/python python3 bench/iocost_predict.py > bench/results/iocost_predicted.json
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__)))
import attnopt  # noqa: E402
from iocost_validation import grid, name  # noqa: E402

FA2_TILES = {64: (128, 128), 128: (128, 64)}

out = {}
for cfg in grid():
    bq, bkv = FA2_TILES[cfg["d"]]
    c = attnopt.io_cost(B=cfg["B"], H=cfg["H"], Lq=cfg["N"], Lk=cfg["N"], d=cfg["d"],
                        dtype="bf16", causal=cfg["causal"], target="h200",
                        block_q=bq, block_kv=bkv)
    out[name(cfg, "fa2")] = dict(dram_bytes=c["fused_dram_bytes"],
                                 l2_bytes=c["fused_sram_l2_bytes"], flops=c["flops"],
                                 bound=c["bound_fused"], regime=c["dram_regime"])
    if cfg["unfused"]:
        out[name(cfg, "unfused")] = dict(dram_bytes=c["naive_hbm_bytes"],
                                         flops=c["flops"], bound=c["bound_naive"])
json.dump(out, sys.stdout, indent=1)

#!/usr/bin/env python3
"""Compiles the finite-fill set for bench/finite_fill_check.py (here, no
GPU): a linalg program computing softmax(select(keep, 0.125·Q·Kᵀ, fill))·V
with fill = finfo(dtype).min and a [Lq, Lk] keep mask (HuggingFace's
masked_fill), in f16, bf16 and f32, through --attn-gpu-pipeline for sm_90a.
attn-detect keeps the select in the score_mod region (the exact logits).

    python3 bench/gen_finite_fill.py --out bench/kernels_finite_fill [--attn-opt A]
"""
import argparse
import os
import subprocess
import tempfile

FILL = {"f16": "-65504.0", "bf16": "-3.38953139E+38", "f32": "-3.40282347E+38"}

PROGRAM = """
#id = affine_map<(b, i, j) -> (b, i, j)>
#m2 = affine_map<(b, i, j) -> (i, j)>
#mq = affine_map<(b, i, j, k) -> (b, i, k)>
#mk = affine_map<(b, i, j, k) -> (b, j, k)>
#ms = affine_map<(b, i, j, k) -> (b, i, j)>
func.func @finite_fill(%q: tensor<{BH}x{L}x{D}x{T}>, %k: tensor<{BH}x{L}x{D}x{T}>, %v: tensor<{BH}x{L}x{D}x{T}>, %keep: tensor<{L}x{L}xi1>) -> tensor<{BH}x{L}x{D}x{T}> {{
  %z = arith.constant 0.0 : {T}
  %sc = arith.constant 0.125 : {T}
  %e = tensor.empty() : tensor<{BH}x{L}x{L}x{T}>
  %acc = linalg.fill ins(%z : {T}) outs(%e : tensor<{BH}x{L}x{L}x{T}>) -> tensor<{BH}x{L}x{L}x{T}>
  %s = linalg.batch_matmul indexing_maps = [#mq, #mk, #ms] ins(%q, %k : tensor<{BH}x{L}x{D}x{T}>, tensor<{BH}x{L}x{D}x{T}>) outs(%acc : tensor<{BH}x{L}x{L}x{T}>) -> tensor<{BH}x{L}x{L}x{T}>
  %x = linalg.generic {{indexing_maps = [#id, #m2, #id], iterator_types = ["parallel", "parallel", "parallel"]}}
      ins(%s, %keep : tensor<{BH}x{L}x{L}x{T}>, tensor<{L}x{L}xi1>) outs(%e : tensor<{BH}x{L}x{L}x{T}>) {{
  ^bb0(%a: {T}, %c: i1, %o: {T}):
    %fill = arith.constant {FILL} : {T}
    %as = arith.mulf %a, %sc : {T}
    %y = arith.select %c, %as, %fill : {T}
    linalg.yield %y : {T}
  }} -> tensor<{BH}x{L}x{L}x{T}>
  %p = linalg.softmax dimension(2) ins(%x : tensor<{BH}x{L}x{L}x{T}>) outs(%e : tensor<{BH}x{L}x{L}x{T}>) -> tensor<{BH}x{L}x{L}x{T}>
  %eo = tensor.empty() : tensor<{BH}x{L}x{D}x{T}>
  %oacc = linalg.fill ins(%z : {T}) outs(%eo : tensor<{BH}x{L}x{D}x{T}>) -> tensor<{BH}x{L}x{D}x{T}>
  %o = linalg.batch_matmul ins(%p, %v : tensor<{BH}x{L}x{L}x{T}>, tensor<{BH}x{L}x{D}x{T}>) outs(%oacc : tensor<{BH}x{L}x{D}x{T}>) -> tensor<{BH}x{L}x{D}x{T}>
  return %o : tensor<{BH}x{L}x{D}x{T}>
}}
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--attn-opt", default=os.path.join(os.path.dirname(__file__), "..", "build", "bin", "attn-opt"))
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    shapes = [(8, 256, 64), (4, 300, 128)]  # (B·H, L, d): whole and partial tiles
    with tempfile.TemporaryDirectory() as tmp:
        for t in FILL:
            for bh, length, d in shapes:
                src = os.path.join(tmp, "p.mlir")
                with open(src, "w") as f:
                    f.write(PROGRAM.format(BH=bh, L=length, D=d, T=t, FILL=FILL[t]))
                subprocess.run([a.attn_opt, src, "--attn-gpu-pipeline=dump-dir=" + a.out, "-o", os.devnull],
                               check=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

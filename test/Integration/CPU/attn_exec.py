#!/usr/bin/env python3
"""Runs one attention problem through attn-opt's CPU pipeline, fused and
unfused, and checks the numerics contract against an fp64 reference.

The generated module has three functions:
  @fused   - one attn.attention (the pipeline rewrites it with --attn-fuse),
  @unfused - the same math as attn graph primitives (matmul, scale, mask,
             softmax, matmul), each materializing its Lq x Lk tensor,
  @main    - random inputs (numpy, fixed seed) as constants; prints both.

Checks (f32):
  * fused vs unfused: max |f - u| / max |u| <= --tol (1e-5 by default);
  * fused error vs fp64 <= 2x the unfused error vs fp64 (the contract);
  * no NaN/inf in the fused output where the fp64 reference has none;
  * fully masked rows of the fused output are exactly 0 (the unfused
    softmax gives NaN there, as PyTorch's math backend does).
"""
import argparse
import re
import subprocess
import sys
import tempfile

import numpy as np


def dense(a):
    """An elements literal: exact hex bytes for floats and (as i32)
    integers, nested lists for i1."""
    if a.dtype == np.bool_:
        def nest(x):
            if x.ndim == 0:
                return "true" if x else "false"
            return "[" + ", ".join(nest(y) for y in x) + "]"
        return "dense<%s>" % nest(a)
    if np.issubdtype(a.dtype, np.integer):  # as i32
        return 'dense<"0x%s">' % a.astype("<i4").tobytes().hex().upper()
    return 'dense<"0x%s">' % a.astype("<f4").tobytes().hex().upper()


def mlir_float(x):
    """A float literal MLIR parses back to the same double: MLIR's lexer needs
    a '.' ('%.17g' gives '1' for d=1, which is an integer literal)."""
    mantissa, e, exponent = repr(float(x)).partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + e + exponent


def ttype(shape, elt="f32"):
    return "tensor<%sx%s>" % ("x".join(str(s) for s in shape), elt)


def fused_and_unfused(suffix, qkv_types, kv_repeated_types, st, ot, mt, mask_kind,
                      causal, scale, rank):
    """@fused<suffix> (one attn.attention) and @unfused<suffix> (the same
    math as attn graph primitives: matmul, scale, masks, softmax, matmul,
    each materializing its Lq x Lk tensor), as lines of IR. The unfused
    function takes K/V already repeated up to the query heads (GQA)."""
    qt, kt, vt = qkv_types
    ket, vet = kv_repeated_types
    margs = ", %%m: %s" % mt if mt else ""
    causal_attr = " causal(%s)" % causal if causal != "none" else ""
    mask_operand = " mask(%%m : %s)" % mt if mt else ""
    ir = ["func.func @fused%s(%%q: %s, %%k: %s, %%v: %s%s) -> %s {" % (suffix, qt, kt, vt, margs, ot),
          "  %%o = attn.attention %%q, %%k, %%v%s scale(%s)%s : %s, %s, %s -> %s"
          % (mask_operand, mlir_float(scale), causal_attr, qt, kt, vt, ot),
          "  return %%o : %s\n}" % ot,
          "func.func @unfused%s(%%q: %s, %%k: %s, %%v: %s%s) -> %s {" % (suffix, qt, ket, vet, margs, ot),
          "  %%s = attn.matmul %%q, %%k transpose_rhs : %s, %s -> %s" % (qt, ket, st),
          "  %%s1 = attn.scale %%s by %s : %s" % (mlir_float(scale), st)]
    last = "%s1"
    if mt:
        ir.append("  %%s2 = attn.mask %s %s, %%m : %s : %s" % (mask_kind, last, mt, st))
        last = "%s2"
    if causal != "none":
        ir.append("  %%s3 = attn.mask causal %s align %s : %s" % (last, causal, st))
        last = "%s3"
    ir += ["  %%p = attn.softmax %s dim %d : %s" % (last, rank - 1, st),
           "  %%o = attn.matmul %%p, %%v : %s, %s -> %s" % (st, vet, ot),
           "  return %%o : %s\n}" % ot]
    return ir


def reference(q, k, v, mask, mask_kind, causal, scale):
    """fp64 attention; fully masked rows give 0 (the attn.attention contract)."""
    q, k, v = q.astype(np.float64), k.astype(np.float64), v.astype(np.float64)
    s = np.matmul(q, np.swapaxes(k, -1, -2)) * scale
    if mask_kind == "additive":
        s = s + mask.astype(np.float64)
    elif mask_kind == "keep":
        s = np.where(mask, s, -np.inf)
    lq, lk = s.shape[-2], s.shape[-1]
    if causal != "none":
        shift = lk - lq if causal == "bottom_right" else 0
        i = np.arange(lq)[:, None]
        j = np.arange(lk)[None, :]
        s = np.where(j > i + shift, -np.inf, s)
    m = s.max(axis=-1, keepdims=True)
    dead = np.isneginf(m)
    p = np.exp(s - np.where(dead, 0.0, m))
    l = p.sum(axis=-1, keepdims=True)
    out = np.matmul(p, v) / np.where(l == 0, 1.0, l)
    return np.where(dead, 0.0, out), dead[..., 0]


def exec_arguments(description):
    """The arguments every execution checker takes: the tools and a seed."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--attn-opt", required=True)
    ap.add_argument("--runner", required=True)
    ap.add_argument("--shared-libs", required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--pipeline-options", default="")
    return ap


def int_literal(a):
    """An elements literal for an integer array (block tables, lengths)."""
    return "dense<%s>" % np.array2string(a, separator=", ").replace("\n", "")


def single_op_module(func, op, operands, result_type, op_operands=None):
    """A module whose @<func> holds one attn op, and whose @main calls it on
    constant operands and prints the result with printMemrefF32.
    `operands` are (name, elements literal, type); `op` is the op's text up
    to its types, naming the operands as %<name>; `op_operands` is how many
    of them the op takes as operands (its type list), default all."""
    types = ", ".join(t for _, _, t in operands)
    op_types = ", ".join(t for _, _, t in operands[:op_operands])
    memref_t = result_type.replace("tensor", "memref")
    lines = ["func.func private @printMemrefF32(memref<*xf32>)",
             "func.func @%s(%s) -> %s {" % (func, ", ".join("%%%s: %s" % (n, t) for n, _, t in operands),
                                           result_type),
             "  %%o = %s : %s -> %s" % (op, op_types, result_type),
             "  return %%o : %s" % result_type, "}",
             "func.func @main() {"]
    lines += ["  %%%s = arith.constant %s : %s" % (n, lit, t) for n, lit, t in operands]
    lines += ["  %%o = call @%s(%s) : (%s) -> %s" % (func, ", ".join("%" + n for n, _, _ in operands),
                                                     types, result_type),
              "  %%ob = bufferization.to_buffer %%o : %s to %s" % (result_type, memref_t),
              "  %%oc = memref.cast %%ob : %s to memref<*xf32>" % memref_t,
              "  call @printMemrefF32(%oc) : (memref<*xf32>) -> ()",
              "  return", "}"]
    return "\n".join(lines) + "\n"


def lower_and_run(attn_opt, runner, shared_libs, module, flag):
    """`module` through attn-opt `flag`, then mlir-runner's @main: (printed
    output, attn-opt's stderr), or (None, why) after printing the failure."""
    with tempfile.NamedTemporaryFile("w", suffix=".mlir") as src:
        src.write(module)
        src.flush()
        lowered = subprocess.run([attn_opt, src.name, flag], capture_output=True, text=True)
        if lowered.returncode:
            print(lowered.stderr[:4000] + "\nFAIL: attn-opt failed")
            return None, lowered.stderr
        done = subprocess.run([runner, "-e", "main", "-entry-point-result=void",
                               "-shared-libs=" + shared_libs],
                              input=lowered.stdout, capture_output=True, text=True)
        if done.returncode:
            print(done.stderr[:4000] + "\nFAIL: mlir-runner failed")
            return None, lowered.stderr
    return done.stdout, lowered.stderr


def parse_memrefs(text):
    """Numbers of each printMemrefF32 block, in order."""
    blocks = text.split("Unranked Memref")[1:]
    out = []
    for b in blocks:
        data = b.split("data =", 1)[1]
        nums = re.findall(r"-?nan|-?inf|[-+]?\d+\.?\d*(?:[eE][-+]?\d+)?", data)
        out.append(np.array([float(x) for x in nums], dtype=np.float64))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--attn-opt", required=True)
    ap.add_argument("--runner", required=True)
    ap.add_argument("--shared-libs", required=True)
    ap.add_argument("--rank", type=int, default=4)
    ap.add_argument("--B", type=int, default=1)
    ap.add_argument("--H", type=int, default=2)
    ap.add_argument("--Hkv", type=int, default=0)
    ap.add_argument("--Lq", type=int, default=32)
    ap.add_argument("--Lk", type=int, default=0)
    ap.add_argument("--d", type=int, default=16)
    ap.add_argument("--dv", type=int, default=0)
    ap.add_argument("--causal", default="none",
                    choices=["none", "top_left", "bottom_right"])
    ap.add_argument("--mask", default="none",
                    choices=["none", "additive", "keep", "dead-row"])
    ap.add_argument("--logit-scale", type=float, default=1.0,
                    help="multiplies Q so that scores reach this magnitude")
    ap.add_argument("--pipeline", choices=("cpu", "gpu"), default="cpu",
                    help="gpu: --attn-gpu-pipeline, for attentions its "
                         "kernels refuse (they stay unfused and run on the "
                         "host, so mlir-runner can run the result)")
    ap.add_argument("--pipeline-options", default=None,
                    help="default: block-q=16 block-kv=16 (cpu), none (gpu)")
    ap.add_argument("--tol", type=float, default=1e-5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--keep-ir", help="write the generated module here")
    a = ap.parse_args()
    hkv = a.Hkv or a.H
    lk = a.Lk or a.Lq
    dv = a.dv or a.d
    rng = np.random.default_rng(a.seed)

    lead_q = {2: [], 3: [a.H], 4: [a.B, a.H]}[a.rank]
    lead_kv = {2: [], 3: [hkv], 4: [a.B, hkv]}[a.rank]
    group = a.H // hkv
    q = rng.standard_normal(lead_q + [a.Lq, a.d]).astype(np.float32)
    k = rng.standard_normal(lead_kv + [lk, a.d]).astype(np.float32)
    v = rng.standard_normal(lead_kv + [lk, dv]).astype(np.float32)
    scale = 1.0 / np.sqrt(a.d)
    if a.logit_scale != 1.0:
        # Scores have std ~ sqrt(d)·scale = 1; lift them to ±logit_scale.
        q = (q * a.logit_scale).astype(np.float32)
    # GQA: the unfused graph gets K/V repeated up to H heads.
    if a.rank > 2 and group > 1:
        ke, ve = np.repeat(k, group, axis=-3), np.repeat(v, group, axis=-3)
    else:
        ke, ve = k, v

    mask_kind = {"none": "none", "additive": "additive", "keep": "keep",
                 "dead-row": "keep"}[a.mask]
    mask = None
    if a.mask == "additive":
        # Broadcast over batch and heads: [1, 1, Lq, Lk].
        mask = rng.uniform(-3.0, 0.0, [1] * (a.rank - 2) + [a.Lq, lk]).astype(np.float32)
    elif a.mask in ("keep", "dead-row"):
        mask = rng.uniform(size=lead_q + [a.Lq, lk]) < 0.8
        mask[..., 0] = True  # keep one key per row
        if a.mask == "dead-row":
            mask[..., 3, :] = False  # query row 3 sees nothing

    qt, kt, vt = ttype(q.shape), ttype(k.shape), ttype(v.shape)
    ket, vet = ttype(ke.shape), ttype(ve.shape)
    ot = ttype(lead_q + [a.Lq, dv])
    st = ttype(lead_q + [a.Lq, lk])
    mt = ttype(mask.shape, "i1" if mask_kind == "keep" else "f32") if mask is not None else None
    mpass = ", %m" if mask is not None else ""

    ir = ["func.func private @printMemrefF32(memref<*xf32>)"]
    ir += fused_and_unfused("", (qt, kt, vt), (ket, vet), st, ot, mt, mask_kind,
                            a.causal, scale, a.rank)
    ir.append("func.func @main() {")
    ir.append("  %%q = arith.constant %s : %s" % (dense(q), qt))
    ir.append("  %%k = arith.constant %s : %s" % (dense(k), kt))
    ir.append("  %%v = arith.constant %s : %s" % (dense(v), vt))
    ir.append("  %%ke = arith.constant %s : %s" % (dense(ke), ket))
    ir.append("  %%ve = arith.constant %s : %s" % (dense(ve), vet))
    if mask is not None:
        ir.append("  %%m = arith.constant %s : %s" % (dense(mask), mt))
    ir.append("  %%f = call @fused(%%q, %%k, %%v%s) : (%s, %s, %s%s) -> %s"
              % (mpass, qt, kt, vt, ", " + mt if mt else "", ot))
    ir.append("  %%u = call @unfused(%%q, %%ke, %%ve%s) : (%s, %s, %s%s) -> %s"
              % (mpass, qt, ket, vet, ", " + mt if mt else "", ot))
    memref_t = ot.replace("tensor", "memref")
    for name in ("f", "u"):
        ir.append("  %%%sb = bufferization.to_buffer %%%s : %s to %s" % (name, name, ot, memref_t))
        ir.append("  %%%sc = memref.cast %%%sb : %s to memref<*xf32>" % (name, name, memref_t))
        ir.append("  call @printMemrefF32(%%%sc) : (memref<*xf32>) -> ()" % name)
    ir.append("  return\n}")
    module = "\n".join(ir) + "\n"
    if a.keep_ir:
        with open(a.keep_ir, "w") as f:
            f.write(module)

    with tempfile.NamedTemporaryFile("w", suffix=".mlir") as src:
        src.write(module)
        src.flush()
        # detect=false: @unfused must run as written. With detection on it
        # would be raised and fused too, and the comparison would be moot.
        if a.pipeline == "cpu":
            extra = "block-q=16 block-kv=16" if a.pipeline_options is None else a.pipeline_options
            flag = "--attn-cpu-pipeline=" + ("detect=false " + extra).strip()
        else:
            # The GPU pipeline always detects; @unfused is raised too, and
            # both then take the host's fallback (a warning each).
            flag = "--attn-gpu-pipeline" + ("=" + a.pipeline_options if a.pipeline_options else "")
        lowered = subprocess.run([a.attn_opt, src.name, flag],
                                 capture_output=True, text=True)
        if a.pipeline == "gpu" and "stays unfused" not in lowered.stderr:
            print(lowered.stderr[:4000])
            print("FAIL: the GPU pipeline did not report the fallback")
            return 1
        if lowered.returncode != 0:
            print(lowered.stderr[:4000])
            print("FAIL: attn-opt failed")
            return 1
        run = subprocess.run(
            [a.runner, "-e", "main", "-entry-point-result=void",
             "-shared-libs=" + a.shared_libs],
            input=lowered.stdout, capture_output=True, text=True)
        if run.returncode != 0:
            print(run.stderr[:4000])
            print("FAIL: mlir-runner failed")
            return 1
    fused, unfused = parse_memrefs(run.stdout)
    ref, dead = reference(q, ke, ve, mask, mask_kind, a.causal, scale)
    ref = ref.reshape(-1)
    live = ~np.repeat(dead.reshape(-1), dv)
    ok = True

    def rel(x, y):
        return np.max(np.abs(x - y)) / max(np.max(np.abs(y)), 1e-30)

    if not np.all(np.isfinite(fused)):
        print("FAIL: fused output has NaN/inf")
        ok = False
    fused_vs_unfused = rel(fused[live], unfused[live])
    err_fused = rel(fused, ref)
    err_unfused = rel(unfused[live], ref[live])
    print("fused-vs-unfused %.3e  fused-vs-fp64 %.3e  unfused-vs-fp64 %.3e"
          % (fused_vs_unfused, err_fused, err_unfused))
    if not fused_vs_unfused <= a.tol:
        print("FAIL: fused differs from unfused by more than %g" % a.tol)
        ok = False
    # The contract: at most 2x the unfused error; 1e-7 absorbs the case where
    # the unfused result happens to round exactly.
    if not err_fused <= 2 * err_unfused + 1e-7:
        print("FAIL: numerics contract (fused error > 2x unfused error vs fp64)")
        ok = False
    if dead.any():
        dead_vals = fused[~live]
        if not np.all(dead_vals == 0.0):
            print("FAIL: fully masked rows are not 0")
            ok = False
        print("fully-masked rows: %d, all zero" % dead.sum())
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Property test of --attn-detect: generates equivalent spellings of
softmax(Q·Kᵀ·s + mask)·V along independent axes, plus look-alikes that must
not be raised, and checks each for

  * the detection count (1 for a spelling, 0 for a look-alike), and
  * semantics: the module lowered by --attn-cpu-pipeline with detect=true
    against the same module with detect=false (no attn op is created then,
    so that lowering is upstream MLIR's), executed with mlir-runner on the
    same random inputs, compared numerically.

Many functions share one module, so a few attn-opt and mlir-runner
invocations cover hundreds of combinations.

    detect_spellings.py --attn-opt ... --runner ... --shared-libs ... \
        --cases 500 --seed 1           # CI
    detect_spellings.py ... --cases 10000 --seed 2 --report misses.txt
"""
import argparse
import collections
import random
import re
import subprocess
import sys
import tempfile

import numpy as np

# Axes. Each combination is one spelling; `LOOKALIKES` replaces the chain's
# meaning while keeping its shape, and must not be raised.
AXES = collections.OrderedDict([
    ("rank", ["2d", "3d", "4d", "4d_bshd"]),
    ("matmul", ["named_tgeneric", "named_transpose", "named_pre", "named_maps", "generic"]),
    ("scale", ["none", "mul_s", "div_s", "mul_q", "split_qk"]),
    ("mask", ["none", "add_arg", "add_bcast_c0", "add_bcast_op", "keep_i1", "drop_i1",
              "causal_index", "causal_iota", "causal_tril", "zero_add"]),
    ("fill", ["neginf", "finfo_min"]),
    ("softmax", ["linalg", "drop_expand", "keepdim", "argmax_keepdim", "argmax_drop",
                 "named", "tensor_arith", "recip", "exp2", "nomax", "global_max"]),
    ("dtype", ["f32", "f16_f32", "bf16"]),
    # Elementwise code on the scores that is neither scale nor mask, raised
    # into a score_mod region; before the mask (Gemma 2, ALiBi) or after it.
    ("score_mod", ["none", "none", "none", "softcap", "softcap_fused", "alibi", "gate",
                   "abs_square", "window"]),
    ("mod_place", ["before_mask", "after_mask"]),
    # How the row max is combined and subtracted: any finite row constant
    # cancels in the softmax, wherever the chain subtracts it.
    ("max_combiner", ["maximumf", "maximumf", "cmpf_ogt_select", "cmpf_olt_select"]),
    ("shift", ["sub", "sub", "sub", "add_negated", "add_negated_payload", "below_mask"]),
    # div: e / Σe; deferred: O = (E·V) / Σe; log_softmax: exp(d − log Σ exp(d))
    # with d = s − max; logsumexp: exp(s − (log Σ exp(s − max) + max)).
    ("normalize", ["div", "div", "recip_payload", "deferred", "log_softmax", "logsumexp"]),
    ("acc_init", ["fill", "fill", "splat", "neg_zero_splat"]),
    # V given as [.., dv, Lk] (P·V reads it through its map), or P·V's
    # result written as Oᵀ [.., dv, Lq] by its output map.
    # o_bshd: a 4-D P·V writes O as [B, Lq, H, dv] (torch's transpose(1, 2)
    # fused into its output map).
    ("pv_layout", ["plain", "plain", "v_transposed", "o_transposed", "o_bshd"]),
    # MQA as an einsum: K and V lack the head dim (rank 4) or the batch·head
    # dim (rank 3), and the generic matmuls' maps broadcast them.
    ("kv_heads", ["all", "all", "all", "einsum_mqa"]),
])
# Any tensor in the place of K or V still makes an attention, so a foreign
# tensor goes in the place of an intermediate: the exp that is summed, or
# the exp that is divided.
LOOKALIKES = ["query_axis", "foreign_sum", "foreign_numerator", "extra_user_s",
              "extra_user_p", "sigmoid", "relu", "topk", "mod_colsum",
              # a row constant that is not the max (max from 0): underflows
              # where the softmax does not
              "max_from_zero"]

B, H, LQ, LK, D, DV = 2, 2, 4, 6, 8, 4
NEG_INF = "0xFF800000"
FINFO_MIN = "-3.40282347E+38"


def tt(shape, elt):
    return "tensor<%s%s>" % ("".join("%dx" % s for s in shape), elt)


def dims(n):
    return ", ".join("d%d" % i for i in range(n))


def amap(n, results):
    return "affine_map<(%s) -> (%s)>" % (dims(n), ", ".join(results))


def ident(n):
    return amap(n, ["d%d" % i for i in range(n)])


class Fn:
    """Text of one function, with fresh SSA names."""

    def __init__(self, name):
        self.name, self.body, self.n = name, [], 0
        self.args, self.results = [], []

    def fresh(self):
        self.n += 1
        return "%%v%d" % self.n

    def arg(self, shape, elt):
        name = "%%arg%d" % len(self.args)
        self.args.append((name, shape, elt))
        return name

    def emit(self, line):
        self.body.append("  " + line)

    def const(self, value, elt):
        v = self.fresh()
        self.emit("%s = arith.constant %s : %s" % (v, value, elt))
        return v

    def empty(self, shape, elt):
        v = self.fresh()
        self.emit("%s = tensor.empty() : %s" % (v, tt(shape, elt)))
        return v

    def splat(self, value, shape, elt):
        c = self.const(value, elt)
        v = self.fresh()
        self.emit("%s = tensor.splat %s : %s" % (v, c, tt(shape, elt)))
        return v

    def fill(self, value, shape, elt):
        c = self.const(value, elt)
        e = self.empty(shape, elt)
        v = self.fresh()
        self.emit("%s = linalg.fill ins(%s : %s) outs(%s : %s) -> %s" % (
            v, c, elt, e, tt(shape, elt), tt(shape, elt)))
        return v

    def generic(self, ins, outs, iters, body, maps=None):
        """ins/outs: (value, shape, elt, map-results); body(args) -> yields."""
        n = len(iters)
        res = self.fresh()
        all_maps = [amap(n, m) for _, _, _, m in ins + outs]
        out_types = ", ".join(tt(s, e) for _, s, e, _ in outs)
        head = "%s%s = linalg.generic {indexing_maps = [%s], iterator_types = [%s]}" % (
            res, ":%d" % len(outs) if len(outs) > 1 else "", ", ".join(all_maps),
            ", ".join('"%s"' % i for i in iters))
        if ins:
            head += " ins(%s : %s)" % (", ".join(v for v, _, _, _ in ins),
                                       ", ".join(tt(s, e) for _, s, e, _ in ins))
        head += " outs(%s : %s) {" % (", ".join(v for v, _, _, _ in outs), out_types)
        self.emit(head)
        bargs = ["%%b%d" % i for i in range(len(ins) + len(outs))]
        self.emit("^bb0(%s):" % ", ".join("%s: %s" % (a, e) for a, (_, _, e, _) in
                                          zip(bargs, ins + outs)))
        self.bn = 0
        ys = body(bargs)
        self.emit("  linalg.yield %s : %s" % (", ".join(ys), ", ".join(e for _, _, e, _ in outs)))
        self.emit("} -> %s" % (out_types if len(outs) == 1 else "(%s)" % out_types))
        return res if len(outs) == 1 else ["%s#%d" % (res, i) for i in range(len(outs))]

    def op(self, text, elt=None):
        """One scalar op in a payload; returns its value."""
        self.bn += 1
        v = "%%s%d_%d" % (self.n, self.bn)
        self.emit("  %s = %s" % (v, text))
        return v

    def text(self):
        args = ", ".join("%s: %s" % (n, tt(s, e)) for n, s, e in self.args)
        rtypes = ", ".join(tt(s, e) for _, s, e in self.results)
        rets = ", ".join(v for v, _, _ in self.results)
        return "func.func @%s(%s) -> (%s) {\n%s\n  return %s : %s\n}\n" % (
            self.name, args, rtypes, "\n".join(self.body), rets, rtypes)


class Spelling:
    def __init__(self, fn, combo, lookalike):
        self.f, self.c, self.look = fn, combo, lookalike
        r = combo["rank"]
        self.R = {"2d": 2, "3d": 3}.get(r, 4)
        self.lead = {"2d": [], "3d": [B * H]}.get(r, [B, H])
        self.chain_elt = "f32"
        self.deferred_sum = None
        self.in_elt = {"f32": "f32", "f16_f32": "f16", "bf16": "bf16"}[combo["dtype"]]

    def s_shape(self):
        return self.lead + [LQ, LK]

    def kv_lead(self):
        """K's and V's batch dims: without the last one for einsum MQA."""
        return self.lead[:-1] if self.c["kv_heads"] == "einsum_mqa" else self.lead

    # --- elementwise helpers on tensors of the scores' shape -------------
    def ew(self, x, shape, fn, extra=(), out_elt="f32", in_elt="f32"):
        n = len(shape)
        ins = [(x, shape, in_elt, ["d%d" % i for i in range(n)])] + list(extra)
        out = self.f.empty(shape, out_elt)
        return self.f.generic(ins, [(out, shape, out_elt, ["d%d" % i for i in range(n)])],
                              ["parallel"] * n, fn)

    def cast(self, x, shape, src, dst):
        if src == dst:
            return x
        opn = "extf" if dst == "f32" else "truncf"
        return self.ew(x, shape, lambda a: [self.f.op("arith.%s %s : %s to %s" % (opn, a[0], src, dst))],
                       out_elt=dst, in_elt=src)

    def scale_by(self, x, shape, elt, value, div=False):
        c = self.f.const(value, elt)
        o = "divf" if div else "mulf"
        return self.ew(x, shape, lambda a: [self.f.op("arith.%s %s, %s : %s" % (o, a[0], c, elt))],
                       out_elt=elt, in_elt=elt)

    # --- inputs -------------------------------------------------------------
    def inputs(self):
        c, f, e = self.c, self.f, self.in_elt
        if c["rank"] == "4d_bshd":
            q0, k0, v0 = (f.arg([B, L, H, d], e) for L, d in ((LQ, D), (LK, D), (LK, DV)))
            q, k, v = (self.permute(x, [B, L, H, d], [0, 2, 1, 3], e)
                       for x, L, d in ((q0, LQ, D), (k0, LK, D), (v0, LK, DV)))
            return q, k, v
        q = f.arg(self.lead + [LQ, D], e)
        if c["matmul"] == "named_pre":
            k = f.arg(self.lead + [D, LK], e)
        else:
            k = f.arg(self.kv_lead() + [LK, D], e)
        v = f.arg(self.kv_lead() + ([DV, LK] if c["pv_layout"] == "v_transposed" else [LK, DV]), e)
        return q, k, v

    def permute(self, x, shape, perm, elt):
        out_shape = [shape[p] for p in perm]
        e = self.f.empty(out_shape, elt)
        v = self.f.fresh()
        self.f.emit("%s = linalg.transpose ins(%s : %s) outs(%s : %s) permutation = [%s]" % (
            v, x, tt(shape, elt), e, tt(out_shape, elt), ", ".join(map(str, perm))))
        return v

    # --- matmuls ------------------------------------------------------------
    def zeros(self, shape, elt):
        """A matmul's accumulator: a fill or a splat, of 0 or -0."""
        init = self.c["acc_init"]
        value = "-0.0" if init == "neg_zero_splat" else "0.0"
        if init == "fill":
            return self.f.fill(value, shape, elt)
        return self.f.splat(value, shape, elt)

    def matmul(self, a, b, a_shape, b_shape, b_transposed, out_elt, in_elt, style,
               out_transposed=False):
        """a [.., m, k] · b ([.., n, k] if b_transposed else [.., k, n]);
        written [.., n, m] if out_transposed (generic style only)."""
        f = self.f
        R = len(a_shape)
        m, kk = a_shape[-2], a_shape[-1]
        nn_ = b_shape[-2] if b_transposed else b_shape[-1]
        lead = a_shape[:-2]
        out_shape = lead + [m, nn_]
        if style == "generic":
            n = R + 1
            ld = ["d%d" % i for i in range(R - 2)]
            mi, ni, ki = "d%d" % (R - 2), "d%d" % (R - 1), "d%d" % R
            out_idx = ld + ([ni, mi] if out_transposed else [mi, ni])
            if out_transposed == "bshd":  # [B, m, H, n]
                out_idx = [ld[0], mi, ld[1], ni]
            sizes = dict(zip(ld + [mi, ni], lead + [m, nn_]))
            out_shape = [sizes[i] for i in out_idx]
            acc = self.zeros(out_shape, out_elt)

            def body(x):
                aa, bb = x[0], x[1]
                if in_elt != out_elt:
                    aa = f.op("arith.extf %s : %s to %s" % (aa, in_elt, out_elt))
                    bb = f.op("arith.extf %s : %s to %s" % (bb, in_elt, out_elt))
                p = f.op("arith.mulf %s, %s : %s" % (aa, bb, out_elt))
                return [f.op("arith.addf %s, %s : %s" % (x[2], p, out_elt))]
            bl = ld[:len(b_shape) - 2]  # a rhs without the last batch dim is broadcast
            return f.generic([(a, a_shape, in_elt, ld + [mi, ki]),
                              (b, b_shape, in_elt, bl + ([ni, ki] if b_transposed else [ki, ni]))],
                             [(acc, out_shape, out_elt, out_idx)],
                             ["parallel"] * R + ["reduction"], body)
        # Named ops work on rank 2 or 3: collapse rank 4 around them.
        collapse = R == 4
        if collapse:
            a = self.reshape(a, a_shape, [a_shape[0] * a_shape[1]] + a_shape[2:], "collapse", in_elt)
            b = self.reshape(b, b_shape, [b_shape[0] * b_shape[1]] + b_shape[2:], "collapse", in_elt)
            a_shape = [a_shape[0] * a_shape[1]] + a_shape[2:]
            b_shape = [b_shape[0] * b_shape[1]] + b_shape[2:]
        r = len(a_shape)
        o_shape = a_shape[:-2] + [m, nn_]
        acc = self.zeros(o_shape, out_elt)
        name = "linalg.matmul" if r == 2 else "linalg.batch_matmul"
        maps = ""
        if b_transposed:
            if style != "named_maps":
                raise ValueError("transposed rhs needs maps")
            if r == 2:
                maps = " indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]"
            else:
                maps = " indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]"
        v = f.fresh()
        f.emit("%s = %s%s ins(%s, %s : %s, %s) outs(%s : %s) -> %s" % (
            v, name, maps, a, b, tt(a_shape, in_elt), tt(b_shape, in_elt), acc,
            tt(o_shape, out_elt), tt(o_shape, out_elt)))
        if collapse:
            v = self.reshape(v, o_shape, out_shape, "expand", out_elt)
        return v

    def reshape(self, x, src, dst, kind, elt):
        v = self.f.fresh()
        if kind == "collapse":
            self.f.emit("%s = tensor.collapse_shape %s [[0, 1], [2], [3]] : %s into %s" % (
                v, x, tt(src, elt), tt(dst, elt)))
        else:
            self.f.emit("%s = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [%s] : %s into %s" % (
                v, x, ", ".join(map(str, dst)), tt(src, elt), tt(dst, elt)))
        return v

    def qk(self, q, k):
        c, e = self.c, self.in_elt
        R = self.R
        q_shape = self.lead + [LQ, D]
        if c["scale"] == "mul_q":
            q = self.scale_by(q, q_shape, e, "0.353553385" if e == "f32" else "0.3535")
        if c["scale"] == "split_qk":
            q = self.scale_by(q, q_shape, e, "0.594603539" if e == "f32" else "0.5947")
        k_shape = self.kv_lead() + ([D, LK] if c["matmul"] == "named_pre" else [LK, D])
        if c["scale"] == "split_qk":
            k = self.scale_by(k, k_shape, e, "0.594603539" if e == "f32" else "0.5947")
        style = c["matmul"]
        if style in ("named_maps", "generic"):
            return self.matmul(q, k, q_shape, k_shape, True, "f32", e, style)
        if style == "named_pre":
            return self.matmul(q, k, q_shape, k_shape, False, "f32", e, "named")
        kt_shape = self.lead + [D, LK]
        perm = list(range(R - 2)) + [R - 1, R - 2]
        if style == "named_transpose":
            kt = self.permute(k, k_shape, perm, e)
        else:
            out = self.f.empty(kt_shape, e)
            kt = self.f.generic([(k, k_shape, e, ["d%d" % p for p in perm])],
                                [(out, kt_shape, e, ["d%d" % i for i in range(R)])],
                                ["parallel"] * R, lambda a: [a[0]])
        return self.matmul(q, kt, q_shape, kt_shape, False, "f32", e, "named")

    # --- scale and mask ----------------------------------------------------
    def scale_scores(self, s):
        sc = self.c["scale"]
        if sc == "mul_s":
            return self.scale_by(s, self.s_shape(), "f32", "0.353553385")
        if sc == "div_s":
            return self.scale_by(s, self.s_shape(), "f32", "2.82842708", div=True)
        return s

    def fill_value(self):
        return NEG_INF if self.c["fill"] == "neginf" else FINFO_MIN

    def select(self, s, cond_in, keep_where_true, cond_fn=None):
        """select on the scores; cond either an input or computed in the payload."""
        f, R = self.f, self.R
        fv = f.const(self.fill_value(), "f32")

        def body(a):
            cond = cond_fn(a) if cond_fn else a[1]
            if keep_where_true:
                return [f.op("arith.select %s, %s, %s : f32" % (cond, a[0], fv))]
            return [f.op("arith.select %s, %s, %s : f32" % (cond, fv, a[0]))]
        return self.ew(s, self.s_shape(), body, extra=cond_in)

    def mask(self, s):
        f, c, R = self.f, self.c, self.R
        m = c["mask"]
        shape = self.s_shape()
        last2 = ["d%d" % (R - 2), "d%d" % (R - 1)]
        if m == "add_arg":
            a = f.arg([LQ, LK], "f32")
            return self.ew(s, shape, lambda x: [f.op("arith.addf %s, %s : f32" % (x[0], x[1]))],
                           extra=[(a, [LQ, LK], "f32", last2)])
        if m == "add_bcast_c0":
            # A padding mask [B, 1, 1, Lk] (or [1, Lk] etc.) read by constant-0 exprs.
            mshape = [1] * (R - 1) + [LK]
            if R == 4:
                mshape = [B, 1, 1, LK]
            a = f.arg(mshape, "f32")
            res = ["0"] * (R - 1) + ["d%d" % (R - 1)]
            if R == 4:
                res = ["d0", "0", "0", "d3"]
            return self.ew(s, shape, lambda x: [f.op("arith.addf %s, %s : f32" % (x[0], x[1]))],
                           extra=[(a, mshape, "f32", res)])
        if m == "add_bcast_op":
            a = f.arg([LQ, LK], "f32")
            if R > 2:
                e = f.empty(shape, "f32")
                b = f.fresh()
                f.emit("%s = linalg.broadcast ins(%s : %s) outs(%s : %s) dimensions = [%s]" % (
                    b, a, tt([LQ, LK], "f32"), e, tt(shape, "f32"),
                    ", ".join(str(i) for i in range(R - 2))))
                a = b
            return self.ew(s, shape, lambda x: [f.op("arith.addf %s, %s : f32" % (x[0], x[1]))],
                           extra=[(a, shape, "f32", ["d%d" % i for i in range(R)])])
        if m in ("keep_i1", "drop_i1"):
            a = f.arg([LQ, LK], "i1")
            return self.select(s, [(a, [LQ, LK], "i1", last2)], m == "keep_i1")
        if m == "causal_index":
            def cond(x):
                i = f.op("linalg.index %d : index" % (R - 2))
                j = f.op("linalg.index %d : index" % (R - 1))
                return f.op("arith.cmpi ule, %s, %s : index" % (j, i))
            return self.select(s, [], True, cond)
        if m == "causal_iota":
            ii = self.iota(LQ)
            jj = self.iota(LK)
            out = f.empty([LQ, LK], "i1")
            keep = f.generic([(ii, [LQ], "i64", ["d0"]), (jj, [LK], "i64", ["d1"])],
                             [(out, [LQ, LK], "i1", ["d0", "d1"])], ["parallel"] * 2,
                             lambda x: [f.op("arith.cmpi sle, %s, %s : i64" % (x[1], x[0]))])
            return self.select(s, [(keep, [LQ, LK], "i1", last2)], True)
        if m == "causal_tril":
            rows = ", ".join("[%s]" % ", ".join("true" if j <= i else "false" for j in range(LK))
                             for i in range(LQ))
            keep = f.fresh()
            f.emit("%s = arith.constant dense<[%s]> : %s" % (keep, rows, tt([LQ, LK], "i1")))
            return self.select(s, [(keep, [LQ, LK], "i1", last2)], True)
        if m == "zero_add":
            z = f.fresh()
            f.emit("%s = arith.constant dense<0.0> : %s" % (z, tt(shape, "f32")))
            return self.ew(s, shape, lambda x: [f.op("arith.addf %s, %s : f32" % (x[0], x[1]))],
                           extra=[(z, shape, "f32", ["d%d" % i for i in range(R)])])
        return s

    def score_mod(self, s):
        """A modification of each score (the `score_mod` axis)."""
        f, R, m = self.f, self.R, self.c["score_mod"]
        shape = self.s_shape()
        last2 = ["d%d" % (R - 2), "d%d" % (R - 1)]
        if m == "softcap":
            c = f.const("3.0", "f32")
            s = self.ew(s, shape, lambda a: [f.op("arith.divf %s, %s : f32" % (a[0], c))])
            s = self.ew(s, shape, lambda a: [f.op("math.tanh %s : f32" % a[0])])
            return self.ew(s, shape, lambda a: [f.op("arith.mulf %s, %s : f32" % (a[0], c))])
        if m == "softcap_fused":
            c = f.const("3.0", "f32")

            def body(a):
                t = f.op("math.tanh %s : f32" % f.op("arith.divf %s, %s : f32" % (a[0], c)))
                return [f.op("arith.mulf %s, %s : f32" % (t, c))]
            return self.ew(s, shape, body)
        if m == "alibi":
            # s + slope·(j − i), the slope per (batch·)head from a tensor, or
            # a constant without a head dim.
            half = f.const("0.5", "f32")
            extra = []
            if R > 2:
                extra = [(f.arg([shape[R - 3]], "f32"), [shape[R - 3]], "f32", ["d%d" % (R - 3)])]

            def body(a):
                i = f.op("linalg.index %d : index" % (R - 2))
                j = f.op("linalg.index %d : index" % (R - 1))
                d = f.op("arith.index_cast %s : index to i64" % f.op("arith.subi %s, %s : index" % (j, i)))
                df = f.op("arith.sitofp %s : i64 to f32" % d)
                bias = f.op("arith.mulf %s, %s : f32" % (a[1] if R > 2 else half, df))
                return [f.op("arith.addf %s, %s : f32" % (a[0], bias))]
            return self.ew(s, shape, body, extra=extra)
        if m == "gate":
            # s·(1 + g²): a positive gate. (A negative one turns a masked
            # finfo.min score into +3e38, where an original softmax spelled
            # without its max overflows to NaN and the raised one does not.)
            g = f.arg([LQ, LK], "f32")
            one = f.const("1.0", "f32")

            def body(a):
                gate = f.op("arith.addf %s, %s : f32" % (one, f.op("arith.mulf %s, %s : f32" % (a[1], a[1]))))
                return [f.op("arith.mulf %s, %s : f32" % (a[0], gate))]
            return self.ew(s, shape, body, extra=[(g, [LQ, LK], "f32", last2)])
        if m == "abs_square":
            tenth = f.const("0.1", "f32")

            def body(a):
                sq = f.op("arith.mulf %s, %s : f32" % (a[0], f.op("math.absf %s : f32" % a[0])))
                return [f.op("arith.mulf %s, %s : f32" % (sq, tenth))]
            return self.ew(s, shape, body)
        if m == "window":
            # Keep keys with j + 2 > i (a window of 2 behind each query).
            two = f.const("2", "index")

            def cond(a):
                i = f.op("linalg.index %d : index" % (R - 2))
                j = f.op("linalg.index %d : index" % (R - 1))
                return f.op("arith.cmpi ugt, %s, %s : index" % (f.op("arith.addi %s, %s : index" % (j, two)), i))
            return self.select(s, [], True, cond)
        return s

    def column_sum_mod(self, s):
        """Look-alike: s + tanh(column sum of s), which reads other scores."""
        f, R = self.f, self.R
        cs, cshape, cres = self.reduce(s, "sum", "drop", axis=R - 2)
        return self.ew(s, self.s_shape(),
                       lambda a: [f.op("arith.addf %s, %s : f32" % (a[0], f.op("math.tanh %s : f32" % a[1])))],
                       extra=[(cs, cshape, "f32", cres)])

    def iota(self, n):
        out = self.f.empty([n], "i64")

        def body(x):
            i = self.f.op("linalg.index 0 : index")
            return [self.f.op("arith.index_cast %s : index to i64" % i)]
        return self.f.generic([], [(out, [n], "i64", ["d0"])], ["parallel"], body)

    # --- softmax -----------------------------------------------------------
    def reduce(self, x, kind, mode, axis=None):
        """Row reduction over `axis` (default: the key axis) of [.., Lq, Lk].
        mode: drop (rank-reduced), keepdim (constant-0 output expr), argmax_*."""
        f, R = self.f, self.R
        axis = R - 1 if axis is None else axis
        shape = self.s_shape()
        init = NEG_INF if kind == "max" else "0.0"
        if kind == "max" and self.look == "max_from_zero":
            init = "0.0"
        keep = mode in ("keepdim", "argmax_keepdim")
        rshape = [1 if i == axis else s for i, s in enumerate(shape)] if keep else \
            [s for i, s in enumerate(shape) if i != axis]
        rres = [("0" if i == axis else "d%d" % i) for i in range(R)] if keep else \
            ["d%d" % i for i in range(R) if i != axis]
        acc = f.fill(init, rshape, "f32")
        iters = ["reduction" if i == axis else "parallel" for i in range(R)]
        comb = "arith.maximumf" if kind == "max" else "arith.addf"

        def combine(a, b):
            form = self.c["max_combiner"]
            if kind != "max" or form == "maximumf":
                return f.op("%s %s, %s : f32" % (comb, a, b))
            if form == "cmpf_ogt_select":  # select(a > b, a, b)
                return f.op("arith.select %s, %s, %s : f32" % (
                    f.op("arith.cmpf ogt, %s, %s : f32" % (a, b)), a, b))
            return f.op("arith.select %s, %s, %s : f32" % (  # select(b < a, a, b)
                f.op("arith.cmpf olt, %s, %s : f32" % (b, a)), a, b))
        if mode.startswith("argmax"):
            idx = f.fill("0", rshape, "i64")

            def body(a):
                i = f.op("linalg.index %d : index" % axis)
                ii = f.op("arith.index_cast %s : index to i64" % i)
                mx = combine(a[0], a[1])
                gt = f.op("arith.cmpf ogt, %s, %s : f32" % (a[0], a[1]))
                return [mx, f.op("arith.select %s, %s, %s : i64" % (gt, ii, a[2]))]
            r = f.generic([(x, shape, "f32", ["d%d" % i for i in range(R)])],
                          [(acc, rshape, "f32", rres), (idx, rshape, "i64", rres)], iters, body)[0]
        else:
            r = f.generic([(x, shape, "f32", ["d%d" % i for i in range(R)])],
                          [(acc, rshape, "f32", rres)], iters,
                          lambda a: [combine(a[0], a[1])])
        # Rank-reduced statistics are expanded back to [.., L, 1] as torch does.
        if mode in ("drop_expand", "argmax_drop"):
            eshape = [1 if i == axis else s for i, s in enumerate(shape)]
            groups = [[i] for i in range(R - 1)]
            groups[-1].append(R - 1)
            v = f.fresh()
            f.emit("%s = tensor.expand_shape %s [%s] output_shape [%s] : %s into %s" % (
                v, r, ", ".join("[%s]" % ", ".join(map(str, g)) for g in groups),
                ", ".join(map(str, eshape)), tt(rshape, "f32"), tt(eshape, "f32")))
            return v, eshape, [("0" if i == axis else "d%d" % i) for i in range(R)]
        if keep:
            return r, rshape, rres
        return r, rshape, rres

    def softmax(self, x):
        f, c, R = self.f, self.c, self.R
        shape = self.s_shape()
        sm = c["softmax"]
        axis = R - 2 if self.look == "query_axis" else R - 1
        if sm == "linalg":
            e = f.empty(shape, "f32")
            v = f.fresh()
            f.emit("%s = linalg.softmax dimension(%d) ins(%s : %s) outs(%s : %s) -> %s" % (
                v, axis, x, tt(shape, "f32"), e, tt(shape, "f32"), tt(shape, "f32")))
            return v
        if sm in ("named", "tensor_arith"):
            return self.named_softmax(x, axis, tensor_arith=sm == "tensor_arith")
        mode = {"keepdim": "keepdim", "argmax_keepdim": "argmax_keepdim",
                "argmax_drop": "argmax_drop"}.get(sm, "drop_expand")
        act = {"sigmoid": "sigmoid", "relu": "relu"}.get(self.look, "exp2" if sm == "exp2" else "exp")

        def activation(a, y):
            if act == "exp":
                return f.op("math.exp %s : f32" % y)
            if act == "exp2":
                log2e = f.const("1.44269502", "f32")
                return f.op("math.exp2 %s : f32" % f.op("arith.mulf %s, %s : f32" % (y, log2e)))
            if act == "relu":
                z = f.const("0.0", "f32")
                return f.op("arith.maximumf %s, %s : f32" % (y, z))
            one = f.const("1.0", "f32")
            ny = f.op("arith.negf %s : f32" % y)
            return f.op("arith.divf %s, %s : f32" % (one, f.op("arith.addf %s, %s : f32" % (
                one, f.op("math.exp %s : f32" % ny)))))
        ids = ["d%d" % i for i in range(R)]
        if sm == "nomax":
            ex = self.ew(x, shape, lambda a: [activation(a, a[0])])
        else:
            if sm == "global_max":
                acc = f.fill(NEG_INF, [], "f32")
                mx = f.generic([(x, shape, "f32", ids)], [(acc, [], "f32", [])], ["reduction"] * R,
                               lambda a: [f.op("arith.maximumf %s, %s : f32" % (a[0], a[1]))])
                mshape, mres = [], []
            else:
                mx, mshape, mres = self.reduce(x, "max", mode, axis)
            shift = c["shift"]
            if shift == "add_negated":  # s + negate(max), the negation an op of its own
                nm = self.ew(mx, mshape, lambda a: [f.op("arith.negf %s : f32" % a[0])])
                ex = self.ew(x, shape, lambda a: [activation(a, f.op("arith.addf %s, %s : f32" % (a[1], a[0])))],
                             extra=[(nm, mshape, "f32", mres)])
            elif shift == "add_negated_payload":
                ex = self.ew(x, shape, lambda a: [activation(a, f.op("arith.addf %s, %s : f32" % (
                    a[0], f.op("arith.negf %s : f32" % a[1]))))], extra=[(mx, mshape, "f32", mres)])
            elif c["normalize"] == "log_softmax":  # d = s − max, a tensor of its own
                d = self.ew(x, shape, lambda a: [f.op("arith.subf %s, %s : f32" % (a[0], a[1]))],
                            extra=[(mx, mshape, "f32", mres)])
                ex = self.ew(d, shape, lambda a: [f.op("math.exp %s : f32" % a[0])])
            else:
                ex = self.ew(x, shape, lambda a: [activation(a, f.op("arith.subf %s, %s : f32" % (a[0], a[1])))],
                             extra=[(mx, mshape, "f32", mres)])
        numer = ex
        if self.look in ("foreign_sum", "foreign_numerator"):
            other = self.ew(f.arg(shape, "f32"), shape, lambda a: [f.op("math.exp %s : f32" % a[0])])
            if self.look == "foreign_sum":
                ex = other
            else:
                numer = other
        sm_, sshape, sres = self.reduce(ex, "sum", "keepdim" if mode == "keepdim" else
                                        ("keepdim" if mode == "argmax_keepdim" else "drop_expand"), axis)
        if c["normalize"] == "log_softmax":
            return self.ew(d, shape, lambda a: [f.op("math.exp %s : f32" % f.op("arith.subf %s, %s : f32" % (
                a[0], f.op("math.log %s : f32" % a[1]))))], extra=[(sm_, sshape, "f32", sres)])
        if c["normalize"] == "logsumexp":  # lse = log Σ + max, per row
            lse = self.ew(sm_, sshape, lambda a: [f.op("arith.addf %s, %s : f32" % (
                f.op("math.log %s : f32" % a[0]), a[1]))], extra=[(mx, sshape, "f32", ["d%d" % i for i in range(len(sshape))])])
            return self.ew(x, shape, lambda a: [f.op("math.exp %s : f32" % f.op("arith.subf %s, %s : f32" % (a[0], a[1])))],
                           extra=[(lse, sshape, "f32", sres)])
        if c["normalize"] == "deferred":  # O = (E·V) / rowsum(E), in build()
            self.deferred_sum = (sm_, sshape, "f32", sres)
            return numer
        if sm == "recip":
            one = None

            def rbody(a):
                o = f.const("1.0", "f32")
                return [f.op("arith.divf %s, %s : f32" % (o, a[0]))]
            out = f.empty(sshape, "f32")
            rc = f.generic([(sm_, sshape, "f32", ["d%d" % i for i in range(R)])],
                           [(out, sshape, "f32", ["d%d" % i for i in range(R)])], ["parallel"] * R, rbody)
            return self.ew(numer, shape, lambda a: [f.op("arith.mulf %s, %s : f32" % (a[0], a[1]))],
                           extra=[(rc, sshape, "f32", sres)])
        if c["normalize"] == "recip_payload":  # e · (1 / sum) in P's payload
            def rpbody(a):
                r = f.op("arith.divf %s, %s : f32" % (f.const("1.0", "f32"), a[1]))
                return [f.op("arith.mulf %s, %s : f32" % (r, a[0]))]
            return self.ew(numer, shape, rpbody, extra=[(sm_, sshape, "f32", sres)])
        return self.ew(numer, shape, lambda a: [f.op("arith.divf %s, %s : f32" % (a[0], a[1]))],
                       extra=[(sm_, sshape, "f32", sres)])

    def named_softmax(self, x, axis, tensor_arith=False):
        """linalg.reduce/broadcast with named elementwise ops (linalg.exp...),
        or with arith/math ops on whole tensors."""
        f, R = self.f, self.R
        shape = self.s_shape()
        rshape = [s for i, s in enumerate(shape) if i != axis]
        T, Tr = tt(shape, "f32"), tt(rshape, "f32")

        def red(src, init, comb):
            acc = f.fill(init, rshape, "f32")
            v = f.fresh()
            f.emit("%s = linalg.reduce ins(%s : %s) outs(%s : %s) dimensions = [%d]" % (
                v, src, T, acc, Tr, axis))
            f.emit("  (%%in: f32, %%init: f32) {\n    %%r = %s %%in, %%init : f32\n    linalg.yield %%r : f32\n  }" % comb)
            e = f.empty(shape, "f32")
            b = f.fresh()
            f.emit("%s = linalg.broadcast ins(%s : %s) outs(%s : %s) dimensions = [%d]" % (
                b, v, Tr, e, T, axis))
            return b

        def named(op, *xs):
            v = f.fresh()
            if tensor_arith:
                name = {"exp": "math.exp", "sub": "arith.subf", "div": "arith.divf"}[op]
                f.emit("%s = %s %s : %s" % (v, name, ", ".join(xs), T))
                return v
            e = f.empty(shape, "f32")
            f.emit("%s = linalg.%s ins(%s : %s) outs(%s : %s) -> %s" % (
                v, op, ", ".join(xs), ", ".join([T] * len(xs)), e, T, T))
            return v
        mb = red(x, NEG_INF, "arith.maximumf")
        ex = named("exp", named("sub", x, mb))
        sb = red(ex, "0.0", "arith.addf")
        return named("div", ex, sb)

    # --- the whole function ------------------------------------------------
    def build(self):
        f, c = self.f, self.c
        q, k, v = self.inputs()
        s = self.qk(q, k)
        s = self.scale_scores(s)
        if c["mod_place"] == "before_mask":
            s = self.score_mod(s)
        if c["shift"] == "below_mask":  # exp(s − max(s) + M): the shift under the mask
            mx, mshape, mres = self.reduce(s, "max", "drop_expand")
            s = self.ew(s, self.s_shape(), lambda a: [f.op("arith.subf %s, %s : f32" % (a[0], a[1]))],
                        extra=[(mx, mshape, "f32", mres)])
        s = self.mask(s)
        if c["mod_place"] == "after_mask":
            s = self.score_mod(s)
        if self.look == "mod_colsum":
            s = self.column_sum_mod(s)
        if self.look == "topk":
            # keep only scores within 1 of the row max: a mask computed from S.
            mx, mshape, mres = self.reduce(s, "max", "drop_expand")
            one = f.const("1.0", "f32")

            def cond(a):
                return f.op("arith.cmpf oge, %s, %s : f32" % (a[0], f.op("arith.subf %s, %s : f32" % (a[1], one))))
            s = self.select(s, [(mx, mshape, "f32", mres)], True, cond)
        p = self.softmax(s)
        shape = self.s_shape()
        e = self.in_elt
        pv_elt = "f32"
        if c["dtype"] == "bf16":
            p = self.cast(p, shape, "f32", "bf16")
            pv_elt = "bf16"
        layout = c["pv_layout"]
        v_shape = self.kv_lead() + ([DV, LK] if layout == "v_transposed" else [LK, DV])
        if c["dtype"] == "f16_f32":
            v = self.cast(v, v_shape, "f16", "f32")
        style = "generic" if c["matmul"] == "generic" else "named"
        if layout == "v_transposed" and style == "named":
            style = "named_maps"
        if layout in ("o_transposed", "o_bshd"):
            style = "generic"
        o = self.matmul(p, v, shape, v_shape, layout == "v_transposed", pv_elt, pv_elt, style,
                        out_transposed={"o_transposed": True, "o_bshd": "bshd"}.get(layout, False))
        o_shape = self.lead + ([DV, LQ] if layout == "o_transposed" else [LQ, DV])
        if layout == "o_bshd":
            o_shape = [B, LQ, H, DV]
        if self.deferred_sum:  # the sums' maps read no key or dv loop
            o = self.ew(o, o_shape, lambda a: [f.op("arith.divf %s, %s : f32" % (a[0], a[1]))],
                        extra=[self.deferred_sum])
        if c["rank"] == "4d_bshd":
            o = self.permute(o, o_shape, [0, 2, 1, 3], pv_elt)
            o_shape = [B, LQ, H, DV]
        f.results.append((o, o_shape, pv_elt))
        if self.look == "extra_user_s":
            f.results.append((s, shape, "f32"))
        if self.look == "extra_user_p":
            f.results.append((p, shape, pv_elt))
        return f


def combos(n, seed):
    rng = random.Random(seed)
    out = []
    for i in range(n):
        combo = {k: rng.choice(vs) for k, vs in AXES.items()}
        # Pre-transposed K has no [B, S, H, D] permuted form here.
        if combo["rank"] == "4d_bshd" and combo["matmul"] == "named_pre":
            combo["matmul"] = "named_maps"
        # A shift other than the row max of the masked scores makes a fully
        # masked row's result depend on it under a finite fill: refused.
        if combo["shift"] == "below_mask":
            combo.update(softmax="nomax", mod_place="before_mask", fill="neginf")
        if combo["normalize"] == "logsumexp":
            combo["fill"] = "neginf"
            # An additive mask tensor may hold finfo.min at run time, where
            # c + log Σ rounds to c: refused under a log-sum-exp shift (a
            # look-alike of its own, attn-detect-log-softmax.mlir).
            if combo["mask"] in ("add_arg", "add_bcast_c0", "add_bcast_op"):
                combo["mask"] = "keep_i1"
        if combo["rank"] == "4d_bshd":  # its V and O are permuted already
            combo["pv_layout"] = "plain"
        if combo["pv_layout"] == "o_bshd" and combo["rank"] != "4d":
            combo["pv_layout"] = "o_transposed"
        if combo["kv_heads"] == "einsum_mqa" and (combo["matmul"] != "generic" or
                                                  combo["rank"] not in ("3d", "4d")):
            combo["kv_heads"] = "all"
        # A deferred normalization divides an f32 O in [.., Lq, dv].
        if combo["normalize"] == "deferred":
            if combo["softmax"] in ("linalg", "named", "tensor_arith"):
                combo["normalize"] = "div"
            elif combo["dtype"] == "bf16" or combo["pv_layout"] in ("o_transposed", "o_bshd"):
                combo["dtype"], combo["pv_layout"] = "f32", "plain"
        look = rng.choice(LOOKALIKES) if rng.random() < 0.15 else None
        if look == "query_axis" and combo["softmax"] == "global_max":
            combo["softmax"] = "keepdim"
        # The log forms: exp (not exp2) of a row max subtracted as s − max,
        # whose row statistics have one shape.
        if combo["normalize"] in ("log_softmax", "logsumexp"):
            if combo["softmax"] not in ("drop_expand", "keepdim", "argmax_keepdim", "argmax_drop") or \
                    look in ("sigmoid", "relu", "foreign_numerator"):
                combo["normalize"] = "div"
            elif combo["shift"] != "sub":
                combo["shift"] = "sub"
        if look == "max_from_zero" and combo["softmax"] in ("linalg", "named", "tensor_arith",
                                                          "nomax", "global_max"):
            combo["softmax"] = "drop_expand"  # a softmax whose max reduction it spells
        if look == "query_axis" and combo["normalize"] == "deferred":
            combo["normalize"] = "div"  # column sums have no place in O's loops
        if look in ("sigmoid", "relu", "foreign_sum", "foreign_numerator") and \
                combo["softmax"] in ("linalg", "named", "tensor_arith"):
            combo["softmax"] = "drop_expand"
        out.append((combo, look))
    return out


# ---------------------------------------------------------------------------
# Running

def literal(shape, elt, rng):
    if elt == "i1":
        keep = rng.uniform(size=shape) < 0.7
        keep[..., 0] = True
        flat = ", ".join("true" if x else "false" for x in keep.reshape(-1))
        return "dense<[%s]>" % flat if shape else "dense<%s>" % flat
    data = rng.standard_normal(shape).astype(np.float32)
    if elt == "bf16":
        raw = (data.view(np.uint32) >> 16).astype("<u2").tobytes()
    else:
        raw = data.astype({"f32": "<f4", "f16": "<f2"}[elt]).tobytes()
    return 'dense<"0x%s">' % raw.hex().upper()


def main_fn(fns, rng):
    lines = ["func.func private @printMemrefF32(memref<*xf32>)", "func.func @main() {"]
    n = 0
    for fn in fns:
        args = []
        for _, shape, elt in fn.args:
            n += 1
            lit = literal(shape, elt, rng)
            if elt == "i1":  # dense<[...]> of a flat list needs the shape's nesting
                lit = "dense<%s>" % nest(np.array(re.findall(r"true|false", lit)).reshape(shape))
            lines.append("  %%c%d = arith.constant %s : %s" % (n, lit, tt(shape, elt)))
            args.append(("%%c%d" % n, tt(shape, elt)))
        n += 1
        rtypes = [tt(s, e) for _, s, e in fn.results]
        lines.append("  %%r%d:%d = call @%s(%s) : (%s) -> (%s)" % (
            n, len(rtypes), fn.name, ", ".join(a for a, _ in args), ", ".join(t for _, t in args),
            ", ".join(rtypes)))
        for i, (_, shape, elt) in enumerate(fn.results):
            v = "%%r%d#%d" % (n, i)
            if elt != "f32":
                r = len(shape)
                idm = ident(r)
                lines.append("  %%x%d_%d = tensor.empty() : %s" % (n, i, tt(shape, "f32")))
                lines.append("  %%y%d_%d = linalg.generic {indexing_maps = [%s, %s], iterator_types = [%s]} ins(%s : %s) outs(%%x%d_%d : %s) {" % (
                    n, i, idm, idm, ", ".join(['"parallel"'] * r), v, tt(shape, elt), n, i, tt(shape, "f32")))
                lines.append("  ^bb0(%%in: %s, %%out: f32):\n    %%c = arith.extf %%in : %s to f32\n    linalg.yield %%c : f32\n  } -> %s" % (elt, elt, tt(shape, "f32")))
                v = "%%y%d_%d" % (n, i)
            mt = tt(shape, "f32").replace("tensor", "memref")
            lines.append("  %%m%d_%d = bufferization.to_buffer %s : %s to %s" % (n, i, v, tt(shape, "f32"), mt))
            lines.append("  %%u%d_%d = memref.cast %%m%d_%d : %s to memref<*xf32>" % (n, i, n, i, mt))
            lines.append("  call @printMemrefF32(%%u%d_%d) : (memref<*xf32>) -> ()" % (n, i))
    lines.append("  return\n}")
    return "\n".join(lines) + "\n"


def nest(x):
    if x.ndim == 0:
        return str(x)
    return "[" + ", ".join(nest(y) for y in x) + "]"


NUM = re.compile(r"-?nan|-?inf|[-+]?\d+\.?\d*(?:[eE][-+]?\d+)?")


def run_outputs(module, detect, a):
    low = subprocess.run([a.attn_opt, "--attn-cpu-pipeline=detect=" + detect],
                         input=module, capture_output=True, text=True)
    if low.returncode:
        return None, "attn-opt detect=%s: %s" % (detect, low.stderr[:2000])
    run = subprocess.run([a.runner, "-e", "main", "-entry-point-result=void",
                          "-shared-libs=" + a.shared_libs],
                         input=low.stdout, capture_output=True, text=True)
    if run.returncode:
        return None, "mlir-runner: " + run.stderr[:2000]
    blocks = run.stdout.split("Unranked Memref")[1:]
    return [np.array([float(x) for x in NUM.findall(b.split("data =", 1)[1])]) for b in blocks], None


def detect_counts(module, a):
    r = subprocess.run([a.attn_opt, "--attn-detect"], input=module, capture_output=True, text=True)
    if r.returncode:
        return None, r.stderr[:2000]
    return count_per_function(r.stdout), None


def count_per_function(text):
    counts = {}
    for chunk in text.split("func.func @")[1:]:
        counts[chunk.split("(", 1)[0]] = chunk.count("attn.attention ")
    return counts


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--attn-opt", required=True)
    ap.add_argument("--runner", required=True)
    ap.add_argument("--shared-libs", required=True)
    ap.add_argument("--cases", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch", type=int, default=125, help="functions per module")
    ap.add_argument("--show", type=int, default=20, help="failures to list")
    ap.add_argument("--no-exec", action="store_true", help="detection counts only")
    ap.add_argument("--report", help="write every miss with its IR here")
    ap.add_argument("--dump", help="write the generated modules with this prefix")
    a = ap.parse_args()

    cases = combos(a.cases, a.seed)
    rng = np.random.default_rng(a.seed)
    failures, raised, positives = [], 0, 0
    distinct = set()
    per_axis_miss = collections.Counter()
    report = []
    for start in range(0, len(cases), a.batch):
        fns, metas = [], []
        for i, (combo, look) in enumerate(cases[start:start + a.batch]):
            fn = Fn("case%d" % (start + i))
            Spelling(fn, combo, look).build()
            fns.append(fn)
            metas.append((combo, look))
            distinct.add((tuple(combo.values()), look))
        module = "".join(fn.text() for fn in fns)
        if a.dump:
            open("%s%d.mlir" % (a.dump, start), "w").write(module)
        counts, err = detect_counts(module, a)
        if err:
            print("FAIL: attn-opt --attn-detect: " + err)
            return 1
        for fn, (combo, look) in zip(fns, metas):
            want = 0 if look else 1
            got = counts.get(fn.name)
            positives += want
            raised += got if not look else 0
            if got != want:
                what = "raised a look-alike (%s)" % look if look else "not raised"
                failures.append((fn.name, what, combo, look))
                if not look:
                    for k, v in combo.items():
                        per_axis_miss[(k, v)] += 1
                report.append("// %s: %s %s\n%s" % (fn.name, what, combo, fn.text()))
        if a.no_exec:
            continue
        full = module + main_fn(fns, rng)
        before, err = run_outputs(full, "false", a)
        after, err2 = (None, None) if err else run_outputs(full, "true", a)
        if err or err2:
            print("FAIL: " + (err or err2))
            return 1
        k = 0
        for fn, (combo, look) in zip(fns, metas):
            for _, _, elt in fn.results:
                b, x = before[k], after[k]
                k += 1
                tol = {"f32": 2e-5, "f16": 2e-3, "bf16": 5e-2}[elt]
                # A scale applied to f16/bf16 Q or K is rounded there by the
                # original, and exactly by attn.attention.
                if combo["dtype"] != "f32" and combo["scale"] in ("mul_q", "split_qk"):
                    tol = max(tol, 2e-3)
                err = float("inf")
                ok = b.shape == x.shape
                if ok:
                    # Where the original is NaN (0/0 of a fully masked row),
                    # attn.attention gives 0; an unraised function the same NaN.
                    fin = np.isfinite(b)
                    same = (x[~fin] == 0.0) | (np.isnan(x[~fin]) & np.isnan(b[~fin])) | (x[~fin] == b[~fin])
                    ok = bool(np.all(same)) and bool(np.all(np.isfinite(x[fin])))
                    bb, xx = b[fin], x[fin]
                    err = np.max(np.abs(xx - bb)) / max(np.max(np.abs(bb)), 1e-30) if bb.size else 0.0
                    ok = ok and err <= tol
                if not ok:
                    failures.append((fn.name, "semantics differ (rel err %.2e, %s)" % (
                        err if b.shape == x.shape else -1, elt), combo, look))
                    report.append("// %s: semantics differ %s %s\n%s" % (fn.name, combo, look, fn.text()))
    n_look = sum(1 for _, l in cases if l)
    print("%d cases (%d spellings, %d look-alikes), %d distinct combinations" % (
        len(cases), positives, n_look, len(distinct)))
    print("raised %d of %d spellings (%.1f%%)" % (raised, positives, 100.0 * raised / max(positives, 1)))
    for (k, v), n in sorted(per_axis_miss.items(), key=lambda x: -x[1])[:12]:
        print("  misses with %s=%s: %d" % (k, v, n))
    for name, what, combo, look in failures[:a.show]:
        print("FAILED %s: %s %s" % (name, what, " ".join("%s=%s" % kv for kv in combo.items())))
    if a.report:
        open(a.report, "w").write("\n".join(report))
    print("%d cases, %d failures" % (len(cases), len(failures)))
    print("PASS" if not failures else "FAIL")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

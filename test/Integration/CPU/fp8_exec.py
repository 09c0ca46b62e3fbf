#!/usr/bin/env python3
"""FP8 attention on the CPU, checked by execution against an fp64 reference.

Two modes:
  --encodings FORMAT: every one of the 256 encodings of f8E4M3FN or f8E5M2
      extended to f16, bf16, f32 and f64 by the CPU pipeline (so through
      --attn-expand-fp8), compared bit for bit with this file's own decoder
      of the formats (sign, exponent, mantissa, written from the OCP FP8
      specification, not from the compiler's bit manipulation);
  attention (default): one attn.attention on random FP8 Q, K, V (the nearest
      encodable values of normal samples) with random descale factors,
      fused (--attn-fuse) and unfused (the naive decomposition), checked
      against fp64 math on the decoded values: fused error <= 2x the unfused
      error (+1e-6), no NaN, fully masked rows 0.
"""
import argparse
import math
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from attn_exec import exec_arguments, lower_and_run, mlir_float, parse_memrefs, reference  # noqa: E402


def decode(byte, fmt):
    """The real value of an FP8 encoding (NaN, +-inf as numpy floats)."""
    sign = -1.0 if byte & 0x80 else 1.0
    if fmt == "f8E4M3FN":
        e, m = (byte >> 3) & 0xF, byte & 0x7
        if e == 0xF and m == 0x7:
            return math.nan
        if e == 0:
            return sign * m / 8 * 2.0 ** -6
        return sign * (1 + m / 8) * 2.0 ** (e - 7)
    e, m = (byte >> 2) & 0x1F, byte & 0x3
    if e == 0x1F:
        return sign * math.inf if m == 0 else math.nan
    if e == 0:
        return sign * m / 4 * 2.0 ** -14
    return sign * (1 + m / 4) * 2.0 ** (e - 15)


def table(fmt):
    return np.array([decode(b, fmt) for b in range(256)], dtype=np.float64)


def quantize(x, fmt):
    """Encodings of the finite FP8 values nearest to `x` (an array)."""
    t = table(fmt)
    finite = np.flatnonzero(np.isfinite(t))
    idx = np.abs(x.reshape(-1, 1) - t[finite].reshape(1, -1)).argmin(axis=1)
    return finite[idx].astype(np.uint8).reshape(x.shape)


def fp8_literal(codes):
    return 'dense<"0x%s">' % codes.astype(np.uint8).tobytes().hex().upper()


def ttype(shape, elt):
    return "tensor<%sx%s>" % ("x".join(str(s) for s in shape), elt)


DESTINATIONS = (("f16", "i16", np.float16, np.uint16), ("bf16", "i16", None, np.uint16),
                ("f32", "i32", np.float32, np.uint32), ("f64", "i64", np.float64, np.uint64))


def expected_bits(want, dst):
    """The bit patterns of the decoded values in `dst` (exact: every FP8
    value is representable there); NaNs are compared as NaN, not by bits."""
    _, _, np_type, np_bits = next(x for x in DESTINATIONS if x[0] == dst)
    if dst == "bf16":
        return (want.astype(np.float32).view(np.uint32) >> 16).astype(np.uint64)
    return want.astype(np_type).view(np_bits).astype(np.uint64)


def is_nan_bits(bits, dst):
    width = {"f16": (10, 5), "bf16": (7, 8), "f32": (23, 8), "f64": (52, 11)}[dst]
    mant, exp = width
    bits = int(bits)
    return ((bits >> mant) & ((1 << exp) - 1)) == (1 << exp) - 1 and (bits & ((1 << mant) - 1)) != 0


def check_encodings(a):
    """Each encoding's extension, compared by bit pattern: the runner
    prints the bits as integers (printed floats carry 6 digits only)."""
    fmt = a.encodings
    codes = np.arange(256, dtype=np.uint8)
    want = table(fmt)
    # The extensions in a function of their own: constants reaching them
    # would be folded at compile time (by APFloat), not expanded.
    t8 = ttype([256], fmt)
    ir = ["func.func private @printMemrefI64(memref<*xi64>)"]
    for dst, _, _, _ in DESTINATIONS:
        ir += ["func.func @extend_%s(%%c: %s) -> %s {" % (dst, t8, ttype([256], dst)),
               "  %%x = arith.extf %%c : %s to %s" % (t8, ttype([256], dst)),
               "  return %%x : %s\n}" % ttype([256], dst)]
    ir += ["func.func @main() {",
           "  %%c = arith.constant %s : %s" % (fp8_literal(codes), t8)]
    for dst, ity, _, _ in DESTINATIONS:
        ir.append("  %%x_%s = call @extend_%s(%%c) : (%s) -> %s" % (dst, dst, t8, ttype([256], dst)))
        ir.append("  %%i_%s = arith.bitcast %%x_%s : %s to %s"
                  % (dst, dst, ttype([256], dst), ttype([256], ity)))
        last = "%%i_%s" % dst
        if ity != "i64":
            ir.append("  %%z_%s = arith.extui %s : %s to %s"
                      % (dst, last, ttype([256], ity), ttype([256], "i64")))
            last = "%%z_%s" % dst
        ir += ["  %%b_%s = bufferization.to_buffer %s : %s to memref<256xi64>"
               % (dst, last, ttype([256], "i64")),
               "  %%u_%s = memref.cast %%b_%s : memref<256xi64> to memref<*xi64>" % (dst, dst),
               "  call @printMemrefI64(%%u_%s) : (memref<*xi64>) -> ()" % dst]
    ir.append("  return\n}")
    out, why = lower_and_run(a.attn_opt, a.runner, a.shared_libs, "\n".join(ir) + "\n",
                             "--attn-cpu-pipeline")
    if out is None:
        return 1
    blocks = [re.findall(r"-?\d+", b.split("data =", 1)[1])
              for b in out.split("Unranked Memref")[1:]]
    ok = True
    nan = np.isnan(want)
    for (dst, _, _, _), block in zip(DESTINATIONS, blocks):
        got = np.array([int(x) % (1 << 64) for x in block], dtype=np.uint64)
        exp = expected_bits(np.where(nan, 0.0, want), dst)
        bad = [b for b in range(256) if len(got) != 256 or
               (is_nan_bits(got[b], dst) != nan[b]) or (not nan[b] and got[b] != exp[b])]
        if bad:
            ok = False
            for b in bad[:8]:
                print("FAIL: %s 0x%02X -> %s: bits 0x%X, want 0x%X (%r)"
                      % (fmt, b, dst, got[b], exp[b], want[b]))
        else:
            print("%s -> %s: 256 of 256 exact" % (fmt, dst))
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


def truncation_inputs(fmt, src, rng):
    """f32 values that exercise rounding to `fmt`: every finite value, the
    midpoints between neighbours (ties) and one f32 ulp either side, the
    overflow and underflow boundaries, specials, and random magnitudes
    across and beyond the format's range; representable in `src`."""
    t = table(fmt)
    finite = np.sort(np.unique(t[np.isfinite(t)]))
    pos = finite[finite > 0]
    mids = (pos[:-1] + pos[1:]) / 2
    mids = np.concatenate([mids, [pos[0] / 2, pos[-1] + (pos[-1] - pos[-2]) / 2]])
    m32 = mids.astype(np.float32)
    values = [finite, m32, np.nextafter(m32, np.float32(np.inf)), np.nextafter(m32, np.float32(0)),
              [0.0, -0.0, np.inf, -np.inf, np.nan, 3.4e38, 1e-45, 1e-40, pos[-1] * 2]]
    mags = np.exp2(rng.uniform(-20, 20, 4000))
    values.append(mags * rng.choice([-1.0, 1.0], mags.shape))
    x = np.concatenate([np.asarray(v, dtype=np.float64) for v in values]).astype(np.float32)
    x = np.concatenate([x, -x[np.isfinite(x)]])
    if src == "f16":
        x = x.astype(np.float16).astype(np.float32)
    elif src == "bf16":
        x = (x.view(np.uint32) & 0xFFFF0000).view(np.float32)
    return x


def check_truncations(a):
    """arith.truncf to an 8-bit float through the CPU pipeline (so
    --attn-expand-fp8's integer rounding), against the same op lowered to
    MLIR's APFloat runtime (--convert-arith-to-apfloat: LLVM's APFloat,
    what arith.truncf means), on the same inputs; NaN codes compared as
    NaN."""
    fmt, src = a.truncations, a.source
    rng = np.random.default_rng(a.seed)
    x = truncation_inputs(fmt, src, rng)
    n = len(x)
    st, t8, ti = ttype([n], src), ttype([n], fmt), ttype([n], "i32")
    literal = 'dense<"0x%s">' % x.astype("<f4").tobytes().hex().upper()
    ir = ["func.func private @printMemrefI32(memref<*xi32>)",
          "func.func @round(%%x: %s) -> %s {" % (st, ti),
          "  %%t = arith.truncf %%x : %s to %s" % (st, t8),
          "  %%i = arith.bitcast %%t : %s to %s" % (t8, ttype([n], "i8")),
          "  %%e = arith.extui %%i : %s to %s" % (ttype([n], "i8"), ti),
          "  return %%e : %s\n}" % ti,
          "func.func @main() {",
          "  %%c32 = arith.constant %s : %s" % (literal, ttype([n], "f32")),
          # (@round takes the values as an argument: nothing folds there.)
          ("  %%c = arith.truncf %%c32 : %s to %s" % (ttype([n], "f32"), st)) if src != "f32"
          else "  %c = tensor.cast %c32 : " + st + " to " + st,
          "  %%r = call @round(%%c) : (%s) -> %s" % (st, ti),
          "  %%b = bufferization.to_buffer %%r : %s to memref<%dxi32>" % (ti, n),
          "  %%u = memref.cast %%b : memref<%dxi32> to memref<*xi32>" % n,
          "  call @printMemrefI32(%u) : (memref<*xi32>) -> ()", "  return\n}"]
    module = "\n".join(ir) + "\n"
    oracle_flag = ("--pass-pipeline=builtin.module(func.func(convert-elementwise-to-linalg),"
                   "one-shot-bufferize{bufferize-function-boundaries},"
                   "func.func(convert-linalg-to-loops),convert-arith-to-apfloat,"
                   "convert-scf-to-cf,expand-strided-metadata,finalize-memref-to-llvm,"
                   "convert-to-llvm,reconcile-unrealized-casts)")
    apfloat = os.path.join(os.path.dirname(a.shared_libs.split(",")[0]),
                           "libmlir_apfloat_wrappers.so")
    got, _ = lower_and_run(a.attn_opt, a.runner, a.shared_libs, module, "--attn-cpu-pipeline")
    want, _ = lower_and_run(a.attn_opt, a.runner, a.shared_libs + "," + apfloat, module,
                            oracle_flag)
    if got is None or want is None:
        return 1
    codes = [np.array([int(v) for v in re.findall(r"-?\d+", out.split("data =", 1)[1])])
             for out in (got, want)]
    def is_nan(c):
        return (c & 0x7F) == 0x7F if fmt == "f8E4M3FN" else ((c & 0x7C) == 0x7C) & ((c & 3) != 0)
    g, w = codes
    same = (g == w) | (is_nan(g) & is_nan(w))
    bad = np.flatnonzero(~same)
    for i in bad[:10]:
        print("FAIL: %s %r -> %s: 0x%02X, APFloat 0x%02X" % (src, float(x[i]), fmt, g[i], w[i]))
    print("%s -> %s: %d of %d as APFloat rounds them (%d to NaN%s)"
          % (src, fmt, int(same.sum()), len(same), int(is_nan(w).sum()),
             "" if fmt == "f8E4M3FN" else ", %d to inf" % int(((w & 0x7F) == 0x7C).sum())))
    print("PASS" if len(bad) == 0 and len(g) == n else "FAIL")
    return 0 if len(bad) == 0 else 1


def attention_module(shapes, fmt, out_elt, scale, causal, mask_type):
    (qs, ks, vs, os_) = shapes
    qt, kt, vt = ttype(qs, fmt), ttype(ks, fmt), ttype(vs, fmt)
    ot, of32 = ttype(os_, out_elt), ttype(os_, "f32")
    d0 = "tensor<f32>"
    causal_attr = " causal(%s)" % causal if causal != "none" else ""
    margs = ", %%m: %s" % mask_type if mask_type else ""
    mop = " mask(%%m : %s)" % mask_type if mask_type else ""
    ir = ["func.func @attention(%%q: %s, %%k: %s, %%v: %s, %%a: %s, %%b: %s, %%c: %s%s) -> %s {"
          % (qt, kt, vt, d0, d0, d0, margs, of32),
          "  %%o = attn.attention %%q, %%k, %%v%s descale(%%a, %%b, %%c : %s, %s, %s) scale(%s)%s"
          " : %s, %s, %s -> %s" % (mop, d0, d0, d0, mlir_float(scale), causal_attr, qt, kt, vt, ot)]
    if out_elt != "f32":
        ir.append("  %%w = arith.extf %%o : %s to %s" % (ot, of32))
        ir.append("  return %%w : %s\n}" % of32)
    else:
        ir.append("  return %%o : %s\n}" % of32)
    return ir


def check_attention(a):
    rng = np.random.default_rng(a.seed)
    fmt = a.format
    hkv = a.Hkv or a.H
    lk = a.Lk or a.Lq
    dv = a.dv or a.d
    shapes = ([a.B, a.H, a.Lq, a.d], [a.B, hkv, lk, a.d], [a.B, hkv, lk, dv], [a.B, a.H, a.Lq, dv])
    # Real values of a few units, stored as FP8 codes of x / descale.
    descale = rng.uniform(0.25, 4.0, 3)
    codes = [quantize(rng.standard_normal(s) * a.spread / f, fmt) for s, f in zip(shapes[:3], descale)]
    t = table(fmt)
    real = [t[c] * f for c, f in zip(codes, descale)]
    scale = 1.0 / math.sqrt(a.d)
    mask = None
    mask_type = None
    if a.dead_row:
        mask = rng.uniform(size=[1, 1, a.Lq, lk]) < 0.8
        mask[..., 0] = True
        mask[..., 1, :] = False
        mask_type = ttype([1, 1, a.Lq, lk], "i1")
    ir = ["func.func private @printMemrefF32(memref<*xf32>)"]
    ir += attention_module(shapes, fmt, a.out, scale, a.causal, mask_type)
    ir.append("func.func @main() {")
    for name, c, s in zip("qkv", codes, shapes):
        ir.append("  %%%s = arith.constant %s : %s" % (name, fp8_literal(c), ttype(s, fmt)))
    for name, f in zip("abc", descale):
        ir.append("  %%%s = arith.constant dense<%s> : tensor<f32>" % (name, mlir_float(np.float32(f))))
    margs, mtypes = "", ""
    if mask is not None:
        lit = "dense<%s>" % np.array2string(mask, separator=", ", threshold=1 << 30).replace(
            "True", "true").replace("False", "false").replace("\n", "")
        ir.append("  %%m = arith.constant %s : %s" % (lit, mask_type))
        margs, mtypes = ", %m", ", " + mask_type
    d0 = "tensor<f32>"
    of32 = ttype(shapes[3], "f32")
    ir += ["  %%o = call @attention(%%q, %%k, %%v, %%a, %%b, %%c%s) : (%s, %s, %s, %s, %s, %s%s) -> %s"
           % (margs, ttype(shapes[0], fmt), ttype(shapes[1], fmt), ttype(shapes[2], fmt), d0, d0, d0,
              mtypes, of32),
           "  %%ob = bufferization.to_buffer %%o : %s to %s" % (of32, of32.replace("tensor", "memref")),
           "  %%oc = memref.cast %%ob : %s to memref<*xf32>" % of32.replace("tensor", "memref"),
           "  call @printMemrefF32(%oc) : (memref<*xf32>) -> ()", "  return\n}"]
    module = "\n".join(ir) + "\n"
    # Descales as the f32 constants the module holds.
    real = [t[c] * float(np.float32(f)) for c, f in zip(codes, descale)]
    group = a.H // hkv
    ke, ve = np.repeat(real[1], group, axis=1), np.repeat(real[2], group, axis=1)
    ref, dead = reference(real[0], ke, ve, mask, "keep" if mask is not None else "none",
                          a.causal, scale)
    outputs = {}
    for name, flag in (("fused", "--attn-cpu-pipeline=block-q=16 block-kv=16"),
                       ("unfused", "--attn-cpu-pipeline=fuse=false")):
        out, _ = lower_and_run(a.attn_opt, a.runner, a.shared_libs, module, flag)
        if out is None:
            return 1
        outputs[name] = parse_memrefs(out)[0]
    ref = ref.reshape(-1)

    def rel(x):
        return np.max(np.abs(x - ref)) / max(np.max(np.abs(ref)), 1e-30)

    ok = True
    fused, unfused = outputs["fused"], outputs["unfused"]
    ef, eu = rel(fused), rel(unfused)
    print("%s -> %s: fused-vs-fp64 %.3e  unfused-vs-fp64 %.3e" % (fmt, a.out, ef, eu))
    for name, out in (("fused", fused), ("unfused", unfused)):
        if not np.all(np.isfinite(out)):
            print("FAIL: %s output has NaN/inf" % name)
            ok = False
    # The output's own rounding (bf16, f16) bounds both errors from below;
    # both must also be at that rounding's level, so that a mistake the two
    # lowerings share (a descale factor dropped by both) cannot pass.
    if not ef <= 2 * eu + 1e-6:
        print("FAIL: fused error above 2x the unfused error")
        ok = False
    level = {"bf16": 2.0 ** -7, "f16": 2.0 ** -10, "f32": 1e-5}[a.out]
    if not max(ef, eu) <= level:
        print("FAIL: error above the %s output's rounding (%.1e)" % (a.out, level))
        ok = False
    if dead.any():
        rows = np.repeat(dead.reshape(-1), dv)
        if np.any(fused[rows] != 0):
            print("FAIL: fully masked rows are not 0")
            ok = False
        else:
            print("fully-masked rows: %d, all zero" % int(dead.sum()))
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


def main():
    ap = exec_arguments(__doc__)
    ap.add_argument("--encodings", choices=("f8E4M3FN", "f8E5M2"))
    ap.add_argument("--truncations", choices=("f8E4M3FN", "f8E5M2"),
                    help="check arith.truncf to this format against APFloat")
    ap.add_argument("--source", choices=("f32", "f16", "bf16"), default="f32")
    ap.add_argument("--format", choices=("f8E4M3FN", "f8E5M2"), default="f8E4M3FN")
    ap.add_argument("--out", choices=("f16", "bf16", "f32"), default="f32")
    ap.add_argument("--B", type=int, default=1)
    ap.add_argument("--H", type=int, default=2)
    ap.add_argument("--Hkv", type=int, default=0)
    ap.add_argument("--Lq", type=int, default=24)
    ap.add_argument("--Lk", type=int, default=0)
    ap.add_argument("--d", type=int, default=16)
    ap.add_argument("--dv", type=int, default=0)
    ap.add_argument("--causal", default="none", choices=["none", "top_left", "bottom_right"])
    ap.add_argument("--dead-row", action="store_true", help="a keep mask with a row that sees nothing")
    ap.add_argument("--spread", type=float, default=2.0, help="std of the real Q, K, V values")
    a = ap.parse_args()
    if a.truncations:
        return check_truncations(a)
    return check_encodings(a) if a.encodings else check_attention(a)


if __name__ == "__main__":
    sys.exit(main())

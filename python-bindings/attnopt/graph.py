"""Builders that emit attn-dialect IR for attention from shapes.

    >>> print(attnopt.graph.attention(2, 8, 1024, 64, causal=True))

Shapes follow attn.attention: Q [B, H, Lq, d], K [B, Hkv, Lk, d],
V [B, Hkv, Lk, dv]. B=None drops the batch dim; H=None too (rank 2).

Every argument is checked before any IR is written: a wrong type raises
TypeError, a wrong value ValueError, and nothing the caller passes is copied
into the IR as text (dims are printed from ints, the scale from a float, the
causal alignment and dtype from fixed spellings).
"""
from __future__ import annotations

import math
import numbers
import re
from typing import Optional, Union

DTYPES = ("f16", "bf16", "f32", "f64")
"""Element types the attn dialect's builders accept."""

FP8_DTYPES = ("f8E4M3FN", "f8E5M2")
"""8-bit float inputs `attention` also accepts (FP8 inference): the output
is then `out_dtype` (f16, bf16 or f32), and `descale=True` adds the three
per-tensor descale factors as f32 scalar arguments."""

CAUSAL = (False, True, "top_left", "bottom_right")
"""Accepted values of `causal`: True means "top_left" (PyTorch's is_causal)."""

# Largest dim accepted: MLIR tensor dims are int64; the cost model and the
# kernels index with 32-bit ints per dim, and no real attention comes close.
MAX_DIM = 2**31 - 1

_SYMBOL = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]{0,255}\Z")


def check_int(name: str, value, *, lo: int = 1, hi: int = MAX_DIM) -> int:
    """`value` as an int in [lo, hi]; TypeError for bool, float, str...,
    ValueError when out of range."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError("%s must be an int, got %s %r" % (name, type(value).__name__, value))
    value = int(value)
    if not lo <= value <= hi:
        if lo == 1:
            raise ValueError("%s must be a positive int (at most %d), got %d" % (name, hi, value))
        raise ValueError("%s must be an int in [%d, %d], got %d" % (name, lo, hi, value))
    return value


def check_positive_float(name: str, value, lo: float = 0.0) -> float:
    """`value` (an int or float, not bool) as a finite float > 0 (and >= lo)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError("%s must be a number, got %s %r" % (name, type(value).__name__, value))
    try:
        f = float(value)
    except (OverflowError, ValueError):
        raise ValueError("%s must be a finite positive number, got %r" % (name, value)) from None
    if not math.isfinite(f) or f <= 0.0:
        raise ValueError("%s must be a finite positive number, got %r" % (name, value))
    if f < lo:
        raise ValueError("%s must be a finite number >= %r, got %r" % (name, lo, value))
    return f


def check_choice(name: str, value, choices) -> str:
    """`value`, a str that is exactly one of `choices`."""
    if not isinstance(value, str):
        raise TypeError("%s must be a str, one of %s; got %s %r"
                        % (name, ", ".join(choices), type(value).__name__, value))
    if value not in choices:
        raise ValueError("%s must be one of %s; got %r" % (name, ", ".join(choices), value))
    return value


def check_causal(causal) -> Optional[str]:
    """None (not causal), "top_left" or "bottom_right"."""
    if isinstance(causal, bool):
        return "top_left" if causal else None
    if isinstance(causal, str):
        if causal in ("top_left", "bottom_right"):
            return causal
        raise ValueError("causal must be False, True, 'top_left' or 'bottom_right'; got %r"
                         % causal)
    raise TypeError("causal must be a bool or 'top_left'/'bottom_right'; got %s %r"
                    % (type(causal).__name__, causal))


def check_dtype(dtype) -> str:
    return check_choice("dtype", dtype, DTYPES)


def check_symbol(name: str, value) -> str:
    """A function name printable as @name without quoting."""
    if not isinstance(value, str):
        raise TypeError("%s must be a str, got %s %r" % (name, type(value).__name__, value))
    if not _SYMBOL.match(value):
        raise ValueError("%s must match [A-Za-z_][A-Za-z0-9_$.]* (at most 256 chars); got %r"
                         % (name, value))
    return value


def mlir_float(x: float) -> str:
    """A finite float as a decimal literal MLIR's parser reads back to the
    same double. MLIR's lexer needs a '.' in a float literal ('1' and '1e-08'
    lex as integers), so '.0' goes into any mantissa without one:
    1.0 -> '1.0', 1e-08 -> '1.0e-08', 1e+30 -> '1.0e+30', 5e-324 -> '5.0e-324'."""
    x = float(x)
    if not math.isfinite(x):
        raise ValueError("MLIR float literal of a non-finite value %r" % x)
    text = repr(x)  # shortest string that round-trips
    mantissa, e, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + e + exponent


def _scale(scale, d: int) -> float:
    if scale is None:
        return 1.0 / math.sqrt(d)
    return check_positive_float("scale", scale)


def _tensor(lead, rows, cols, dtype):
    return "tensor<%s>" % "x".join([str(x) for x in lead] + [str(rows), str(cols), dtype])


def _optional_dim(name, value):
    return None if value is None else check_int(name, value)


def _checked_problem(B, H, L, d, Lk, dv, dtype, causal, scale, func_name):
    """The arguments `attention` and `unfused_attention` share, checked (each
    raises ValueError or TypeError) and with their defaults filled in:
    (B, H, L, d, Lk, dv, dtype, causal alignment or None, scale, func_name)."""
    B, H = _optional_dim("B", B), _optional_dim("H", H)
    L, d = check_int("L", L), check_int("d", d)
    Lk = L if Lk is None else check_int("Lk", Lk)
    dv = d if dv is None else check_int("dv", dv)
    if B is not None and H is None:
        raise ValueError("a batch dim needs a head dim (pass H)")
    return (B, H, L, d, Lk, dv, check_dtype(dtype), check_causal(causal),
            _scale(scale, d), check_symbol("func_name", func_name))


def attention(B: Optional[int], H: Optional[int], L: int, d: int, *,
              Lk: Optional[int] = None, dv: Optional[int] = None,
              hkv: Optional[int] = None, dtype: str = "bf16",
              causal: Union[bool, str] = False, scale: Optional[float] = None,
              func_name: str = "attention", out_dtype: Optional[str] = None,
              descale: bool = False) -> str:
    """One attn.attention in a function. `causal` is False, True (=
    "top_left") or "bottom_right" (anything else raises); `scale` defaults
    to 1/sqrt(d) and must be finite and positive; `hkv` must divide H.
    FP8 (`dtype` in FP8_DTYPES): the output is `out_dtype` (default bf16;
    f16, bf16 or f32) and `descale=True` appends the arguments %q_descale,
    %k_descale, %v_descale (tensor<f32>). Other dtypes take neither."""
    fp8 = isinstance(dtype, str) and dtype in FP8_DTYPES
    if not isinstance(descale, bool):
        raise TypeError("descale must be a bool, got %s %r" % (type(descale).__name__, descale))
    if fp8:
        out_dtype = check_choice("out_dtype", "bf16" if out_dtype is None else out_dtype,
                                 ("f16", "bf16", "f32"))
    elif descale or out_dtype is not None:
        raise ValueError("out_dtype and descale apply to 8-bit float inputs (%s) only"
                         % ", ".join(FP8_DTYPES))
    in_dtype = dtype
    B, H, L, d, Lk, dv, dtype, align, scale, func_name = _checked_problem(
        B, H, L, d, Lk, dv, out_dtype if fp8 else dtype, causal, scale, func_name)
    if not fp8:
        in_dtype = out_dtype = dtype
    if hkv is not None:
        hkv = check_int("hkv", hkv)
        if H is None:
            raise ValueError("hkv needs a head dim (pass H)")
    else:
        hkv = H
    if H is not None and H % hkv:
        raise ValueError("H (%d) must be a multiple of hkv (%d)" % (H, hkv))
    lead_q = [x for x in (B, H) if x is not None]
    lead_kv = [x for x in (B, hkv) if x is not None]
    qt, kt = _tensor(lead_q, L, d, in_dtype), _tensor(lead_kv, Lk, d, in_dtype)
    vt, ot = _tensor(lead_kv, Lk, dv, in_dtype), _tensor(lead_q, L, dv, out_dtype)
    c = " causal(%s)" % align if align else ""
    scalars, op_descale = "", ""
    if descale:
        scalars = ", %q_descale: tensor<f32>, %k_descale: tensor<f32>, %v_descale: tensor<f32>"
        op_descale = (" descale(%q_descale, %k_descale, %v_descale : tensor<f32>, tensor<f32>,"
                      " tensor<f32>)")
    return (
        "func.func @%s(%%q: %s, %%k: %s, %%v: %s%s) -> %s {\n"
        "  %%o = attn.attention %%q, %%k, %%v%s scale(%s)%s : %s, %s, %s -> %s\n"
        "  return %%o : %s\n}\n" % (func_name, qt, kt, vt, scalars, ot, op_descale,
                                   mlir_float(scale), c, qt, kt, vt, ot, ot))


def _one_op_function(func_name, op, scale, align, operands, result_type):
    """A function of `operands` ((name, type)) whose body is `op` (its text
    up to the scale, naming operands as %<name>) with scale and causal."""
    c = " causal(%s)" % align if align else ""
    types = ", ".join(t for _, t in operands)
    return ("func.func @%s(%s) -> %s {\n  %%o = %s scale(%s)%s : %s -> %s\n"
            "  return %%o : %s\n}\n"
            % (func_name, ", ".join("%%%s: %s" % (n, t) for n, t in operands), result_type,
               op, mlir_float(scale), c, types, result_type, result_type))


def paged_attention(B: int, H: int, L: int, d: int, *, hkv: int, num_pages: int,
                    page_size: int, max_pages: int, dv: Optional[int] = None,
                    dtype: str = "bf16", causal: Union[bool, str] = False,
                    scale: Optional[float] = None,
                    func_name: str = "paged_attention") -> str:
    """One attn.paged_attention in a function: L queries per sequence over
    a paged KV cache of `num_pages` pages of `page_size` tokens ([pages,
    page_size, hkv, d]), a block table [B, max_pages] and lengths [B] (i32).
    Decode is L = 1 with causal="bottom_right" (or no mask at all)."""
    B, H, L, d, _, dv, dtype, align, scale, func_name = _checked_problem(
        B, H, L, d, None, dv, dtype, causal, scale, func_name)
    if B is None:
        raise ValueError("paged_attention needs a batch dim (pass B)")
    hkv = check_int("hkv", hkv)
    num_pages = check_int("num_pages", num_pages)
    page_size = check_int("page_size", page_size)
    max_pages = check_int("max_pages", max_pages)
    if H % hkv:
        raise ValueError("H (%d) must be a multiple of hkv (%d)" % (H, hkv))
    if max_pages * page_size > 2**31 - 1:
        raise ValueError("max_pages * page_size must fit the i32 sequence lengths")
    qt, ot = _tensor([B, H], L, d, dtype), _tensor([B, H], L, dv, dtype)
    kt = _tensor([num_pages, page_size], hkv, d, dtype)
    vt = _tensor([num_pages, page_size], hkv, dv, dtype)
    tt, lt = "tensor<%dx%dxi32>" % (B, max_pages), "tensor<%dxi32>" % B
    return _one_op_function(
        func_name, "attn.paged_attention %q, %k, %v pages(%table, %lens)", scale, align,
        [("q", qt), ("k", kt), ("v", vt), ("table", tt), ("lens", lt)], ot)


def varlen_attention(total_q: int, H: int, d: int, *, total_k: int, batch: int,
                     hkv: Optional[int] = None, dv: Optional[int] = None,
                     dtype: str = "bf16", causal: Union[bool, str] = False,
                     scale: Optional[float] = None,
                     func_name: str = "varlen_attention") -> str:
    """One attn.varlen_attention in a function: `batch` sequences packed
    without padding (FlashAttention's varlen layout) as Q [total_q, H, d],
    K [total_k, hkv, d], V [total_k, hkv, dv], located by the cumulative
    lengths cu_seqlens_q and cu_seqlens_k, each [batch + 1] (i32). The
    lengths are run-time values; the function takes them as arguments."""
    total_q = check_int("total_q", total_q, hi=2**31 - 1)
    total_k = check_int("total_k", total_k, hi=2**31 - 1)
    _, H, total_q, d, total_k, dv, dtype, align, scale, func_name = _checked_problem(
        None, H, total_q, d, total_k, dv, dtype, causal, scale, func_name)
    batch = check_int("batch", batch)
    hkv = H if hkv is None else check_int("hkv", hkv)
    if H % hkv:
        raise ValueError("H (%d) must be a multiple of hkv (%d)" % (H, hkv))
    qt = "tensor<%dx%dx%dx%s>" % (total_q, H, d, dtype)
    kt = "tensor<%dx%dx%dx%s>" % (total_k, hkv, d, dtype)
    vt = "tensor<%dx%dx%dx%s>" % (total_k, hkv, dv, dtype)
    ot = "tensor<%dx%dx%dx%s>" % (total_q, H, dv, dtype)
    ct = "tensor<%dxi32>" % (batch + 1)
    return _one_op_function(
        func_name, "attn.varlen_attention %q, %k, %v seqlens(%cu_q, %cu_k)", scale, align,
        [("q", qt), ("k", kt), ("v", vt), ("cu_q", ct), ("cu_k", ct)], ot)


def unfused_attention(B: Optional[int], H: Optional[int], L: int, d: int, *,
                      Lk: Optional[int] = None, dv: Optional[int] = None,
                      dtype: str = "f32", causal: Union[bool, str] = False,
                      scale: Optional[float] = None,
                      func_name: str = "unfused_attention") -> str:
    """The same attention as graph primitives (matmul, scale, mask, softmax,
    matmul): what --attn-detect raises back to attn.attention. Arguments are
    checked as in `attention`."""
    B, H, L, d, Lk, dv, dtype, align, scale, func_name = _checked_problem(
        B, H, L, d, Lk, dv, dtype, causal, scale, func_name)
    lead = [x for x in (B, H) if x is not None]
    rank = len(lead) + 2
    qt, kt, vt = _tensor(lead, L, d, dtype), _tensor(lead, Lk, d, dtype), _tensor(lead, Lk, dv, dtype)
    st, ot = _tensor(lead, L, Lk, dtype), _tensor(lead, L, dv, dtype)
    lines = ["func.func @%s(%%q: %s, %%k: %s, %%v: %s) -> %s {" % (func_name, qt, kt, vt, ot),
             "  %%s = attn.matmul %%q, %%k transpose_rhs : %s, %s -> %s" % (qt, kt, st),
             "  %%s1 = attn.scale %%s by %s : %s" % (mlir_float(scale), st)]
    last = "%s1"
    if align:
        lines.append("  %%s2 = attn.mask causal %s align %s : %s" % (last, align, st))
        last = "%s2"
    lines += ["  %%p = attn.softmax %s dim %d : %s" % (last, rank - 1, st),
              "  %%o = attn.matmul %%p, %%v : %s, %s -> %s" % (st, vt, ot),
              "  return %%o : %s" % ot, "}"]
    return "\n".join(lines) + "\n"

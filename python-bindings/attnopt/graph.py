"""Builders that emit attn-dialect IR for attention from shapes.

    >>> print(attnopt.graph.attention(2, 8, 1024, 64, causal=True))

Shapes follow attn.attention: Q [B, H, Lq, d], K [B, Hkv, Lk, d],
V [B, Hkv, Lk, dv]. B=None drops the batch dim; H=None too (rank 2).
"""
from __future__ import annotations

import math
from typing import Optional

_DTYPES = {"f16", "bf16", "f32", "f64"}


def _check(**dims: Optional[int]) -> None:
    for name, value in dims.items():
        if value is not None and (not isinstance(value, int) or value <= 0):
            raise ValueError("%s must be a positive int, got %r" % (name, value))


def _tensor(lead, rows, cols, dtype):
    return "tensor<%s>" % "x".join([str(x) for x in lead] + [str(rows), str(cols), dtype])


def attention(B: Optional[int], H: Optional[int], L: int, d: int, *,
              Lk: Optional[int] = None, dv: Optional[int] = None,
              hkv: Optional[int] = None, dtype: str = "bf16",
              causal: bool | str = False, scale: Optional[float] = None,
              func_name: str = "attention") -> str:
    """One attn.attention in a function. `causal` is False, True (top-left)
    or "bottom_right"; `scale` defaults to 1/sqrt(d)."""
    Lk = Lk or L
    dv = dv or d
    hkv = hkv or H
    _check(B=B, H=H, L=L, d=d, Lk=Lk, dv=dv, hkv=hkv)
    if dtype not in _DTYPES:
        raise ValueError("dtype must be one of %s, got %r" % (sorted(_DTYPES), dtype))
    if H is not None and H % hkv:
        raise ValueError("H (%d) must be a multiple of hkv (%d)" % (H, hkv))
    if B is not None and H is None:
        raise ValueError("a batch dim needs a head dim (pass H)")
    lead_q = [x for x in (B, H) if x is not None]
    lead_kv = [x for x in (B, hkv if H is not None else None) if x is not None]
    qt, kt = _tensor(lead_q, L, d, dtype), _tensor(lead_kv, Lk, d, dtype)
    vt, ot = _tensor(lead_kv, Lk, dv, dtype), _tensor(lead_q, L, dv, dtype)
    scale = 1.0 / math.sqrt(d) if scale is None else float(scale)
    c = ""
    if causal:
        c = " causal(%s)" % ("bottom_right" if causal == "bottom_right" else "top_left")
    return (
        "func.func @%s(%%q: %s, %%k: %s, %%v: %s) -> %s {\n"
        "  %%o = attn.attention %%q, %%k, %%v scale(%r)%s : %s, %s, %s -> %s\n"
        "  return %%o : %s\n}\n" % (func_name, qt, kt, vt, ot, scale, c, qt, kt, vt, ot, ot))


def unfused_attention(B: Optional[int], H: Optional[int], L: int, d: int, *,
                      Lk: Optional[int] = None, dv: Optional[int] = None,
                      dtype: str = "f32", causal: bool = False,
                      scale: Optional[float] = None,
                      func_name: str = "unfused_attention") -> str:
    """The same attention as graph primitives (matmul, scale, mask, softmax,
    matmul): what --attn-detect raises back to attn.attention."""
    Lk = Lk or L
    dv = dv or d
    _check(B=B, H=H, L=L, d=d, Lk=Lk, dv=dv)
    if dtype not in _DTYPES:
        raise ValueError("dtype must be one of %s, got %r" % (sorted(_DTYPES), dtype))
    lead = [x for x in (B, H) if x is not None]
    rank = len(lead) + 2
    qt, kt, vt = _tensor(lead, L, d, dtype), _tensor(lead, Lk, d, dtype), _tensor(lead, Lk, dv, dtype)
    st, ot = _tensor(lead, L, Lk, dtype), _tensor(lead, L, dv, dtype)
    scale = 1.0 / math.sqrt(d) if scale is None else float(scale)
    lines = ["func.func @%s(%%q: %s, %%k: %s, %%v: %s) -> %s {" % (func_name, qt, kt, vt, ot),
             "  %%s = attn.matmul %%q, %%k transpose_rhs : %s, %s -> %s" % (qt, kt, st),
             "  %%s1 = attn.scale %%s by %r : %s" % (scale, st)]
    last = "%s1"
    if causal:
        lines.append("  %%s2 = attn.mask causal %s : %s" % (last, st))
        last = "%s2"
    lines += ["  %%p = attn.softmax %s dim %d : %s" % (last, rank - 1, st),
              "  %%o = attn.matmul %%p, %%v : %s, %s -> %s" % (st, vt, ot),
              "  return %%o : %s" % ot, "}"]
    return "\n".join(lines) + "\n"

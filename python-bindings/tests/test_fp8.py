"""Tests of attnopt.compile on 8-bit float inputs: the FP8 tensor-core
kernel's manifest (its Vᵀ pre-kernel, workspace and launches), fp8_mma's
values, and the graph builder's FP8 arguments. (Split from
test_attnopt.py, which passed 600 lines.)"""
import pytest

import attnopt
from attnopt import graph


@pytest.mark.parametrize("fmt,out,descale,target", [
    ("f8E4M3FN", "bf16", True, "sm_90a"), ("f8E5M2", "f16", False, "sm_80"),
    ("f8E4M3FN", "f32", True, "sm_80")])
def test_compile_fp8(fmt, out, descale, target):
    # FP8 inputs: the FP8 wgmma kernel on sm_90a (one-byte atoms of 128
    # columns: TMA boxes 128 wide), the generic kernel elsewhere; the inputs
    # in their 8-bit type, O in the output type, the descale factors as
    # three f32 scalars after the tensors.
    text = graph.attention(1, 4, 256, 128, hkv=2, causal=True, dtype=fmt, out_dtype=out,
                           descale=descale)
    k = attnopt.compile(text, target=target, fp8_mma="on")
    # fp8_mma="auto" is "on" (bench/NOTES.md v43); "off" asks for the
    # generic kernel.
    assert attnopt.compile(text, target=target).manifest["instruction"] == \
        k.manifest["instruction"]
    assert attnopt.compile(text, target=target, fp8_mma="off").manifest["instruction"] \
        .startswith("fma")
    params = {p["name"]: p for p in k.manifest["params"]}
    assert k.manifest["dtype"] == fmt and k.manifest["output_dtype"] == out
    assert params["q"]["type"] == fmt + "*" and params["o"]["type"] == out + "*"
    assert k.manifest["descale"] == descale
    names = [p["name"] for p in k.manifest["params"]]
    if descale:
        assert names[-3:] == ["q_descale", "k_descale", "v_descale"]
        assert all(params[n]["type"] == "f32*" and params[n]["shape"] == []
                   for n in names[-3:])
    else:
        assert "q_descale" not in names
    if target == "sm_90a":
        assert "e4m3" in k.manifest["instruction"]
        # K by tensor boxes 128 one-byte columns wide; V as Vᵀ tile images
        # that a first launch writes into a workspace of the inputs' type,
        # [B, Hkv, K/V tiles, 128 · dv bytes], read in V's place.
        assert [(m["tensor"], m["box"][0]) for m in k.manifest["tensor_maps"]] == [("k", 128)]
        tiles = -(-256 // k.manifest["block_kv"])
        assert k.manifest["workspace"] == [
            {"name": "v_transposed", "type": fmt + "*", "shape": [1, 2, tiles, 128 * 128]}]
        first, attention = k.manifest["launches"]
        assert first["kernel"] == k.name + "_vt" and first["args"] == ["v", "v_transposed"]
        assert first["grid"] == [tiles, 2, 1] and first["block"] == [128, 1, 1]
        assert attention["kernel"] == k.name and attention["args"][:3] == ["q", "k", "v_transposed"]
        assert attention["args"][-1] == "k_tensor_map"
    else:
        assert k.manifest["instruction"].startswith("fma")
    assert ".entry " + k.name in k.ptx


@pytest.mark.parametrize("kwargs,error,message", [
    (dict(dtype="f8E4M3FN", out_dtype="f8E4M3FN"), ValueError, "out_dtype must be one of"),
    (dict(dtype="bf16", descale=True), ValueError, "apply to 8-bit float inputs"),
    (dict(dtype="bf16", out_dtype="f32"), ValueError, "apply to 8-bit float inputs"),
    (dict(dtype="f8E4M3FN", descale=1), TypeError, "descale must be a bool"),
    (dict(dtype="f8E4M3"), ValueError, "dtype must be one of")])
def test_fp8_builder_validates(kwargs, error, message):
    with pytest.raises(error, match=message):
        graph.attention(1, 2, 64, 64, **kwargs)

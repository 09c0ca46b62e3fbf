"""Tests of the attnopt package: every API function and its error paths."""
import json
import os
import struct
import subprocess

import pytest

import attnopt
from attnopt import graph

ATTN_OPT = os.environ.get("ATTN_OPT", os.path.join(
    os.path.dirname(__file__), "..", "..", "build", "bin", "attn-opt"))


def test_graph_attention_is_valid_ir():
    text = graph.attention(2, 8, 128, 64, hkv=2, causal=True)
    assert "attn.attention" in text and "causal(top_left)" in text
    # It parses and verifies: the identity pipeline prints it back.
    out = attnopt.run_pipeline(text, "canonicalize")
    assert "tensor<2x2x128x64xbf16>" in out


def test_graph_rejects_bad_shapes():
    with pytest.raises(ValueError, match="multiple of hkv"):
        graph.attention(1, 6, 64, 32, hkv=4)
    with pytest.raises(ValueError, match="positive int"):
        graph.attention(1, 2, 0, 32)
    with pytest.raises(ValueError, match="dtype"):
        graph.attention(1, 2, 64, 32, dtype="i8")


def test_graph_causal_is_exact():
    for causal, printed in ((True, "causal(top_left)"), ("top_left", "causal(top_left)"),
                            ("bottom_right", "causal(bottom_right)")):
        assert printed in graph.attention(1, 2, 64, 32, causal=causal)
    assert "causal" not in graph.attention(1, 2, 64, 32, causal=False)
    for bad in ("bottom_left", "false", "true", "", "Top_Left"):
        with pytest.raises(ValueError, match="causal must be False, True, 'top_left'"):
            graph.attention(1, 2, 64, 32, causal=bad)
        with pytest.raises(ValueError):
            graph.unfused_attention(1, 2, 64, 32, causal=bad)
    for bad in (0, 1, None, 1.0):
        with pytest.raises(TypeError):
            graph.attention(1, 2, 64, 32, causal=bad)
    # The unfused graph's bottom-right mask is raised with its alignment.
    r = attnopt.detect(graph.unfused_attention(1, 2, 32, 16, Lk=48, causal="bottom_right"))
    assert r.count == 1 and "causal(bottom_right)" in r.ir


@pytest.mark.parametrize("scale", [1, 1.0, 1e-8, 1e30, 0.125, 5e-324, 1.7976931348623157e308,
                                   3, 0.1, 2.0**-1074 * 3, 123456789.0])
def test_scale_prints_as_an_mlir_float(scale):
    # Every finite positive scale parses back to the same double, in both
    # builders (MLIR's lexer reads '1' and '1e-08' as integers).
    import re
    for text in (graph.attention(1, 2, 16, 16, scale=scale, dtype="f32"),
                 graph.unfused_attention(1, 2, 16, 16, scale=scale)):
        out = attnopt.run_pipeline(text, "canonicalize")
        printed = re.search(r"(?:scale\(|by )(0x[0-9A-F]+|[-+0-9.eE]+)", out).group(1)
        if printed.startswith("0x"):  # MLIR prints the bits when %e would round
            printed = struct.unpack(">d", bytes.fromhex(printed[2:]))[0]
        assert float(printed) == float(scale)
    assert graph.mlir_float(1) == "1.0" and graph.mlir_float(1e-8) == "1.0e-08"
    assert graph.mlir_float(1e30) == "1.0e+30" and graph.mlir_float(0.125) == "0.125"


def test_graph_rejects_bad_scale_and_names():
    for bad in (0, -1.0, float("nan"), float("inf"), -float("inf"), 10**400):
        with pytest.raises(ValueError, match="scale must be a finite positive number"):
            graph.attention(1, 2, 64, 32, scale=bad)
    with pytest.raises(TypeError, match="scale must be a number"):
        graph.attention(1, 2, 64, 32, scale="0.125")
    with pytest.raises(ValueError, match="func_name"):
        graph.attention(1, 2, 64, 32, func_name="f() {}")
    with pytest.raises(TypeError, match="L must be an int"):
        graph.attention(1, 2, 64.0, 32)
    with pytest.raises(TypeError, match="L must be an int"):
        graph.attention(1, 2, True, 32)
    with pytest.raises(ValueError, match="Lk must be a positive int"):
        graph.attention(1, 2, 64, 32, Lk=0)
    with pytest.raises(ValueError, match="hkv needs a head dim"):
        graph.attention(None, None, 64, 32, hkv=2)


def test_no_option_injection(tmp_path):
    # A value with spaces, braces, '=' or quotes never reaches a pipeline.
    svg = tmp_path / "x.svg"
    text = graph.attention(1, 2, 64, 32)
    for target in ("h100 roofline=%s" % svg, "h100}", 'h100"', "h100,canonicalize"):
        with pytest.raises(ValueError, match="target must be one of"):
            attnopt.io_cost(text, target=target)
    with pytest.raises(TypeError, match="hbm_bandwidth must be a number"):
        attnopt.io_cost(text, hbm_bandwidth="1e12 roofline=%s" % svg)
    with pytest.raises(TypeError, match="unknown override"):
        attnopt.io_cost(text, roofline=str(svg))
    for kwargs in (dict(target="sm_80 dump-dir=%s" % tmp_path), dict(mma="auto chip=sm_70"),
                   dict(target="sm_80}")):
        with pytest.raises(ValueError):
            attnopt.compile(text, **kwargs)
    assert not svg.exists() and not list(tmp_path.iterdir())


def test_temp_paths_with_odd_tmpdir(tmp_path, monkeypatch):
    # compile passes its temp dump dir quoted (io_cost passes typed options
    # and no path at all): a TMPDIR with spaces, braces and '=' works, and
    # nothing is left behind.
    odd = tmp_path / "a b{c}=d"
    odd.mkdir()
    monkeypatch.setenv("TMPDIR", str(odd))
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", None)
    c = attnopt.io_cost(B=1, H=2, Lq=64, Lk=64, d=32)
    assert c["flops"] == 4 * 2 * 64 * 64 * 32
    k = attnopt.compile(graph.attention(1, 2, 128, 64), target="sm_80")
    assert ".target sm_80" in k.ptx
    assert list(odd.iterdir()) == []


def test_run_pipeline_fuses():
    out = attnopt.run_pipeline(graph.attention(1, 2, 128, 32, dtype="f16"),
                               "func.func(attn-fuse{block-q=64 block-kv=32}),canonicalize")
    assert "attn.online_attention" in out and "scf.for" in out
    assert "attn.attention" not in out


def test_run_pipeline_errors_carry_locations():
    with pytest.raises(attnopt.MLIRError) as e:
        attnopt.run_pipeline("func.func @f( {", "canonicalize")
    assert "<attnopt input>:1:" in str(e.value)
    bad = ("func.func @f(%q: tensor<8x4xf32>, %k: tensor<8x5xf32>) -> tensor<8x5xf32> {\n"
           "  %o = attn.attention %q, %k, %k scale(1.0) : tensor<8x4xf32>, tensor<8x5xf32>, "
           "tensor<8x5xf32> -> tensor<8x5xf32>\n  return %o : tensor<8x5xf32>\n}\n")
    with pytest.raises(attnopt.MLIRError, match=r"2:8: error: 'attn.attention' op key head dim 5"):
        attnopt.run_pipeline(bad, "canonicalize")


def test_run_pipeline_type_errors():
    with pytest.raises(TypeError, match="mlir_text must be a str"):
        attnopt.run_pipeline(b"module {}", "canonicalize")
    with pytest.raises(TypeError, match="pipeline must be a str"):
        attnopt.run_pipeline("module {}", None)
    with pytest.raises(TypeError, match="explain must be a bool"):
        attnopt.detect("module {}", explain="yes")


def test_crashes_become_mlir_errors():
    # What would kill the interpreter (here an LLVM fatal error in the NVPTX
    # backend: no cp.async before sm_80) is caught by the native module's
    # crash recovery; the process goes on.
    with pytest.raises(attnopt.MLIRError, match="crashed|chip"):
        attnopt.run_pipeline(graph.attention(1, 2, 128, 64), "attn-gpu-pipeline{chip=sm_70}")
    assert attnopt.detect(graph.unfused_attention(1, 2, 32, 16)).count == 1


def test_run_pipeline_bad_pipeline():
    with pytest.raises(attnopt.MLIRError, match="invalid pass pipeline"):
        attnopt.run_pipeline(graph.attention(1, 1, 16, 16), "no-such-pass")
    with pytest.raises(attnopt.MLIRError, match="failed"):
        attnopt.run_pipeline(graph.attention(1, 1, 16, 16), "attn-io-cost{target=v100}")


def test_detect_raises_and_explains():
    r = attnopt.detect(graph.unfused_attention(2, 4, 64, 16, causal=True))
    assert r.count == 1
    assert "causal(top_left)" in r.ir and "attn.softmax" not in r.ir
    look_alike = graph.unfused_attention(None, None, 32, 16).replace("dim 1", "dim 0")
    r = attnopt.detect(look_alike, explain=True)
    assert r.count == 0
    assert any("softmax reduces over dim 0 but P·V contracts dim 1" in x for x in r.remarks)


def test_io_cost_from_shapes_matches_hand_computation():
    # ANCHORS.md: B=1, H=16, N=4096, d=64, bf16 on the H200 reads Q+K+V once.
    c = attnopt.io_cost(B=1, H=16, Lq=4096, Lk=4096, d=64)
    assert c["flops"] == 4 * 16 * 4096 * 4096 * 64
    assert c["fused_dram_read_bytes"] == 25165824
    assert c["bound_naive"] == "memory" and c["bound_fused"] == "compute"
    # The kernel that runs on the H200 (wgmma with TMA loads, 128 x 128 at
    # d = 64 non-causal: bench/NOTES.md v32c), and it is costed.
    assert (c["block_q"], c["block_kv"]) == (128, 128)
    assert c["kernel_config"] == {"family": "wgmma", "block_q": 128, "block_kv": 128,
                                  "rows_per_warp": 16, "kv_stages": 2, "swizzle": False,
                                  "kv_splits": 1, "pack_kv_groups": False, "kv_warps": 1,
                                  "tma_loads": True, "producer_warpgroup": False,
                                  "overlap_pv": False, "persistent": False}
    assert c["target"]["name"] == "h200"


def test_io_cost_overrides_and_errors():
    c = attnopt.io_cost(B=1, H=16, Lq=4096, Lk=4096, d=64, sram_bytes=16384)
    assert (c["block_q"], c["block_kv"]) == (16, 16)
    decode = attnopt.io_cost(B=1, H=64, hkv=8, Lq=1, Lk=4096, d=128)
    assert decode["bound_fused"] == "memory"
    with pytest.raises(TypeError, match="unknown override"):
        attnopt.io_cost(B=1, H=1, Lq=16, Lk=16, d=16, sram=1)
    with pytest.raises(ValueError, match="missing: Lk, d"):
        attnopt.io_cost(B=1, H=1, Lq=16)
    # Checked in Python before anything runs: the accepted presets are listed.
    with pytest.raises(ValueError, match="target must be one of a100, a10, l40s, h100, h200, rtx5090"):
        attnopt.io_cost(B=1, H=1, Lq=16, Lk=16, d=16, target="v100")
    with pytest.raises(ValueError, match="hbm_bandwidth must be a finite positive number"):
        attnopt.io_cost(B=1, H=1, Lq=16, Lk=16, d=16, hbm_bandwidth=float("inf"))
    with pytest.raises(TypeError, match="sram_bytes must be an int"):
        attnopt.io_cost(B=1, H=1, Lq=16, Lk=16, d=16, sram_bytes=16384.0)
    # A float override may be an int; a huge one is fine while finite.
    c = attnopt.io_cost(B=1, H=1, Lq=16, Lk=16, d=16, hbm_bandwidth=4 * 10**12,
                        peak_bf16=1e300)
    assert c["target"]["hbm_bytes_per_s"] == 4e12
    assert c["target"]["peak_tensor_flops"]["bf16"] == 1e300


@pytest.mark.skipif(not os.path.exists(ATTN_OPT), reason="attn-opt not built")
def test_io_cost_equals_attn_opt_report(tmp_path):
    text = graph.attention(2, 8, 1024, 128, hkv=2, dtype="f16", causal=True)
    src = tmp_path / "a.mlir"
    src.write_text(text)
    report = tmp_path / "r.json"
    subprocess.run([ATTN_OPT, str(src), "--attn-io-cost=target=h100 report=%s" % report,
                    "-o", os.devnull], check=True)
    assert attnopt.io_cost(text, target="h100") == json.loads(report.read_text())


def test_compile_gives_ptx_manifest_and_cost():
    k = attnopt.compile(graph.attention(2, 8, 256, 64, hkv=2, causal=True))
    # The default target is Hopper (sm_90a): wgmma. Causal and short: one
    # warpgroup of 64 rows per CTA, 64-key tiles.
    assert k.name.startswith("attn_fa2_wgmma_bf16_b2_h8_kv2_q256_k256_d64_v64_causal_bq64_bk64")
    assert ".target sm_90a" in k.ptx and "wgmma.mma_async.sync.aligned.m64n64k16" in k.ptx
    # 64 CTAs hold less than one wave of the H200: split the keys in 2 (the
    # wave model), combined by a second kernel that the manifest lists.
    assert k.manifest["grid"]["value"] == [4, 16, 2]
    assert [launch["kernel"] for launch in k.manifest["launches"]] == [k.name, k.name + "_combine"]
    assert [w["name"] for w in k.manifest["workspace"]] == ["o_partial", "row_stats"]
    assert k.manifest["block"]["value"] == [128, 1, 1]
    assert k.manifest["min_chip"] == "sm_90a"
    unsplit = attnopt.compile(graph.attention(2, 8, 256, 64, hkv=2, causal=True), kv_splits=1)
    assert unsplit.manifest["grid"]["value"] == [4, 16, 1]
    assert len(unsplit.manifest["launches"]) == 1 and unsplit.manifest["workspace"] == []
    # Decode: the 4 query heads of each K/V head packed into one 16-row tile.
    step = attnopt.compile(graph.attention(2, 8, 1, 64, hkv=2, Lk=4096))
    assert step.manifest["pack_kv_groups"] is True and step.manifest["block_q"] == 16
    assert step.manifest["grid"]["value"][:2] == [1, 4]
    # Key warps: 4 warps divide each 64-key tile (16 keys each) and combine
    # in shared memory; the block is 4 warps of the one 16-row tile.
    warps = attnopt.compile(graph.attention(2, 8, 1, 64, hkv=2, Lk=4096), kv_warps=4,
                            block_kv=64)
    assert warps.manifest["kv_warps"] == 4 and warps.manifest["block"]["value"] == [128, 1, 1]
    assert warps.manifest["block"]["formula"] == "[32 * block_q / rows_per_warp * kv_warps, 1, 1]"
    assert warps.name.endswith("_kw4_tma")
    # The oldest chip with the kernel's instructions: mma.sync fed by TMA
    # boxes needs sm_90's TMA unit (its PTX is compiled for sm_90a); with
    # cp.async it runs from sm_80.
    assert warps.manifest["min_chip"] == "sm_90" and ".target sm_90a" in warps.ptx
    copies = attnopt.compile(graph.attention(2, 8, 1, 64, hkv=2, Lk=4096), kv_loads="cp.async")
    assert copies.manifest["min_chip"] == "sm_80"
    with pytest.raises(attnopt.MLIRError, match="kv-warps=4 leaves each warp 8 keys"):
        attnopt.compile(graph.attention(2, 8, 1, 64, hkv=2, Lk=4096), kv_warps=4, block_kv=32)
    # K/V loads: TMA by default on wgmma (the manifest names the maps the
    # runtime encodes, passed after the tensors), at d = 128 from a producer
    # warpgroup (384 threads); from a computing thread or by cp.async when
    # asked; TMA refused on mma.sync with the reason.
    prefill = graph.attention(1, 4, 512, 128)
    ws = attnopt.compile(prefill, overlap_pv="off")
    assert ws.manifest["kv_loads"] == "tma-producer" and ws.name.endswith("_tma_ws")
    assert ws.manifest["block"]["value"] == [384, 1, 1]
    assert ws.manifest["block"]["formula"] == "[32 * block_q / rows_per_warp + 128, 1, 1]"
    assert "setmaxnreg.dec.sync.aligned.u32 \t24;" in ws.ptx
    assert ws.manifest["tensor_maps"] == attnopt.compile(
        prefill, kv_loads="tma-producer", overlap_pv="off").manifest["tensor_maps"]
    with pytest.raises(attnopt.MLIRError, match="kv-loads=tma-producer needs block-q=128"):
        attnopt.compile(prefill, kv_loads="tma-producer", block_q=64)
    # The default at d = 128 also overlaps each P·V with the next softmax
    # (2 stages over its 4 key tiles, K and V on barriers of their own:
    # bench/NOTES.md v61c); the overlap without a producer is refused.
    overlapped = attnopt.compile(prefill)
    assert overlapped.name.endswith("_tma_ws_ov") and "_s3_" not in overlapped.name
    assert overlapped.manifest["kv_stages"] == 2
    assert "wgmma.wait_group.sync.aligned \t1;" in overlapped.ptx
    with pytest.raises(attnopt.MLIRError, match="overlap-pv=on needs a producer warpgroup"):
        attnopt.compile(prefill, kv_loads="tma", overlap_pv="on")
    # Persistent CTAs: chosen for a causal producer kernel whose items pair
    # up (16 heads x 8 query tiles here, more than the H200's 132 SMs), one
    # CTA per SM in the manifest's grid; asked for, also non-causal; refused
    # without a producer warpgroup.
    causal = graph.attention(16, 16, 1024, 128, causal=True)
    resident = attnopt.compile(causal)
    assert resident.name.endswith("_pst132")
    assert resident.manifest["grid"]["value"] == [132, 1, 1]
    assert resident.manifest["launches"][0]["grid"] == [132, 1, 1]
    assert "persistent" in resident.manifest["grid"]["formula"]
    one_per_item = attnopt.compile(causal, persistent="off")
    assert one_per_item.manifest["grid"]["value"] == [8, 256, 1]
    plain = graph.attention(16, 16, 1024, 128)
    assert attnopt.compile(plain).manifest["grid"]["value"] == [8, 256, 1]
    assert attnopt.compile(plain, persistent="on").manifest["grid"]["value"] == [132, 1, 1]
    with pytest.raises(attnopt.MLIRError, match="persistent=on needs a producer warpgroup"):
        attnopt.compile(plain, kv_loads="tma", persistent="on")
    tma = attnopt.compile(prefill, kv_loads="tma")
    assert tma.manifest["kv_loads"] == "tma" and tma.name.endswith("_tma")
    assert tma.manifest["block"]["value"] == [256, 1, 1]
    assert [m["tensor"] for m in tma.manifest["tensor_maps"]] == ["k", "v"]
    assert tma.manifest["tensor_maps"][0]["box"] == [64, tma.manifest["block_kv"], 1, 1]
    assert tma.manifest["launches"][0]["args"][-2:] == ["k_tensor_map", "v_tensor_map"]
    copied = attnopt.compile(prefill, kv_loads="cp.async")
    assert copied.manifest["kv_loads"] == "cp.async" and copied.manifest["tensor_maps"] == []
    # mma.sync decode on sm_90+: TMA boxes by default (tensor maps, as on
    # wgmma), cp.async when asked; refused on sm_80 with the reason.
    decode = graph.attention(2, 8, 1, 64, hkv=2, Lk=4096)
    boxes = attnopt.compile(decode)
    assert boxes.manifest["kv_loads"] == "tma" and boxes.name.endswith("_tma")
    assert [m["tensor"] for m in boxes.manifest["tensor_maps"]] == ["k", "v"]
    assert boxes.manifest["launches"][0]["args"][-2:] == ["k_tensor_map", "v_tensor_map"]
    assert "cp.async.bulk.tensor.4d" in boxes.ptx and "mma.sync.aligned" in boxes.ptx
    chunks = attnopt.compile(decode, kv_loads="cp.async")
    assert chunks.manifest["tensor_maps"] == [] and "cp.async.bulk" not in chunks.ptx
    with pytest.raises(attnopt.MLIRError, match="needs the TMA unit of sm_90 or later"):
        attnopt.compile(prefill, kv_loads="tma", mma="mma.sync", target="sm_80")
    # mma.sync: 128 query rows per CTA (4 warps of 32 rows): Lq / 128 x B·H.
    ampere = attnopt.compile(graph.attention(2, 8, 256, 64, hkv=2, causal=True),
                             target="sm_80")
    assert ".target sm_80" in ampere.ptx and "mma.sync.aligned.m16n8k16" in ampere.ptx
    assert ampere.manifest["grid"]["value"] == [2, 16, 2]
    assert ampere.manifest["block"]["value"] == [128, 1, 1]
    small = attnopt.compile(graph.attention(2, 8, 256, 64, hkv=2, causal=True),
                            block_q=64, rows_per_warp=16, mma="mma.sync", kv_splits=1)
    assert small.manifest["grid"]["value"] == [4, 16, 1]
    assert small.manifest["block"]["value"] == [128, 1, 1]
    assert [p["name"] for p in k.manifest["params"]] == ["q", "k", "v", "o"]
    assert k.cost["flops"] == 4 * 2 * 8 * 256 * 256 * 64 // 2


@pytest.mark.parametrize("d,dv", [(32, 32), (40, 40), (72, 72), (80, 80), (96, 96), (160, 160), (192, 128), (256, 256), (104, 56)])
@pytest.mark.parametrize("target", ["sm_90a", "sm_80"])
def test_compile_every_head_dim(d, dv, target):
    # Multiples of 16 up to 256, d != dv too: a kernel whose manifest and
    # parameter shapes carry both head dims (H200-checked: bench/NOTES.md v16d).
    k = attnopt.compile(graph.attention(1, 4, 300, d, dv=dv, hkv=2, causal=True), target=target)
    assert (k.manifest["d"], k.manifest["dv"]) == (d, dv)
    shapes = {p["name"]: p["shape"] for p in k.manifest["params"]}
    assert shapes["q"][-1] == d and shapes["k"][-1] == d
    assert shapes["v"][-1] == dv and shapes["o"][-1] == dv
    assert ("wgmma" in k.name) == (target == "sm_90a")


@pytest.mark.parametrize("d,dtype", [(36, "bf16"), (264, "f16"), (64, "f32"), (80, "f32")])
def test_compile_generic_kernel(d, dtype):
    # What the tensor-core kernels refuse compiles to the generic CUDA-core
    # kernel (H200-checked: bench/NOTES.md v24), f32 kept f32.
    k = attnopt.compile(graph.attention(1, 4, 128, d, hkv=2, causal=True, dtype=dtype))
    assert k.name.startswith("attn_generic_%s_" % dtype)
    assert k.manifest["instruction"].startswith("fma.rn.f32")
    assert k.manifest["dtype"] == dtype
    assert {p["name"]: p["shape"] for p in k.manifest["params"]}["q"] == [1, 4, 128, d]
    assert ".entry " + k.name in k.ptx
    # It reads elements one at a time: any element-aligned tensor will do.
    assert k.manifest["tensor_alignment"] == 1


def test_tensor_core_kernels_state_their_alignment():
    # Q and O move in 16-byte vectors (bench/NOTES.md v31), so the manifest
    # asks for 16-byte aligned q, k, v, o on both families.
    for target in ("sm_80", "sm_90a"):
        k = attnopt.compile(graph.attention(1, 4, 256, 128), target=target)
        assert k.manifest["tensor_alignment"] == 16
        assert "ld.global.v4.b32" in k.ptx


def test_compile_no_kernel_takes():
    # f64 has no GPU kernel: the tensor-core kernels' reason, as an error
    # (the command line would leave it unfused on the host).
    with pytest.raises(attnopt.MLIRError, match="wgmma needs f16, bf16 or 8-bit float inputs, got f64"):
        attnopt.compile(graph.attention(1, 4, 128, 64, dtype="f64"))


def test_compile_paged_attention():
    # vLLM's layout: a pool of 16-token pages, a block table and lengths.
    text = graph.paged_attention(4, 32, 1, 128, hkv=8, num_pages=1024, page_size=16,
                                 max_pages=256, causal="bottom_right")
    k = attnopt.compile(text)
    assert k.manifest["paged"] == {"page_size": 16, "num_pages": 1024, "max_pages": 256}
    # The kernel is sized for the capacity: 256 pages of 16 keys.
    assert k.manifest["Lk"] == 4096 and k.manifest["pack_kv_groups"] is True
    params = {p["name"]: p for p in k.manifest["params"]}
    assert params["k"]["shape"] == [1024, 16, 8, 128]
    assert params["block_table"] == {"name": "block_table", "type": "i32*", "shape": [4, 256]}
    assert params["seq_lens"] == {"name": "seq_lens", "type": "i32*", "shape": [4]}
    assert k.manifest["launches"][0]["args"][-4:] == ["block_table", "seq_lens",
                                                      "k_tensor_map", "v_tensor_map"]
    assert k.cost["paged"] == {"page_size": 16, "lk_is_capacity": True}
    # Power-of-two pages on sm_90: TMA boxes over the pool, one per page of a
    # tile (innermost first: 64 columns, one head, the page's 16 rows), and
    # the contiguous K/V's tile and splits, which 128-token pages (a box
    # inside the tile's page) share (bench/NOTES.md v42); 16-token pages
    # keep them too, on as many key warps or more: each issuer's pages
    # beyond one cost it boxes (v49-v51), none with a warp per page. Here
    # 4 warps' 80 ns per tile is within the 3% the chooser does not
    # resolve at this DRAM-bound shape (v70, an H100: 4 warps 1.6% faster
    # than 8 here at B = 4).
    assert k.manifest["kv_loads"] == "tma"
    assert k.manifest["smem_layout"] == "swizzled-128b-atoms"
    assert [m["box"] for m in k.manifest["tensor_maps"]] == [[64, 1, 16, 1]] * 2
    flat_text = graph.paged_attention(4, 32, 1, 128, hkv=8, num_pages=128, page_size=128,
                                      max_pages=32, causal="bottom_right")
    flat = attnopt.compile(flat_text)
    assert flat.manifest["tensor_maps"][0]["box"] == [64, 1, flat.manifest["block_kv"], 1]
    pick = lambda m: (m["block_kv"], m["kv_warps"], m["kv_splits"])  # noqa: E731
    assert (k.manifest["block_kv"], k.manifest["kv_splits"]) == pick(flat.manifest)[::2]
    assert flat.manifest["kv_warps"] <= k.manifest["kv_warps"] <= k.manifest["block_kv"] // 16
    # Row copies (kv_loads="cp.async"): each page a tile spans delays its
    # copies, so the 16-token kernel spends more key warps (which share the
    # lookups), smaller tiles or more splits than with pages of a whole tile
    # (v14f, v27b; contiguous K/V's tie-break may take more warps where it
    # streams at its DRAM share, v36m), unless that one already has a warp
    # per page (one lookup per tile, the least there is).
    rows = attnopt.compile(text, kv_loads="cp.async")
    rows_flat = attnopt.compile(flat_text, kv_loads="cp.async")
    assert rows.manifest["tensor_maps"] == [] and rows.manifest["kv_loads"] == "cp.async"
    warp_per_page = (pick(rows.manifest) == pick(rows_flat.manifest)
                     and rows_flat.manifest["block_kv"] <= 16 * rows_flat.manifest["kv_warps"])
    assert (rows.manifest["kv_warps"] > rows_flat.manifest["kv_warps"]
            or rows.manifest["block_kv"] < rows_flat.manifest["block_kv"]
            or rows.manifest["kv_splits"] > rows_flat.manifest["kv_splits"] or warp_per_page)


@pytest.mark.parametrize("kwargs, message", [
    (dict(hkv=3), "must be a multiple of hkv"),
    (dict(page_size=0), "page_size"),
    (dict(max_pages=-1), "max_pages"),
    (dict(num_pages=1.5), "num_pages"),
    (dict(page_size=65536, max_pages=65536), "i32 sequence lengths"),
])
def test_paged_attention_builder_validates(kwargs, message):
    args = dict(hkv=2, num_pages=8, page_size=16, max_pages=4)
    args.update(kwargs)
    with pytest.raises((ValueError, TypeError), match=message):
        graph.paged_attention(2, 4, 1, 64, **args)


def test_varlen_attention_builder_runs_on_the_cpu_pipeline():
    text = graph.varlen_attention(300, 8, 64, total_k=512, batch=3, hkv=2, dv=32,
                                  dtype="f32", causal="bottom_right")
    assert "attn.varlen_attention" in text and "tensor<4xi32>" in text
    lowered = attnopt.run_pipeline(text, "attn-cpu-pipeline")
    assert "attn." not in lowered and "llvm.func @varlen_attention" in lowered


def test_compile_varlen():
    # GQA 8/2 with bf16 packs the heads of a group: the grid is the packed
    # rows in tiles plus B + 2 (PackedSequences.cpp), the heads along y.
    text = graph.varlen_attention(300, 8, 64, total_k=512, batch=3, hkv=2,
                                  causal="bottom_right")
    k = attnopt.compile(text)
    m = k.manifest
    assert m["varlen"] is True and "_varlen" in k.name
    params = {p["name"]: p["shape"] for p in m["params"]}
    assert params["q"] == [300, 8, 64] and params["k"] == [512, 2, 64]
    assert params["o"] == [300, 8, 64]
    assert params["cu_seqlens_q"] == [4] and params["cu_seqlens_k"] == [4]
    assert m["launches"][0]["args"][-2:] == ["cu_seqlens_q", "cu_seqlens_k"]
    rows = 300 * (4 if m["pack_kv_groups"] else 1)
    heads = 2 if m["pack_kv_groups"] else 8
    assert m["grid"]["value"] == [rows // m["block_q"] + 3 + 2, heads, 1]
    assert m["kv_splits"] == 1


def test_compile_varlen_f32_says_which_kernels_take_it():
    text = graph.varlen_attention(300, 8, 64, total_k=512, batch=3, hkv=2, dtype="f32")
    with pytest.raises(attnopt.MLIRError, match="f16 or bf16 inputs only"):
        attnopt.compile(text)


@pytest.mark.parametrize("kwargs, message", [
    (dict(hkv=3), "must be a multiple of hkv"),
    (dict(batch=0), "batch"),
    (dict(total_k=-4), "total_k"),
    (dict(causal="bottom_left"), "causal"),
    (dict(total_k=2**31), "total_k must be a positive int \\(at most 2147483647\\)"),
])
def test_varlen_attention_builder_validates(kwargs, message):
    args = dict(total_k=64, batch=2, hkv=2)
    args.update(kwargs)
    with pytest.raises((ValueError, TypeError), match=message):
        graph.varlen_attention(64, 4, 32, **args)


def test_compile_with_mask_and_odd_lengths():
    # A BERT-style additive padding mask and lengths that are not multiples
    # of the tiles: the manifest lists the mask as a fifth parameter.
    t = "tensor<2x4x100x64xbf16>"
    m = "tensor<2x1x1x100xbf16>"
    text = ("func.func @f(%%q: %s, %%m: %s) -> %s {\n"
            "  %%o = attn.attention %%q, %%q, %%q mask(%%m : %s) scale(0.125) : %s, %s, %s -> %s\n"
            "  return %%o : %s\n}\n" % (t, m, t, m, t, t, t, t, t))
    k = attnopt.compile(text)
    assert k.manifest["mask"] == "additive"
    assert [p["name"] for p in k.manifest["params"]] == ["q", "k", "v", "o", "mask"]
    assert k.manifest["params"][4]["shape"] == [2, 1, 1, 100]
    # ceil(100 / 64) query tiles (wgmma with TMA loads at d = 64: 64-row CTAs)
    assert k.manifest["grid"]["value"] == [2, 8, 1]
    assert k.manifest["kv_loads"] == "tma" and len(k.manifest["tensor_maps"]) == 2


def test_compile_errors():
    # The error names the tensor-core family of the target.
    with pytest.raises(attnopt.MLIRError, match="wgmma needs f16, bf16 or 8-bit float"):
        attnopt.compile(graph.attention(1, 2, 128, 64, dtype="f64"))
    with pytest.raises(attnopt.MLIRError, match="mma.sync needs f16 or bf16"):
        attnopt.compile(graph.attention(1, 2, 128, 64, dtype="f64"), target="sm_80")
    with pytest.raises(ValueError, match="exactly one attention, found 0"):
        attnopt.compile("func.func @f() { return }")
    two = graph.attention(1, 2, 128, 64) + graph.attention(1, 2, 128, 64, func_name="g")
    with pytest.raises(ValueError, match="exactly one attention, found 2"):
        attnopt.compile(two)
    with pytest.raises(ValueError, match="target must be one of sm_80, sm_86, sm_87, sm_89, "
                       "sm_90, sm_90a, sm_100, sm_120; got 'sm_70'"):
        attnopt.compile(graph.attention(1, 2, 128, 64), target="sm_70")
    with pytest.raises(ValueError, match="mma='wgmma' needs target sm_90a"):
        attnopt.compile(graph.attention(1, 2, 128, 64), target="sm_86", mma="wgmma")
    with pytest.raises(ValueError, match="block_q must be one of 0, 16, 32, 64, 128"):
        attnopt.compile(graph.attention(1, 2, 128, 64), block_q=96)
    with pytest.raises(ValueError, match="kv_stages must be one of 0, 2, 3, 4"):
        attnopt.compile(graph.attention(1, 2, 128, 64), kv_stages=5)


@pytest.mark.parametrize("chip", ["sm_86", "sm_89", "sm_90"])
def test_compile_every_accepted_chip(chip):
    k = attnopt.compile(graph.attention(1, 2, 128, 64), target=chip)
    assert ".target %s" % chip in k.ptx and "mma.sync.aligned.m16n8k16" in k.ptx


def test_compile_kv_stages_and_swizzle():
    k = attnopt.compile(graph.attention(1, 2, 256, 128), kv_stages=2)
    assert "wgmma" in k.ptx
    s = attnopt.compile(graph.attention(1, 2, 256, 64), target="sm_80", swizzle=True)
    assert s.manifest["smem_layout"] != attnopt.compile(
        graph.attention(1, 2, 256, 64), target="sm_80").manifest["smem_layout"]


def _has_gpu():
    try:
        import torch
        return torch.cuda.is_available()
    except Exception:
        return False


@pytest.mark.skipif(not _has_gpu(), reason="needs a CUDA GPU and PyTorch")
def test_runtime_matches_sdpa():
    import torch
    k = attnopt.compile(graph.attention(1, 4, 256, 64, causal=True))
    q, kk, v = (torch.randn(1, 4, 256, 64, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    out = attnopt.runtime.launch(k, q, kk, v)
    ref = torch.nn.functional.scaled_dot_product_attention(q.float(), kk.float(), v.float(), is_causal=True)
    assert ((out.float() - ref).norm() / ref.norm()).item() < 1e-2


@pytest.mark.skipif(not _has_gpu(), reason="needs a CUDA GPU and PyTorch")
def test_runtime_refuses_misaligned_tensors():
    # A contiguous view that starts 2 bytes into a buffer: a ValueError, not
    # a misaligned vector access in the kernel.
    import torch
    k = attnopt.compile(graph.attention(1, 4, 256, 64))
    buf = torch.randn(1 * 4 * 256 * 64 + 1, device="cuda", dtype=torch.bfloat16)
    q = buf[1:].view(1, 4, 256, 64)
    kk, v = (torch.randn(1, 4, 256, 64, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    with pytest.raises(ValueError, match="16-byte boundary"):
        attnopt.runtime.launch(k, q, kk, v)

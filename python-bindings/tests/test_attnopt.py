"""Tests of the attnopt package: every API function and its error paths."""
import json
import os
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
    assert (c["block_q"], c["block_kv"]) == (64, 128)
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
    with pytest.raises(attnopt.MLIRError, match="unknown io-cost target"):
        attnopt.io_cost(B=1, H=1, Lq=16, Lk=16, d=16, target="v100")


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
    assert k.manifest["grid"]["value"] == [4, 16, 1]
    assert k.manifest["block"]["value"] == [128, 1, 1]
    assert k.manifest["min_chip"] == "sm_90a"
    # mma.sync: 128 query rows per CTA (4 warps of 32 rows): Lq / 128 x B·H.
    ampere = attnopt.compile(graph.attention(2, 8, 256, 64, hkv=2, causal=True),
                             target="sm_80")
    assert ".target sm_80" in ampere.ptx and "mma.sync.aligned.m16n8k16" in ampere.ptx
    assert ampere.manifest["grid"]["value"] == [2, 16, 1]
    assert ampere.manifest["block"]["value"] == [128, 1, 1]
    small = attnopt.compile(graph.attention(2, 8, 256, 64, hkv=2, causal=True),
                            block_q=64, rows_per_warp=16, mma="mma.sync")
    assert small.manifest["grid"]["value"] == [4, 16, 1]
    assert small.manifest["block"]["value"] == [128, 1, 1]
    assert [p["name"] for p in k.manifest["params"]] == ["q", "k", "v", "o"]
    assert k.cost["flops"] == 4 * 2 * 8 * 256 * 256 * 64 // 2


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
    assert k.manifest["grid"]["value"] == [1, 8, 1]  # ceil(100 / 128) query tiles


def test_compile_errors():
    # The error names the tensor-core family of the target.
    with pytest.raises(attnopt.MLIRError, match="wgmma needs f16 or bf16"):
        attnopt.compile(graph.attention(1, 2, 128, 64, dtype="f32"))
    with pytest.raises(attnopt.MLIRError, match="mma.sync needs f16 or bf16"):
        attnopt.compile(graph.attention(1, 2, 128, 64, dtype="f32"), target="sm_80")
    with pytest.raises(ValueError, match="exactly one attention"):
        attnopt.compile("func.func @f() { return }")


def _has_gpu():
    try:
        import cupy  # noqa: F401
        import torch
        return torch.cuda.is_available()
    except Exception:
        return False


@pytest.mark.skipif(not _has_gpu(), reason="needs a CUDA GPU with CuPy and PyTorch")
def test_runtime_matches_sdpa():
    import torch
    k = attnopt.compile(graph.attention(1, 4, 256, 64, causal=True))
    q, kk, v = (torch.randn(1, 4, 256, 64, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    out = attnopt.runtime.launch(k, q, kk, v)
    ref = torch.nn.functional.scaled_dot_product_attention(q.float(), kk.float(), v.float(), is_causal=True)
    assert ((out.float() - ref).norm() / ref.norm()).item() < 1e-2

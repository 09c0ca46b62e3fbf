"""attnopt.torch: SDPA's semantics on attn-opt's kernels, the kernel cache,
and torch.compile without graph breaks. Needs PyTorch; everything that
launches needs a CUDA GPU (the GPU machine runs these)."""
import math
import os
import subprocess
import sys
import zlib

import pytest

torch = pytest.importorskip("torch")
import attnopt  # noqa: E402
import attnopt.torch as at  # noqa: E402
import torch.nn.functional as F  # noqa: E402


def _has_gpu():
    try:
        return torch.cuda.is_available()
    except Exception:
        return False


gpu = pytest.mark.skipif(not _has_gpu(), reason="needs a CUDA GPU")


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTNOPT_CACHE_DIR", str(tmp_path / "cache"))


def test_buckets_are_few_and_cover_every_length():
    assert [at.bucket(n) for n in (1, 5, 64)] == [1, 5, 64]
    assert [at.bucket(n) for n in (65, 128, 129, 1000, 1024)] == [128, 128, 256, 1024, 1024]
    assert [at.bucket(n) for n in (1025, 4096, 4097)] == [2048, 4096, 5120]
    lengths = range(1, 20000)
    assert all(at.bucket(n) >= n for n in lengths)
    assert len({at.bucket(n) for n in lengths if n > 64}) <= 30
    # Past 1024 a bucket wastes less than one block of 1024 keys.
    assert all(at.bucket(n) - n < 1024 for n in range(1025, 20000))


def test_cpu_tensors_are_refused():
    q = torch.randn(1, 2, 16, 64, dtype=torch.bfloat16)
    with pytest.raises(ValueError, match="CUDA"):
        at.attention(q, q, q)


def _reference(q, k, v, attn_mask=None, is_causal=False, scale=None, enable_gqa=False):
    """SDPA in float64 on the same inputs; fully masked rows as 0."""
    q64, k64, v64 = (t.double() for t in (q, k, v))
    m = attn_mask
    if m is not None and m.dtype != torch.bool:
        m = m.double()
    out = F.scaled_dot_product_attention(q64, k64, v64, attn_mask=m, is_causal=is_causal,
                                         scale=scale, enable_gqa=enable_gqa)
    return torch.nan_to_num(out, nan=0.0)


def _unfused_error(q, k, v, ref, **kw):
    """The error of SDPA's unfused (math) path in the inputs' precision."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    with sdpa_kernel(SDPBackend.MATH):
        out = F.scaled_dot_product_attention(q, k, v, **kw)
    return (torch.nan_to_num(out.double(), nan=0.0) - ref).abs().max().item()


CASES = [
    # (B, Hq, Hkv, Lq, Lk, d, dv, dtype, causal, mask)
    (2, 4, 4, 256, 256, 64, 64, torch.bfloat16, True, None),
    (1, 8, 2, 300, 300, 128, 128, torch.float16, True, None),      # GQA, bucketed
    (2, 4, 4, 100, 777, 64, 64, torch.bfloat16, False, None),      # key padding mask
    (1, 8, 1, 1, 1500, 128, 128, torch.bfloat16, False, None),     # decode, MQA
    (1, 4, 4, 200, 200, 96, 96, torch.bfloat16, False, "keep"),    # caller's bool mask
    (2, 4, 2, 130, 130, 64, 64, torch.float16, False, "add"),      # caller's float mask
    (1, 4, 4, 80, 80, 192, 128, torch.bfloat16, False, None),      # d != dv
    # What the tensor-core kernels do not take runs on the generic CUDA-core
    # kernel: a head dim no multiple of 16, and float32.
    (1, 2, 2, 64, 64, 36, 36, torch.bfloat16, False, None),
    (1, 4, 2, 130, 130, 64, 64, torch.float32, True, None),
]


@gpu
@pytest.mark.parametrize("case", CASES, ids=lambda c: "B%d-H%d-%d-L%dx%d-d%d-%s%s%s" % (
    c[0], c[1], c[2], c[3], c[4], c[5], str(c[7])[6:], "-causal" if c[8] else "",
    "-" + c[9] if c[9] else ""))
def test_matches_sdpa_within_the_numerics_contract(case):
    B, Hq, Hkv, Lq, Lk, d, dv, dtype, causal, mask_kind = case
    g = torch.Generator(device="cuda").manual_seed(zlib.crc32(repr(case).encode()))
    q = torch.randn(B, Hq, Lq, d, device="cuda", dtype=dtype, generator=g)
    k = torch.randn(B, Hkv, Lk, d, device="cuda", dtype=dtype, generator=g)
    v = torch.randn(B, Hkv, Lk, dv, device="cuda", dtype=dtype, generator=g)
    mask = None
    if mask_kind == "keep":
        mask = torch.rand(B, 1, Lq, Lk, device="cuda", generator=g) > 0.3
        mask[:, :, 3] = False  # a fully masked row: 0
    elif mask_kind == "add":
        mask = torch.randn(1, Hq, 1, Lk, device="cuda", generator=g).to(dtype)
    kw = dict(attn_mask=mask, is_causal=causal, enable_gqa=Hq != Hkv)
    out = at.attention(q, k, v, **kw)
    assert out.shape == (B, Hq, Lq, dv) and out.dtype == dtype
    assert not out.isnan().any()
    ref = _reference(q, k, v, **kw)
    err = (out.double() - ref).abs().max().item()
    unfused = _unfused_error(q, k, v, ref, **kw)
    assert err <= 2 * unfused + 1e-3, (err, unfused)
    if mask_kind == "keep":
        assert out[:, :, 3].abs().max().item() == 0.0


@gpu
def test_three_dim_inputs_and_explicit_scale():
    q, k, v = (torch.randn(3, 128, 64, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    out = at.attention(q, k, v, scale=0.3)
    ref = _reference(q, k, v, scale=0.3)
    assert out.shape == (3, 128, 64)
    assert (out.double() - ref).abs().max().item() < 3e-2


@gpu
def test_kernels_are_chosen_for_the_device_they_run_on():
    """The device's own io-cost preset chooses the kernel (an H100 SXM's
    3.35 TB/s picks other decode splits than the H200's 4.8), read from the
    real device's name and SM count, and the manifest says which it was."""
    props = torch.cuda.get_device_properties(0)
    preset = attnopt.cost_target_for_device(props.name, props.multi_processor_count)
    if "H100" in props.name and "HBM3" in props.name and props.multi_processor_count == 132:
        assert preset == "h100"
    q = torch.randn(1, 64, 1, 128, device="cuda", dtype=torch.bfloat16)
    kv = torch.randn(1, 8, 4096, 128, device="cuda", dtype=torch.bfloat16)
    out = at.attention(q, kv, kv, enable_gqa=True)
    ref = _reference(q, kv, kv, enable_gqa=True)
    assert (out.double() - ref).abs().max().item() < 3e-2
    chip, cost_target = at._target(q.device)
    assert cost_target == preset
    kernels = [k for (problem, target, _), k in at._loaded.items() if target == (chip, preset)]
    assert kernels and all(k.manifest["chosen_for"] != "none" for k in kernels)
    if preset != "auto":
        assert all(k.manifest["chosen_for"] == preset for k in kernels)


@gpu
def test_compiles_once_per_bucket_and_reuses_the_disk_cache(tmp_path):
    q = torch.randn(1, 4, 1, 128, device="cuda", dtype=torch.bfloat16)
    before = at.cache_stats()
    for L in range(1025, 1100):  # one decode bucket: 2048
        kv = torch.randn(1, 4, L, 128, device="cuda", dtype=torch.bfloat16)
        at.attention(q, kv, kv)
    after = at.cache_stats()
    assert after["compiled"] - before["compiled"] == 1
    assert after["memory_hits"] - before["memory_hits"] == 74
    # Another process finds the kernel on disk.
    script = ("import torch, attnopt.torch as at\n"
              "q = torch.randn(1, 4, 1, 128, device='cuda', dtype=torch.bfloat16)\n"
              "kv = torch.randn(1, 4, 1500, 128, device='cuda', dtype=torch.bfloat16)\n"
              "at.attention(q, kv, kv)\nprint(at.cache_stats())\n")
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                       env=dict(os.environ, ATTNOPT_VERBOSE="1"))
    assert r.returncode == 0, r.stderr
    assert "'disk_hits': 1" in r.stdout and "'compiled': 0" in r.stdout
    assert "disk cache hit" in r.stderr


@gpu
def test_torch_compile_has_no_graph_break():
    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = torch.nn.Linear(64, 3 * 64, device="cuda", dtype=torch.bfloat16)

        def forward(self, x):
            q, k, v = self.proj(x).view(2, 128, 3, 4, 16).permute(2, 0, 3, 1, 4)
            q = torch.nn.functional.pad(q, (0, 48))  # head dim 64
            k = torch.nn.functional.pad(k, (0, 48))
            v = torch.nn.functional.pad(v, (0, 48))
            return at.attention(q, k, v, is_causal=True)

    block = Block()
    x = torch.randn(2, 128, 64, device="cuda", dtype=torch.bfloat16)
    explanation = torch._dynamo.explain(block)(x)
    assert explanation.graph_break_count == 0
    assert explanation.graph_count == 1
    compiled = torch.compile(block, fullgraph=True)
    assert torch.allclose(compiled(x).float(), block(x).float(), rtol=2e-2, atol=2e-2)


@gpu
def test_three_dim_batched_mask_and_tiny_scale():
    q, k, v = (torch.randn(2, 130, 64, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    mask = torch.rand(2, 130, 130, device="cuda") > 0.2
    out = at.attention(q, k, v, attn_mask=mask, scale=1e-5)
    ref = _reference(q, k, v, attn_mask=mask, scale=1e-5)
    assert out.shape == (2, 130, 64)
    assert (out.double() - ref).abs().max().item() < 3e-2


@gpu
def test_learned_bias_gets_sdpas_gradient():
    q, k, v = (torch.randn(1, 4, 128, 64, device="cuda", dtype=torch.bfloat16,
                           requires_grad=True) for _ in range(3))
    bias = torch.randn(1, 4, 128, 128, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    g = torch.randn(1, 4, 128, 64, device="cuda", dtype=torch.bfloat16)
    at.attention(q, k, v, attn_mask=bias).backward(g)
    ours = bias.grad.clone()
    bias.grad = None
    F.scaled_dot_product_attention(q, k, v, attn_mask=bias).backward(g)
    assert torch.equal(ours, bias.grad)


@gpu
def test_a_torn_cache_entry_is_rebuilt(tmp_path):
    q = torch.randn(1, 2, 64, 64, device="cuda", dtype=torch.bfloat16)
    at.attention(q, q, q)
    entries = [os.path.join(at.cache_dir(), e) for e in os.listdir(at.cache_dir())]
    for e in entries:
        open(os.path.join(e, "kernel.json"), "w").close()  # what a crash can leave
    at._loaded.clear()
    before = at.cache_stats()["compiled"]
    out = at.attention(q, q, q)
    assert at.cache_stats()["compiled"] == before + 1
    assert not out.isnan().any()


@gpu
def test_eager_path_and_custom_op_agree():
    # Eager inference goes around the dispatcher; the op is what compiled
    # graphs and autograd call. Same kernel, same bits.
    q = torch.randn(2, 8, 100, 64, device="cuda", dtype=torch.bfloat16)
    k, v = torch.randn_like(q[:, :2]), torch.randn_like(q[:, :2])
    fast = at.attention(q, k, v, is_causal=True, enable_gqa=True)
    op = torch.ops.attnopt.attention(q, k, v, None, True, None, True)
    assert torch.equal(fast, op)


@gpu
def test_gradients_are_sdpas():
    q, k, v = (torch.randn(1, 4, 128, 64, device="cuda", dtype=torch.bfloat16,
                           requires_grad=True) for _ in range(3))
    g = torch.randn(1, 4, 128, 64, device="cuda", dtype=torch.bfloat16)
    at.attention(q, k, v, is_causal=True).backward(g)
    ours = [t.grad.clone() for t in (q, k, v)]
    for t in (q, k, v):
        t.grad = None
    F.scaled_dot_product_attention(q, k, v, is_causal=True).backward(g)
    for mine, theirs in zip(ours, (q.grad, k.grad, v.grad)):
        assert torch.equal(mine, theirs)


@gpu
def test_errors_carry_the_compilers_diagnostic():
    # Beyond what the generic kernel holds too (d = 36 and float32 run:
    # CASES): the tensor-core kernels' reason.
    q = torch.randn(1, 2, 64, 4096, device="cuda", dtype=torch.bfloat16)
    with pytest.raises(attnopt.MLIRError, match="multiples of 8 up to 256, got d = 4096"):
        at.attention(q, q, q)
    q = q.float()
    with pytest.raises(attnopt.MLIRError, match="got f32"):
        at.attention(q, q, q)


@gpu
@pytest.mark.parametrize("call, error", [
    ("at.attention(q, k[:, :3], v[:, :3], enable_gqa=True)", ValueError),
    ("at.attention(q, k[:, :2], v[:, :2])", ValueError),
    ("at.attention(q, k, v, attn_mask=m, is_causal=True)", ValueError),
    ("at.attention(q, k, v, attn_mask=m.float())", TypeError),
    ("at.attention(q, k, v, attn_mask=m[:, :, :, :5])", ValueError),
    ("at.attention(q, k, v, scale=math.nan)", ValueError),
    ("at.attention(q, k, v.half())", TypeError),
    ("at.attention(q, k, v[..., :1, :])", ValueError),
])
def test_bad_arguments_raise(call, error):
    q = torch.randn(1, 4, 64, 64, device="cuda", dtype=torch.bfloat16)
    k, v = q.clone(), q.clone()
    m = torch.ones(1, 1, 64, 64, device="cuda", dtype=torch.bool)
    with pytest.raises(error):
        eval(call, {"at": at, "q": q, "k": k, "v": v, "m": m, "math": math})

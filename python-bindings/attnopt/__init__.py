"""attnopt: attn-opt's attention compiler from Python.

Text in, text out. Each call builds its own MLIRContext, parses the input,
runs attn-opt passes and returns text (or a report). Nothing here needs a
GPU; `attnopt.runtime` (which would: PyTorch and the CUDA driver) and
`attnopt.torch` (the PyTorch drop-in) are imported lazily.
"""
from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from . import graph
from ._core import MLIRError
from ._core import run_pipeline as _run_pipeline
from ._core import io_cost_report as _io_cost_report
from ._core import run_pipeline_counting as _run_counting
from ._core import version as compiler_version

__all__ = ["MLIRError", "DetectResult", "Kernel", "run_pipeline", "detect", "io_cost",
           "compile", "graph", "CHIPS", "IO_COST_TARGETS", "COST_TARGETS",
           "cost_target_for_device", "compiler_version",
           "chip_for_capability"]


def run_pipeline(mlir_text: str, pipeline: str) -> str:
    """Runs any registered pass pipeline on `mlir_text` and returns the IR.

    `pipeline` is anchored on the module, e.g.
    ``"func.func(attn-detect),attn-io-cost{target=h100},func.func(attn-fuse)"``.
    Parse errors, verifier errors, invalid pipelines and pass failures raise
    `MLIRError`, whose message carries each diagnostic with its location.
    Both arguments must be str (TypeError otherwise). The pipeline text is
    the caller's own: the other functions of this package build theirs from
    typed, checked arguments instead.
    """
    _check_str("mlir_text", mlir_text)
    _check_str("pipeline", pipeline)
    return _run_pipeline(mlir_text, pipeline)


def _check_str(name: str, value) -> str:
    if not isinstance(value, str):
        raise TypeError("%s must be a str, got %s" % (name, type(value).__name__))
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ValueError("%s is not valid Unicode text (%s)" % (name, e.reason)) from None
    return value


def _check_bool(name: str, value) -> bool:
    if not isinstance(value, bool):
        raise TypeError("%s must be a bool, got %s %r" % (name, type(value).__name__, value))
    return value


def _quoted_path(path: str) -> str:
    """A file path as a pass-option value: in double quotes, which MLIR's
    option parser strips (so spaces, braces and '=' stay in the value).
    A temp path with a double quote in it cannot be passed: refuse it."""
    if '"' in path or any(ord(ch) < 32 for ch in path):
        raise RuntimeError("temporary path %r cannot be passed as a pass option; "
                           "set TMPDIR to a plainer directory" % path)
    return '"%s"' % path


@dataclass
class DetectResult:
    """What --attn-detect did."""
    ir: str
    """The transformed module."""
    count: int
    """How many attn.attention ops the module holds afterwards."""
    remarks: List[str] = field(default_factory=list)
    """Near misses ('loc: remark: attn-detect: not raised: <reason>'); only
    collected with explain=True."""


def detect(mlir_text: str, explain: bool = False) -> DetectResult:
    """Raises softmax(Q·Kᵀ)·V chains in attn, linalg or tosa IR to attn.attention."""
    _check_str("mlir_text", mlir_text)
    _check_bool("explain", explain)
    pipeline = "func.func(attn-detect{explain=%s})" % ("true" if explain else "false")
    ir, remarks, count = _run_counting(mlir_text, pipeline, "attn.attention")
    return DetectResult(ir=ir, count=count, remarks=list(remarks))


IO_COST_TARGETS = ("a100", "a10", "l40s", "h100", "h200", "rtx5090")
"""Presets of --attn-io-cost (lib/Analysis/IOCost.cpp, knownTargetNames)."""

# io_cost's keyword overrides and their kind. Integer options take positive
# ints, floating ones (rates: bytes/s, FLOP/s) finite numbers >= 1, so that
# no predicted time or ridge overflows to inf. The native module sets the
# pass's typed options from these: no option string is built.
_OVERRIDES = {
    "sram_bytes": int, "sm_count": int, "ctas_per_sm": int, "l2_bytes": int,
    "hbm_bandwidth": float, "l2_bandwidth": float,
    "peak_f16": float, "peak_bf16": float, "peak_f32": float, "peak_f64": float,
    "peak_f8": float,
    "peak_scalar": float,
    "block_q": int, "block_kv": int,
}
_INT_OPTION_MAX = 2**62


def io_cost(mlir_text: Optional[str] = None, *, B: Optional[int] = None,
            H: Optional[int] = None, Lq: Optional[int] = None,
            Lk: Optional[int] = None, d: Optional[int] = None,
            dv: Optional[int] = None, dtype: str = "bf16", causal: bool = False,
            hkv: Optional[int] = None, target: str = "h200",
            **overrides: float) -> Dict[str, Any]:
    """The --attn-io-cost report, computed by the same pass as attn-opt's.

    With `mlir_text`, returns the whole JSON report (``target``,
    ``attention``: one object per op, ``unfused_ops``, ``unfused_total``).
    With shapes instead (B, H, Lq, Lk, d and optionally dv, hkv, dtype,
    causal), returns that one attention's object (``flops``,
    ``naive_hbm_bytes``, ``fused_dram_bytes``, ``bound_fused``, ``block_q``,
    ...) with the ``target`` object added. Not both.

    `target` is one of IO_COST_TARGETS. Keyword overrides replace fields of
    the target preset: sram_bytes, sm_count, ctas_per_sm, l2_bytes (positive
    ints), hbm_bandwidth, l2_bandwidth, peak_f16, peak_bf16, peak_f32,
    peak_f64, peak_scalar (finite numbers >= 1, in bytes/s or FLOP/s); block_q and block_kv
    (positive ints) cost a kernel with those tiles instead of the ones the
    model would choose. Bad values raise ValueError, wrong types and unknown
    overrides TypeError, before anything runs.
    """
    target = graph.check_choice("target", target, IO_COST_TARGETS)
    ints, rates = {}, {}
    for key, value in overrides.items():
        if key not in _OVERRIDES:
            raise TypeError("io_cost() got an unknown override '%s' (known: %s)"
                            % (key, ", ".join(sorted(_OVERRIDES))))
        if _OVERRIDES[key] is int:
            ints[key] = graph.check_int(key, value, hi=_INT_OPTION_MAX)
        else:
            rates[key] = graph.check_positive_float(key, value, lo=1.0)
    shapes = dict(B=B, H=H, Lq=Lq, Lk=Lk, d=d)
    from_shapes = mlir_text is None
    if from_shapes:
        missing = [n for n, v in shapes.items() if v is None]
        if missing:
            raise ValueError("io_cost needs mlir_text or the shapes; missing: %s"
                             % ", ".join(missing))
        for n in ("Lq", "Lk"):
            graph.check_int(n, shapes[n])
        mlir_text = graph.attention(B, H, Lq, d, Lk=Lk, dv=dv, hkv=hkv,
                                    dtype=dtype, causal=causal)
    else:
        _check_str("mlir_text", mlir_text)
        given = [n for n, v in dict(shapes, dv=dv, hkv=hkv).items() if v is not None]
        if dtype != "bf16":
            given.append("dtype")
        if causal is not False:
            given.append("causal")
        if given:
            raise ValueError("io_cost takes mlir_text or shapes, not both (got mlir_text "
                             "and %s)" % ", ".join(given))
    text = _io_cost_report(mlir_text, target, ints, rates)
    try:
        report = json.loads(text)
    except ValueError as e:
        raise MLIRError("the --attn-io-cost report is not valid JSON (%s); a value "
                        "overflowed?" % e) from None
    if not from_shapes:
        return report
    result = dict(report["attention"][0])
    result["target"] = report["target"]
    return result


@dataclass
class Kernel:
    """One compiled attention kernel."""
    name: str
    ptx: str
    """PTX for the target chip (what ptxas or the CUDA driver loads)."""
    manifest: Dict[str, Any]
    """Launch manifest: grid/block, parameters, shapes, dtype, tiles, causal, scale."""
    cost: Optional[Dict[str, Any]] = None
    """The --attn-io-cost entry of the attention this kernel computes."""


CHIPS = ("sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_120")
"""GPU targets compile() accepts (the attn-gpu-pipeline's chip=, all of
them): sm_90a uses wgmma, the others mma.sync (sm_80+)."""

# Devices whose compute capability is not in CHIPS but whose SMs are one of
# theirs (CCCL's arch_traits: the same shared memory per SM and the same
# instructions the kernels use): their PTX targets that chip, which the
# driver compiles for the device (a non-"a" target is forward-compatible).
_CHIP_OF_CAPABILITY = {(8, 8): "sm_86", (10, 1): "sm_100", (10, 3): "sm_100",
                       (11, 0): "sm_100", (12, 1): "sm_120"}


def chip_for_capability(major: int, minor: int) -> str:
    """The chip (one of CHIPS) attn-opt compiles for on a device of compute
    capability major.minor: sm_90a (wgmma) on 9.0, the device's own chip
    where attn-opt has it, else the chip whose SMs the device's are; a
    ValueError names the accepted chips for any other (older than sm_80, or
    newer than attn-opt knows)."""
    if (major, minor) == (9, 0):
        return "sm_90a"
    chip = _CHIP_OF_CAPABILITY.get((major, minor), "sm_%d%d" % (major, minor))
    if chip not in CHIPS:
        raise ValueError("attn-opt builds no kernels for compute capability %d.%d; it builds "
                         "for %s" % (major, minor, ", ".join(CHIPS)))
    return chip
MMA = ("auto", "mma.sync", "wgmma")
#: Who fills the K/V stages (compile(kv_loads=...)).
KV_LOADS = ("auto", "cp.async", "tma", "tma-producer")
#: Whether each P·V overlaps the next tile's softmax (compile(overlap_pv=...)).
OVERLAP_PV = ("auto", "on", "off")
#: Whether CTAs stay resident and loop over the work items
#: (compile(persistent=...)).
PERSISTENT = ("auto", "on", "off")
#: Whether 8-bit float inputs take the FP8 tensor-core kernel
#: (compile(fp8_mma=...)).
FP8_MMA = ("auto", "on", "off")


#: The GPUs compile(cost_target=...) chooses kernels for: "auto" (the
#: chip's own preset: h200 on sm_90a) or an --attn-io-cost preset of the
#: chip's architecture (the pipeline checks which fit).
COST_TARGETS = ("auto",) + IO_COST_TARGETS

# Device names (torch.cuda.get_device_properties(d).name) of the GPUs
# whose preset is theirs exactly: the preset's SM count must match too (an
# H100 PCIe has 114 SMs and 2 TB/s, not the SXM's 132 and 3.35).
_DEVICE_NAME_OF_PRESET = {"a100": "A100", "a10": "A10", "l40s": "L40S", "h100": "H100",
                          "h200": "H200", "rtx5090": "RTX 5090"}


def cost_target_for_device(name: str, sm_count: int) -> str:
    """The compile(cost_target=...) for a device called `name` with
    `sm_count` SMs: the preset of that GPU (h100 on an H100 SXM, whose
    3.35 TB/s moves split-KV and tile picks), else "auto" (the chip's
    default preset) where attn-opt has none for it."""
    import re
    _check_str("name", name)
    sm_count = graph.check_int("sm_count", sm_count)
    for preset, marketing in _DEVICE_NAME_OF_PRESET.items():
        if re.search(r"(^|\W)%s($|\W)" % re.escape(marketing), name, re.IGNORECASE):
            spec = io_cost(B=1, H=1, Lq=1, Lk=1, d=16, target=preset)["target"]
            return preset if spec["sm_count"] == sm_count else "auto"
    return "auto"


def _check_gpu_target(chip: str, mma: str, cost_target: str) -> None:
    """The pipeline's own check of chip=, mma= and target= (which presets fit
    which chip is decided there), on an empty module: ValueError before
    anything is compiled."""
    try:
        _run_pipeline("module {}", "attn-gpu-pipeline{chip=%s mma=%s target=%s}"
                      % (chip, mma, cost_target))
    except MLIRError as e:
        raise ValueError(str(e)) from None


def compile(mlir_text: str, target: str = "sm_90a", block_q: int = 0,
            cost_target: str = "auto", rows_per_warp: int = 0,
            block_kv: int = 0, mma: str = "auto", kv_stages: int = 0,
            swizzle: bool = False, kv_splits: int = 0, kv_warps: int = 0,
            kv_loads: str = "auto", overlap_pv: str = "auto",
            persistent: str = "auto", fp8_mma: str = "auto") -> Kernel:
    """Detects the attention in `mlir_text` and compiles it to a tensor-core
    PTX kernel with --attn-gpu-pipeline. The input must hold exactly one
    attention. Launch the result with `attnopt.runtime.launch` on a GPU.
    target (one of CHIPS) sm_90a (Hopper) uses wgmma, other chips mma.sync;
    mma forces one ("mma.sync" or "wgmma", which needs sm_90/sm_90a).
    cost_target (one of COST_TARGETS) is the GPU the kernel is chosen for:
    its SM count and bandwidths decide split-KV and tiles ("auto": the
    chip's own preset; `cost_target_for_device` names a device's).
    block_q (16, 32, 64, 128), rows_per_warp (16, 32), block_kv (32, 64, 128)
    and kv_stages (2, 3 with wgmma; 2, 3, 4 with mma.sync) override the kernel's tiles (0: the measured
    defaults); kv_splits (1 to 65535; 0: chosen) splits the keys of each
    query tile over that many CTAs, whose partial outputs a second kernel
    in the same PTX combines (the manifest lists both launches); kv_warps
    (1, 2, 4, 8; 0: chosen; mma.sync) divides each K/V tile's keys between
    that many warps per query-row slice, combined in shared memory;
    swizzle=True XOR-swizzles the mma.sync shared-memory tiles; kv_loads
    ("auto", "cp.async", "tma" or "tma-producer") says who fills the K/V
    stages: "tma" (wgmma, dense K/V) issues each tile as TMA boxes from one
    thread, against tensor maps the runtime encodes per K/V address pair;
    "tma-producer" (block_q 128) from a producer warpgroup of its own;
    overlap_pv ("auto", "on" or "off"; "on" needs the producer warpgroup)
    issues each tile's P·V behind the next tile's Q·Kᵀ, waited for after
    that tile's softmax; persistent ("auto", "on" or "off"; "on" needs the
    producer warpgroup and unsplit keys) launches one CTA per SM, each
    looping over the work items (query tile, batch · head) while its
    producer fills the K/V stages across them (auto: causal kernels whose
    query tiles pair up into equal work; the manifest's grid says which);
    fp8_mma ("auto", "on" or "off") says whether 8-bit float inputs take
    the FP8 tensor-core kernel (sm_90a; "on") or the generic CUDA-core
    kernel ("off"; "auto" is "on" where the chip has wgmma: 1.03-1.27x the
    bf16 kernel, bench/NOTES.md v43h). Arguments
    are checked before anything runs (ValueError / TypeError). What the
    tensor-core kernels refuse (f32, head dims that are no multiple of 8 or
    exceed 256) compiles to the generic CUDA-core kernel (exact, slower;
    its manifest's `instruction` says so); combinations the kernels cannot
    run, and attentions no kernel runs (f64, dynamic shapes: the
    command-line pipeline leaves those unfused on the host with a warning),
    raise MLIRError from the lowering."""
    _check_str("mlir_text", mlir_text)
    target = graph.check_choice("target", target, CHIPS)
    mma = graph.check_choice("mma", mma, MMA)
    cost_target = graph.check_choice("cost_target", cost_target, COST_TARGETS)
    tiles = {}
    kv_splits = graph.check_int("kv_splits", kv_splits, lo=0, hi=65535)
    for name, value, allowed in (("block_q", block_q, (0, 16, 32, 64, 128)),
                                 ("rows_per_warp", rows_per_warp, (0, 16, 32)),
                                 ("block_kv", block_kv, (0, 32, 64, 128)),
                                 ("kv_stages", kv_stages, (0, 2, 3, 4)),
                                 ("kv_warps", kv_warps, (0, 1, 2, 4, 8))):
        value = graph.check_int(name, value, lo=0)
        if value not in allowed:
            raise ValueError("%s must be one of %s; got %d"
                             % (name, ", ".join(map(str, allowed)), value))
        tiles[name] = value
    _check_bool("swizzle", swizzle)
    kv_loads = graph.check_choice("kv_loads", kv_loads, KV_LOADS)
    overlap_pv = graph.check_choice("overlap_pv", overlap_pv, OVERLAP_PV)
    persistent = graph.check_choice("persistent", persistent, PERSISTENT)
    fp8_mma = graph.check_choice("fp8_mma", fp8_mma, FP8_MMA)
    if mma == "wgmma" and target not in ("sm_90", "sm_90a"):
        raise ValueError("mma='wgmma' needs target sm_90a (or sm_90); got %r" % target)
    _check_gpu_target(target, mma, cost_target)
    # Detect once: the cost and the kernel come from the same raised IR.
    found = detect(mlir_text)
    # attn.paged_attention is not raised from other spellings: it is written.
    # Nor is attn.varlen_attention.
    _, _, paged = _run_counting(found.ir, "func.func(attn-detect)", "attn.paged_attention")
    _, _, varlen = _run_counting(found.ir, "func.func(attn-detect)", "attn.varlen_attention")
    if found.count + paged + varlen != 1:
        raise ValueError("compile() needs exactly one attention, found %d"
                         % (found.count + paged + varlen))
    def lower(tmp, strict):
        run_pipeline(found.ir,
                     "attn-gpu-pipeline{strict=%s chip=%s target=%s mma=%s block-q=%d "
                     "rows-per-warp=%d "
                     "block-kv=%d kv-stages=%d kv-splits=%d kv-warps=%d kv-loads=%s "
                     "overlap-pv=%s persistent=%s fp8-mma=%s swizzle=%s dump-dir=%s}"
                     % ("true" if strict else "false", target, cost_target, mma,
                        tiles["block_q"],
                        tiles["rows_per_warp"], tiles["block_kv"], tiles["kv_stages"],
                        kv_splits, tiles["kv_warps"], kv_loads, overlap_pv, persistent, fp8_mma,
                        "true" if swizzle else "false", _quoted_path(tmp)))

    with tempfile.TemporaryDirectory(prefix="attnopt-kernels-") as tmp:
        # compile() returns a GPU kernel: a tensor-core one, else the
        # generic CUDA-core kernel (what the command line warns about); an
        # attention no kernel runs, which the pipeline would leave to the
        # host, is an error here (the tensor-core kernels' reason).
        try:
            lower(tmp, strict=True)
        except MLIRError as refused:
            lower(tmp, strict=False)
            if not any(f.endswith(".json") for f in os.listdir(tmp)):
                raise refused
        manifests = sorted(f for f in os.listdir(tmp) if f.endswith(".json"))
        if len(manifests) != 1:
            raise ValueError("compile() needs exactly one attention, found %d kernels"
                             % len(manifests))
        with open(os.path.join(tmp, manifests[0])) as f:
            manifest = json.load(f)
        with open(os.path.join(tmp, manifests[0][:-5] + ".ptx")) as f:
            ptx = f.read()
    # The cost of the GPU the kernel was chosen for (the pipeline resolved
    # "auto"), computed by the same pass from the same raised IR.
    cost = None
    if manifest["chosen_for"] in IO_COST_TARGETS:
        report = io_cost(found.ir, target=manifest["chosen_for"])
        cost = report["attention"][0] if report["attention"] else None
    return Kernel(name=manifest["kernel"], ptx=ptx, manifest=manifest, cost=cost)


def __getattr__(name: str):
    # The GPU runtime needs PyTorch and a CUDA driver: import it on first use.
    # attnopt.torch needs PyTorch: likewise.
    if name in ("runtime", "torch"):
        import importlib
        return importlib.import_module("." + name, __name__)
    raise AttributeError("module 'attnopt' has no attribute '%s'" % name)

"""attnopt: attn-opt's attention compiler from Python.

Text in, text out. Each call builds its own MLIRContext, parses the input,
runs attn-opt passes and returns text (or a report). Nothing here needs a
GPU; `attnopt.runtime` (which would) is imported lazily.
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
from ._core import run_pipeline_with_remarks as _run_with_remarks

__all__ = ["MLIRError", "DetectResult", "Kernel", "run_pipeline", "detect", "io_cost",
           "compile", "graph"]


def run_pipeline(mlir_text: str, pipeline: str) -> str:
    """Runs any registered pass pipeline on `mlir_text` and returns the IR.

    `pipeline` is anchored on the module, e.g.
    ``"func.func(attn-detect),attn-io-cost{target=h100},func.func(attn-fuse)"``.
    Parse errors, verifier errors and pass failures raise `MLIRError`, whose
    message carries each diagnostic with its location.
    """
    return _run_pipeline(mlir_text, pipeline)


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
    pipeline = "func.func(attn-detect{explain=%s})" % ("true" if explain else "false")
    ir, remarks = _run_with_remarks(mlir_text, pipeline)
    count = sum(1 for line in ir.splitlines() if "attn.attention" in line and "=" in line)
    return DetectResult(ir=ir, count=count, remarks=list(remarks))


# Pass-option spelling of io_cost's keyword overrides.
_OVERRIDES = {
    "sram_bytes": "sram-bytes", "sm_count": "sm-count", "ctas_per_sm": "ctas-per-sm",
    "l2_bytes": "l2-bytes",
    "hbm_bandwidth": "hbm-bandwidth", "l2_bandwidth": "l2-bandwidth",
    "peak_f16": "peak-f16", "peak_bf16": "peak-bf16", "peak_f32": "peak-f32",
    "peak_f64": "peak-f64", "peak_scalar": "peak-scalar",
    "block_q": "block-q", "block_kv": "block-kv",
}


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
    ...) with the ``target`` object added.

    Keyword overrides replace fields of the target preset: sram_bytes,
    sm_count, l2_bytes, hbm_bandwidth, l2_bandwidth, peak_f16, peak_bf16,
    peak_f32, peak_f64, peak_scalar; block_q and block_kv cost a kernel with
    those tiles instead of the ones the model would choose.
    """
    from_shapes = mlir_text is None
    if from_shapes:
        missing = [n for n, v in dict(B=B, H=H, Lq=Lq, Lk=Lk, d=d).items() if v is None]
        if missing:
            raise ValueError("io_cost needs mlir_text or the shapes; missing: %s"
                             % ", ".join(missing))
        mlir_text = graph.attention(B, H, Lq, d, Lk=Lk, dv=dv, hkv=hkv,
                                    dtype=dtype, causal=causal)
    options = ["target=%s" % target]
    for key, value in overrides.items():
        if key not in _OVERRIDES:
            raise TypeError("io_cost() got an unknown override '%s' (known: %s)"
                            % (key, ", ".join(sorted(_OVERRIDES))))
        options.append("%s=%s" % (_OVERRIDES[key], value))
    fd, path = tempfile.mkstemp(suffix=".json", prefix="attnopt-iocost-")
    os.close(fd)
    try:
        options.append("report=%s" % path)
        run_pipeline(mlir_text, "attn-io-cost{%s}" % " ".join(options))
        with open(path) as f:
            report = json.load(f)
    finally:
        os.unlink(path)
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


def compile(mlir_text: str, target: str = "sm_90a", block_q: int = 0,
            cost_target: str = "h200", rows_per_warp: int = 0,
            block_kv: int = 0, mma: str = "auto") -> Kernel:
    """Detects the attention in `mlir_text` and compiles it to a tensor-core
    PTX kernel with --attn-gpu-pipeline. The input must hold exactly one
    attention. Launch the result with `attnopt.runtime.launch` on a GPU.
    target sm_90a (Hopper) uses wgmma, other chips mma.sync; mma forces one
    ("mma.sync" or "wgmma"). block_q, rows_per_warp and block_kv override
    the kernel's tiles (0: the measured defaults)."""
    with tempfile.TemporaryDirectory(prefix="attnopt-kernels-") as tmp:
        run_pipeline(mlir_text, "attn-gpu-pipeline{chip=%s mma=%s block-q=%d rows-per-warp=%d "
                     "block-kv=%d dump-dir=%s}"
                     % (target, mma, block_q, rows_per_warp, block_kv, tmp))
        manifests = sorted(f for f in os.listdir(tmp) if f.endswith(".json"))
        if len(manifests) != 1:
            raise ValueError("compile() needs exactly one attention, found %d kernels"
                             % len(manifests))
        with open(os.path.join(tmp, manifests[0])) as f:
            manifest = json.load(f)
        with open(os.path.join(tmp, manifests[0][:-5] + ".ptx")) as f:
            ptx = f.read()
    report = io_cost(detect(mlir_text).ir, target=cost_target)
    cost = report["attention"][0] if report["attention"] else None
    return Kernel(name=manifest["kernel"], ptx=ptx, manifest=manifest, cost=cost)


def __getattr__(name: str):
    # The GPU runtime needs CuPy and a CUDA driver: import it on first use.
    if name == "runtime":
        import importlib
        return importlib.import_module(".runtime", __name__)
    raise AttributeError("module 'attnopt' has no attribute '%s'" % name)

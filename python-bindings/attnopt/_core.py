"""The native half of attnopt: attn-opt's C API (include/attn-c/AttnOpt.h)
through ctypes.

ctypes, not a compiled extension module, so that one wheel serves every
Python 3 version: the library it loads, libAttnOptCAPI.so, holds the whole
compiler and exports only C functions. ctypes releases the GIL around each
call, so compiles on several threads run in parallel.

The library is found next to this file (the wheel, or build/python/attnopt in
a build tree); $ATTNOPT_LIBRARY overrides that with a path.
"""
from __future__ import annotations

import ctypes
import json
import os
from typing import Any, Dict, List, Tuple

LIBRARY_NAME = "libAttnOptCAPI.so"


class MLIRError(RuntimeError):
    """Anything MLIR reports (parse, verifier and pass errors, each with its
    location), and crashes inside MLIR or LLVM, which are recovered."""


def _load() -> ctypes.CDLL:
    path = os.environ.get("ATTNOPT_LIBRARY") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), LIBRARY_NAME)
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise ImportError("attnopt cannot load its compiler library %s: %s" % (path, e)) from None
    c_char_pp = ctypes.POINTER(ctypes.c_void_p)
    lib.attnopt_version.restype = ctypes.c_char_p
    lib.attnopt_version.argtypes = []
    lib.attnopt_run_pipeline.restype = ctypes.c_int
    lib.attnopt_run_pipeline.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                                         ctypes.c_char_p, c_char_pp]
    lib.attnopt_io_cost_report.restype = ctypes.c_int
    lib.attnopt_io_cost_report.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                                           c_char_pp]
    lib.attnopt_main.restype = ctypes.c_int
    lib.attnopt_main.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
    lib.attnopt_free.restype = None
    lib.attnopt_free.argtypes = [ctypes.c_void_p]
    return lib


_lib = _load()
LIBRARY_PATH = _lib._name


def _text(name: str, value) -> bytes:
    if not isinstance(value, str):
        raise TypeError("%s must be a str, got %s" % (name, type(value).__name__))
    return value.encode("utf-8", "surrogatepass")


def _c_string(name: str, value) -> bytes:
    """A str that travels as a NUL-terminated C string: no NUL inside."""
    data = _text(name, value)
    if b"\0" in data:
        raise ValueError("%s must not contain NUL characters" % name)
    return data


def _reply(status: int, out: ctypes.c_void_p) -> Dict[str, Any]:
    """The JSON object a C API call wrote, freed; MLIRError on failure."""
    if not out.value:
        raise MemoryError("attn-opt returned no result (out of memory?)")
    try:
        reply = json.loads(ctypes.string_at(out.value).decode("utf-8", "replace"))
    finally:
        _lib.attnopt_free(out.value)
    if status != 0:
        raise MLIRError(reply.get("error", "attn-opt failed"))
    return reply


def version() -> str:
    """'attn-opt <version> (<git commit>)' of the loaded compiler."""
    return _lib.attnopt_version().decode()


def _run(mlir_text: str, pipeline: str, op_name: str = "") -> Dict[str, Any]:
    data = _text("mlir_text", mlir_text)
    out = ctypes.c_void_p()
    status = _lib.attnopt_run_pipeline(data, len(data), _c_string("pipeline", pipeline),
                                       _c_string("op_name", op_name), ctypes.byref(out))
    return _reply(status, out)


def run_pipeline(mlir_text: str, pipeline: str) -> str:
    """Parse `mlir_text`, run the pass pipeline (e.g.
    'func.func(attn-detect),attn-io-cost'), return the printed module."""
    return _run(mlir_text, pipeline)["ir"]


def run_pipeline_with_remarks(mlir_text: str, pipeline: str) -> Tuple[str, List[str]]:
    """Like run_pipeline, and also the remarks as 'loc: remark: text' lines."""
    reply = _run(mlir_text, pipeline)
    return reply["ir"], reply["remarks"]


def run_pipeline_counting(mlir_text: str, pipeline: str,
                          op_name: str) -> Tuple[str, List[str], int]:
    """Like run_pipeline_with_remarks, and also how many ops named `op_name`
    (e.g. 'attn.attention') the resulting module holds."""
    reply = _run(mlir_text, pipeline, op_name)
    return reply["ir"], reply["remarks"], reply["count"]


def io_cost_report(mlir_text: str, target: str, int_overrides: Dict[str, int],
                   rate_overrides: Dict[str, float]) -> str:
    """The --attn-io-cost JSON report of `mlir_text`, the pass built from typed
    options: a target preset and overrides by their Python names
    (sram_bytes, hbm_bandwidth, ...), checked by the compiler."""
    options = {"target": target}
    options.update(int_overrides)
    options.update(rate_overrides)
    data = _text("mlir_text", mlir_text)
    out = ctypes.c_void_p()
    status = _lib.attnopt_io_cost_report(data, len(data),
                                         json.dumps(options, allow_nan=True).encode(),
                                         ctypes.byref(out))
    return _reply(status, out)["report"]


def main(argv: List[str]) -> int:
    """The attn-opt command line in this process; returns its exit code."""
    args = [_c_string("argument", a) for a in argv]
    c_argv = (ctypes.c_char_p * (len(args) + 1))(*args, None)
    return _lib.attnopt_main(len(args), c_argv)

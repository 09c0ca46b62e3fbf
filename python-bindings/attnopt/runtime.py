"""Launch attn-opt kernels on an NVIDIA GPU (pure Python; PyTorch + the CUDA
driver, libcuda, through ctypes).

Imported lazily by `attnopt.runtime`, and standalone by the benchmark on GPU
machines that have no MLIR (this file imports nothing from attnopt).

    kern = attnopt.compile(attnopt.graph.attention(4, 32, 4096, 64, causal=True))
    out = attnopt.runtime.launch(kern, q, k, v)   # torch tensors on the GPU

The driver calls are the five a launcher needs (load PTX, look up a
function, allow its dynamic shared memory, launch, name an error), and a
sixth for kernels that load K/V by TMA (encode a tensor map); every kernel
parameter is a bare device pointer (the manifest's `params`, `workspace`
and `tensor_maps`), so a launch passes an array of 64-bit addresses on
PyTorch's current stream.
"""
from __future__ import annotations

import ctypes
import os
import json
import threading
from collections import OrderedDict
from typing import Any, Dict, Optional

_DTYPES = {"bf16": "bfloat16", "f16": "float16", "f32": "float32", "f64": "float64",
           "f8E4M3FN": "float8_e4m3fn", "f8E5M2": "float8_e5m2",
           "i1": "bool", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64"}
_CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
# cuda.h: CUtensorMapDataType, CUtensorMapSwizzle, CUtensorMapL2promotion.
# (8-bit floats as UINT8: TMA copies bytes.)
_TENSOR_MAP_DTYPES = {"f16": 6, "bf16": 9, "f8E4M3FN": 0, "f8E5M2": 0}
_TENSOR_MAP_SWIZZLES = {"none": 0, "32B": 1, "64B": 2, "128B": 3}
# The manifest's `l2_promotion` of each map (the compiler's choice: none).
_TENSOR_MAP_L2_PROMOTIONS = {"none": 0, "64B": 1, "128B": 2, "256B": 3}
_TENSOR_MAP_BYTES = 128
# Tensor-map buffers kept per loaded kernel (one per distinct K/V address
# pair): a serving loop reuses a few cache tensors.
_TENSOR_MAP_CACHE_SIZE = 64


class CudaError(RuntimeError):
    """A CUDA driver call failed (the call and the driver's message)."""


class _Driver:
    """libcuda.so.1, loaded once; `call` checks each CUresult."""

    _instance = None
    _lock = threading.Lock()

    def __init__(self):
        try:
            self.lib = ctypes.CDLL("libcuda.so.1")
        except OSError as e:
            raise CudaError("cannot load the CUDA driver (libcuda.so.1): %s" % e) from None
        self.call("cuInit", ctypes.c_uint(0))

    @classmethod
    def get(cls) -> "_Driver":
        with cls._lock:
            if cls._instance is None:
                cls._instance = cls()
            return cls._instance

    def call(self, name, *args):
        status = getattr(self.lib, name)(*args)
        if status != 0:
            raise CudaError(self.describe(name, status))

    def describe(self, name, status) -> str:
        text = ctypes.c_char_p()
        self.lib.cuGetErrorString(status, ctypes.byref(text))
        return "%s failed: %s (CUresult %d)" % (
            name, text.value.decode() if text.value else "unknown error", status)


def _ensure_context():
    """PyTorch's primary context current on this thread (the driver calls
    below need one; torch sets it lazily)."""
    import torch
    torch.cuda.current_stream()  # initializes CUDA and makes the context current
    driver = _Driver.get()
    ctx = ctypes.c_void_p()
    driver.call("cuCtxGetCurrent", ctypes.byref(ctx))
    if not ctx.value:
        device = ctypes.c_int()
        driver.call("cuDeviceGet", ctypes.byref(device), ctypes.c_int(torch.cuda.current_device()))
        driver.call("cuDevicePrimaryCtxRetain", ctypes.byref(ctx), device)
        driver.call("cuCtxSetCurrent", ctx)
    return driver, ctx


class _Function:
    """One kernel of a loaded module, launched with bare-pointer arguments.

    The launch is on the hot path of every attention call, so what does not
    change between calls is built once: the typed cuLaunchKernel entry
    point, the launch shape, and per thread the argument block (64-bit
    values) with the pointer array into it; a call only stores the
    addresses and launches."""

    def __init__(self, driver, context, module, name, grid, block, shared_mem, num_args):
        self.driver = driver
        self.context = context
        self.handle = ctypes.c_void_p()
        driver.call("cuModuleGetFunction", ctypes.byref(self.handle), module,
                    name.encode())
        if shared_mem > 0:
            # Above 48 KB of static plus dynamic shared memory a kernel must
            # opt in to its dynamic part, and the PTX's dynamic-buffer symbol
            # is itself one static byte: a kernel of exactly 48 KB dynamic
            # failed its launch (bench/NOTES.md v31c). Every kernel with a
            # dynamic buffer opts in, to its own size.
            driver.call("cuFuncSetAttribute", self.handle,
                        _CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, ctypes.c_int(shared_mem))
        launch = driver.lib.cuLaunchKernel
        launch.argtypes = ([ctypes.c_void_p] + [ctypes.c_uint] * 7 +
                           [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p])
        launch.restype = ctypes.c_int
        self._launch = launch
        self._shape = [int(x) for x in grid] + [int(x) for x in block] + [shared_mem]
        self._num_args = num_args
        self._per_thread = threading.local()

    def _argument_block(self):
        block = getattr(self._per_thread, "block", None)
        if block is None:
            # A thread that made no CUDA runtime call yet has no current
            # context: launch in the one the module was loaded in.
            current = ctypes.c_void_p()
            self.driver.call("cuCtxGetCurrent", ctypes.byref(current))
            if not current.value:
                self.driver.call("cuCtxSetCurrent", self.context)
            values = (ctypes.c_uint64 * self._num_args)()
            base = ctypes.addressof(values)
            params = (ctypes.c_void_p * self._num_args)(
                *[base + 8 * i for i in range(self._num_args)])
            block = self._per_thread.block = (values, params)
        return block

    def __call__(self, pointers, stream):
        values, params = self._argument_block()
        values[:] = pointers
        status = self._launch(self.handle, *self._shape, stream, params, None)
        if status != 0:
            raise CudaError(self.driver.describe("cuLaunchKernel", status))


def encode_tensor_map(driver, dtype: str, address: int, shape, box, swizzle: str,
                      l2_promotion: str = "none") -> bytes:
    """A CUtensorMap (128 bytes) over the contiguous tensor of `shape` at
    `address`: dims innermost first, byte strides of the outer dims, the
    box in elements, zero fill out of bounds."""
    rank = len(shape)
    elem = 1 if dtype.startswith("f8") else 2
    dims = list(reversed([int(x) for x in shape]))
    strides, step = [], elem
    for x in dims[:-1]:
        step *= x
        strides.append(step)
    # CUtensorMap is 64-byte aligned: encode into an aligned slice.
    raw = ctypes.create_string_buffer(_TENSOR_MAP_BYTES + 64)
    base = ctypes.addressof(raw)
    aligned = (base + 63) // 64 * 64
    u64s, u32s = ctypes.c_uint64 * rank, ctypes.c_uint32 * rank
    encode = driver.lib.cuTensorMapEncodeTiled
    encode.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32, ctypes.c_void_p,
                       ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint64),
                       ctypes.POINTER(ctypes.c_uint32), ctypes.POINTER(ctypes.c_uint32),
                       ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int]
    encode.restype = ctypes.c_int
    status = encode(aligned, _TENSOR_MAP_DTYPES[dtype], rank, address, u64s(*dims),
                    (ctypes.c_uint64 * max(1, rank - 1))(*strides),
                    u32s(*[int(x) for x in box]), u32s(*([1] * rank)), 0,
                    _TENSOR_MAP_SWIZZLES[swizzle], _TENSOR_MAP_L2_PROMOTIONS[l2_promotion], 0)
    if status != 0:
        raise CudaError(driver.describe("cuTensorMapEncodeTiled", status))
    return ctypes.string_at(aligned, _TENSOR_MAP_BYTES)


def _address(t) -> int:
    """A CUDA tensor's device address: torch tensors, or anything with the
    CUDA array interface (CuPy, Numba)."""
    if hasattr(t, "data_ptr"):
        return t.data_ptr()
    return t.__cuda_array_interface__["data"][0]


class LoadedKernel:
    """A kernel's PTX loaded with the CUDA driver, launched by
    bare pointers as the manifest's `launches` say, in order (split-KV: the
    attention kernel, then its combine kernel), with the `workspace` buffers
    allocated here."""

    def __init__(self, manifest: Dict[str, Any], ptx: str):
        import torch
        driver, context = _ensure_context()
        self.device_index = torch.cuda.current_device()
        self.manifest = manifest
        self._module = ctypes.c_void_p()
        driver.call("cuModuleLoadData", ctypes.byref(self._module), ptx.encode() + b"\0")
        launches = manifest.get("launches") or [{
            "kernel": manifest["kernel"], "grid": manifest["grid"]["value"],
            "block": manifest["block"]["value"],
            "dynamic_shared_memory_bytes": manifest.get("dynamic_shared_memory_bytes", 0),
            "args": [p["name"] for p in manifest["params"]]}]
        self.launches = []
        for launch in launches:
            shared_mem = int(launch.get("dynamic_shared_memory_bytes", 0))
            function = _Function(driver, context, self._module, launch["kernel"], launch["grid"],
                                 launch["block"], shared_mem, len(launch["args"]))
            self.launches.append((function, tuple(launch["grid"]), tuple(launch["block"]),
                                  shared_mem, list(launch["args"])))
        self.function = self.launches[0][0]
        self.shared_mem = self.launches[0][3]
        self.grid = self.launches[0][1]
        self.block = self.launches[0][2]
        self.shapes = [tuple(p["shape"]) for p in manifest["params"]]
        self.workspace = [(w["name"], tuple(w["shape"]), w.get("type", "f32*").rstrip("*"))
                          for w in manifest.get("workspace", [])]
        for name, _, dtype in self.workspace:
            if dtype not in _DTYPES:
                raise ValueError("workspace %s: unknown type %r" % (name, dtype))
        self.tensor_maps = list(manifest.get("tensor_maps", []))
        for m in self.tensor_maps:
            if m.get("l2_promotion", "none") not in _TENSOR_MAP_L2_PROMOTIONS:
                raise ValueError("tensor map %s: l2_promotion must be one of %s, got %r"
                                 % (m.get("arg"), ", ".join(_TENSOR_MAP_L2_PROMOTIONS),
                                    m.get("l2_promotion")))
        self._driver = driver
        self._map_buffers = OrderedDict()
        self._map_lock = threading.Lock()

    @classmethod
    def from_files(cls, manifest_path: str) -> "LoadedKernel":
        with open(manifest_path) as f:
            manifest = json.load(f)
        with open(os.path.splitext(manifest_path)[0] + ".ptx") as f:
            return cls(manifest, f.read())

    @property
    def torch_dtype(self):
        import torch
        return getattr(torch, _DTYPES[self.manifest["dtype"]])

    def _param_dtype(self, name):
        """The torch dtype of the manifest's parameter `name`."""
        import torch
        [param] = [p for p in self.manifest["params"] if p["name"] == name]
        return getattr(torch, _DTYPES[param["type"].rstrip("*")])

    def _tensor_map_buffers(self, pointers, device):
        """The `tensor_maps` arguments for the tensors at `pointers`: the
        encoded maps in device memory, cached per address tuple (a buffer's
        contents depend only on the addresses, so a cached one is never
        rewritten while a launch may read it)."""
        import torch
        key = tuple(pointers[m["tensor"]] for m in self.tensor_maps)
        with self._map_lock:
            buffers = self._map_buffers.get(key)
            if buffers is not None:
                self._map_buffers.move_to_end(key)
                return buffers
        shapes = {p["name"]: p["shape"] for p in self.manifest["params"]}
        buffers = {}
        for m in self.tensor_maps:
            image = bytearray(encode_tensor_map(
                self._driver, self.manifest["dtype"], pointers[m["tensor"]], shapes[m["tensor"]],
                m["box"], m["swizzle"], m.get("l2_promotion", "none")))
            # (The caching allocator's blocks are 512-byte aligned.)
            buffers[m["arg"]] = torch.frombuffer(image, dtype=torch.uint8).to(device)
        with self._map_lock:
            self._map_buffers[key] = buffers
            if len(self._map_buffers) > _TENSOR_MAP_CACHE_SIZE:
                self._map_buffers.popitem(last=False)
        return buffers

    def _workspace(self, device):
        """The workspace buffers (split-KV's f32 partial results, FP8's Vᵀ
        tile images), each of its manifest type, allocated per call from
        PyTorch's caching allocator on the current stream: a kernel shared
        by threads or streams never shares its intermediate results."""
        import torch
        return {name: torch.empty(shape, device=device, dtype=getattr(torch, _DTYPES[dtype]))
                for name, shape, dtype in self.workspace}

    def __call__(self, q, k, v, out=None, mask=None, block_table=None, seq_lens=None,
                 check_bounds=False, score_mod_operands=(), cu_seqlens_q=None,
                 cu_seqlens_k=None, descale=None):
        """Runs on PyTorch tensors (or CuPy arrays) of the manifest's shapes
        and dtype, contiguous, on the current stream; returns `out`. Kernels
        compiled with a mask tensor take it as `mask` (an additive mask in
        the manifest's type, the input dtype unless the generic kernel took a
        wider one; bool for a keep mask), broadcast dims of size 1.

        Paged kernels (attn.paged_attention) take k and v as the page pools
        [pages, page_size, Hkv, d], `block_table` [B, max_pages] and
        `seq_lens` [B] (int32). Entries of the block table that a sequence
        uses must name pages of the pool, and 0 <= seq_lens <= max_pages *
        page_size: the caller's contract, as in vLLM; `check_bounds=True`
        checks it first (a debugging aid: it synchronizes with the GPU).

        Packed variable-length kernels (attn.varlen_attention) take q, k, v
        and out as [tokens, heads, d] and the cumulative sequence lengths
        `cu_seqlens_q`, `cu_seqlens_k` [B + 1] (int32): 0 <= cu[0] <= ... <=
        cu[B] <= tokens, the caller's contract as in FlashAttention
        (`check_bounds=True` checks it first; lengths that break it give a
        wrong result but no access outside the tensors).

        Kernels whose score_mod reads tensors (a relative-position bias
        table, ...) take them as `score_mod_operands`, in the order of the
        manifest's `score_mod_operand_<n>` params (the order the region
        first reads them).

        FP8 kernels (8-bit float q, k, v; `out` in the manifest's
        `output_dtype`) compiled with descale factors take them as
        `descale=(q_descale, k_descale, v_descale)`: float32 CUDA tensors of
        shape () (the real Q is q_descale·q, likewise K and V)."""
        import torch
        if out is None:
            out = torch.empty(self.shapes[3], device=torch.device("cuda", self.device_index),
                              dtype=self._param_dtype("o"))
        kind = self.manifest.get("mask", "none")
        if (mask is None) != (kind == "none"):
            raise ValueError("this kernel takes %s" % ("no mask" if kind == "none"
                                                      else "a %s mask" % kind))
        paged = self.manifest.get("paged") or None
        if (block_table is not None, seq_lens is not None) != (paged is not None,) * 2:
            raise ValueError("this kernel takes %s" % (
                "no block_table or seq_lens" if paged is None
                else "block_table and seq_lens (a paged KV cache)"))
        tensors = [("q", q), ("k", k), ("v", v), ("o", out)]
        dtypes = [self._param_dtype(name) for name, _ in tensors]
        if mask is not None:
            tensors.append(("mask", mask))
            dtypes.append(self._param_dtype("mask"))
        if paged is not None:
            tensors += [("block_table", block_table), ("seq_lens", seq_lens)]
            dtypes += [torch.int32, torch.int32]
        varlen = bool(self.manifest.get("varlen"))
        given = (cu_seqlens_q is not None, cu_seqlens_k is not None)
        if given != (varlen, varlen):
            raise ValueError("this kernel takes %s" % (
                "cu_seqlens_q and cu_seqlens_k (a packed variable-length batch)" if varlen
                else "no cu_seqlens_q or cu_seqlens_k"))
        if varlen:
            tensors += [("cu_seqlens_q", cu_seqlens_q), ("cu_seqlens_k", cu_seqlens_k)]
            dtypes += [torch.int32, torch.int32]
        wanted = [p for p in self.manifest["params"] if p["name"].startswith("score_mod_operand_")]
        if len(score_mod_operands) != len(wanted):
            raise ValueError("this kernel's score_mod reads %d tensor(s), got %d score_mod_operands"
                             % (len(wanted), len(score_mod_operands)))
        for p, t in zip(wanted, score_mod_operands):
            tensors.append((p["name"], t))
            dtypes.append(self._param_dtype(p["name"]))
        takes_descale = bool(self.manifest.get("descale"))
        if (descale is not None) != takes_descale:
            raise ValueError("this kernel takes %s" % (
                "descale=(q_descale, k_descale, v_descale) (FP8 inputs)" if takes_descale
                else "no descale"))
        if takes_descale:
            if len(descale) != 3:
                raise ValueError("descale takes three factors (q, k, v), got %d" % len(descale))
            for name, t in zip(("q_descale", "k_descale", "v_descale"), descale):
                tensors.append((name, t))
                dtypes.append(torch.float32)
        shapes = {p["name"]: tuple(p["shape"]) for p in self.manifest["params"]}
        pointers = {}
        alignment = self.manifest.get("tensor_alignment", 1)
        for (name, t), dtype in zip(tensors, dtypes):
            shape = shapes[name]
            if tuple(t.shape) != shape:
                raise ValueError("%s has shape %s, the kernel needs %s" % (name, tuple(t.shape), shape))
            if isinstance(t, torch.Tensor) and (
                    t.dtype != dtype or not t.is_contiguous() or not t.is_cuda):
                raise ValueError("%s must be a contiguous CUDA %s tensor" % (name, dtype))
            if isinstance(t, torch.Tensor) and t.device.index != self.device_index:
                raise ValueError("%s is on %s; this kernel is loaded on cuda:%d"
                                 % (name, t.device, self.device_index))
            pointers[name] = _address(t)
            if name in _ALIGNED_TENSORS and pointers[name] % alignment:
                # The tensor-core kernels read Q and write O in 16-byte
                # vectors and TMA boxes start on 16-byte addresses (a view
                # at an odd offset into a larger buffer is contiguous but
                # not aligned).
                raise ValueError("%s must start on a %d-byte boundary (its address is %#x): "
                                 "pass a copy (.clone())" % (name, alignment, pointers[name]))
        # (The contracts are checked on tensors already validated above.)
        if check_bounds and paged is not None:
            _check_pages(block_table, seq_lens, paged)
        if check_bounds and varlen:
            _check_cumulative_lengths(cu_seqlens_q, cu_seqlens_k, self.manifest)
        # The workspace lives until the launches are issued: freed earlier,
        # its blocks would go to the next allocation (the tensor maps below),
        # which the kernel would then overwrite with its partial outputs
        # (v30d: an illegal instruction in the TMA load of the next call).
        # Freed after, the caching allocator reuses them only for work
        # queued behind these launches on this stream.
        workspace = self._workspace(torch.device("cuda", self.device_index))
        for name, buffer in workspace.items():
            pointers[name] = buffer.data_ptr()
        if self.tensor_maps:
            device = torch.device("cuda", self.device_index)
            for name, buffer in self._tensor_map_buffers(pointers, device).items():
                pointers[name] = buffer.data_ptr()
        stream = torch.cuda.current_stream().cuda_stream
        for function, _, _, _, args in self.launches:
            function([pointers[a] for a in args], stream)
        return out


# The tensors whose start address must be a multiple of the manifest's
# "tensor_alignment" bytes.
_ALIGNED_TENSORS = ("q", "k", "v", "o")


def _check_pages(block_table, seq_lens, paged):
    """The paged kernels' contract, checked on the tensors (ValueError)."""
    import torch
    capacity = paged["max_pages"] * paged["page_size"]
    # (CuPy arrays too, through the CUDA array interface.)
    block_table = torch.as_tensor(block_table, device="cuda")
    lens = torch.as_tensor(seq_lens, device="cuda").to(torch.int64)
    if bool(((lens < 0) | (lens > capacity)).any()):
        raise ValueError("seq_lens must lie in [0, %d]" % capacity)
    used = (lens + paged["page_size"] - 1) // paged["page_size"]
    slots = torch.arange(block_table.shape[1], device=block_table.device)
    in_use = slots[None, :] < used[:, None]
    entries = block_table.to(torch.int64)
    bad = in_use & ((entries < 0) | (entries >= paged["num_pages"]))
    if bool(bad.any()):
        b, p = [int(x) for x in bad.nonzero()[0]]
        raise ValueError("block_table[%d, %d] = %d is not a page of the pool (%d pages)"
                         % (b, p, int(entries[b, p]), paged["num_pages"]))


def _check_cumulative_lengths(cu_q, cu_k, manifest):
    """The varlen kernels' contract, checked on the tensors (ValueError)."""
    import torch
    for name, cu, tokens in (("cu_seqlens_q", cu_q, manifest["Lq"]),
                             ("cu_seqlens_k", cu_k, manifest["Lk"])):
        # (CuPy arrays too, through the CUDA array interface.)
        c = torch.as_tensor(cu, device="cuda").to(torch.int64)
        if bool((c < 0).any()) or bool((c > tokens).any()):
            raise ValueError("%s must lie in [0, %d] (the packed tokens)" % (name, tokens))
        if bool((c[1:] < c[:-1]).any()):
            raise ValueError("%s must be non-decreasing" % name)


def launch(kernel, q, k, v, out=None, mask=None, block_table=None, seq_lens=None,
           check_bounds=False, score_mod_operands=(), cu_seqlens_q=None, cu_seqlens_k=None,
           descale=None):
    """Launches an `attnopt.Kernel` (from attnopt.compile) on q, k, v (and
    the mask tensor, for kernels compiled from an attention with one; the
    block table and sequence lengths, for a paged KV cache; the cumulative
    sequence lengths, for a packed variable-length batch; the descale
    factors, for FP8 inputs compiled with them)."""
    import torch
    device = q.device if isinstance(q, torch.Tensor) else torch.device("cuda")
    # A module belongs to the context of the device it was loaded on.
    loaded_by_device = kernel.__dict__.setdefault("_loaded", {})
    with torch.cuda.device(device):
        loaded = loaded_by_device.get(device.index)
        if loaded is None:
            loaded = loaded_by_device[device.index] = LoadedKernel(kernel.manifest, kernel.ptx)
        return loaded(q, k, v, out, mask=mask, block_table=block_table, seq_lens=seq_lens,
                      check_bounds=check_bounds, score_mod_operands=score_mod_operands,
                      cu_seqlens_q=cu_seqlens_q, cu_seqlens_k=cu_seqlens_k, descale=descale)

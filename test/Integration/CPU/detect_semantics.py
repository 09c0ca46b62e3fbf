#!/usr/bin/env python3
"""Runs one function of a lit test file on the CPU twice, through
--attn-cpu-pipeline with detection off and on, on the same random inputs,
and checks that the results agree: detection must preserve semantics.

The function is taken from its `// -----` section of the file; a @main is
added that builds random inputs from the signature (fixed seed), calls it,
and prints the result as f32.
"""
import argparse
import re
import subprocess
import sys
import tempfile

import numpy as np

ELT = {"f32": "<f4", "f16": "<f2", "bf16": None, "i1": None}


def tensor_types(sig):
    return re.findall(r"tensor<([0-9x]+)x(f32|f16|bf16|i1)>", sig)


def literal(shape, elt, rng):
    dims = [int(d) for d in shape.split("x")]
    if elt == "i1":
        keep = rng.uniform(size=dims) < 0.8
        keep[..., 0] = True  # every row keeps a key
        def nest(x):
            if x.ndim == 0:
                return "true" if x else "false"
            return "[" + ", ".join(nest(y) for y in x) + "]"
        return "dense<%s>" % nest(keep)
    data = rng.standard_normal(dims).astype(np.float32)
    if elt == "bf16":
        raw = (data.view(np.uint32) >> 16).astype("<u2").tobytes()
    else:
        raw = data.astype(ELT[elt]).tobytes()
    return 'dense<"0x%s">' % raw.hex().upper()


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("file")
    ap.add_argument("--func", required=True)
    ap.add_argument("--attn-opt", required=True)
    ap.add_argument("--runner", required=True)
    ap.add_argument("--shared-libs", required=True)
    ap.add_argument("--tol", type=float, default=None)
    a = ap.parse_args()
    text = open(a.file).read()
    section = next(s for s in text.split("// -----")
                   if re.search(r"func\.func @%s\(" % a.func, s))
    section = "\n".join(l for l in section.splitlines()
                        if not l.strip().startswith("// expected-"))
    m = re.search(r"func\.func @%s\((.*?)\)\s*->\s*([^{]*)\{" % a.func, section, re.S)
    args = tensor_types(m.group(1))
    results = tensor_types(m.group(2))
    rng = np.random.default_rng(7)
    lines = ["func.func private @printMemrefF32(memref<*xf32>)", "func.func @main() {"]
    for i, (shape, elt) in enumerate(args):
        lines.append("  %%a%d = arith.constant %s : tensor<%sx%s>" % (i, literal(shape, elt, rng), shape, elt))
    arg_list = ", ".join("%%a%d" % i for i in range(len(args)))
    arg_types = ", ".join("tensor<%sx%s>" % t for t in args)
    res_types = ", ".join("tensor<%sx%s>" % t for t in results)
    lines.append("  %%r:%d = call @%s(%s) : (%s) -> (%s)" % (len(results), a.func, arg_list, arg_types, res_types))
    for i, (shape, elt) in enumerate(results):
        t = "tensor<%sx%s>" % (shape, elt)
        v = "%%r#%d" % i
        if elt != "f32":
            rank = len(shape.split("x"))
            dims = ", ".join("d%d" % d for d in range(rank))
            idm = "affine_map<(%s) -> (%s)>" % (dims, dims)
            lines.append("  %%e%d = tensor.empty() : tensor<%sxf32>" % (i, shape))
            lines.append("  %%x%d = linalg.generic {indexing_maps = [%s, %s], iterator_types = [%s]} ins(%s : %s) outs(%%e%d : tensor<%sxf32>) {" % (
                i, idm, idm, ", ".join(['"parallel"'] * rank), v, t, i, shape))
            lines.append("  ^bb0(%%in: %s, %%out: f32):\n    %%c = arith.extf %%in : %s to f32\n    linalg.yield %%c : f32\n  } -> tensor<%sxf32>" % (elt, elt, shape))
            v, t = "%%x%d" % i, "tensor<%sxf32>" % shape
        mt = t.replace("tensor", "memref")
        lines.append("  %%b%d = bufferization.to_buffer %s : %s to %s" % (i, v, t, mt))
        lines.append("  %%u%d = memref.cast %%b%d : %s to memref<*xf32>" % (i, i, mt))
        lines.append("  call @printMemrefF32(%%u%d) : (memref<*xf32>) -> ()" % i)
    lines.append("  return\n}")
    main_text = "\n".join(lines) + "\n"
    # Frontend fixtures wrap their function in `module { ... }` and may end in
    # a {-# dialect_resources #-} block: @main goes inside that module.
    body, sep, resources = section.partition("{-#")
    if re.search(r"^module\b.*\{", body, re.M):
        close = body.rstrip().rfind("}")
        body = body[:close] + main_text + "}\n"
    else:
        body = body + "\n" + main_text
    module = body + sep + resources

    outputs = []
    for detect in ("false", "true"):
        with tempfile.NamedTemporaryFile("w", suffix=".mlir") as f:
            f.write(module)
            f.flush()
            low = subprocess.run([a.attn_opt, f.name, "--attn-cpu-pipeline=detect=" + detect],
                                 capture_output=True, text=True)
            if low.returncode:
                print(low.stderr[:3000]); print("FAIL: attn-opt (detect=%s)" % detect); return 1
            ir = subprocess.run([a.attn_opt, f.name, "--attn-detect"], capture_output=True, text=True).stdout
            raised = "attn.attention" in ir
            run = subprocess.run([a.runner, "-e", "main", "-entry-point-result=void",
                                  "-shared-libs=" + a.shared_libs],
                                 input=low.stdout, capture_output=True, text=True)
            if run.returncode:
                print(run.stderr[:3000]); print("FAIL: mlir-runner"); return 1
            data = run.stdout.split("data =", 1)[1]
            outputs.append(np.array([float(x) for x in re.findall(
                r"-?nan|-?inf|[-+]?\d+\.?\d*(?:[eE][-+]?\d+)?", data)]))
    if not raised:
        print("FAIL: the function was not raised to attn.attention"); return 1
    before, after = outputs
    # Reduced precision: the original graphs round P to f16/bf16 and may
    # accumulate P·V in it (a bf16 linalg.batch_matmul does); the raised op
    # accumulates in f32, so the two differ by the original's rounding.
    tol = a.tol or {"f32": 1e-5, "f16": 1e-2, "bf16": 5e-2}[results[0][1]]
    # Fully masked rows: the original softmax gives NaN (0/0), attn.attention
    # gives 0 by definition. Compare where the original is defined.
    defined = np.isfinite(before)
    dead = int((~defined).sum())
    if dead and not np.all(after[~defined] == 0.0):
        print("FAIL: fully masked rows are not 0 after detection"); return 1
    before, after = before[defined], after[defined]
    err = np.max(np.abs(after - before)) / max(np.max(np.abs(before)), 1e-30)
    if dead:
        print("%d outputs of fully masked rows: NaN before, 0 after" % dead)
    print("%s: detected-vs-original max rel err %.3e (tol %g)" % (a.func, err, tol))
    if not np.all(np.isfinite(outputs[1])) or not err <= tol:
        print("FAIL"); return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Property test of the numerics contract: random attention problems, fused
against unfused on the CPU, both against an fp64 reference.

Each case draws a rank (2-D/3-D/4-D), batch and heads, a GQA/MQA ratio,
Lq and Lk (1..48, cross-attention included), d and dv, a causal alignment, a
mask (none, additive broadcast, boolean keep, keep with fully masked rows),
a scale, a logit magnitude (log-uniform up to 1e4) and a dtype (f32, f16,
bf16). Cases are compiled in batches: one module, one attn-opt run and one
mlir-runner run per batch, so hundreds of cases fit in CI.

The contract, per case, with inputs rounded to the dtype and an fp64
reference computed from those rounded inputs:
  * fused error vs fp64 <= 2x the unfused same-precision error (plus 2^-24
    of slack for results that happen to round exactly);
  * no NaN/inf in the fused output where the reference has none;
  * fully masked rows of the fused output are exactly 0.
The unfused path is allowed to be poor (f16 softmax in f16); when it
overflows to NaN/inf its error counts as infinite.

  numerics_property.py --cases 300 --seed 1 ...     (CI)
  numerics_property.py --cases 5000 --seed 7 ...    (long run)
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attn_exec import dense, fused_and_unfused, parse_memrefs, reference, ttype  # noqa: E402


def round_to(a, dtype):
    """(values rounded to dtype as float32, hex payload of the dtype)."""
    a = np.asarray(a, dtype=np.float32)
    if dtype == "f32":
        return a, a.astype("<f4").tobytes().hex().upper()
    if dtype == "f16":
        h = a.astype(np.float16)
        return h.astype(np.float32), h.astype("<f2").tobytes().hex().upper()
    # bf16: round to nearest even on the top 16 bits of the f32 pattern.
    u = a.view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    back = (r.astype(np.uint32) << 16).view(np.float32)
    return back, r.astype("<u2").tobytes().hex().upper()


def literal(a, dtype):
    """An elements literal in `dtype`: exact hex bytes, nested lists for i1."""
    if a.dtype == np.bool_:
        return dense(a)
    _, payload = round_to(a, dtype)
    return 'dense<"0x%s">' % payload


class Case:
    def __init__(self, rng, index, dtypes):
        self.index = index
        self.dtype = dtypes[rng.integers(len(dtypes))]
        self.rank = int(rng.choice([2, 3, 4]))
        self.B = int(rng.integers(1, 3)) if self.rank == 4 else 1
        self.H = int(rng.choice([1, 2, 4])) if self.rank > 2 else 1
        self.Hkv = self.H // int(rng.choice([g for g in (1, 2, 4) if self.H % g == 0]))
        self.Lq = int(rng.integers(1, 49))
        self.Lk = self.Lq if rng.random() < 0.4 else int(rng.integers(1, 49))
        self.d = int(rng.choice([4, 8, 16, 32]))
        self.dv = self.d if rng.random() < 0.6 else int(rng.choice([4, 8, 12, 16]))
        self.causal = str(rng.choice(["none", "none", "top_left", "bottom_right"]))
        self.mask = str(rng.choice(["none", "none", "additive", "keep", "dead-row"]))
        self.scale = float(rng.uniform(0.5, 2.0) / np.sqrt(self.d))
        # Score magnitude: ~1 for most cases, up to 1e4 for some.
        self.logit = float(10 ** rng.uniform(0, 4)) if rng.random() < 0.3 else 1.0
        lead_q = {2: [], 3: [self.H], 4: [self.B, self.H]}[self.rank]
        lead_kv = {2: [], 3: [self.Hkv], 4: [self.B, self.Hkv]}[self.rank]
        self.lead_q = lead_q
        q = rng.standard_normal(lead_q + [self.Lq, self.d]) * self.logit
        if self.dtype == "f16":
            # Keep Q·Kᵀ inside f16's range (65504) so that the reference is
            # finite; the fused kernel is checked at 1e4 logits all the same.
            q = np.clip(q, -2e3, 2e3)
        self.q, _ = round_to(q, self.dtype)
        self.k, _ = round_to(rng.standard_normal(lead_kv + [self.Lk, self.d]), self.dtype)
        self.v, _ = round_to(rng.standard_normal(lead_kv + [self.Lk, self.dv]), self.dtype)
        group = self.H // self.Hkv
        if self.rank > 2 and group > 1:
            self.ke = np.repeat(self.k, group, axis=-3)
            self.ve = np.repeat(self.v, group, axis=-3)
        else:
            self.ke, self.ve = self.k, self.v
        self.mask_kind = {"none": "none", "additive": "additive", "keep": "keep",
                          "dead-row": "keep"}[self.mask]
        self.m = None
        if self.mask == "additive":
            shape = [1] * (self.rank - 2) + [self.Lq, self.Lk]
            self.m, _ = round_to(rng.uniform(-3.0, 0.0, shape), self.dtype)
        elif self.mask_kind == "keep":
            self.m = rng.uniform(size=lead_q + [self.Lq, self.Lk]) < 0.8
            self.m[..., 0] = True
            if self.mask == "dead-row":
                self.m[..., rng.integers(self.Lq), :] = False

    def describe(self):
        return ("case %d: %s rank %d B=%d H=%d Hkv=%d Lq=%d Lk=%d d=%d dv=%d "
                "causal=%s mask=%s scale=%.4g logit=%.3g"
                % (self.index, self.dtype, self.rank, self.B, self.H, self.Hkv,
                   self.Lq, self.Lk, self.d, self.dv, self.causal, self.mask,
                   self.scale, self.logit))

    def emit(self, ir, main):
        """Appends @fused_i/@unfused_i to ir and their calls to main."""
        i, dt = self.index, self.dtype
        qt, kt, vt = (ttype(x.shape, dt) for x in (self.q, self.k, self.v))
        ket, vet = ttype(self.ke.shape, dt), ttype(self.ve.shape, dt)
        ot = ttype(self.lead_q + [self.Lq, self.dv], dt)
        st = ttype(self.lead_q + [self.Lq, self.Lk], dt)
        mt = None
        if self.m is not None:
            mt = ttype(self.m.shape, "i1" if self.mask_kind == "keep" else dt)
        ir += fused_and_unfused("_%d" % i, (qt, kt, vt), (ket, vet), st, ot, mt,
                                self.mask_kind, self.causal, self.scale, self.rank)

        p = "c%d_" % i
        for name, val in (("q", self.q), ("k", self.k), ("v", self.v),
                          ("ke", self.ke), ("ve", self.ve)):
            main.append("  %%%s%s = arith.constant %s : %s"
                        % (p, name, literal(val, dt), ttype(val.shape, dt)))
        if mt:
            main.append("  %%%sm = arith.constant %s : %s" % (p, literal(self.m, dt), mt))
        mpass = ", %%%sm" % p if mt else ""
        mty = ", " + mt if mt else ""
        main.append("  %%%sf = call @fused_%d(%%%sq, %%%sk, %%%sv%s) : (%s, %s, %s%s) -> %s"
                    % (p, i, p, p, p, mpass, qt, kt, vt, mty, ot))
        main.append("  %%%su = call @unfused_%d(%%%sq, %%%ske, %%%sve%s) : (%s, %s, %s%s) -> %s"
                    % (p, i, p, p, p, mpass, qt, ket, vet, mty, ot))
        for r in ("f", "u"):
            main.append("  call @print_%s_%d(%%%s%s) : (%s) -> ()" % (dt, self.index, p, r, ot))
        ir.append(print_func(dt, self.index, self.lead_q + [self.Lq, self.dv]))

    def check(self, fused, unfused):
        ref, dead = reference(self.q, self.ke, self.ve, self.m, self.mask_kind,
                              self.causal, self.scale)
        ref = ref.reshape(-1)
        live = ~np.repeat(dead.reshape(-1), self.dv)
        problems = []
        if not np.all(np.isfinite(fused)):
            problems.append("fused output has NaN/inf")

        def rel(x, y):
            if x.size == 0:
                return 0.0
            return float(np.max(np.abs(x - y)) / max(np.max(np.abs(y)), 1e-30))

        err_fused = rel(fused, ref)
        err_unfused = rel(unfused[live], ref[live])
        if not np.isfinite(err_unfused):
            err_unfused = np.inf
        if not err_fused <= 2 * err_unfused + 2.0 ** -24:
            problems.append("contract: fused error %.3e > 2x unfused error %.3e"
                            % (err_fused, err_unfused))
        if dead.any() and not np.all(fused[~live] == 0.0):
            problems.append("fully masked rows are not 0")
        return err_fused, err_unfused, problems


def print_func(dt, i, shape):
    """A function that widens a result to f32 and prints it."""
    t = ttype(shape, dt)
    t32 = ttype(shape, "f32")
    m32 = t32.replace("tensor", "memref")
    n = len(shape)
    dims = ", ".join("d%d" % j for j in range(n))
    amap = "affine_map<(%s) -> (%s)>" % (dims, dims)
    lines = ["func.func @print_%s_%d(%%x: %s) {" % (dt, i, t)]
    if dt == "f32":
        lines.append("  %%b = bufferization.to_buffer %%x : %s to %s" % (t, m32))
    else:
        lines.append("  %%e = tensor.empty() : %s" % t32)
        lines.append("  %%w = linalg.generic {indexing_maps = [%s, %s], iterator_types = [%s]} "
                     "ins(%%x : %s) outs(%%e : %s) {" % (amap, amap, ", ".join(['"parallel"'] * n), t, t32))
        lines.append("  ^bb0(%%a: %s, %%o: f32):" % dt)
        lines.append("    %%z = arith.extf %%a : %s to f32" % dt)
        lines.append("    linalg.yield %z : f32")
        lines.append("  } -> %s" % t32)
        lines.append("  %%b = bufferization.to_buffer %%w : %s to %s" % (t32, m32))
    lines.append("  %%c = memref.cast %%b : %s to memref<*xf32>" % m32)
    lines.append("  call @printMemrefF32(%c) : (memref<*xf32>) -> ()")
    lines.append("  return\n}")
    return "\n".join(lines)


def run_batch(a, cases, block):
    ir = ["func.func private @printMemrefF32(memref<*xf32>)"]
    main = ["func.func @main() {"]
    for c in cases:
        c.emit(ir, main)
    main.append("  return\n}")
    module = "\n".join(ir + main) + "\n"
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as src:
        src.write(module)
        path = src.name
    try:
        options = "detect=false block-q=%d block-kv=%d" % block
        lowered = subprocess.run([a.attn_opt, path, "--attn-cpu-pipeline=" + options],
                                 capture_output=True, text=True)
        if lowered.returncode != 0:
            return None, "attn-opt failed:\n" + lowered.stderr[:3000] + "\nmodule: " + path
        run = subprocess.run([a.runner, "-e", "main", "-entry-point-result=void",
                              "-shared-libs=" + a.shared_libs],
                             input=lowered.stdout, capture_output=True, text=True)
        if run.returncode != 0:
            return None, "mlir-runner failed:\n" + run.stderr[:3000] + "\nmodule: " + path
    finally:
        if not a.keep_ir and os.path.exists(path) and lowered.returncode == 0 \
                and run.returncode == 0:
            os.unlink(path)
    return parse_memrefs(run.stdout), None


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--attn-opt", required=True)
    ap.add_argument("--runner", required=True)
    ap.add_argument("--shared-libs", required=True)
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch", type=int, default=25)
    ap.add_argument("--dtypes", default="f32,f16,bf16")
    ap.add_argument("--keep-ir", action="store_true",
                    help="keep every generated module (default: only failing ones)")
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    dtypes = a.dtypes.split(",")
    cases = [Case(rng, i, dtypes) for i in range(a.cases)]
    failures = 0
    worst = {}
    for start in range(0, len(cases), a.batch):
        batch = cases[start:start + a.batch]
        block = tuple(int(x) for x in rng.choice([4, 8, 16, 32], size=2))
        outs, err = run_batch(a, batch, block)
        if err:
            print("FAIL: batch %d: %s" % (start // a.batch, err))
            return 1
        if len(outs) != 2 * len(batch):
            print("FAIL: expected %d printed results, got %d" % (2 * len(batch), len(outs)))
            return 1
        for j, c in enumerate(batch):
            ef, eu, problems = c.check(outs[2 * j], outs[2 * j + 1])
            ratio = ef / eu if eu > 0 else 0.0
            w = worst.setdefault(c.dtype, [0, 0.0, 0.0])
            w[0] += 1
            w[1] = max(w[1], ratio if np.isfinite(ratio) else 0.0)
            w[2] = max(w[2], ef)
            if problems:
                failures += 1
                print("FAIL: %s (blocks %s): %s" % (c.describe(), block, "; ".join(problems)))
    for dt, (n, ratio, ef) in sorted(worst.items()):
        print("%s: %d cases, max fused/unfused error ratio %.3f, max fused error %.3e"
              % (dt, n, ratio, ef))
    print("%d cases, %d failures" % (len(cases), failures))
    print("PASS" if failures == 0 else "FAIL")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

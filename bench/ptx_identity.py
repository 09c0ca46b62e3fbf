#!/usr/bin/env python3
"""Compiles a fixed set of attention kernels to PTX (no GPU needed) and
compares them byte for byte with a reference set: the proof that a change of
the kernel emitter (lib/Conversion/AttnToGPU) left the kernels alone, or the
list of the kernels it changed, with ptxas registers and spills of both.

    # before the change: the reference
    python3 bench/ptx_identity.py --out /tmp/ptx_before
    # after it: regenerate and diff
    python3 bench/ptx_identity.py --out /tmp/ptx_after --ref /tmp/ptx_before [--ptxas]

The set: the benchmark grid (bench/gen_kernels.py: bf16/f16, d 64/128,
N 1k..16k, causal or not) for wgmma (sm_90a) and mma.sync (sm_90), plus
mma.sync swizzle=1 and wgmma kv-stages=2/3 at d = 128 and d = 64; the
correctness set (bench/gen_check_kernels.py: tails, both causal alignments,
GQA/MQA, masks) for wgmma, mma.sync on sm_90 and on sm_80; and the inputs of
test/Conversion/AttnToGPU (every `// -----` case of attn-lower-to-gpu.mlir
and Inputs/*.mlir) under the options its RUN lines use, on sm_80/sm_90/
sm_90a. Kernels land in OUT/<config>/<kernel>.ptx.
"""
import argparse
import concurrent.futures as cf
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import gen_check_kernels  # noqa: E402
import gen_kernels  # noqa: E402

LIT = os.path.join(ROOT, "test", "Conversion", "AttnToGPU")


def grid_shapes(dtypes=("bf16", "f16"), dims=(64, 128)):
    for dtype in dtypes:
        for d in dims:
            for n in (1024, 2048, 4096, 8192, 16384):
                for causal in (False, True):
                    B, H = 16384 // n, 2048 // d
                    yield ("%s_d%d_n%d%s" % (dtype, d, n, "_c" if causal else ""),
                           gen_kernels.attention_ir(B, H, n, d, dtype, causal))


def lit_cases():
    """(name, source) of every positive lit input of test/Conversion/AttnToGPU."""
    with open(os.path.join(LIT, "attn-lower-to-gpu.mlir")) as f:
        parts = f.read().split("// -----")
    for i, part in enumerate(parts):
        if "attn.attention" in part:
            yield "lower%d" % i, part
    for name in sorted(os.listdir(os.path.join(LIT, "Inputs"))):
        if name.endswith(".mlir"):
            with open(os.path.join(LIT, "Inputs", name)) as f:
                yield name[:-5], f.read()


def jobs():
    """(config, case name, source, --attn-gpu-pipeline options)."""
    out = []
    configs = [("grid_wgmma", "mma=wgmma", grid_shapes()),
               ("grid_mma", "chip=sm_90 mma=mma.sync", grid_shapes()),
               ("grid_mma_sw", "chip=sm_90 mma=mma.sync swizzle=1", grid_shapes(("bf16",))),
               ("grid_wgmma_s2", "mma=wgmma kv-stages=2", grid_shapes(("f16",), (128,))),
               ("grid_wgmma_s3", "mma=wgmma kv-stages=3", grid_shapes(("bf16",), (64,)))]
    for config, options, shapes in configs:
        for name, src in shapes:
            out.append((config, name, src, options))
    check = [("%d" % i, gen_check_kernels.case_ir(*c)) for i, c in enumerate(gen_check_kernels.CASES)]
    for config, options in [("check_wgmma", "mma=wgmma"),
                            ("check_mma_sm90", "chip=sm_90 mma=mma.sync"),
                            ("check_mma_sm80", "chip=sm_80 mma=mma.sync")]:
        for name, src in check:
            out.append((config, name, src, options))
    lit = list(lit_cases())
    for config, options in [("lit_sm90a", ""),
                            ("lit_sm90a_s2", "kv-stages=2"),
                            ("lit_sm90a_s3", "kv-stages=3"),
                            ("lit_sm90", "chip=sm_90"),
                            ("lit_sm80", "chip=sm_80"),
                            ("lit_sm90_bq64", "chip=sm_90 block-q=64"),
                            ("lit_sm90_w16", "chip=sm_90 rows-per-warp=16 block-kv=64 block-q=64"),
                            ("lit_sm90_sw", "chip=sm_90 swizzle=true"),
                            ("lit_sm80_sw", "chip=sm_80 swizzle=true")]:
        for name, src in lit:
            out.append((config, name, src, options))
    return out


def compile_one(attn_opt, out, job):
    config, name, src, options = job
    d = os.path.join(out, config)
    tmp = os.path.join(out, ".src", "%s_%s.mlir" % (config, name))
    with open(tmp, "w") as f:
        f.write(src)
    r = subprocess.run(["nice", "-n", "10", attn_opt, tmp,
                        "--attn-gpu-pipeline=%s dump-dir=%s" % (options, d), "-o", os.devnull],
                       capture_output=True, text=True)
    return job, r.returncode, r.stderr


def ptxas(path):
    """(registers, spill bytes stores+loads, warnings) of one PTX file."""
    with open(path) as f:
        m = re.search(r"^\.target (\S+)", f.read(), re.M)
    arch = m.group(1).rstrip(",") if m else "sm_90"
    r = subprocess.run(["nice", "-n", "10", "/usr/local/cuda/bin/ptxas", "-arch=" + arch, "-v",
                        path, "-o", os.devnull], capture_output=True, text=True)
    text = r.stdout + r.stderr
    regs = re.search(r"Used (\d+) registers", text)
    spills = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", text)
    warns = [l for l in text.splitlines() if "warning" in l]
    if r.returncode:
        return None, None, [text.strip()]
    return (int(regs.group(1)) if regs else None,
            int(spills.group(1)) + int(spills.group(2)) if spills else None, warns)


def code_lines(text):
    """The PTX without its comment lines (e.g. the `// begin inline asm`
    markers around inline assembly)."""
    return [l for l in text.splitlines() if not l.strip().startswith(b"//")]


def ptx_files(root):
    found = {}
    for config in sorted(os.listdir(root)):
        d = os.path.join(root, config)
        if config.startswith(".") or not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if name.endswith(".ptx"):
                found["%s/%s" % (config, name)] = os.path.join(d, name)
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--attn-opt", default=os.path.join(ROOT, "build", "bin", "attn-opt"))
    ap.add_argument("--out", required=True, help="where the kernels are written")
    ap.add_argument("--ref", help="a reference directory to compare with, byte for byte")
    ap.add_argument("--ptxas", action="store_true",
                    help="ptxas -v the kernels that differ (both sides): registers, spills")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--no-compile", action="store_true", help="only compare OUT with REF")
    a = ap.parse_args()
    if not a.no_compile:
        os.makedirs(os.path.join(a.out, ".src"), exist_ok=True)
        todo = jobs()
        failed = 0
        with cf.ThreadPoolExecutor(a.jobs) as pool:
            for job, rc, err in pool.map(lambda j: compile_one(a.attn_opt, a.out, j), todo):
                if rc:
                    failed += 1
                    print("FAILED %s/%s: %s" % (job[0], job[1], err.strip()[:2000]))
        print("%d compiles, %d failed, into %s" % (len(todo), failed, a.out))
        if failed:
            return 1
    if not a.ref:
        return 0
    ours, ref = ptx_files(a.out), ptx_files(a.ref)
    missing = sorted(set(ref) - set(ours))
    extra = sorted(set(ours) - set(ref))
    changed, commentsOnly = [], []
    for key in sorted(set(ref) & set(ours)):
        with open(ref[key], "rb") as f1, open(ours[key], "rb") as f2:
            t1, t2 = f1.read(), f2.read()
            if t1 != t2:
                changed.append(key)
                if code_lines(t1) == code_lines(t2):
                    commentsOnly.append(key)
    for key in missing:
        print("MISSING %s" % key)
    for key in extra:
        print("EXTRA   %s" % key)
    for key in changed:
        print("DIFFERS %s%s" % (key, " (comments only)" if key in commentsOnly else ""))
    print("%d kernels, %d identical" % (len(ref), len(set(ref) & set(ours)) - len(changed)))
    if commentsOnly:
        print("%d of the %d that differ differ only in comment lines (same instructions)"
              % (len(commentsOnly), len(changed)))
    if a.ptxas:
        changed = [key for key in changed if key not in commentsOnly]
    if a.ptxas and changed:
        print("\n| kernel | regs before | regs after | spill bytes before | after | warnings after |")
        print("|---|---|---|---|---|---|")
        with cf.ThreadPoolExecutor(a.jobs) as pool:
            before = list(pool.map(ptxas, [ref[k] for k in changed]))
            after = list(pool.map(ptxas, [ours[k] for k in changed]))
        for key, (r0, s0, _), (r1, s1, w1) in zip(changed, before, after):
            print("| %s | %s | %s | %s | %s | %s |" % (key, r0, r1, s0, s1,
                                                     "; ".join(w1)[:200] if w1 else ""))
    return 0 if not (missing or extra or changed) else 2


if __name__ == "__main__":
    sys.exit(main())

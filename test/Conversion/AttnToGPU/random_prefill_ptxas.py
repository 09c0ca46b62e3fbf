#!/usr/bin/env python3
"""Random prefill attentions as the chooser picks them assemble without
spills: draws --cases attentions with bench/gen_prefill_random.py (head
dims 64-256, whole and partial tiles, GQA, Lq != Lk, both causal
alignments, mask tensors), compiles them through --attn-gpu-pipeline and
runs ptxas on each kernel. Prints one line per spilling kernel and PASS
when every spill is the measured trade: up to 48 bytes in a kernel
bounded to two CTAs per SM (128 registers; d = 64), which bench/NOTES.md
v33 measured 1.01-1.36x the same kernel at one CTA per SM (the non-causal
kernel's spill outside its loop, the causal one's three 8-byte reloads
per tile, SASS in bench/results/2026-12-04-v33b). (The d = 256 causal
producer kernel's 8 bytes, v32e's other trade, are gone since its Q
descriptors are rebuilt in the loop: v56.)
With --nvdisasm it also accepts, as "once", a spill whose stores and
reloads all lie outside the kernel's loops (spills_in_loops): the random
paged test (attn-gpu-pipeline-random-paged-ptxas.test) runs with it.
A kernel whose wgmma ptxas serializes (C7511, "insufficient register
resources": every wgmma waited for alone) fails too: it struck kernels of
one to three K/V tiles until their initial accumulators were each defined
by their own mov (bench/NOTES.md v44d).
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile


def ptx_target(ptx):
    """The chip the PTX was compiled for (its .target; the manifest's
    min_chip is the oldest chip with the kernel's instructions, which may be
    earlier)."""
    with open(ptx) as f:
        for line in f:
            if line.startswith(".target"):
                return line.split()[1].rstrip(",")
    sys.exit("no .target in " + ptx)


def assemble(ptxas, ptx):
    """({kernel: bytes it spills} for each kernel of the PTX that spills (an
    FP8 kernel's PTX also holds its Vᵀ pre-kernel), whether ptxas
    serialized a kernel's wgmma: C7511, each wgmma then waited for alone)."""
    out = subprocess.run([ptxas, "-arch=" + ptx_target(ptx), "-v", ptx, "-o", os.devnull],
                         capture_output=True, text=True)
    if out.returncode:
        sys.exit("ptxas failed on %s:\n%s" % (ptx, out.stderr[-600:]))
    spills = {name: int(n) for name, n in re.findall(
        r"Function properties for (\S+)\n.*?(\d+) bytes spill stores", out.stderr)}
    return {name: n for name, n in spills.items() if n}, "(C7511)" in out.stderr


def spills_in_loops(ptxas, nvdisasm, ptx, kernel):
    """Whether any spill store or reload of `kernel` (its SASS, by
    nvdisasm) lies in a loop: between a backward branch and its target, in
    the code before the kernel's last EXIT. Code after it (out-of-line
    blocks such as an mbarrier wait's retry) counts as in a loop. A spill
    outside every loop runs once per thread: ptxas keeps a value across
    the K/V loop in local memory to hold the kernel to a register count
    that keeps one more CTA per SM, its own occupancy trade (it does so
    whatever -maxrregcount allows), which costs a store and a reload per
    thread."""
    with tempfile.TemporaryDirectory() as d:
        cubin = os.path.join(d, "k.cubin")
        subprocess.run([ptxas, "-arch=" + ptx_target(ptx), ptx, "-o", cubin], check=True)
        sass = subprocess.run([nvdisasm, "-c", cubin],
                              capture_output=True, text=True, check=True).stdout
    body = sass.split("\n.text.%s:\n" % kernel, 1)[1].split("\n//----", 1)[0]
    code, labels, pending = [], {}, []
    for line in body.splitlines():
        label = re.match(r"(\.L_x_\d+):", line)
        instruction = re.match(r"\s+/\*([0-9a-f]{4,})\*/\s+([^;]*);", line)
        if label:
            pending.append(label.group(1))
        elif instruction:
            at = int(instruction.group(1), 16)
            labels.update((name, at) for name in pending)
            pending = []
            code.append((at, instruction.group(2).strip()))
    exits = [at for at, text in code if re.match(r"(@!?U?P\w+ )?EXIT\b", text)]
    last_exit = max(exits) if exits else -1
    loops = []
    for at, text in code:
        branch = re.search(r"\bBRA\b.*`\((\.L_x_\d+)\)", text)
        if branch and labels[branch.group(1)] <= at <= last_exit:
            loops.append((labels[branch.group(1)], at))
    spills = [at for at, text in code if re.search(r"\b(STL|LDL)\b", text)]
    if not spills:
        sys.exit("ptxas reports spills of %s but its SASS has no STL/LDL" % kernel)
    return any(at > last_exit or any(lo <= at <= hi for lo, hi in loops) for at in spills)


def known_trade(manifest, spilled):
    return manifest.get("min_ctas_per_sm") == 2 and spilled <= 48


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--generator", required=True)
    ap.add_argument("--attn-opt", required=True)
    ap.add_argument("--ptxas", required=True)
    ap.add_argument("--cases", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--options", default="",
                    help="more --attn-gpu-pipeline options for every draw (the generator's)")
    ap.add_argument("--nvdisasm",
                    help="accept spills outside every loop of the kernel's SASS (see "
                         "spills_in_loops); without it every spill but the trades fails")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as out:
        gen = subprocess.run([sys.executable, a.generator, "--attn-opt", a.attn_opt, "--out", out,
                              "--cases", str(a.cases), "--seed", str(a.seed),
                              "--options", a.options],
                             capture_output=True, text=True)
        if gen.returncode:
            sys.exit(gen.stdout + gen.stderr)
        failed = 0
        manifests = sorted(glob.glob(os.path.join(out, "*.json")))
        for path in manifests:
            with open(path) as f:
                manifest = json.load(f)
            spills, serialized = assemble(a.ptxas, path[:-5] + ".ptx")
            spilled = max(spills.values(), default=0)
            names = " ".join(sorted(spills))
            if serialized:
                failed += 1
                print("SERIALIZED %s" % manifest["kernel"])
            if spilled and known_trade(manifest, spilled):
                print("known %d bytes %s" % (spilled, names))
            elif spilled and a.nvdisasm and not any(
                    spills_in_loops(a.ptxas, a.nvdisasm, path[:-5] + ".ptx", name)
                    for name in spills):
                print("once %d bytes %s" % (spilled, names))
            elif spilled:
                failed += 1
                print("SPILL %d bytes %s" % (spilled, names))
        print("%d kernels" % len(manifests))
        print("FAIL" if failed else "PASS")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""A probe, before building it into the emitter: does computing a fraction of
the softmax's exp2 on the FMA pipe (a polynomial) instead of the SFU's
ex2.approx speed the prefill kernels up?

Why it might: per score the kernel does 4·d FLOPs on the tensor cores and
one ex2 on the SFU. The H100/H200 SM does 4096 dense bf16 FLOPs per clock
but 16 ex2 per clock, so at d = 64 a tile's exp2 takes as long as its two
GEMMs (512 clocks each for 64 x 128 scores) and at d = 128 half as long.
The FMA pipe (128 lanes per clock) is mostly idle in the softmax; a
Cody-Waite split plus a degree-3 polynomial costs ~9 of its operations
per exp2 (FlashAttention-4 does this on Blackwell).

The emulation, for x <= ~0 (all the kernel's exp2 arguments are):
    xc = max.NaN(x, -127)              (NaN stays NaN; -inf -> -127)
    t  = xc + 1.5·2^23                 (round(xc) in t's low bits)
    j  = t - 1.5·2^23;  f = xc - j     (f in [-0.5, 0.5])
    p  = ((c3·f + c2)·f + c1)·f + c0   (2^f, relative error 7.5e-5)
    2^j as bits (t << 23) + 0x3F800000 (0 when j = -127: exp2(-inf) = 0)
    result = p · 2^j
A degree-3 minimax fit (7.5e-5 relative) is 25x below bf16's rounding of P.

For each kernel of a --pick-only set (bench/gen_prefill_sweep.py) this
writes twins whose PTX replaces k of every 8 ex2.approx (spread evenly)
with the emulation, as configurations " ex2-emulated=k/8" that
bench/prefill_sweep.py times beside the pick (errors checked).

    python3 bench/ex2_emulation_probe.py --a DIR --out DIR --eighths 2,3,4
"""
import argparse
import json
import os
import re
import shutil

# Relative-error minimax of 2^f on [-0.5, 0.5] (Lawson iteration, float32).
COEFFS = (0.9999281167984009, 0.6932609677314758, 0.24261054396629333, 0.05517132207751274)

EX2 = re.compile(r"ex2\.approx\.ftz\.f32 (%r\d+), (%r\d+);")


def f32_hex(v):
    import struct
    return "0f%08X" % struct.unpack("<I", struct.pack("<f", v))[0]


def emulation(dst, src):
    c0, c1, c2, c3 = (f32_hex(c) for c in COEFFS)
    return ("{ .reg .f32 ex_xc, ex_t, ex_j, ex_f, ex_p, ex_s; .reg .b32 ex_e;\n"
            "\tmax.NaN.f32 ex_xc, %s, 0fC2FE0000;\n"
            "\tadd.rn.f32 ex_t, ex_xc, 0f4B400000;\n"
            "\tsub.rn.f32 ex_j, ex_t, 0f4B400000;\n"
            "\tsub.rn.f32 ex_f, ex_xc, ex_j;\n"
            "\tfma.rn.f32 ex_p, ex_f, %s, %s;\n"
            "\tfma.rn.f32 ex_p, ex_p, ex_f, %s;\n"
            "\tfma.rn.f32 ex_p, ex_p, ex_f, %s;\n"
            "\tmov.b32 ex_e, ex_t;\n"
            "\tshl.b32 ex_e, ex_e, 23;\n"
            "\tadd.s32 ex_e, ex_e, 1065353216;\n"
            "\tmov.b32 ex_s, ex_e;\n"
            "\tmul.rn.f32 %s, ex_p, ex_s; }" % (src, c3, c2, c1, c0, dst))


def patch(ptx, eighths):
    count = [0]

    def replace(m):
        i = count[0]
        count[0] += 1
        if (i + 1) * eighths // 8 > i * eighths // 8:
            return emulation(m.group(1), m.group(2))
        return m.group(0)
    return EX2.sub(replace, ptx), count[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--a", required=True, help="a --pick-only kernel set")
    ap.add_argument("--out", required=True)
    ap.add_argument("--eighths", default="2,3,4")
    ap.add_argument("--only", default="", help="shape names, comma-separated")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.a, "index.json")) as f:
        index = json.load(f)
    if a.only:
        index = [e for e in index if e["name"] in a.only.split(",")]
    out = []
    for entry in index:
        name = entry["pick"]
        for ext in (".ptx", ".json"):
            shutil.copy(os.path.join(a.a, name + ext), a.out)
        configs = {"": name}
        with open(os.path.join(a.a, name + ".ptx")) as f:
            ptx = f.read()
        for k in map(int, a.eighths.split(",")):
            twin = "%s_ex2e%d" % (name, k)
            patched, n = patch(ptx, k)
            with open(os.path.join(a.out, twin + ".ptx"), "w") as f:
                f.write(patched.replace(name, twin))
            with open(os.path.join(a.a, name + ".json")) as f:
                manifest = f.read()
            with open(os.path.join(a.out, twin + ".json"), "w") as f:
                f.write(manifest.replace(name, twin))
            configs["ex2-emulated=%d/8" % k] = twin
        out.append(dict(entry, configs=configs, refused={}))
    with open(os.path.join(a.out, "index.json"), "w") as f:
        json.dump(out, f, indent=1)
    print("%d shapes, %d kernels" % (len(out), sum(len(e["configs"]) for e in out)))


if __name__ == "__main__":
    main()

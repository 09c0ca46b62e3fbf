#!/usr/bin/env python3
"""Where ptxas put the overlapped P·V's wait: for each PTX file, assembles
it (ptxas, sm_90a) and, in the SASS (cuobjdump), counts the instructions
and the exp2's (MUFU.EX2) between each wait for all but the last wgmma
group (`WARPGROUP.DEPBAR.LE gsb0, 0x1`: S is done) and the next wait for
all (`... 0x0`: the P·V too). The PTX waits for the P·V after the tile's
softmax (~280 instructions, 64 exp2's at d = 128); ptxas moves the wait up
when its register allocation writes the P·V's A-operand registers early
(bench/NOTES.md v35d/v35e: 34 instructions in the one-CTA-per-item kernel,
0 in the persistent one).

No GPU needed: ptxas ships with CUDA; cuobjdump with CUDA or, where CUDA
has none, in PyPI's `nvidia-cuda-cuobjdump` wheel (bin/cuobjdump).

    python3 bench/sass_wait_window.py bench/kernels/*.ptx
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

INSTRUCTION = re.compile(r"\s+/\*[0-9a-f]{4}\*/\s+(.*?)\s*;")


def sass_of(ptx, ptxas, cuobjdump):
    with tempfile.TemporaryDirectory() as tmp:
        cubin = os.path.join(tmp, "k.cubin")
        subprocess.run([ptxas, "-arch=sm_90a", ptx, "-o", cubin], check=True)
        return subprocess.run([cuobjdump, "-sass", cubin], check=True, capture_output=True,
                              text=True).stdout


def windows(sass):
    """(instructions, exp2's) from each S wait to the next P·V wait."""
    code = [m.group(1) for m in map(INSTRUCTION.match, sass.splitlines()) if m]
    found = []
    for i, ins in enumerate(code):
        if "DEPBAR.LE gsb0, 0x1" in ins:
            j = next((k for k in range(i + 1, len(code)) if "DEPBAR.LE gsb0, 0x0" in code[k]), None)
            if j is not None:
                found.append((j - i - 1, sum("MUFU.EX2" in x for x in code[i:j])))
    return found, len(code)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ptx", nargs="+")
    ap.add_argument("--ptxas", default="/usr/local/cuda/bin/ptxas")
    ap.add_argument("--cuobjdump", default="cuobjdump")
    a = ap.parse_args()
    for path in a.ptx:
        found, total = windows(sass_of(path, a.ptxas, a.cuobjdump))
        print("%s: %d SASS instructions; S wait -> P·V wait: %s" % (
            os.path.basename(path), total,
            ", ".join("%d instructions (%d exp2)" % w for w in found) or "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Runs each dumped kernel back to back for a few seconds and samples the
SM clock and the board power meanwhile (nvidia-smi in a thread), to tell a
kernel that is slower per cycle from one that runs at lower clocks (NOTES
v35b: persistent CTAs against one CTA per item).

    python3 bench/clock_probe.py --seconds 3 A.json B.json ...
"""
import argparse
import json
import subprocess
import threading
import time

import torch

from attn_run import Kernel


def sample(stop, out):
    while not stop.is_set():
        line = subprocess.run(
            ["nvidia-smi", "--query-gpu=clocks.sm,power.draw", "--format=csv,noheader,nounits"],
            capture_output=True, text=True).stdout.strip()
        try:
            clock, power = (float(x) for x in line.split(","))
            out.append((clock, power))
        except ValueError:
            pass
        time.sleep(0.05)


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("manifests", nargs="+")
    a = ap.parse_args()
    for path in a.manifests:
        kern = Kernel(path)
        q, k, v, o = kern.inputs()
        for _ in range(3):
            kern(q, k, v, o)
        torch.cuda.synchronize()
        samples, stop = [], threading.Event()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        thread = threading.Thread(target=sample, args=(stop, samples))
        thread.start()
        launches, t0 = 0, time.time()
        start.record()
        while time.time() - t0 < a.seconds:
            for _ in range(20):
                kern(q, k, v, o)
            launches += 20
            torch.cuda.synchronize()
        end.record()
        torch.cuda.synchronize()
        stop.set()
        thread.join()
        # (The last second only: the clock settles after the first.)
        tail = samples[len(samples) // 3:]
        print(json.dumps(dict(kernel=kern.manifest["kernel"], launches=launches,
                              us_per_launch=1e3 * start.elapsed_time(end) / launches,
                              sm_clock_mhz=median([c for c, _ in tail]),
                              power_w=median([p for _, p in tail]), samples=len(tail))),
              flush=True)
        time.sleep(1.0)  # (an idle spell between kernels, alike for each)


if __name__ == "__main__":
    main()

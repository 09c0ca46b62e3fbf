#!/usr/bin/env python3
"""Issue 14's chooser target from a decode_bench.py --confirm run: per
shape, the pick of the GPU the run was on ÷ the best of the sweep (medians
of three where confirmed), for each target's pick the index carries.

    python3 bench/decode_pick_check.py RESULTS.jsonl [RESULTS.jsonl ...] [--gpu h100]
"""
import argparse
import json


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results", nargs="+")
    ap.add_argument("--gpu", default="h100", help="the preset of the GPU the run was on")
    a = ap.parse_args()
    rows = [json.loads(line) for path in a.results for line in open(path)]
    print("| B | Lk | Hq | Hkv | pick h200 | pick h100 | best (config) | %s pick ÷ best | "
          "best ÷ cuDNN |" % a.gpu)
    print("|---|---|---|---|---|---|---|---|---|")
    misses = 0
    for r in rows:
        if "skipped" in r or not r.get("sweep"):
            continue
        timed = dict(r["sweep"])
        timed["pick"] = r["attn_opt"]
        timed.update(r.get("confirmed", {}))
        best_label = max((k for k in timed if k != "pick" and not k.startswith("pick_")),
                         key=timed.get)
        best = timed[best_label]
        h200, h100 = timed["pick"], timed.get("pick_h100")
        mine = h100 if a.gpu == "h100" else h200
        ratio = mine / best if mine else float("nan")
        misses += ratio < 0.95
        print("| %d | %d | %d | %d | %.0f | %s | %.0f (%s) | %.3f%s | %.2f |" % (
            r["B"], r["Lk"], r["Hq"], r["Hkv"], h200, "%.0f" % h100 if h100 else "–", best,
            best_label, ratio, " **miss**" if ratio < 0.95 else "",
            best / r["cudnn"] if r.get("cudnn") else float("nan")))
    print("\nmisses (pick < 0.95 best): %d" % misses)


if __name__ == "__main__":
    main()

#!/bin/bash
# Session 31's device calls. Part a: v47 (the wave model counting a key
# band: the toy window unsplit, beside the same set with 3 splits forced
# and FlexAttention), then issue 15's numbers for HEAD on what card comes:
# the score_mod set (16k window ÷ causal), FP8 ÷ our bf16. Part b: the
# head-dim set (d = 256 and 192/128 beside cuDNN and Flex).
#   bash bench/run47.sh a   # carry kernels_smp47 kernels_smp47s3 kernels_sm47 kernels_fp847
#   bash bench/run47.sh b   # carry kernels_hd47
#   bash bench/run47.sh c   # carry kernels_p48base kernels_p48 (v48: paged lookups first)
#   bash bench/run47.sh d   # carry kernels_p49 (v49: the 16-token picks with a per-box term)
#   bash bench/run47.sh e   # carry kernels_p49 kernels_p50 (v50: boxes issued by several warps)
#   bash bench/run47.sh f   # carry kernels_p51 (v51: the per-box term per issuer)
export PYTHONUNBUFFERED=1
O=$OUT/v47; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv > $O/gpu_$1.txt; cat $O/gpu_$1.txt
source bench/headdim_part.sh
paged() { # set letter
  mkdir -p /tmp/$1_$2; timeout 150 python3 bench/paged_bench.py --kernels bench/kernels_$1 --out /tmp/$1_$2 --graphs \
    > /tmp/$1_$2.log 2>&1
  echo "$1:$2 rc=$?"; head -1 /tmp/$1_$2.log; grep -i error /tmp/$1_$2.log | tail -2; cp /tmp/$1_$2/results.jsonl $O/$1_$2.jsonl
  python3 - $O/$1_$2.jsonl <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if "contiguous" not in r:
        print(r); continue
    ok = r["contiguous_correct"] and all(r["paged_correct"].values()) and all(r["ragged_correct"].values())
    p = r["paged"]
    print("B=%d Hq=%d Hkv=%d Lk=%d  contig %5.0f  p16 %5.0f (%.2f)  p128 %5.0f (%.2f)  %s" % (
        r["B"], r["Hq"], r["Hkv"], r["Lk"], r["contiguous"], p["16"], p["16"] / r["contiguous"],
        p["128"], p["128"] / r["contiguous"], "ok" if ok else "WRONG"))
PY
}
sweep() { # set letter
  mkdir -p /tmp/r$1$2; timeout 250 python3 bench/paged_bench.py --graphs --max-gb 16 \
    --kernels bench/kernels_$1 --out /tmp/r$1$2 > /tmp/r$1$2/log.txt 2>&1
  echo "$1:$2 rc=$?"; head -1 /tmp/r$1$2/log.txt; grep -i error /tmp/r$1$2/log.txt | tail -2
  cp /tmp/r$1$2/results.jsonl $O/$1_$2.jsonl
  python3 - $O/$1_$2.jsonl <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if "contiguous" not in r:
        print(r); continue
    ok = r["contiguous_correct"] and all(r["paged_correct"].values()) and all(r["ragged_correct"].values()) and not r.get("sweep16_wrong")
    p, sw, c = r["paged"], r.get("sweep16") or {}, r["contiguous"]
    print("B=%2d Hq=%d Hkv=%2d Lk=%6d contig %5.0f | p16 %5.0f (%.2f) %s | p128 %.2f %s" % (
        r["B"], r["Hq"], r["Hkv"], r["Lk"], c, p["16"], p["16"] / c,
        " ".join("%s %5.0f (%.2f)" % (k, v, v / c) for k, v in sw.items()), p["128"] / c,
        "ok" if ok else "WRONG"))
PY
}
if [ "$1" = d ]; then
  sweep p49 a
elif [ "$1" = e ]; then
  sweep p49 a; sweep p50 b
elif [ "$1" = f ]; then
  sweep p51 a
elif [ "$1" = c ]; then
  paged p48base a; paged p48 b; paged p48base c; paged p48 d
elif [ "$1" = a ]; then
  smod smp47 a 90; smod smp47s3 b 90; smod smp47 c 90
  smod sm47 a 170
  timeout 150 python3 bench/fp8_check.py bench/kernels_fp847 > $O/fp847.txt 2>&1
  echo "fp8 rc=$?"; cut -c1-40,71- $O/fp847.txt | grep -v "^kernel"
else
  timeout 270 python3 bench/headdim_bench.py --kernels bench/kernels_hd47 --out /tmp/hd47 \
    > /tmp/hd47.log 2>&1
  echo "hd rc=$?"; grep -v '^{' /tmp/hd47.log | tail -3 | cut -c1-300
  grep '^{' /tmp/hd47.log > $O/hd47.jsonl # (the rows so far, should the limit stop it)
  python3 - <<'PY'
import json, os
for line in open(os.environ["OUT"] + "/v47/hd47.jsonl"):
    r = json.loads(line)
    if r["part"] == "speed":
        print(r["kernel"][:70], {k: round(v) for k, v in r["tflops"].items()}, r["ok"])
    elif not r["ok"]:
        print("FAIL", r["kernel"], r["err"])
PY
fi

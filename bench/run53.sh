#!/bin/bash
# Session 32's device call (v53): K and V on separate stage barriers in the
# producer warpgroup's ring, so that the overlapped P·V runs with two stages.
#   bash bench/run53.sh   # carry kernels_hd53old kernels_hd53new kernels_hd53ov
#                         #       kernels_fp847 kernels_fp853
# hd53old: HEAD's head-dim picks at d = 256, 192/128, 160, 128 (session 31's
# kernels_hd47); hd53new: this change's picks (the d = 128 overlapped kernels
# differ) and its whole check set; hd53ov: the overlap with two stages asked
# for at d = 256 (64-key tiles), 192/128 and 160. fp847 / fp853: the FP8 set
# (with its bf16 twins) before and after.
export PYTHONUNBUFFERED=1
O=$OUT/v53; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv > $O/gpu.txt; cat $O/gpu.txt
hd() { # set letter limit
  timeout $3 python3 bench/headdim_bench.py --kernels bench/kernels_$1 --out /tmp/$1_$2 \
    > /tmp/$1_$2.log 2>&1
  echo "$1:$2 rc=$?"; grep -v '^{' /tmp/$1_$2.log | tail -3 | cut -c1-300
  grep '^{' /tmp/$1_$2.log > $O/$1_$2.jsonl
  python3 - $O/$1_$2.jsonl <<'PY'
import json, sys
bad = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    bad += not r["ok"]
    if r["part"] == "speed":
        t = r["tflops"]
        print("%-78s %4.0f cudnn %4.0f (%.2f) %s" % (r["kernel"][14:92], t["attn_opt"],
              t.get("cudnn", 0), t["attn_opt"] / t["cudnn"] if t.get("cudnn") else 0, r["ok"]))
print("wrong:", bad)
PY
}
fp8() { # set letter
  timeout 150 python3 bench/fp8_check.py bench/kernels_$1 > $O/$1_$2.txt 2>&1
  echo "$1:$2 rc=$?"; cut -c1-40,71- $O/$1_$2.txt | grep -v "^kernel"
}
mkdir -p /tmp/empty
hd hd53old a 120; hd hd53ov b 150; hd hd53new c 200; hd hd53old d 120; hd hd53ov e 120
fp8 fp847 a; fp8 fp853 b

#!/bin/bash
# v54: wider key tiles than the halving gave where shared memory bounds
# them: d = 256 on 128 x 80 (FlashAttention-3's tile), d = 160 on 128 x 112,
# both with the two-stage overlap, beside v53b's picks (128 x 64).
#   bash bench/run54.sh   # carry kernels_hd54base kernels_hd54
export PYTHONUNBUFFERED=1
O=$OUT/v54; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv > $O/gpu.txt; cat $O/gpu.txt
hd() { # set letter limit
  timeout $3 python3 bench/headdim_bench.py --kernels bench/kernels_$1 --out /tmp/$1_$2 \
    > /tmp/$1_$2.log 2>&1
  echo "$1:$2 rc=$?"; grep -v '^{' /tmp/$1_$2.log | grep -v -i warn | tail -2 | cut -c1-300
  grep '^{' /tmp/$1_$2.log > $O/$1_$2.jsonl
  python3 - $O/$1_$2.jsonl <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["part"] == "speed":
        t = r["tflops"]
        print("%-70s %4.0f cudnn %4.0f (%.2f) %s" % (r["kernel"][14:84], t["attn_opt"],
              t["cudnn"], t["attn_opt"] / t["cudnn"], r["ok"]))
    elif not r["ok"]:
        print("WRONG", r["kernel"])
PY
}
hd hd54base a 80; hd hd54 b 100; hd hd54base c 80; hd hd54 d 100

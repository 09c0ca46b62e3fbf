#!/bin/bash
# Session 31's device calls. Part a: v47 (the wave model counting a key
# band: the toy window unsplit, beside the same set with 3 splits forced
# and FlexAttention), then issue 15's numbers for HEAD on what card comes:
# the score_mod set (16k window ÷ causal), FP8 ÷ our bf16. Part b: the
# head-dim set (d = 256 and 192/128 beside cuDNN and Flex).
#   bash bench/run47.sh a   # carry kernels_smp47 kernels_smp47s3 kernels_sm47 kernels_fp847
#   bash bench/run47.sh b   # carry kernels_hd47
export PYTHONUNBUFFERED=1
O=$OUT/v47; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv > $O/gpu_$1.txt; cat $O/gpu_$1.txt
smod() { # set letter limit
  timeout $3 python3 bench/score_mod_bench.py --kernels bench/kernels_$1 --out /tmp/$1_$2 \
    > $O/$1_$2.txt 2>&1
  echo "$1:$2 rc=$?"; grep "^|" $O/$1_$2.txt | cut -c1-120
}
if [ "$1" = a ]; then
  smod smp47 a 90; smod smp47s3 b 90; smod smp47 c 90
  smod sm47 a 170
  timeout 150 python3 bench/fp8_check.py bench/kernels_fp847 > $O/fp847.txt 2>&1
  echo "fp8 rc=$?"; cut -c1-40,71- $O/fp847.txt | grep -v "^kernel"
else
  timeout 500 python3 bench/headdim_bench.py --kernels bench/kernels_hd47 --out /tmp/hd47 \
    > /tmp/hd47.log 2>&1
  echo "hd rc=$?"; tail -3 /tmp/hd47.log | cut -c1-300
  cp /tmp/hd47/results.jsonl $O/hd47.jsonl
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

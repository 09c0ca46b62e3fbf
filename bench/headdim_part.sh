# Sourced by the device scripts (bench/run47.sh, run53*.sh, run54.sh on):
# one part of a head-dim A/B, `hd SET LETTER LIMIT`: headdim_bench.py on
# bench/kernels_SET under a time limit, its rows kept as $O/SET_LETTER.jsonl
# (O: the script's output folder), a line per timed kernel and the wrong
# kernels printed.
hd() {
  timeout $3 python3 bench/headdim_bench.py --kernels bench/kernels_$1 --out /tmp/$1_$2 \
    > /tmp/$1_$2.log 2>&1
  echo "$1:$2 rc=$?"; grep -v '^{' /tmp/$1_$2.log | grep -v -i warn | tail -2 | cut -c1-300
  grep '^{' /tmp/$1_$2.log > $O/$1_$2.jsonl
  python3 - $O/$1_$2.jsonl <<'PY'
import json, sys
wrong = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    wrong += not r["ok"]
    if r["part"] == "speed":
        t = r["tflops"]
        print("%-70s %4.0f cudnn %4.0f (%.2f) %s" % (r["kernel"][14:84], t["attn_opt"],
              t["cudnn"], t["attn_opt"] / t["cudnn"], r["ok"]))
print("wrong:", wrong)
PY
}

# `fp8 SET LETTER [LIMIT]`: fp8_check.py on bench/kernels_SET (correctness
# and, for its speed kernels, FP8 / our bf16 / cuDNN), kept as
# $O/SET_LETTER.txt.
fp8() {
  timeout ${3:-150} python3 bench/fp8_check.py bench/kernels_$1 > $O/$1_$2.txt 2>&1
  echo "$1:$2 rc=$?"; cut -c1-40,71- $O/$1_$2.txt | grep -v "^kernel"
}

# `smod SET LETTER LIMIT`: score_mod_bench.py on bench/kernels_SET (each
# score_mod against its reference and FlexAttention), its table kept in
# $O/SET_LETTER.txt.
smod() {
  timeout $3 python3 bench/score_mod_bench.py --kernels bench/kernels_$1 --out /tmp/$1_$2 \
    > $O/$1_$2.txt 2>&1
  echo "$1:$2 rc=$?"; grep "^|" $O/$1_$2.txt | cut -c1-120
}

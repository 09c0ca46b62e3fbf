# Sourced by the device scripts (bench/run53*.sh, run54.sh): one part of a
# head-dim A/B, `hd SET LETTER LIMIT`: headdim_bench.py on
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

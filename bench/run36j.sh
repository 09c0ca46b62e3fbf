#!/bin/bash
mkdir -p $OUT/ncu
for f in bench/kernels_l2p36/attn_fa2_mma_bf16_b64_h32_kv8_q1_k16384*.json bench/kernels_l2p36/attn_fa2_mma_bf16_b64_h64_kv8_q1_k16384*.json; do
  n=$(basename $f .json)
  ncu --clock-control none --kernel-name regex:tma$ --launch-skip 1 --launch-count 1 --set full \
      python3 bench/profile_kernel.py $f > $OUT/ncu/$n.txt 2>&1
done
cd $OUT/ncu && paste <(grep -E "^    [A-Za-z]" *h32*.txt | cut -c1-110) <(grep -E "^    [A-Za-z]" *h64*.txt | awk '{print $NF}') | grep -vE "^\s*$" | head -150

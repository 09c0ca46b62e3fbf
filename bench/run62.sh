#!/bin/bash
# v62: issue 16 on HEAD (two stages on short non-causal key runs, v61c):
# (a) the chooser's proof, bench/gen_prefill_sweep.py --full (grid + 10
# shapes, 28 configurations each), cuDNN in the same rounds; (b) the
# 10-point grid (B·N = 16k, H·d = 2048, bf16) beside cuDNN, FA2 and Flex (4k).
#   bash bench/run62.sh   # carry kernels_sweep62 kernels_grid62 (HEAD's attn-opt)
export PYTHONUNBUFFERED=1
R=$OUT/r; mkdir -p $R/sweep $R/grid
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.limit --format=csv > $R/gpu.txt
timeout 150 python3 bench/run_bench.py --kernels bench/kernels_grid62 --dtypes bf16 --flex 4096 \
  --rounds 3 --out $R/grid > $R/grid/log.txt 2>&1
echo "grid rc=$?"
timeout 400 python3 bench/prefill_sweep.py --kernels bench/kernels_sweep62 --out $R/sweep --rounds 4 > $R/sweep/log.txt 2>&1
echo "sweep rc=$?"
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R

set -x
R=$OUT/r; mkdir -p $R/grid $R/chk $R/rand $R/sass
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $R/gpu.txt
python3 bench/check_kernels.py bench/kernels_chk33 > $R/chk/log.txt 2>&1
python3 bench/check_kernels.py bench/kernels_rand33 > $R/rand/log.txt 2>&1
python3 bench/run_bench.py --kernels bench/kernels_v33 --variants q64=bench/kernels_v33q64 --dtypes bf16 --flex 4096 --rounds 3 --out $R/grid > $R/grid/log.txt 2>&1
# Where the two-CTA kernels spill: SASS of the causal and non-causal 4k picks.
for k in attn_fa2_wgmma_bf16_b4_h32_kv32_q4096_k4096_d64_v64_causal_bq128_bk128_w16_tma attn_fa2_wgmma_bf16_b4_h32_kv32_q4096_k4096_d64_v64_bq128_bk128_w16_tma; do
  ptxas -arch=sm_90a bench/kernels_v33/$k.ptx -o /tmp/$k.cubin && cuobjdump -sass /tmp/$k.cubin > $R/sass/$k.sass 2>&1
done
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R

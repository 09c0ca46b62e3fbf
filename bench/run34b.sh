set -x
R=$OUT/r; mkdir -p $R/pst $R/ab $R/sass
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $R/gpu.txt
timeout 300 python3 bench/check_kernels.py bench/kernels_pst34b > $R/pst/log.txt 2>&1; echo "rc=$?" >> $R/pst/log.txt
timeout 400 python3 bench/prefill_sweep.py --kernels bench/kernels_ab34c --out $R/ab --rounds 4 > $R/ab/log.txt 2>&1
# Where the non-causal kernel loses: SASS of d128-4k with and without the item loop.
for k in attn_fa2_wgmma_bf16_b4_h16_kv16_q4096_k4096_d128_v128_bq128_bk128_w16_s3_tma_ws_ov attn_fa2_wgmma_bf16_b4_h16_kv16_q4096_k4096_d128_v128_bq128_bk128_w16_s3_tma_ws_ov_pst132_b; do
  ptxas -arch=sm_90a bench/kernels_ab34c/$k.ptx -o /tmp/$k.cubin && cuobjdump -sass /tmp/$k.cubin | gzip > $R/sass/$k.sass.gz
done
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R

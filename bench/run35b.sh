set -x
R=$OUT/r; mkdir -p $R
cd bench
python3 clock_probe.py --seconds 3 ../bench/kernels_v35_off/attn_fa2_wgmma_bf16_b16_h16_kv16_q1024_k1024_d128_v128_bq128_bk128_w16_s3_tma_ws_ov.json ../bench/kernels_v35_static/attn_fa2_wgmma_bf16_b16_h16_kv16_q1024_k1024_d128_v128_bq128_bk128_w16_s3_tma_ws_ov_pst132.json ../bench/kernels_v35_off/attn_fa2_wgmma_bf16_b1_h16_kv16_q16384_k16384_d128_v128_bq128_bk128_w16_s3_tma_ws_ov.json ../bench/kernels_v35_static/attn_fa2_wgmma_bf16_b1_h16_kv16_q16384_k16384_d128_v128_bq128_bk128_w16_s3_tma_ws_ov_pst132.json ../bench/kernels_v35_static/attn_fa2_wgmma_bf16_b1_h16_kv16_q16384_k16384_d128_v128_bq128_bk128_w16_s3_tma_ws_ov_pst132.json ../bench/kernels_v35_off/attn_fa2_wgmma_bf16_b1_h16_kv16_q16384_k16384_d128_v128_bq128_bk128_w16_s3_tma_ws_ov.json ../bench/kernels_v35_static/attn_fa2_wgmma_bf16_b16_h16_kv16_q1024_k1024_d128_v128_bq128_bk128_w16_s3_tma_ws_ov_pst132.json ../bench/kernels_v35_off/attn_fa2_wgmma_bf16_b16_h16_kv16_q1024_k1024_d128_v128_bq128_bk128_w16_s3_tma_ws_ov.json > $R/probe.jsonl 2> $R/probe.err
for k in ../bench/kernels_v35_off/attn_fa2_wgmma_bf16_b16_h16_kv16_q1024_k1024_d128_v128_bq128_bk128_w16_s3_tma_ws_ov.json ../bench/kernels_v35_static/attn_fa2_wgmma_bf16_b16_h16_kv16_q1024_k1024_d128_v128_bq128_bk128_w16_s3_tma_ws_ov_pst132.json ../bench/kernels_v35_off/attn_fa2_wgmma_bf16_b1_h16_kv16_q16384_k16384_d128_v128_bq128_bk128_w16_s3_tma_ws_ov.json ../bench/kernels_v35_static/attn_fa2_wgmma_bf16_b1_h16_kv16_q16384_k16384_d128_v128_bq128_bk128_w16_s3_tma_ws_ov_pst132.json; do
  for cc in base none; do
    timeout 120 ncu --clock-control $cc --kernel-name regex:attn_fa2 --launch-skip 1 --launch-count 1 --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_elapsed python3 profile_kernel.py $k > $R/ncu_$(basename $k .json)_$cc.txt 2>&1
  done
done
cd ..
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R

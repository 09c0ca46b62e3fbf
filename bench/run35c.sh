set -x
R=$OUT/r; mkdir -p $R
for k in bench/kernels_v35_off/attn_fa2_wgmma_bf16_b1_h16_kv16_q16384_k16384_d128_v128_bq128_bk128_w16_s3_tma_ws_ov bench/kernels_v35_static/attn_fa2_wgmma_bf16_b1_h16_kv16_q16384_k16384_d128_v128_bq128_bk128_w16_s3_tma_ws_ov_pst132; do
  n=$(basename $k)
  # (SASS: cuobjdump here or from PyPI's nvidia-cuda-cuobjdump wheel, v35d.)
  # Where the warps stall, per SASS line (one launch, clocks locked).
  timeout 200 ncu --clock-control base --kernel-name regex:attn_fa2 --launch-skip 1 --launch-count 1 --section SourceCounters --section WarpStateStats --page source --csv --print-source sass python3 bench/profile_kernel.py $k.json > $R/$n.src.csv 2> $R/$n.src.err
done
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R

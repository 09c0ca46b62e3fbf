set -x
R=$OUT/r; mkdir -p $R/grid $R/d64 $R/ncu
python3 bench/run_bench.py --kernels bench/kernels_v32 --variants q128=bench/kernels_v32q128 --dtypes bf16 --flex 4096,16384 --rounds 3 --out $R/grid > $R/grid/log.txt 2>&1
python3 bench/prefill_sweep.py --kernels bench/kernels_d64sweep --out $R/d64 --rounds 3 > $R/d64/log.txt 2>&1
cd bench
for k in attn_fa2_wgmma_bf16_b8_h32_kv32_q1999_k1999_d64_v64_bq128_bk128_w16_tma attn_fa2_wgmma_bf16_b8_h32_kv32_q1999_k1999_d64_v64_bq64_bk128_w16_tma; do
timeout 100 ncu --clock-control none --kernel-name regex:attn_fa2 --launch-skip 1 --launch-count 1 --section SpeedOfLight --section Occupancy --section LaunchStats --section ComputeWorkloadAnalysis python3 profile_kernel.py kernels_d64sweep/$k.json > $R/ncu/$k.txt 2>&1
done
cd ..
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R

set -x
mkdir -p $OUT/tree $OUT/probe $OUT/probeb $OUT/ncu
python3 bench/prefill_sweep.py --kernels bench/kernels_tree --out $OUT/tree > $OUT/tree/log.txt 2>&1
python3 bench/prefill_sweep.py --kernels bench/kernels_ex2p --out $OUT/probe > $OUT/probe/log.txt 2>&1
python3 bench/prefill_sweep.py --kernels bench/kernels_ex2pb --out $OUT/probeb > $OUT/probeb/log.txt 2>&1
cd bench
for k in attn_fa2_wgmma_bf16_b4_h32_kv32_q4096_k4096_d64_v64_bq64_bk128_w16_tma attn_fa2_wgmma_bf16_b4_h32_kv32_q4096_k4096_d64_v64_bq64_bk128_w16_tma_ex2e3 attn_fa2_wgmma_bf16_b4_h16_kv16_q4096_k4096_d128_v128_bq128_bk128_w16_s3_tma_ws_ov; do
timeout 120 ncu --clock-control none --kernel-name regex:attn_fa2 --launch-skip 1 --launch-count 1 --section ComputeWorkloadAnalysis --section SpeedOfLight --section WarpStateStats --metrics sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__issue_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active python3 profile_kernel.py kernels_ex2p/$k.json > $OUT/ncu/$k.txt 2>&1
done
tail -3 $OUT/*/log.txt

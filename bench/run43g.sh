#!/bin/bash
# v43g: Nsight Compute on the Vᵀ pre-kernel (v43f's word loads), B = 4, N = 4k.
export PYTHONUNBUFFERED=1
R=$OUT/v43g; mkdir -p $R
f=$(ls bench/kernels_fp8v43f/attn_fa2_wgmma_f8E4M3FN_b4_h16_kv16_q4096_k4096_d128_v128_bq128*.json)
timeout 150 ncu --clock-control none --kernel-name regex:'_vt$' --launch-skip 1 --launch-count 1 \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
  --section WarpStateStats --section Occupancy --section LaunchStats \
  --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum \
  python3 bench/profile_fp8.py $f > $R/vt.txt 2>&1
echo rc=$?
grep -vE "^==PROF==|^ *$" $R/vt.txt | grep -E "dram__|duration|Throughput|Stall|stall|Warp Cycles|Occupancy|Registers|Block Limit|Excessive|sectors|Sectors|Hit Rate|uncoalesced|Uncoalesced|L1|L2" | head -60

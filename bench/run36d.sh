#!/bin/bash
mkdir -p $OUT/ncu
S="--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats"
for f in bench/kernels_ncu36b/attn_*.json; do
  n=$(basename $f .json)
  ncu --clock-control none --kernel-name regex:tma$ --launch-skip 1 --launch-count 1 $S \
      python3 bench/profile_kernel.py $f > $OUT/ncu/$n.txt 2>&1
  echo "== $n"; grep -E "DRAM Throughput|Duration|Achieved Occupancy|Block Limit Shared|Block Limit Reg|Waves Per SM|Warp Cycles Per Issued|Issued Warp Per Scheduler|No Eligible|Registers Per" $OUT/ncu/$n.txt
done

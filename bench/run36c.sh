#!/bin/bash
# v36c: Nsight Compute on the B >= 8 decode picks and cuDNN's decode kernel.
mkdir -p $OUT/ncu
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats"
for f in bench/kernels_ncu36/attn_*.json; do
  n=$(basename $f .json)
  ncu --clock-control none --kernel-name regex:tma$ --launch-skip 1 --launch-count 1 $S \
      python3 bench/profile_kernel.py $f > $OUT/ncu/$n.txt 2>&1
done
for B in 8 64; do
  ncu --clock-control none --launch-skip 3 --launch-count 4 $S \
      python3 bench/profile_sdpa.py cudnn $B 64 8 1 16384 128 > $OUT/ncu/cudnn_b$B.txt 2>&1
done
# (decode_bench: v36c first call)

for f in $OUT/ncu/*.txt; do echo "== $f"; grep -E "^  [A-Za-z_]|DRAM Throughput|Memory Throughput|Duration|Achieved Occupancy|Registers Per|Block Limit|Waves Per SM|Grid Size|Block Size|Stall|Warp Cycles Per Issued|Active Warps Per Scheduler|No Eligible|L2 Hit" $f | head -100; done
cd $OUT && tar czf r.tgz ncu

#!/bin/bash
# Session 29's one device call: v45 (the FP8 sets, HEAD against the kernel
# before raw scores) then v45b (windows on the unmodified picks).
bash bench/run_fp8_sets.sh v45 150 v44f:a v44base:b v44f:c
bash bench/run45b.sh

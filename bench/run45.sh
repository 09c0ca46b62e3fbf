#!/bin/bash
# Session 29's one device call: v45 (HEAD's FP8 sets; the kernels before
# raw scores last, as time allows) and v45b (windows on the unmodified picks).
bash bench/run_fp8_sets.sh v45 120 v44f:a
bash bench/run45b.sh
bash bench/run_fp8_sets.sh v45 100 v44base:b

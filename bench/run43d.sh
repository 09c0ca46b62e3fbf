#!/bin/bash
# v43d: FP8 causal kernels on persistent CTAs (pairs of equal work, as
# bf16's) beside v43's one-CTA-per-item kernels, same run.
exec bash "$(dirname "$0")/run_fp8_sets.sh" v43d 150 fp8v43d:a fp8v43:b fp8v43d:c

#!/bin/bash
# v44b: FP8 with raw scores (the descale's sign in Q) against HEAD's kernels,
# and HEAD's check set with the new soft-cap and negative-descale checks.
bash bench/run_fp8_sets.sh v44b 300 v44base:a v44f:b v44base:c v44f:d v44old:e

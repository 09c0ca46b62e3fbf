#!/bin/bash
# v45c (bench/NOTES.md): windows on persistent CTAs (persistent=on) beside
# the chooser's one-CTA-per-item window kernels, interleaved.
export PYTHONUNBUFFERED=1
mkdir -p $OUT/v45c
for set in pw45 nw45 pw45 nw45; do
  timeout 60 python3 bench/score_mod_bench.py --kernels bench/kernels_$set --out $OUT/v45c/$set > $OUT/v45c/${set}.txt 2>&1
  echo "$set rc=$?"; grep "^|" $OUT/v45c/${set}.txt | tail -4
done

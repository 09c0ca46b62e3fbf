#!/bin/bash
# v43c: the FP8 kernel with wider key tiles (block-kv 192, 224, 256) beside
# v43's 128-key pick, same run; each folder also holds the bf16 twins.
exec bash "$(dirname "$0")/run_fp8_sets.sh" v43c 120 fp8v43:a fp8bk192:b fp8bk224:c fp8bk256:d fp8v43:e

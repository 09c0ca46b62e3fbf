#!/usr/bin/env bash
# Every test: builds (installing what is missing), then runs the lit suite
# (FileCheck, -verify-diagnostics, CPU execution, the cost model's unit tests,
# the find_package consumer) through ctest, with lit's own output shown.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
ctest --test-dir "${ATTN_BUILD_DIR:-build}" --output-on-failure -V

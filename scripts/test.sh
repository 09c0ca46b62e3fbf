#!/usr/bin/env bash
# Every test: builds (installing what is missing), then runs the lit suite
# (FileCheck, -verify-diagnostics, CPU execution, the cost model's unit tests,
# the find_package consumer) through ctest, with lit's own output shown, then
# the attnopt Python package's tests.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
BUILD_DIR=${ATTN_BUILD_DIR:-build}
ctest --test-dir "$BUILD_DIR" --output-on-failure -V
if grep -q "ATTN_ENABLE_SANITIZERS:BOOL=ON" "$BUILD_DIR/CMakeCache.txt"; then
  # An ASan extension module cannot be imported by a plain python3.
  echo "== sanitizer build: skipping the Python package's tests"
else
  echo "== attnopt Python package (pytest)"
  PYTHONPATH="$BUILD_DIR/python" ATTN_OPT="$BUILD_DIR/bin/attn-opt" \
    python3 -m pytest -q python-bindings/tests
fi

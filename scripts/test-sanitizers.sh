#!/usr/bin/env bash
# The whole lit suite against an AddressSanitizer + UndefinedBehaviorSanitizer
# build of everything (clang, build-asan/): the same scripts/test.sh, so the
# same tests, including the fuzz corpus replay and the numerics property
# test. Any ASan or UBSan report fails the test that triggered it
# (-fno-sanitize-recover). CI runs it after scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
export ATTN_EXTRA_APT_PACKAGES="clang libclang-rt-dev"
export ATTN_BUILD_DIR=${ATTN_BUILD_DIR:-build-asan}
export ATTN_CMAKE_ARGS="-DATTN_ENABLE_SANITIZERS=ON -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang ${ATTN_CMAKE_ARGS:-}"
# Leaks: MLIR's global registries are never freed; leak checking would
# report them, not us.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
exec scripts/test.sh

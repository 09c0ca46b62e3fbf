#!/usr/bin/env bash
# Installs what is missing (Debian packages, PyPI packages), configures and
# builds attn-opt into build/. Idempotent: a second run only rebuilds.
# Used by scripts/demo.sh and scripts/test.sh; run it alone to just build.
# `--deps-only` installs what is missing and stops (scripts/build-wheel.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

LLVM_PREFIX=/usr/lib/llvm-22
APT_PACKAGES=(llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
              cmake ninja-build g++ libgtest-dev python3-pip
              zlib1g-dev libzstd-dev libz3-dev  # what static LLVM Support (lib/Runtime) names
              ${ATTN_EXTRA_APT_PACKAGES:-})
BUILD_DIR=${ATTN_BUILD_DIR:-build}

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "== installing: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi

# Python packages: numpy for the execution tests' numeric checks, pytest for
# the attnopt package's tests.
for mod in numpy pytest; do
  if ! python3 -c "import $mod" 2>/dev/null; then
    echo "== installing $mod from PyPI"
    python3 -m pip install -q "$mod"
  fi
done

# nvdisasm (NVIDIA's, from PyPI's nvidia-cuda-nvdisasm) where the CUDA
# install lacks it: the random ptxas tests read the SASS of a spilling
# kernel to tell a spill inside its K/V loop from ptxas's once-per-thread
# occupancy trade (test/Conversion/AttnToGPU/random_prefill_ptxas.py).
# Into the build tree, not the system; the tests that need it are
# unsupported without it.
CUDA_TOOLS="$BUILD_DIR/cuda-tools"
if ! command -v nvdisasm >/dev/null && [ ! -x /usr/local/cuda/bin/nvdisasm ] \
   && [ ! -x "$CUDA_TOOLS/nvidia/cu13/bin/nvdisasm" ]; then
  echo "== installing nvdisasm (nvidia-cuda-nvdisasm) from PyPI into $CUDA_TOOLS"
  python3 -m pip install -q --target "$CUDA_TOOLS" nvidia-cuda-nvdisasm \
    || echo "== (no nvdisasm: the SASS-reading tests will be unsupported)"
fi

if [ "${1:-}" = "--deps-only" ]; then
  exit 0
fi

if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  echo "== configuring $BUILD_DIR"
  cmake -G Ninja -S . -B "$BUILD_DIR" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR="$LLVM_PREFIX/lib/cmake/mlir" \
    -DLLVM_EXTERNAL_LIT="$LLVM_PREFIX/bin/lit" \
    -DATTN_BUILD_PYTHON=ON \
    ${ATTN_CMAKE_ARGS:-}
fi
echo "== building"
cmake --build "$BUILD_DIR"

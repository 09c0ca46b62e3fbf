#!/usr/bin/env bash
# On the GPU machine (no LLVM there): install the self-contained wheel from
# dist/, run the attnopt package's whole test suite against it (GPU runtime,
# attnopt.torch, torch.compile), then the Llama example. Results in $OUT.
#   run: bash bench/wheel_gpu_check.sh   (carry: dist)
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
REPO=$(pwd)
SITE=/tmp/attnopt-site
{
  echo "== machine"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import sys, torch; print(sys.version.split()[0], torch.__version__)'
  ldd --version | head -1
  echo "== LLVM on this machine?"; ls /usr/lib/llvm-* 2>&1 | head -2; ldconfig -p | grep -ci 'libLLVM\|libMLIR'
  echo "== pip install of the wheel"
  python3 -m pip install --no-index --no-deps --no-cache-dir --target "$SITE" dist/attnopt-*.whl 2>&1 | tail -2
  export PYTHONPATH=$SITE PATH=$SITE/bin:$PATH
  python3 -c 'import attnopt, attnopt._core as c; print(attnopt.compiler_version(), c.LIBRARY_PATH)'
  ldd "$SITE/attnopt/libAttnOptCAPI.so"
  which attn-opt && attn-opt --version | head -3
} > "$OUT/install.txt" 2>&1
cat "$OUT/install.txt"
echo "== pytest against the installed wheel"
(cd /tmp && PYTHONPATH=$SITE PATH=$SITE/bin:$PATH ATTN_OPT=$SITE/bin/attn-opt \
   ATTNOPT_CACHE_DIR=/tmp/attnopt-cache timeout 420 python3 -m pytest -q -p no:cacheprovider \
   -n 8 "$REPO/python-bindings/tests" -rs > "$OUT/pytest.txt" 2>&1; echo "pytest rc=$?" >> "$OUT/pytest.txt")
tail -25 "$OUT/pytest.txt"
echo "== Llama example"
PYTHONPATH=$SITE ATTNOPT_CACHE_DIR=/tmp/attnopt-cache-llama ATTNOPT_VERBOSE=1 timeout 300 \
  python3 examples/llama_attnopt.py --json "$OUT/llama.json" > "$OUT/llama.txt" 2>&1
echo "llama rc=$?" >> "$OUT/llama.txt"
tail -40 "$OUT/llama.txt"

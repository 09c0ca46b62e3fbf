#!/usr/bin/env bash
# Long fuzzing run of attn-fuzz (libFuzzer + ASan + UBSan), outside CI.
#
#   scripts/fuzz.sh [RUNS] [JOBS]     (defaults: 1000000 runs, 1 job)
#
# Builds build-fuzz with clang, seeds from every lit input (split at
# `// -----`) plus the committed corpus, fuzzes with the dictionary and the
# structure-aware mutator, then merges what it found into the minimized
# corpus in test/Fuzz/corpus (which CI replays). Crash reproducers land in
# build-fuzz/crashes/; each one becomes a lit regression test and a fix.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-1000000}
JOBS=${2:-1}
LLVM_PREFIX=${LLVM_PREFIX:-/usr/lib/llvm-22}
BUILD=build-fuzz

if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -G Ninja -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DMLIR_DIR="$LLVM_PREFIX/lib/cmake/mlir" \
    -DLLVM_EXTERNAL_LIT="$LLVM_PREFIX/bin/lit" -DATTN_ENABLE_FUZZER=ON
fi
cmake --build "$BUILD" --target attn-fuzz

SEEDS="$BUILD/seeds"
WORK="$BUILD/corpus"
mkdir -p "$SEEDS" "$WORK" "$BUILD/crashes"
python3 - "$SEEDS" <<'PY'
import hashlib, pathlib, sys
out = pathlib.Path(sys.argv[1])
# Bytes, not text: some seeds (test/Fuzz/upstream) are deliberately not
# valid UTF-8.
for f in sorted(pathlib.Path("test").rglob("*.mlir")):
    for chunk in f.read_bytes().split(b"// -----"):
        if chunk.strip():
            h = hashlib.sha1(chunk).hexdigest()[:16]
            (out / h).write_bytes(chunk)
PY

# allow_user_poisoning=0 comes from tools/SanitizerDefaults.h.
export ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1:allow_user_poisoning=0
# Fork mode keeps going after a crash: MLIR's own parser has crashes on
# malformed input that are not ours to fix (FUZZING.md), and stopping at the
# first of them would leave the attn passes unexplored. Every crash input is
# still written to crashes/ for triage.
"$BUILD/bin/attn-fuzz" "$WORK" "$SEEDS" test/Fuzz/corpus \
  -dict=tools/attn-fuzz/attn.dict -runs="$RUNS" -fork="$JOBS" \
  -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1 -max_len=16384 -timeout=20 -rss_limit_mb=4096 \
  -artifact_prefix="$BUILD/crashes/" -print_final_stats=1 \
  > "$BUILD/fuzz.log" 2>&1 || true
grep -E "DONE|ERROR|SUMMARY|stat::|Test unit written" "$BUILD/fuzz.log" || true

# Minimize: keep only inputs that add coverage, into the committed corpus.
mkdir -p test/Fuzz/corpus.new
"$BUILD/bin/attn-fuzz" -merge=1 test/Fuzz/corpus.new test/Fuzz/corpus "$WORK" \
  -max_len=16384 -timeout=20 2>&1 | tail -3
rm -rf test/Fuzz/corpus && mv test/Fuzz/corpus.new test/Fuzz/corpus
echo "corpus: $(ls test/Fuzz/corpus | wc -l) inputs in test/Fuzz/corpus"

# Triage: a crash whose stack never reaches the pass manager happened while
# MLIR parsed the input (upstream; FUZZING.md lists them). Anything else is
# ours until shown otherwise: make it a lit test in test/Fuzz and fix it.
echo "== triage of $BUILD/crashes"
for f in "$BUILD"/crashes/*; do
  [ -e "$f" ] || continue
  stack=$("$BUILD/bin/attn-fuzz" "$f" 2>&1 || true)
  top=$(grep -E "^    #[0-9]+ " <<<"$stack" | grep -v -E "interceptor|__asan|asan_" |
        head -1 | sed -E 's/^ *#[0-9]+ 0x[0-9a-f]+ in //; s/ \(\/.*//')
  if grep -q "PassManager::run\|OpToOpPassAdaptor" <<<"$stack"; then
    echo "PASSES  $(basename "$f")  $top"
  else
    echo "PARSER  $(basename "$f")  $top"
  fi
done | sort | tee "$BUILD/triage.txt"

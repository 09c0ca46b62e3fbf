#!/usr/bin/env bash
# Long fuzzing runs (libFuzzer + ASan + UBSan), outside CI.
#
#   scripts/fuzz.sh [RUNS] [JOBS]                  attn-fuzz (IR + semantic oracle)
#   FUZZ_TARGET=options scripts/fuzz.sh [RUNS]      attn-fuzz-options (pass options)
#
# RUNS defaults to 1000000, JOBS to 1; MAX_TIME=<seconds> also bounds the run.
#
# Builds build-fuzz with clang, seeds attn-fuzz from every lit input (split at
# `// -----`) plus the committed corpus, fuzzes with the dictionary and the
# structure-aware mutator, then merges what it found into the minimized
# corpus that CI replays (test/Fuzz/corpus, test/Fuzz/corpus-options).
# Crash reproducers land in build-fuzz/crashes[-options]/ and are triaged at
# the end; the semantic oracle's counters are summed from build-fuzz/oracle/.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-1000000}
JOBS=${2:-1}
TARGET=${FUZZ_TARGET:-ir}
MAX_TIME=${MAX_TIME:-0}
LLVM_PREFIX=${LLVM_PREFIX:-/usr/lib/llvm-22}
BUILD=build-fuzz

if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -G Ninja -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DMLIR_DIR="$LLVM_PREFIX/lib/cmake/mlir" \
    -DLLVM_EXTERNAL_LIT="$LLVM_PREFIX/bin/lit" -DATTN_ENABLE_FUZZER=ON
fi

# allow_user_poisoning=0 comes from tools/SanitizerDefaults.h.
export ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1:allow_user_poisoning=0
# A UBSan report with its stack, so that triage can tell whose code it is.
export UBSAN_OPTIONS=print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}
# Fork mode keeps going after a crash: MLIR's own parser has crashes on
# malformed input that are not ours to fix (FUZZING.md), and stopping at the
# first of them would leave the attn passes unexplored. Every crash input is
# still written to the crash directory for triage.
COMMON=(-runs="$RUNS" -max_total_time="$MAX_TIME" -fork="$JOBS"
        -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1 -timeout=10
        -rss_limit_mb=4096 -print_final_stats=1)

if [ "$TARGET" = options ]; then
  cmake --build "$BUILD" --target attn-fuzz-options
  BIN="$BUILD/bin/attn-fuzz-options"
  WORK="$BUILD/corpus-options"
  CRASHES="$BUILD/crashes-options"
  CORPUS=test/Fuzz/corpus-options
  mkdir -p "$WORK" "$CRASHES" "$CORPUS"
  "$BIN" "$WORK" "$CORPUS" "${COMMON[@]}" -max_len=256 \
    -artifact_prefix="$CRASHES/" > "$BUILD/fuzz-options.log" 2>&1 || true
  grep -E "DONE|ERROR|SUMMARY|stat::|Test unit written" "$BUILD/fuzz-options.log" || true
  MAXLEN=256
else
  cmake --build "$BUILD" --target attn-fuzz
  BIN="$BUILD/bin/attn-fuzz"
  SEEDS="$BUILD/seeds"
  WORK="$BUILD/corpus"
  CRASHES="$BUILD/crashes"
  CORPUS=test/Fuzz/corpus
  # Seeds are regenerated from the tests each run (stale ones would keep
  # what the tests no longer hold, such as the open findings).
  rm -rf "$SEEDS"
  mkdir -p "$SEEDS" "$WORK" "$CRASHES" "$BUILD/oracle"
  python3 - "$SEEDS" <<'PY'
import hashlib, pathlib, sys
out = pathlib.Path(sys.argv[1])
# Bytes, not text: some seeds (test/Fuzz/upstream) are deliberately not
# valid UTF-8.
for f in sorted(pathlib.Path("test").rglob("*.mlir")):
    # Known open findings would only be found again, at every start.
    if pathlib.Path("test/Fuzz/open") in f.parents:
        continue
    for chunk in f.read_bytes().split(b"// -----"):
        if chunk.strip():
            h = hashlib.sha1(chunk).hexdigest()[:16]
            (out / h).write_bytes(chunk)
PY
  # Each fuzzing process writes the semantic oracle's counters to
  # oracle/stats.<pid> (and inputs whose raised form fails to lower while
  # the original lowers, for triage).
  rm -f "$BUILD"/oracle/stats.*
  ATTN_FUZZ_ORACLE_DIR="$PWD/$BUILD/oracle" \
  "$BIN" "$WORK" "$SEEDS" "$CORPUS" "${COMMON[@]}" \
    -dict=tools/attn-fuzz/attn.dict -max_len=16384 \
    -artifact_prefix="$CRASHES/" > "$BUILD/fuzz.log" 2>&1 || true
  grep -E "DONE|ERROR|SUMMARY|stat::|Test unit written" "$BUILD/fuzz.log" || true
  python3 - "$BUILD/oracle" <<'PY'
import pathlib, re, sys
tot = {}
for f in pathlib.Path(sys.argv[1]).glob("stats.*"):
    line = f.read_text()
    for n, what in re.findall(r"(\d+) (eligible|raised|duplicate|checks|values compared|mismatches)", line):
        tot[what] = tot.get(what, 0) + int(n)
print("oracle (all processes):", ", ".join("%s %d" % kv for kv in tot.items()))
PY
  MAXLEN=16384
fi

# Minimize: keep only inputs that add coverage, into the committed corpus.
mkdir -p "$CORPUS.new"
"$BIN" -merge=1 "$CORPUS.new" "$CORPUS" "$WORK" -max_len="$MAXLEN" -timeout=10 \
  2>&1 | tail -3
rm -rf "$CORPUS" && mv "$CORPUS.new" "$CORPUS"
echo "corpus: $(ls "$CORPUS" | wc -l) inputs in $CORPUS"

# Triage: a crash whose stack never reaches the pass manager happened while
# MLIR parsed the input (upstream; FUZZING.md lists them). ORACLE is a
# semantic mismatch (detection changed the numbers). Anything else is ours
# until shown otherwise: make it a lit test in test/Fuzz and fix it.
echo "== triage of $CRASHES"
for f in "$CRASHES"/*; do
  [ -e "$f" ] || continue
  stack=$("$BIN" "$f" 2>&1 || true)
  # A crash without a symbolized stack (LLVM ERROR: out of memory) has no
  # frame to name: `|| true`, or pipefail would end the triage there.
  top=$(grep -E "^    #[0-9]+ " <<<"$stack" | grep -v -E "interceptor|__asan|asan_|abort|raise|libc.so" |
        head -1 | sed -E 's/^ *#[0-9]+ 0x[0-9a-f]+ in //; s/ \(\/.*//' || true)
  [ -n "$top" ] || top=$(grep -m1 -E "LLVM ERROR|ERROR:" <<<"$stack" || echo "no stack")
  if grep -q "semantic oracle: MISMATCH" <<<"$stack"; then
    echo "ORACLE  $(basename "$f")  $(grep -A1 MISMATCH <<<"$stack" | tail -1)"
  # libMLIR.so's frames are often unnamed: a frame of our own passes (or of
  # any mlir::attn function) is enough to say the crash is past the parser.
  elif grep -q "PassManager::run\|OpToOpPassAdaptor\|parsePassPipeline\|runOnOperation\|mlir::attn::" <<<"$stack"; then
    echo "PASSES  $(basename "$f")  $top"
  else
    echo "PARSER  $(basename "$f")  $top"
  fi
done | sort | tee "$CRASHES.triage.txt"

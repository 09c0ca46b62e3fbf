#!/usr/bin/env bash
# The main job: build attn-opt (installing what is missing), then run the
# pipeline on examples/attention.mlir and show what each stage did.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
OPT=build/bin/attn-opt
OUT=${ATTN_DEMO_OUT:-build/demo}
mkdir -p "$OUT"
EX=examples/attention.mlir

echo
echo "== 1. io-cost: bytes and roofline verdict per op (target h200)"
$OPT $EX --attn-io-cost="report=- roofline=$OUT/roofline.svg" -o "$OUT/costed.mlir"
$OPT $EX --attn-io-cost="report=$OUT/io-cost.json" -o /dev/null
echo "   JSON report: $OUT/io-cost.json; roofline chart: $OUT/roofline.svg"

echo
echo "== 2. fuse: attn.attention -> tiled online softmax (tiles from io-cost)"
$OPT "$OUT/costed.mlir" --attn-fuse --canonicalize -o "$OUT/fused.mlir"
grep -E "scf.for|attn.online_attention" "$OUT/fused.mlir" | sed 's/^ */   /' | cut -c1-150
echo "   full IR: $OUT/fused.mlir"

echo
echo "== 3. CPU: lower to loops and LLVM, run with mlir-runner (fused vs unfused)"
python3 test/Integration/CPU/attn_exec.py --attn-opt "$OPT" \
  --runner /usr/lib/llvm-22/bin/mlir-runner \
  --shared-libs /usr/lib/llvm-22/lib/libmlir_runner_utils.so,/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so \
  --rank 4 --B 1 --H 4 --Hkv 2 --Lq 64 --d 32 --causal top_left --keep-ir "$OUT/exec.mlir"

echo
echo "== 4. GPU: the bf16 attention to tensor-core PTX, the f32 one to the generic kernel (+ launch manifests)"
#    The f32 chain is raised as an f32 attention, which the tensor cores
#    refuse: the generic CUDA-core kernel runs it, with a warning.
#    Hopper (sm_90a, the default chip): wgmma; any other chip: mma.sync.
rm -rf "$OUT/kernels" "$OUT/kernels-sm80"
$OPT $EX --attn-gpu-pipeline="dump-dir=$OUT/kernels" -o /dev/null
$OPT $EX --attn-gpu-pipeline="chip=sm_80 dump-dir=$OUT/kernels-sm80" -o /dev/null
for f in "$OUT"/kernels/*.ptx "$OUT"/kernels-sm80/*.ptx; do
  arch=$(grep -m1 '^.target' "$f" | awk '{print $2}')
  echo "   $(basename "$f") ($arch): $(grep -c 'wgmma.mma_async' "$f") wgmma, $(grep -c 'mma.sync' "$f") mma.sync"
  if [ -x /usr/local/cuda/bin/ptxas ]; then
    /usr/local/cuda/bin/ptxas -arch="$arch" -v "$f" -o /dev/null 2>&1 | grep -E "registers|spill" | sed 's/^/   /'
  fi
done
echo "   run them on a GPU with: python3 bench/attn_run.py $OUT/kernels/<kernel>.json"

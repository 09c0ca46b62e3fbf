// Fixed finding (FUZZING.md; was: attn-detect raised softmax(Q·Kᵀ·s)·V whose P·V
// accumulator starts at 1.0, not 0, to attn.attention, dropping the "+ 1".
// Found by the semantic oracle (attn-fuzz, 2026-12-01; the fuzzer turned a
// fill of 0.0 into -3.4e38). attn-fuzz-replay FILE aborts with MISMATCH;
// attn-opt FILE --attn-cpu-pipeline=detect=true vs detect=false differ by 1.
#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mo = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @chain(%q: tensor<16x8xf32>, %k: tensor<16x8xf32>, %v: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %s = linalg.matmul indexing_maps = [#mq, #mk, #mo] ins(%q, %k : tensor<16x8xf32>, tensor<16x8xf32>) outs(%acc : tensor<16x16xf32>) -> tensor<16x16xf32>
  %c = arith.constant 0.35 : f32
  %s1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %c : f32
    linalg.yield %m : f32
  } -> tensor<16x16xf32>
  %p = linalg.softmax dimension(1) ins(%s1 : tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %e2 = tensor.empty() : tensor<16x8xf32>
  %one = arith.constant 1.0 : f32
  %oinit = linalg.fill ins(%one : f32) outs(%e2 : tensor<16x8xf32>) -> tensor<16x8xf32>
  %o = linalg.matmul ins(%p, %v : tensor<16x16xf32>, tensor<16x8xf32>) outs(%oinit : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %o : tensor<16x8xf32>
}

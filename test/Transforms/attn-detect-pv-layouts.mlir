// K and V may be broadcast along batch dims (MQA); P·V may read V stored as [.., dv, Lk] (its map, or a transposed-rhs
// matmul) and write O as [.., dv, Lq] (its output map): the raised
// attention reads V and writes O in its own layout, between transposes.
// The inputs are spellings an adversarial helper wrote; each also runs on
// the CPU before and after detection (detect-preserves-semantics.test).
//
// RUN: attn-opt %S/Inputs/detect-spellings/P28_v_given_transposed.mlir --attn-detect | FileCheck %s --check-prefix=VT
// VT: %[[V:.*]] = linalg.transpose ins(%arg2 : tensor<2x4x6xf32>) outs({{.*}} : tensor<2x6x4xf32>) permutation = [0, 2, 1]
// VT-NEXT: attn.attention %arg0, %arg1, %[[V]] scale
// VT-NOT: linalg.generic
//
// RUN: attn-opt %S/Inputs/detect-spellings/P46_2d_matmul_transpose_maps_softmax_dim1.mlir --attn-detect | FileCheck %s --check-prefix=VT2
// VT2-NOT: linalg.transpose
// VT2: attn.attention %arg0, %arg1, %arg2 scale
//
// RUN: attn-opt %S/Inputs/detect-spellings/P29_output_transposed.mlir --attn-detect | FileCheck %s --check-prefix=OT
// OT: %[[O:.*]] = attn.attention %arg0, %arg1, %arg2 scale
// OT: %[[T:.*]] = linalg.transpose ins(%[[O]] : tensor<2x4x4xf32>) {{.*}} permutation = [0, 2, 1]
// OT-NEXT: return %[[T]]
//
// O written [B, Lq, H, dv] (torch's transpose(1, 2) fused into P·V's
// output map): any permutation of the output, undone after the attention.
// RUN: attn-opt %S/Inputs/detect-spellings/R52_o_written_bshd.mlir --attn-detect | FileCheck %s --check-prefix=OP
// OP: %[[O:.*]] = attn.attention %arg0, %arg1, %arg2 scale{{.*}} -> tensor<2x3x4x5xf32>
// OP: %[[T:.*]] = linalg.transpose ins(%[[O]] : tensor<2x3x4x5xf32>) {{.*}} permutation = [0, 2, 1, 3]
// OP-NEXT: return %[[T]]
//
// MQA as an einsum ("bqd,kd->bqk"): K and V lack the batch dim, which the
// matmuls' maps broadcast; the raise gives them a unit head dim.
// RUN: attn-opt %S/Inputs/detect-spellings/P36_mqa_map_broadcast.mlir --attn-detect | FileCheck %s --check-prefix=MQ
// MQ-DAG: %[[K:.*]] = tensor.expand_shape %arg1 {{\[\[}}0, 1], [2]] output_shape [1, 6, 8]
// MQ-DAG: %[[V:.*]] = tensor.expand_shape %arg2 {{\[\[}}0, 1], [2]] output_shape [1, 6, 4]
// MQ: attn.attention %arg0, %[[K]], %[[V]] scale
//
// Scores written transposed (Sᵀ by Q·Kᵀ's output map) are another
// attention's rows: not raised.
// RUN: attn-opt %s -split-input-file --attn-detect="explain=true" -verify-diagnostics | FileCheck %s --check-prefix=ST
// ST-NOT: attn.attention
#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mst = affine_map<(m, n, k) -> (n, m)>
func.func @scores_written_transposed(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %st = linalg.matmul indexing_maps = [#mq, #mk, #mst] ins(%q, %k : tensor<4x8xf32>, tensor<4x8xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  %p = linalg.softmax dimension(1) ins(%st : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %eo = tensor.empty() : tensor<4x8xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{Q·Kᵀ is written permuted}}
  %o = linalg.matmul ins(%p, %v : tensor<4x4xf32>, tensor<4x8xf32>) outs(%oi : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}

// An elementwise generic that writes its result permuted by its output map
// (here the scaled scores, square, so the types agree) is no elementwise
// step of the chain: softmax(Sᵀ)·V had been raised as softmax(S)·V.

// -----
#id = affine_map<(i, j) -> (i, j)>
#tr = affine_map<(i, j) -> (j, i)>
#mq2 = affine_map<(m, n, k) -> (m, k)>
#mk2 = affine_map<(m, n, k) -> (n, k)>
#mo2 = affine_map<(m, n, k) -> (m, n)>
func.func @scale_written_transposed(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %z = arith.constant 0.0 : f32
  %c = arith.constant 0.125 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %s = linalg.matmul indexing_maps = [#mq2, #mk2, #mo2] ins(%q, %k : tensor<4x8xf32>, tensor<4x8xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  %st = linalg.generic {indexing_maps = [#id, #tr], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.mulf %a, %c : f32
    linalg.yield %y : f32
  } -> tensor<4x4xf32>
  %p = linalg.softmax dimension(1) ins(%st : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %eo = tensor.empty() : tensor<4x8xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{the scores go through 'linalg.generic', which is not elementwise in them}}
  %o = linalg.matmul ins(%p, %v : tensor<4x4xf32>, tensor<4x8xf32>) outs(%oi : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}

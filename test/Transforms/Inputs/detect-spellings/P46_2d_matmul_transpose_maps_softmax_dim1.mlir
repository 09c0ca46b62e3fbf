// EXPECT: 1
// 2-D: linalg.matmul with indexing_maps for Q.K^T; V given as [d, Lk] and P.V as linalg.matmul with transposed-b maps
#mq = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (n, k)>
#mo = affine_map<(m, n, k) -> (m, n)>
func.func @f(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x4xf32>) -> tensor<4x4xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x6xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
  %s = linalg.matmul indexing_maps = [#mq, #mk, #mo] ins(%q, %k : tensor<4x8xf32>, tensor<6x8xf32>) outs(%acc : tensor<4x6xf32>) -> tensor<4x6xf32>
  %p = linalg.softmax dimension(1) ins(%s : tensor<4x6xf32>) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
  %eo = tensor.empty() : tensor<4x4xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<4x4xf32>) -> tensor<4x4xf32>
  %ev = tensor.empty() : tensor<4x6xf32>
  %vt = linalg.transpose ins(%v : tensor<6x4xf32>) outs(%ev : tensor<4x6xf32>) permutation = [1, 0]
  %o = linalg.matmul indexing_maps = [#mq, #mk, #mo] ins(%p, %vt : tensor<4x6xf32>, tensor<4x6xf32>) outs(%oi : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %o : tensor<4x4xf32>
}

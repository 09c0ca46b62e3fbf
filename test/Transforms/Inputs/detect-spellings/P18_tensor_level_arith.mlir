// EXPECT: 1
// whole softmax with tensor-level arith/math ops + linalg.reduce + linalg.broadcast
#id = affine_map<(b, i, j) -> (b, i, j)>
#row = affine_map<(b, i, j) -> (b, i)>
#rowk = affine_map<(b, i, j) -> (b, i, 0)>
#col = affine_map<(b, i, j) -> (b, j)>
#mq = affine_map<(b, i, j, k) -> (b, i, k)>
#mk = affine_map<(b, i, j, k) -> (b, j, k)>
#mkt = affine_map<(b, i, j, k) -> (b, k, j)>
#ms = affine_map<(b, i, j, k) -> (b, i, j)>
#pp = affine_map<(b, i, c, j) -> (b, i, j)>
#pv = affine_map<(b, i, c, j) -> (b, j, c)>
#po = affine_map<(b, i, c, j) -> (b, i, c)>
func.func @f(%q: tensor<2x4x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x4xf32>) -> tensor<2x4x4xf32> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<2x4x6xf32>
  %er = tensor.empty() : tensor<2x4xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<2x4x6xf32>) -> tensor<2x4x6xf32>
  %s = linalg.batch_matmul indexing_maps = [#mq, #mk, #ms] ins(%q, %k : tensor<2x4x8xf32>, tensor<2x6x8xf32>) outs(%acc : tensor<2x4x6xf32>) -> tensor<2x4x6xf32>
  %scv = arith.constant dense<0.35355339> : tensor<2x4x6xf32>
  %s1 = arith.mulf %s, %scv : tensor<2x4x6xf32>
  
  %mx_i = linalg.fill ins(%ninf : f32) outs(%er : tensor<2x4xf32>) -> tensor<2x4xf32>
  %mx = linalg.reduce ins(%s1 : tensor<2x4x6xf32>) outs(%mx_i : tensor<2x4xf32>) dimensions = [2]
    (%in: f32, %init: f32) {
      %r = arith.maximumf %in, %init : f32
      linalg.yield %r : f32
    }
  %mxb = linalg.broadcast ins(%mx : tensor<2x4xf32>) outs(%e : tensor<2x4x6xf32>) dimensions = [2]
  %d = arith.subf %s1, %mxb : tensor<2x4x6xf32>
  %ex = math.exp %d : tensor<2x4x6xf32>
  %sum_i = linalg.fill ins(%z : f32) outs(%er : tensor<2x4xf32>) -> tensor<2x4xf32>
  %sum = linalg.reduce ins(%ex : tensor<2x4x6xf32>) outs(%sum_i : tensor<2x4xf32>) dimensions = [2]
    (%in: f32, %init: f32) {
      %r = arith.addf %in, %init : f32
      linalg.yield %r : f32
    }
  %e2 = tensor.empty() : tensor<2x4x6xf32>
  %sumb = linalg.broadcast ins(%sum : tensor<2x4xf32>) outs(%e2 : tensor<2x4x6xf32>) dimensions = [2]
  %p = arith.divf %ex, %sumb : tensor<2x4x6xf32>
  %eo = tensor.empty() : tensor<2x4x4xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %out = linalg.batch_matmul ins(%p, %v : tensor<2x4x6xf32>, tensor<2x6x4xf32>) outs(%oi : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  return %out : tensor<2x4x4xf32>
}

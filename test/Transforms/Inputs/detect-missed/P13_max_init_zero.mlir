// EXPECT: 1
// max init 0.0 (max(0,rowmax) is still constant along keys)
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
  %sc = arith.constant 0.35355339 : f32
  %s1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x4x6xf32>) outs(%e : tensor<2x4x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.mulf %a, %sc : f32
    linalg.yield %y : f32
  } -> tensor<2x4x6xf32>
  
  %mx_i = linalg.fill ins(%z : f32) outs(%er : tensor<2x4xf32>) -> tensor<2x4xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s1 : tensor<2x4x6xf32>) outs(%mx_i : tensor<2x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.maximumf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<2x4xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s1, %mx : tensor<2x4x6xf32>, tensor<2x4xf32>) outs(%e : tensor<2x4x6xf32>) {
  ^bb0(%a: f32, %x: f32, %o: f32):
    %d = arith.subf %a, %x : f32
    %y = math.exp %d : f32
    linalg.yield %y : f32
  } -> tensor<2x4x6xf32>
  %sum_i = linalg.fill ins(%z : f32) outs(%er : tensor<2x4xf32>) -> tensor<2x4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ex : tensor<2x4x6xf32>) outs(%sum_i : tensor<2x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<2x4xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ex, %sum : tensor<2x4x6xf32>, tensor<2x4xf32>) outs(%e : tensor<2x4x6xf32>) {
  ^bb0(%a: f32, %x: f32, %o: f32):
    %y = arith.divf %a, %x : f32
    linalg.yield %y : f32
  } -> tensor<2x4x6xf32>
  %eo = tensor.empty() : tensor<2x4x4xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %out = linalg.batch_matmul ins(%p, %v : tensor<2x4x6xf32>, tensor<2x6x4xf32>) outs(%oi : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  return %out : tensor<2x4x4xf32>
}

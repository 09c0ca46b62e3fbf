// EXPECT: 1
// scores computed as S^T = K.Q^T [B, Lk, Lq]; softmax over dim 1 (keys); P.V reads P^T
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
#tid = affine_map<(b, j, i) -> (b, j, i)>
#tcol = affine_map<(b, j, i) -> (b, i)>
#tk = affine_map<(b, j, i, k) -> (b, j, k)>
#tq = affine_map<(b, j, i, k) -> (b, i, k)>
#ts = affine_map<(b, j, i, k) -> (b, j, i)>
#ptp = affine_map<(b, i, c, j) -> (b, j, i)>
func.func @f(%q: tensor<2x4x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x4xf32>) -> tensor<2x4x4xf32> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<2x6x4xf32>
  %er = tensor.empty() : tensor<2x4xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<2x6x4xf32>) -> tensor<2x6x4xf32>
  %s = linalg.generic {indexing_maps = [#tk, #tq, #ts], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%k, %q : tensor<2x6x8xf32>, tensor<2x4x8xf32>) outs(%acc : tensor<2x6x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x6x4xf32>
  %s1 = tensor.cast %s : tensor<2x6x4xf32> to tensor<2x6x4xf32>
  
  %p = linalg.softmax dimension(1) ins(%s1 : tensor<2x6x4xf32>) outs(%e : tensor<2x6x4xf32>) -> tensor<2x6x4xf32>
  %eo = tensor.empty() : tensor<2x4x4xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %out = linalg.generic {indexing_maps = [#ptp, #pv, #po], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : tensor<2x6x4xf32>, tensor<2x6x4xf32>) outs(%oi : tensor<2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  return %out : tensor<2x4x4xf32>
}

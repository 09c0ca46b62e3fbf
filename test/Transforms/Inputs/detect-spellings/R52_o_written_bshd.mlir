// EXPECT: 1
// 4-D generic chain; P.V writes O as [B, Lq, H, dv] (torch .transpose(1,2) fused into the matmul) via (b,h,i,c,j)->(b,i,h,c)
#q4 = affine_map<(b, h, i, j, k) -> (b, h, i, k)>
#k4 = affine_map<(b, h, i, j, k) -> (b, h, j, k)>
#s4 = affine_map<(b, h, i, j, k) -> (b, h, i, j)>
#id4 = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row4 = affine_map<(b, h, i, j) -> (b, h, i)>
#pp4 = affine_map<(b, h, i, c, j) -> (b, h, i, j)>
#pv4 = affine_map<(b, h, i, c, j) -> (b, h, j, c)>
#po4 = affine_map<(b, h, i, c, j) -> (b, i, h, c)>
func.func @f(%q: tensor<2x3x4x8xf32>, %k: tensor<2x3x6x8xf32>, %v: tensor<2x3x6x5xf32>) -> tensor<2x4x3x5xf32> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<2x3x4x6xf32>
  %er = tensor.empty() : tensor<2x3x4xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<2x3x4x6xf32>) -> tensor<2x3x4x6xf32>
  %s = linalg.generic {indexing_maps = [#q4, #k4, #s4], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x3x4x8xf32>, tensor<2x3x6x8xf32>) outs(%acc : tensor<2x3x4x6xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x3x4x6xf32>
  %mx_i = linalg.fill ins(%ninf : f32) outs(%er : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s : tensor<2x3x4x6xf32>) outs(%mx_i : tensor<2x3x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.maximumf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<2x3x4xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s, %mx : tensor<2x3x4x6xf32>, tensor<2x3x4xf32>) outs(%e : tensor<2x3x4x6xf32>) {
  ^bb0(%a: f32, %x: f32, %o: f32):
    %d = arith.subf %a, %x : f32
    %y = math.exp %d : f32
    linalg.yield %y : f32
  } -> tensor<2x3x4x6xf32>
  %sum_i = linalg.fill ins(%z : f32) outs(%er : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %sum = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%ex : tensor<2x3x4x6xf32>) outs(%sum_i : tensor<2x3x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<2x3x4xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%ex, %sum : tensor<2x3x4x6xf32>, tensor<2x3x4xf32>) outs(%e : tensor<2x3x4x6xf32>) {
  ^bb0(%a: f32, %x: f32, %o: f32):
    %y = arith.divf %a, %x : f32
    linalg.yield %y : f32
  } -> tensor<2x3x4x6xf32>
  %eo = tensor.empty() : tensor<2x4x3x5xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<2x4x3x5xf32>) -> tensor<2x4x3x5xf32>
  %out = linalg.generic {indexing_maps = [#pp4, #pv4, #po4], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : tensor<2x3x4x6xf32>, tensor<2x3x6x5xf32>) outs(%oi : tensor<2x4x3x5xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x3x5xf32>
  return %out : tensor<2x4x3x5xf32>
}

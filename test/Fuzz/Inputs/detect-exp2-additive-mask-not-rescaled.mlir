

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#pad = affine_map<(d0, d1, d2) -> (d0, d2)>

// BERT-style additive padding mask [B, Lk] broadcast over queries by the
// map; masked_fill-style boolexbf16>an mask (drop where true); no max subtraction.
func.func @padding_masks_no_max(%q: tensor<2x24x16xf32>, %k: tensor<2x40x16xf32>, %v: tensor<2x40x16xf32>, %bias: tensor<2x40xf32>) -> tensor<2x24x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x24x40xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<2x24x40xf32>) -> tensor<2x24x40xf32>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%q, %k : tensor<2x24x16xf32>, tensor<2x40x16xf32>) outs(%acc : tensor<2x24x40xf32>) -> tensor<2x24x40xf32>
  %sb = linalg.generic {indexing_maps = [#id3, #pad, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %bias : tensor<2x24x40xf32>, tensor<2x40xf32>) outs(%e : tensor<2x24x40xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %x = arith.addf %in, %b : f32
    linalg.yield %x : f32
  } -> tensor<2x24x40xf32>
  %ex = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%sb : tensor<2x24x40xf32>) outs(%e : tensor<2x24x40xf32>) {
  ^bb0(%in: f32, %out: f32):
    %x = math.exp2 %in : f32
    linalg.yield %x : f32
  } -> tensor<2x24x40xf32>
  %er = tensor.empty() : tensor<2x24xf32>
  %si = linalg.fill ins(%zero : f32) outs(%er : tensor<2x24xf32>) -> tensor<2x24xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ex : tensor<2x24x40xf32>) outs(%si : tensor<2x24xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<2x24xf32>
  %p = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ex, %sum : tensor<2x24x40xf32>, tensor<2x24xf32>) outs(%e : tensor<2x24x40xf32>) {
  ^bb0(%in: f32, %sm: f32, %out: f32):
    %x = arith.divf %in, %sm : f32
    linalg.yield %x : f32
  } -> tensor<2x24x40xf32>
  %eo = tensor.empty() : tensor<2x24x16xf32>
  %oacc = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x24x16xf32>) -> tensor<2x24x16xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x24x40xf32>, tensor<2x40x16xf32>) outs(%oacc : tensor<2x24x16xf32>) -> tensor<2x24x16xf32>
  return %o : tensor<2x24x16xf32>
}


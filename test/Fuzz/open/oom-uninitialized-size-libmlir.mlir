

// The same with a strict comparison: j - i < 1 is j <= i.
// CHECK-LABEL: func.func @iota_mask_causal_strict
// CHECK: attn.attention %arg0, %arg1, %arg2 scale(1.000000e+00) causal(bottom_right) :
// CHECK-NOT: arith.cmpi
func.func @iota_mask_causal_strict(%q: tensor<8x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %bound = arith.constant 1 : i64
  %erows = tensor.empty() : tensor<8xi64>
  %rows = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["reduction"]} outs(%erows : tensor<8xi64>) {
  ^bb0(%out: i64):
    %x = linalg.index 0 : index
    %y = arith.index_cast %x : index to i64
    linalg.yield %y : i64
  } -> tensor<8xi64>
  %ecols = tensor.empty() : tensor<8xi64>
  %cols = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%ecols : tensor<8xi64>) {
  ^bb0(%out: i64):
    %x = linalg.index 0 : index
    %y = arith.index_cast %x : index to i64
    linalg.yield %y : i64
  } -> tensor<8xi64>
  %rows2 = tensor.expand_shape %rows [[0, 1]] output_shape [8, 1] : tensor<8xi64> into tensor<8x1xi64>
  %cols2 = tensor.expand_shape %cols [[0, 1]] output_shape [1, 8] : tensor<8xi64> into tensor<1x8xi64>
  %ek = tensor.empty() : tensor<8x8xi1>
  %keep = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", 0xFF800000]} ins(%cols2, %rows2 : tensor<1x8xi64>, tensor<8x1xi64>) outs(%ek : tensor<8x8xi1>) {
  ^bb0(%j: i64, %i: i64, %out: i1):
    %diff = arith.subi %j, %i : i64
    %b = arith.cmpi slt, %diff, %bound : i64
    linalg.yield %b : i1
  } -> tensor<8x8xi1>
  %em = tensor.empty() : tensor<8x8xf32>
  %mask = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%keep : tensor<8x8xi1>) outs(%em : tensor<8x8xf32>) {
  ^bb0(%b: i1, %out: f32):
    %m = arith.select %b, %zero, %ninf : f32
    linalg.yield %m : f32
  } -> tensor<8x8xf32>
  %es = tensor.empty() : tensor<8x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%es : tensor<8x8xf32>) -> tensor<8x8xf32>
  %s = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%q, %k : tensor<8x16xf32>, tensor<8x16xf32>) outs(%acc : tensor<8x8xf32>) -> tensor<8x8xf32>
  %sm = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%s, %mask : tensor<8x8xf32>, tensor<8x8xf32>) outs(%es : tensor<8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %c = arith.addf %a, %b : f32
    linalg.yield %c : f32
  } -> tensor<8x8xf32>
  %p = linalg.softmax dimension(1) ins(%sm : tensor<8x8xf32>) outs(%es : tensor<8x8xf32>) -> tensor<8x8xf32>
  %eo = tensor.empty() : tensor<8x16xf32>
  %oacc = linalg.fill ins(%zero : f32) outs(%eo : tensor<8x16xf32>) -> tensor<8x16xf32>
  %o = linalg.matmul ins(%p, %v : tensor<8x8xf32>, tensor<8x16xf32>) outs(%oacc : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}


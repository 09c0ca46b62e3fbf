
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// collapsed to [B·H, L, d] around each batch_matmul and expanded back, and
// K/V repeated from 2 to 8 heads by broadcast + collapse. The repeat is
// CHECK-LABEL: func.func @gqa_collapse_round_trip
// CHECK-NOT: linalg.broadcast
// CHECK: attn.attention %arg0, %arg1, %arg2 scale(1.250000e-01) keep(top_left) : tensor<1x8x32x64xf32>, tensor<1x2x32x64xf32>, tensor<1x2x32x64xf32> -> tensor<1x8x32x64xf32>
// CHECK-NOT: linalg.matmul
func.func @gqa_collapse_round_trip(%q: tensor<1x8x32x64xf32>, %k: tensor<1x2x32x64xf32>, %v: tensor<1x2x32x64xf32>) -> tensor<1x8x32x64xf32> {
  %eb = tensor.empty() : tensor<1x2x4x32x64xf32>
  %kb = linalg.broadcast ins(%k : tensor<1x2x32x64xf32>) outs(%eb : tensor<1x2x4x32x64xf32>) dimensions = [2]
  %vb = linalg.broadcast ins(%v : tensor<1x2x32x64xf32>) outs(%eb : tensor<1x2x4x32x64xf32>) dimensions = [2 tensor<1x2x32x64xf32> -> tensor<1x8x32x64xf32>
// CHECK-NOT: linalg.matmul
func.func @gqa_collapse_round_trip(%q: tensor<1x8x32x64xf32>, %k: tensor<1x2x32x64xf32>, %v: tensor<1x2x32x64xf32>) -> tensor<1x8x32x64xf32> {
  %eb = tensor.empty() : tensor<1x2x4x32x64xf32>
  %kb = linalg.broadcast ins(%k : tensor<1x2x32x64xf32>) outs(%eb : tensor<1x2x4x32x64xf32>) dimensions = [2]
  %vb = linalg.broadcast ins(%v : tensor<1x2x32x64xf32>) outs(%eb : tensor<1x2x4x32x64xf32>) dimensions = [2]
  %kr = tensor.collapse_shape %kb [[0], [1, 2], [3], [4]] : tensor<1x2x4x32x64xf32> into tensor<1x8x32x64xf32>
  %vr = tensor.collapse_shape %vb [[0], [1, 2], [3], [4]] : tensor<1x2x4x32x64xf32> into tensor<1x8x32x64xf32>
  %et = tensor.empty() : tensor<1x8x64x32xf32>
  %kt = linalg.transpose ins(%kr : tensor<1x8x32x64xf32>) outs(%et : tensor<1x8x64x32xf32>) permutation = [0, 1, 3, 2]
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<1x8x32x64xf32> into tensor<8x32x64xf32>
  %k3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<1x8x64x32xf32> into tensor<8x64x32xf32>
  %zero = arith.constant 0.0 : f32
  %e3 = tensor.empty() : tensor<8x32x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e3 : tensor<8x32x32xf32>) -> tensor<8x32x32xf32>
  %s3 = linalg.batch_matmul ins(%q3, %k3 : tensor<8x32x64xf32>, tensor<8x64x32xf32>) outs(%acc : tensor<8x32x32xf32>) -> tensor<8x32x32xf32>
  %s = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [1, 8, 32, 32] : tensor<8x32x32xf32> into tensor<1x8x32x32xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %c = arith.constant 0.125 : f32
  %e4 = tensor.empty() : tensor<1x8x32x32xf32>
  %sm = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%s : tensor<1x8x32x32xf32>) outs(%e4 : tensor<1x8x32x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %drop = arith.cmpi sgt, %j, %i : index
    %x = arith.mulf %in, %c : f32
    %y = arith.select %drop, %ninf, %x : f32
    linalg.yield %y : f32
  } -> tensor<1x8x32x32xf32>
  %p = linalg.softmax dimension(3) ins(%sm : tensor<1x8x32x32xf32>) outs(%e4 : tensor<1x8x32x32xf32>) -> tensor<1x8x32x32xf32>
  %p3 = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<1x8x32x32xf32> into tensor<8x32x32xf32>o tensor<1x8x32x64xf32>
  return %o : tensor<1x8x32x64xf32>
}

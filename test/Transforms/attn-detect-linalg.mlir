// RUN: attn-opt %s -split-input-file --attn-detect="explain=true" -verify-diagnostics | FileCheck %s
// Detection on linalg on tensors, in the forms torch-mlir and hand-written
// pipelines emit. Positive cases first, then look-alikes with their remark.

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#qk = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#kt = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#s = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// Decomposed softmax (max/sub/exp/sum/div), scale on S by division, K
// transposed on the fly by linalg.transpose, bf16 cast sandwich.
// CHECK-LABEL: func.func @decomposed_softmax_bf16
// CHECK-SAME: (%[[Q:.+]]: tensor<8x128x64xbf16>, %[[K:.+]]: tensor<8x128x64xbf16>, %[[V:.+]]: tensor<8x128x64xbf16>)
// CHECK: %[[O:.+]] = attn.attention %[[Q]], %[[K]], %[[V]] scale(1.250000e-01) : tensor<8x128x64xbf16>, tensor<8x128x64xbf16>, tensor<8x128x64xbf16> -> tensor<8x128x64xbf16>
// CHECK-NOT: linalg.batch_matmul
// CHECK-NOT: math.exp
// CHECK: return
func.func @decomposed_softmax_bf16(%q: tensor<8x128x64xbf16>, %k: tensor<8x128x64xbf16>, %v: tensor<8x128x64xbf16>) -> tensor<8x128x64xbf16> {
  %e0 = tensor.empty() : tensor<8x64x128xbf16>
  %kt = linalg.transpose ins(%k : tensor<8x128x64xbf16>) outs(%e0 : tensor<8x64x128xbf16>) permutation = [0, 2, 1]
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x128x128xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x128x128xf32>) -> tensor<8x128x128xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<8x128x64xbf16>, tensor<8x64x128xbf16>) outs(%acc : tensor<8x128x128xf32>) -> tensor<8x128x128xf32>
  %c8 = arith.constant 8.0 : f32
  %s1 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<8x128x128xf32>) outs(%e1 : tensor<8x128x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.divf %in, %c8 : f32
    linalg.yield %d : f32
  } -> tensor<8x128x128xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e2 = tensor.empty() : tensor<8x128xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<8x128xf32>) -> tensor<8x128xf32>
  %max = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s1 : tensor<8x128x128xf32>) outs(%minit : tensor<8x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<8x128xf32>
  %ex = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s1, %max : tensor<8x128x128xf32>, tensor<8x128xf32>) outs(%e1 : tensor<8x128x128xf32>) {
  ^bb0(%in: f32, %mx: f32, %out: f32):
    %d = arith.subf %in, %mx : f32
    %x = math.exp %d : f32
    linalg.yield %x : f32
  } -> tensor<8x128x128xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x128xf32>) -> tensor<8x128xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ex : tensor<8x128x128xf32>) outs(%sinit : tensor<8x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<8x128xf32>
  %e3 = tensor.empty() : tensor<8x128x128xbf16>
  %p = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ex, %sum : tensor<8x128x128xf32>, tensor<8x128xf32>) outs(%e3 : tensor<8x128x128xbf16>) {
  ^bb0(%in: f32, %sm: f32, %out: bf16):
    %d = arith.divf %in, %sm : f32
    %t = arith.truncf %d : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<8x128x128xbf16>
  %zb = arith.constant 0.0 : bf16
  %e4 = tensor.empty() : tensor<8x128x64xbf16>
  %oinit = linalg.fill ins(%zb : bf16) outs(%e4 : tensor<8x128x64xbf16>) -> tensor<8x128x64xbf16>
  %o = linalg.batch_matmul ins(%p, %v : tensor<8x128x128xbf16>, tensor<8x128x64xbf16>) outs(%oinit : tensor<8x128x64xbf16>) -> tensor<8x128x64xbf16>
  return %o : tensor<8x128x64xbf16>
}

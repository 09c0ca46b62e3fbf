// A keep-mask select with a finite fill (finfo.min) under a row-max
// softmax: the dropped keys' logit is the fill itself. The raise keeps the
// select in the score_mod region, as written, so the program's answer is
// the raised one's on inputs where no mask of the op would be (found by an
// adversarial helper; the raise had made them the additive mask
// finfo.min·[dropped], whose s + fill is not the fill):
//   - f16, a fully masked row (HuggingFace's masked_fill with
//     finfo(f16).min on a padded query): every logit is -65504, a uniform
//     average, 0.5 (was 0.269 = softmax of the raw scores);
//   - f16, a dropped score of 60000 beside a kept -30000: 1 (was 0);
//   - f32, a dropped score of 3.2e38 beside a kept -1e38: 1 (was 0).
// Q = [[1]], K = the two scores, V = [[1], [0]]: O is the kept key's weight.
// DEFINE: %{run} = mlir-runner -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils
// RUN: attn-opt %s --attn-detect | FileCheck %s --check-prefix=RAISED
// RUN: attn-opt %s --attn-cpu-pipeline > %t.fused.mlir
// RUN: attn-opt %s --attn-cpu-pipeline="detect=false" > %t.orig.mlir
// RUN: %{run} -e f16_fully_masked %t.fused.mlir | FileCheck %s --check-prefix=HALF
// RUN: %{run} -e f16_fully_masked %t.orig.mlir | FileCheck %s --check-prefix=HALF
// RUN: %{run} -e f16_dropped_above_kept %t.fused.mlir | FileCheck %s --check-prefix=ONE
// RUN: %{run} -e f16_dropped_above_kept %t.orig.mlir | FileCheck %s --check-prefix=ONE
// RUN: %{run} -e f32_dropped_near_max %t.fused.mlir | FileCheck %s --check-prefix=ONE
// RUN: %{run} -e f32_dropped_near_max %t.orig.mlir | FileCheck %s --check-prefix=ONE
// RAISED-LABEL: func.func @attention_f16
// RAISED: attn.attention {{.*}} score_mod {
// RAISED: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f16
// RAISED-NOT: mask(
// RAISED-LABEL: func.func @attention_f32
// RAISED: attn.attention {{.*}} score_mod {
// RAISED: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// RAISED-NOT: mask(
// HALF: {{\[\[\[}}0.5{{\]\]\]}}
// ONE: {{\[\[\[}}1{{\]\]\]}}

#id = affine_map<(b, i, j) -> (b, i, j)>
#m2 = affine_map<(b, i, j) -> (i, j)>
#mq = affine_map<(b, i, j, k) -> (b, i, k)>
#mk = affine_map<(b, i, j, k) -> (b, j, k)>
#ms = affine_map<(b, i, j, k) -> (b, i, j)>
#cp = affine_map<(a, b, c) -> (a, b, c)>

func.func @attention_f16(%q: tensor<1x1x1xf16>, %k: tensor<1x2x1xf16>, %v: tensor<1x2x1xf16>, %keep: tensor<1x2xi1>) -> tensor<1x1x1xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x1x2xf16>
  %acc = linalg.fill ins(%z : f16) outs(%e : tensor<1x1x2xf16>) -> tensor<1x1x2xf16>
  %s = linalg.batch_matmul indexing_maps = [#mq, #mk, #ms] ins(%q, %k : tensor<1x1x1xf16>, tensor<1x2x1xf16>) outs(%acc : tensor<1x1x2xf16>) -> tensor<1x1x2xf16>
  %x = linalg.generic {indexing_maps = [#id, #m2, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %keep : tensor<1x1x2xf16>, tensor<1x2xi1>) outs(%e : tensor<1x1x2xf16>) {
  ^bb0(%a: f16, %c: i1, %o: f16):
    %fill = arith.constant -65504.0 : f16
    %y = arith.select %c, %a, %fill : f16
    linalg.yield %y : f16
  } -> tensor<1x1x2xf16>
  %p = linalg.softmax dimension(2) ins(%x : tensor<1x1x2xf16>) outs(%e : tensor<1x1x2xf16>) -> tensor<1x1x2xf16>
  %eo = tensor.empty() : tensor<1x1x1xf16>
  %oacc = linalg.fill ins(%z : f16) outs(%eo : tensor<1x1x1xf16>) -> tensor<1x1x1xf16>
  %o = linalg.batch_matmul ins(%p, %v : tensor<1x1x2xf16>, tensor<1x2x1xf16>) outs(%oacc : tensor<1x1x1xf16>) -> tensor<1x1x1xf16>
  return %o : tensor<1x1x1xf16>
}

func.func @attention_f32(%q: tensor<1x1x1xf32>, %k: tensor<1x2x1xf32>, %v: tensor<1x2x1xf32>, %keep: tensor<1x2xi1>) -> tensor<1x1x1xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x1x2xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<1x1x2xf32>) -> tensor<1x1x2xf32>
  %s = linalg.batch_matmul indexing_maps = [#mq, #mk, #ms] ins(%q, %k : tensor<1x1x1xf32>, tensor<1x2x1xf32>) outs(%acc : tensor<1x1x2xf32>) -> tensor<1x1x2xf32>
  %x = linalg.generic {indexing_maps = [#id, #m2, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %keep : tensor<1x1x2xf32>, tensor<1x2xi1>) outs(%e : tensor<1x1x2xf32>) {
  ^bb0(%a: f32, %c: i1, %o: f32):
    %fill = arith.constant -3.40282347E+38 : f32
    %y = arith.select %c, %a, %fill : f32
    linalg.yield %y : f32
  } -> tensor<1x1x2xf32>
  %p = linalg.softmax dimension(2) ins(%x : tensor<1x1x2xf32>) outs(%e : tensor<1x1x2xf32>) -> tensor<1x1x2xf32>
  %eo = tensor.empty() : tensor<1x1x1xf32>
  %oacc = linalg.fill ins(%z : f32) outs(%eo : tensor<1x1x1xf32>) -> tensor<1x1x1xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<1x1x2xf32>, tensor<1x2x1xf32>) outs(%oacc : tensor<1x1x1xf32>) -> tensor<1x1x1xf32>
  return %o : tensor<1x1x1xf32>
}

func.func @f16_fully_masked() {
  %q = arith.constant dense<[[[1.0]]]> : tensor<1x1x1xf16>
  %k = arith.constant dense<[[[1.0], [2.0]]]> : tensor<1x2x1xf16>
  %v = arith.constant dense<[[[1.0], [0.0]]]> : tensor<1x2x1xf16>
  %m = arith.constant dense<[[false, false]]> : tensor<1x2xi1>
  %r = call @attention_f16(%q, %k, %v, %m) : (tensor<1x1x1xf16>, tensor<1x2x1xf16>, tensor<1x2x1xf16>, tensor<1x2xi1>) -> tensor<1x1x1xf16>
  %ef = tensor.empty() : tensor<1x1x1xf32>
  %rf = linalg.generic {indexing_maps = [#cp, #cp], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r : tensor<1x1x1xf16>) outs(%ef : tensor<1x1x1xf32>) {
  ^bb0(%in: f16, %o: f32):
    %w = arith.extf %in : f16 to f32
    linalg.yield %w : f32
  } -> tensor<1x1x1xf32>
  %b = bufferization.to_buffer %rf : tensor<1x1x1xf32> to memref<1x1x1xf32>
  %u = memref.cast %b : memref<1x1x1xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @f16_dropped_above_kept() {
  %q = arith.constant dense<[[[1.0]]]> : tensor<1x1x1xf16>
  %k = arith.constant dense<[[[-30000.0], [60000.0]]]> : tensor<1x2x1xf16>
  %v = arith.constant dense<[[[1.0], [0.0]]]> : tensor<1x2x1xf16>
  %m = arith.constant dense<[[true, false]]> : tensor<1x2xi1>
  %r = call @attention_f16(%q, %k, %v, %m) : (tensor<1x1x1xf16>, tensor<1x2x1xf16>, tensor<1x2x1xf16>, tensor<1x2xi1>) -> tensor<1x1x1xf16>
  %ef = tensor.empty() : tensor<1x1x1xf32>
  %rf = linalg.generic {indexing_maps = [#cp, #cp], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r : tensor<1x1x1xf16>) outs(%ef : tensor<1x1x1xf32>) {
  ^bb0(%in: f16, %o: f32):
    %w = arith.extf %in : f16 to f32
    linalg.yield %w : f32
  } -> tensor<1x1x1xf32>
  %b = bufferization.to_buffer %rf : tensor<1x1x1xf32> to memref<1x1x1xf32>
  %u = memref.cast %b : memref<1x1x1xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @f32_dropped_near_max() {
  %q = arith.constant dense<[[[1.0]]]> : tensor<1x1x1xf32>
  %k = arith.constant dense<[[[-1.0e38], [3.2e38]]]> : tensor<1x2x1xf32>
  %v = arith.constant dense<[[[1.0], [0.0]]]> : tensor<1x2x1xf32>
  %m = arith.constant dense<[[true, false]]> : tensor<1x2xi1>
  %r = call @attention_f32(%q, %k, %v, %m) : (tensor<1x1x1xf32>, tensor<1x2x1xf32>, tensor<1x2x1xf32>, tensor<1x2xi1>) -> tensor<1x1x1xf32>
  %b = bufferization.to_buffer %r : tensor<1x1x1xf32> to memref<1x1x1xf32>
  %u = memref.cast %b : memref<1x1x1xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>)

// EXPECT: 1
// tosa: p = exp(s - max - log(sum(exp(s - max))))
func.func @f(%q: tensor<2x4x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x4xf32>) -> tensor<2x4x4xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<2x6x8xf32>) -> tensor<2x8x6xf32>
  %s = tosa.matmul %q, %kt, %zp, %zp : (tensor<2x4x8xf32>, tensor<2x8x6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x4x6xf32>
  %mx = tosa.reduce_max %s {axis = 2 : i32} : (tensor<2x4x6xf32>) -> tensor<2x4x1xf32>
  %d = tosa.sub %s, %mx : (tensor<2x4x6xf32>, tensor<2x4x1xf32>) -> tensor<2x4x6xf32>
  %ex = tosa.exp %d : (tensor<2x4x6xf32>) -> tensor<2x4x6xf32>
  %sum = tosa.reduce_sum %ex {axis = 2 : i32} : (tensor<2x4x6xf32>) -> tensor<2x4x1xf32>
  %l = tosa.log %sum : (tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %ls = tosa.sub %d, %l : (tensor<2x4x6xf32>, tensor<2x4x1xf32>) -> tensor<2x4x6xf32>
  %p = tosa.exp %ls : (tensor<2x4x6xf32>) -> tensor<2x4x6xf32>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<2x4x6xf32>, tensor<2x6x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x4x4xf32>
  return %o : tensor<2x4x4xf32>
}

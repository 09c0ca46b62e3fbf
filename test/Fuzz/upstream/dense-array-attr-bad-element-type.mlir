
// CHECK-LABEL: func.func @tosa_keep_mask
// CHECK: attn.attention %arg0, %{{.*}}, %arg2 mask(%arg3 : tensor<1x16x16xf32>) scale(1.000000e+00)
func.func @tosa_additive_mask(%q: tensor<2x16x8xf32>, %kt: tensor<2x8x16xf32>, %v: tensor<2x16x8xf32>, %m: tensor<1x16x16xf32>) -> tensor<2x16x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<65xf32>}> : () -> tensor<1xf32>
  %k = tosa.transpose %kt {perms = array<i32: 0, 2, 1>} : (tensor<2x8x16xf32>) -> tensor<2x16x8xf32>
  return %o : tensor<2x16x8xf32>
  %ktt = tosa.transpose %k {perms = array<index: 0, 2, 1>} : (tensor<2x16x8xf32>) -> tensor<2x8x16xf32>
  %s = tosa.matmul %q, %ktt, %zp, %zp : (tensor<2x16x8xf32>, tensor<2x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x16x16xf32>
  %sm = tosa.add %s, %m : (tensor<2x16x16xf32>, tensor<1x16x16xf32>) -> tensor<2x16x16xf32>
  %mx = tosa.reduce_max %sm {axis = 2 : i32} : (tensor<2x16x16xf32>) -> tensor<2x16x1xf32>
  %d = tosa.sub %sm, %mx : (tensor<2x16x16xf32>, tensor<2x16x1xf32>) -> tensor<2x16x16xf32>
  %e = tosa.exp %d : (tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x16x16xf32>) -> tensor<2x16x1xf32>
  %r = tosa.reciprocal %sum : (tensor<2x16x1xf32>) -> tensor<2x16x1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %p = tosa.mul %e, %r, %shift : (tensor<2x16x16xf32>, tensor<2x16x1xf32>, tensor<1xi8>) -> tensor<2x16x16xf32>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<2x16x16xf32>, tensor<2x16x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x16x8xf32>
  return %o : tensor<2x16x8xf32>
}


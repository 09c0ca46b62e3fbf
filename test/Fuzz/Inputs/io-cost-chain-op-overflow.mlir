
// GQA as torch-mlir's tosa spells repeat_kv: reshape K/V [B, Hkv, L, d] to
// folded: attn.attention reads K/V head h / G itself.
// CHECK-LABEL: func.func @tosa_gqa_tile
// CHECK: attn.attention %arg0, %arg1, %arg2 scale(0.353553{{[0-9]*}}) : tensor<1x4x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32> -> tensor<1x4x16x8xf32>
// CHECK-NOT: tosa.tile
func.func @tosa_gqa_tile(%q: tensor<1x4x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> tensor<1x4x16x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s5 = tosa.const_shape {values = dense<[1, 2, 1, 16, 8]> : tensor<5xindex>} : () -> !tosa.shape<5>
  %mult = tosa.const_shape {values = dense<[2147483647, 1, 4294967296, 1, -1]> : tensor<5xindex>} : () -> !tosa.shape<5>
  %s4 = tosa.const_shape {values = dense<[1, 4, 16, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %s3 = tosa.const_shape {values = dense<[4, 16, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %q3s = tosa.const_shape {values = dense<[4, 16, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %k5 = tosa.reshape %k, %s5 : (tensor<1x2x16x8xf32>, !tosa.shape<5>) -> tensor<1x2x1x16x8xf32>
  %ktile = tosa.tile %k5, %mult : (tensor<1x2x1x16x8xf32>, !tosa.shape<5>) -> tensor<1x2x2x16x8xf32>
  %k4 = tosa.reshape %ktile, %s4 : (tensor<1x2x2x16x8xf32>, !tosa.shape<4>) -> tensor<1x4x16x8xf32>
  %k3 = tosa.reshape %k4, %s3 : (tensor<1x4x16x8xf32>, !tosa.shape<3>) -> tensor<4x16x8xf32>
  %v5 = tosa.reshape %v, %s5 : (tensor<1x2x16x8xf32>, !tosa.shape<5>) -> tensor<1x2x1x16x8xf32>
  %vtile = tosa.tile %v5, %mult : (tensor<1x2x1x16x8xf32>, !tosa.shape<5>) -> tensor<1x2x2x16x8xf32>
  %v4 = tosa.reshape %vtile, %s4 : (tensor<1x2x2x16x8xf32>, !tosa.shape<4>) -> tensor<1x4x16x8xf32>
  %v3 = tosa.reshape %v4, %s3 : (tensor<1x4x16x8xf32>, !tosa.shape<3>) -> tensor<4x16x8xf32>
  %q3 = tosa.reshape %q, %q3s : (tensor<1x4x16x8xf32>, !tosa.shape<3>) -> tensor<4x16x8xf32>
  %kt = tosa.transpose %k3 {perms = array<i32: 0, 2, 1>} : (tensor<4x16x8xf32>) -> tensor<4x8x16xf32>
  %s = tosa.matmul %q3, %kt, %zp, %zp : (tensor<4x16x8xf32>, tensor<4x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x16x16xf32>
  %c = "tosa.const"() <{values = dense<0.35355339> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %s1 = tosa.mul %s, %c, %shift : (tensor<4x16x16xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<4x16x16xf32>
  %mx = tosa.reduce_max %s1 {axis = 2 : i32} : (tensor<4x16x16xf32>) -> tensor<4x16x1xf32>
  %d = tosa.sub %s1, %mx : (tensor<4x16x16xf32>, tensor<4x16x1xf32>) -> tensor<4x16x16xf32>
  %e = tosa.exp %d : (tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<4x16x16xf32>) -> tensor<4x16x1xf32>
  %r = tosa.reciprocal %sum : (tensor<4x16x1xf32>) -> tensor<4x16x1xf32>
  %p = tosa.mul %e, %r, %shift : (tensor<4x16x16xf32>, tensor<4x16x1xf32>, tensor<1xi8>) -> tensor<4x16x16xf32>
  %o3 = tosa.matmul %p, %v3, %zp, %zp : (tensor<4x16x16xf32>, tensor<4x16x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x16x8xf32>
  %os = tosa.const_shape {values = dense<[1, 4, 16, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %o = tosa.reshape %o3, %os : (tensor<4x16x8xf32>, !tosa.shape<4>) -> tensor<1x4x16x8xf32>
  return %o : tensor<1x4x16x8xf32>
}


// RUN: attn-opt %s -split-input-file --attn-detect="explain=true" -verify-diagnostics | FileCheck %s
// Detection on TOSA 1.0 as legalized from frameworks: rank-3 tosa.matmul
// with zero points, tosa.transpose, keepdim reductions, reciprocal + mul
// with a shift operand, and an f16 -> f32 cast sandwich.

// CHECK-LABEL: func.func @tosa_chain
// CHECK-SAME: (%[[Q:.+]]: tensor<4x64x32xf16>, %[[K:.+]]: tensor<4x64x32xf16>, %[[V:.+]]: tensor<4x64x32xf16>)
// CHECK: %[[O:.+]] = attn.attention %[[Q]], %[[K]], %[[V]] scale(0.17677669{{[0-9]*}}) : tensor<4x64x32xf16>, tensor<4x64x32xf16>, tensor<4x64x32xf16> -> tensor<4x64x32xf16>
// CHECK-NOT: tosa.matmul
// CHECK-NOT: tosa.exp
// CHECK: return %[[O]]
func.func @tosa_chain(%q: tensor<4x64x32xf16>, %k: tensor<4x64x32xf16>, %v: tensor<4x64x32xf16>) -> tensor<4x64x32xf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<4x64x32xf16>) -> tensor<4x32x64xf16>
  %s16 = tosa.matmul %q, %kt, %zp, %zp : (tensor<4x64x32xf16>, tensor<4x32x64xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<4x64x64xf16>
  %s = tosa.cast %s16 : (tensor<4x64x64xf16>) -> tensor<4x64x64xf32>
  %c = "tosa.const"() <{values = dense<0.17677669> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s1 = tosa.mul %s, %c, %shift : (tensor<4x64x64xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<4x64x64xf32>
  %mx = tosa.reduce_max %s1 {axis = 2 : i32} : (tensor<4x64x64xf32>) -> tensor<4x64x1xf32>
  %d = tosa.sub %s1, %mx : (tensor<4x64x64xf32>, tensor<4x64x1xf32>) -> tensor<4x64x64xf32>
  %e = tosa.exp %d : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<4x64x64xf32>) -> tensor<4x64x1xf32>
  %r = tosa.reciprocal %sum : (tensor<4x64x1xf32>) -> tensor<4x64x1xf32>
  %p = tosa.mul %e, %r, %shift : (tensor<4x64x64xf32>, tensor<4x64x1xf32>, tensor<1xi8>) -> tensor<4x64x64xf32>
  %p16 = tosa.cast %p : (tensor<4x64x64xf32>) -> tensor<4x64x64xf16>
  %o = tosa.matmul %p16, %v, %zp, %zp : (tensor<4x64x64xf16>, tensor<4x64x32xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<4x64x32xf16>
  return %o : tensor<4x64x32xf16>
}

// -----

// An additive mask tensor, broadcast over the batch.
// CHECK-LABEL: func.func @tosa_additive_mask
// CHECK: attn.attention %arg0, %{{.*}}, %arg2 mask(%arg3 : tensor<1x16x16xf32>) scale(1.000000e+00)
func.func @tosa_additive_mask(%q: tensor<2x16x8xf32>, %kt: tensor<2x8x16xf32>, %v: tensor<2x16x8xf32>, %m: tensor<1x16x16xf32>) -> tensor<2x16x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %k = tosa.transpose %kt {perms = array<i32: 0, 2, 1>} : (tensor<2x8x16xf32>) -> tensor<2x16x8xf32>
  %ktt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<2x16x8xf32>) -> tensor<2x8x16xf32>
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

// -----

// Look-alike: the reductions run over the query axis (axis 1).
// CHECK-LABEL: func.func @tosa_softmax_over_queries
// CHECK-NOT: attn.attention
func.func @tosa_softmax_over_queries(%s: tensor<2x16x16xf32>, %v: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %e = tosa.exp %s : (tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %sum = tosa.reduce_sum %e {axis = 1 : i32} : (tensor<2x16x16xf32>) -> tensor<2x1x16xf32>
  %r = tosa.reciprocal %sum : (tensor<2x1x16xf32>) -> tensor<2x1x16xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %p = tosa.mul %e, %r, %shift : (tensor<2x16x16xf32>, tensor<2x1x16xf32>, tensor<1xi8>) -> tensor<2x16x16xf32>
  // expected-remark @+1 {{attn-detect: not raised: the normalizer varies along the key axis: the softmax is over another dim than the one P·V contracts}}
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<2x16x16xf32>, tensor<2x16x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x16x8xf32>
  return %o : tensor<2x16x8xf32>
}

// -----

// GQA as torch-mlir's tosa spells repeat_kv: reshape K/V [B, Hkv, L, d] to
// [B, Hkv, 1, L, d], tile by G, reshape to [B, Hkv·G, L, d]. The repeat is
// folded: attn.attention reads K/V head h / G itself.
// CHECK-LABEL: func.func @tosa_gqa_tile
// CHECK: attn.attention %arg0, %arg1, %arg2 scale(0.353553{{[0-9]*}}) : tensor<1x4x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32> -> tensor<1x4x16x8xf32>
// CHECK-NOT: tosa.tile
func.func @tosa_gqa_tile(%q: tensor<1x4x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> tensor<1x4x16x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s5 = tosa.const_shape {values = dense<[1, 2, 1, 16, 8]> : tensor<5xindex>} : () -> !tosa.shape<5>
  %mult = tosa.const_shape {values = dense<[1, 1, 2, 1, 1]> : tensor<5xindex>} : () -> !tosa.shape<5>
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

// -----

// Look-alike: the tile repeats the keys as well as the heads (every key
// appears twice). Not a pure head repeat: the tile stays, and the raised op
// reads the repeated K/V (Lk = 32).
// CHECK-LABEL: func.func @tosa_tile_along_keys
// CHECK: %[[K:.+]] = tosa.tile
// CHECK: %[[K3:.+]] = tosa.reshape %{{.*}} -> tensor<4x32x8xf32>
// CHECK-NOT: transpose
// CHECK: attn.attention %{{.*}}, %[[K3]], %{{.*}} : tensor<4x16x8xf32>, tensor<4x32x8xf32>, tensor<4x32x8xf32> -> tensor<4x16x8xf32>
func.func @tosa_tile_along_keys(%q: tensor<1x4x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> tensor<1x4x16x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s5 = tosa.const_shape {values = dense<[1, 2, 1, 16, 8]> : tensor<5xindex>} : () -> !tosa.shape<5>
  %mult = tosa.const_shape {values = dense<[1, 1, 2, 2, 1]> : tensor<5xindex>} : () -> !tosa.shape<5>
  %s4 = tosa.const_shape {values = dense<[1, 4, 32, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %s3 = tosa.const_shape {values = dense<[4, 32, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %q3s = tosa.const_shape {values = dense<[4, 16, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %k5 = tosa.reshape %k, %s5 : (tensor<1x2x16x8xf32>, !tosa.shape<5>) -> tensor<1x2x1x16x8xf32>
  %ktile = tosa.tile %k5, %mult : (tensor<1x2x1x16x8xf32>, !tosa.shape<5>) -> tensor<1x2x2x32x8xf32>
  %k4 = tosa.reshape %ktile, %s4 : (tensor<1x2x2x32x8xf32>, !tosa.shape<4>) -> tensor<1x4x32x8xf32>
  %k3 = tosa.reshape %k4, %s3 : (tensor<1x4x32x8xf32>, !tosa.shape<3>) -> tensor<4x32x8xf32>
  %v5 = tosa.reshape %v, %s5 : (tensor<1x2x16x8xf32>, !tosa.shape<5>) -> tensor<1x2x1x16x8xf32>
  %vtile = tosa.tile %v5, %mult : (tensor<1x2x1x16x8xf32>, !tosa.shape<5>) -> tensor<1x2x2x32x8xf32>
  %v4 = tosa.reshape %vtile, %s4 : (tensor<1x2x2x32x8xf32>, !tosa.shape<4>) -> tensor<1x4x32x8xf32>
  %v3 = tosa.reshape %v4, %s3 : (tensor<1x4x32x8xf32>, !tosa.shape<3>) -> tensor<4x32x8xf32>
  %q3 = tosa.reshape %q, %q3s : (tensor<1x4x16x8xf32>, !tosa.shape<3>) -> tensor<4x16x8xf32>
  %kt = tosa.transpose %k3 {perms = array<i32: 0, 2, 1>} : (tensor<4x32x8xf32>) -> tensor<4x8x32xf32>
  %s = tosa.matmul %q3, %kt, %zp, %zp : (tensor<4x16x8xf32>, tensor<4x8x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x16x32xf32>
  %c = "tosa.const"() <{values = dense<0.35355339> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %s1 = tosa.mul %s, %c, %shift : (tensor<4x16x32xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<4x16x32xf32>
  %mx = tosa.reduce_max %s1 {axis = 2 : i32} : (tensor<4x16x32xf32>) -> tensor<4x16x1xf32>
  %d = tosa.sub %s1, %mx : (tensor<4x16x32xf32>, tensor<4x16x1xf32>) -> tensor<4x16x32xf32>
  %e = tosa.exp %d : (tensor<4x16x32xf32>) -> tensor<4x16x32xf32>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<4x16x32xf32>) -> tensor<4x16x1xf32>
  %r = tosa.reciprocal %sum : (tensor<4x16x1xf32>) -> tensor<4x16x1xf32>
  %p = tosa.mul %e, %r, %shift : (tensor<4x16x32xf32>, tensor<4x16x1xf32>, tensor<1xi8>) -> tensor<4x16x32xf32>
  %o3 = tosa.matmul %p, %v3, %zp, %zp : (tensor<4x16x32xf32>, tensor<4x32x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x16x8xf32>
  %os = tosa.const_shape {values = dense<[1, 4, 16, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %o = tosa.reshape %o3, %os : (tensor<4x16x8xf32>, !tosa.shape<4>) -> tensor<1x4x16x8xf32>
  return %o : tensor<1x4x16x8xf32>
}

// -----

// Dynamic lengths: the softmax's sub and mul read the row max and the row
// sum, [1, ?, 1], beside the scores, [1, ?, ?]: their dynamic query extents
// come from the scores themselves (through the reductions and exp), so they
// are equal and TOSA broadcasts nothing there. Raised.
// CHECK-LABEL: func.func @tosa_dynamic_lengths
// CHECK: attn.attention %arg0, %{{.*}}, %arg2 scale(1.000000e+00) : tensor<1x?x8xf32>, tensor<1x?x8xf32>, tensor<1x?x4xf32> -> tensor<1x?x4xf32>
func.func @tosa_dynamic_lengths(%q: tensor<1x?x8xf32>, %kt: tensor<1x8x?xf32>, %v: tensor<1x?x4xf32>) -> tensor<1x?x4xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %s = tosa.matmul %q, %kt, %zp, %zp : (tensor<1x?x8xf32>, tensor<1x8x?xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x?x?xf32>
  %mx = tosa.reduce_max %s {axis = 2 : i32} : (tensor<1x?x?xf32>) -> tensor<1x?x1xf32>
  %d = tosa.sub %s, %mx : (tensor<1x?x?xf32>, tensor<1x?x1xf32>) -> tensor<1x?x?xf32>
  %e = tosa.exp %d : (tensor<1x?x?xf32>) -> tensor<1x?x?xf32>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<1x?x?xf32>) -> tensor<1x?x1xf32>
  %r = tosa.reciprocal %sum : (tensor<1x?x1xf32>) -> tensor<1x?x1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %p = tosa.mul %e, %r, %shift : (tensor<1x?x?xf32>, tensor<1x?x1xf32>, tensor<1xi8>) -> tensor<1x?x?xf32>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<1x?x?xf32>, tensor<1x?x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x?x4xf32>
  return %o : tensor<1x?x4xf32>
}

// -----

// Look-alike (adversarial helper): a dynamic [1, ?, ?] mask added to the
// dynamic scores. TOSA broadcasts a dim whose run-time extent is 1 (a
// [1, 1, Lk] padding mask passed through this type), so the mask is read
// either in order or at row 0, which no indexing map states; raised as read
// in order, the program aborted on the op's extent check where TOSA had
// broadcast. Refused.
// CHECK-LABEL: func.func @tosa_dynamic_mask_may_broadcast
// CHECK-NOT: attn.attention
func.func @tosa_dynamic_mask_may_broadcast(%q: tensor<1x?x8xf32>, %kt: tensor<1x8x?xf32>, %v: tensor<1x?x4xf32>, %m: tensor<1x?x?xf32>) -> tensor<1x?x4xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %s = tosa.matmul %q, %kt, %zp, %zp : (tensor<1x?x8xf32>, tensor<1x8x?xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x?x?xf32>
  %sm = tosa.add %s, %m : (tensor<1x?x?xf32>, tensor<1x?x?xf32>) -> tensor<1x?x?xf32>
  %mx = tosa.reduce_max %sm {axis = 2 : i32} : (tensor<1x?x?xf32>) -> tensor<1x?x1xf32>
  %d = tosa.sub %sm, %mx : (tensor<1x?x?xf32>, tensor<1x?x1xf32>) -> tensor<1x?x?xf32>
  %e = tosa.exp %d : (tensor<1x?x?xf32>) -> tensor<1x?x?xf32>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<1x?x?xf32>) -> tensor<1x?x1xf32>
  %r = tosa.reciprocal %sum : (tensor<1x?x1xf32>) -> tensor<1x?x1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %p = tosa.mul %e, %r, %shift : (tensor<1x?x?xf32>, tensor<1x?x1xf32>, tensor<1xi8>) -> tensor<1x?x?xf32>
  // expected-remark @+1 {{not raised: the softmax input is not a scaled, masked Q·Kᵀ, and not a modification of each score either: the scores go through 'tosa.add', whose dynamic extents TOSA may broadcast at run time (no indexing map states that read)}}
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<1x?x?xf32>, tensor<1x?x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x?x4xf32>
  return %o : tensor<1x?x4xf32>
}

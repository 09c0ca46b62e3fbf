// RUN: attn-opt %s -split-input-file --attn-expand-fp8 | FileCheck %s
// Every encoding of both formats is checked by execution in
// test/Integration/CPU/fp8-attention.test; here, the form of the expansion.

// E4M3FN: sign and magnitude into f16 bits, times 256 in f32, NaN where the
// magnitude is 0x7F.
// CHECK-LABEL: func.func @e4m3_to_f32
// CHECK-DAG: %[[C7F:.+]] = arith.constant 127 : i16
// CHECK-DAG: %[[C80:.+]] = arith.constant 128 : i16
// CHECK: %[[B:.+]] = arith.bitcast %{{.*}} : f8E4M3FN to i8
// CHECK: %[[W:.+]] = arith.extui %[[B]] : i8 to i16
// CHECK: %[[MAG:.+]] = arith.andi %[[W]], %[[C7F]] : i16
// CHECK: arith.andi %[[W]], %[[C80]] : i16
// CHECK: %[[H:.+]] = arith.bitcast %{{.*}} : i16 to f16
// CHECK: %[[F:.+]] = arith.extf %[[H]] : f16 to f32
// CHECK: %[[V:.+]] = arith.mulf %[[F]], %{{.*}} : f32
// CHECK: %[[NAN:.+]] = arith.cmpi eq, %[[MAG]], %[[C7F]] : i16
// CHECK: %[[R:.+]] = arith.select %[[NAN]], %{{.*}}, %[[V]] : f32
// CHECK: return %[[R]] : f32
// CHECK-NOT: f8E4M3FN to f32
func.func @e4m3_to_f32(%x: f8E4M3FN) -> f32 {
  %y = arith.extf %x : f8E4M3FN to f32
  return %y : f32
}

// -----

// E5M2 is an f16's upper byte; vectors expand elementwise; a bf16
// destination is rounded from f32 (exactly: every E5M2 value is a bf16).
// CHECK-LABEL: func.func @e5m2_vector_to_bf16
// CHECK: %[[B:.+]] = arith.bitcast %{{.*}} : vector<4xf8E5M2> to vector<4xi8>
// CHECK: %[[W:.+]] = arith.extui %[[B]] : vector<4xi8> to vector<4xi16>
// CHECK: %[[S:.+]] = arith.shli %[[W]], %{{.*}} : vector<4xi16>
// CHECK: %[[H:.+]] = arith.bitcast %[[S]] : vector<4xi16> to vector<4xf16>
// CHECK: %[[F:.+]] = arith.extf %[[H]] : vector<4xf16> to vector<4xf32>
// CHECK: arith.truncf %[[F]] : vector<4xf32> to vector<4xbf16>
func.func @e5m2_vector_to_bf16(%x: vector<4xf8E5M2>) -> vector<4xbf16> {
  %y = arith.extf %x : vector<4xf8E5M2> to vector<4xbf16>
  return %y : vector<4xbf16>
}

// -----

// f64 destination: extended from f32.
// CHECK-LABEL: func.func @e4m3_to_f64
// CHECK: arith.select
// CHECK: arith.extf %{{.*}} : f32 to f64
func.func @e4m3_to_f64(%x: f8E4M3FN) -> f64 {
  %y = arith.extf %x : f8E4M3FN to f64
  return %y : f64
}

// -----

// Tensors (elementwise arith on tensors, before linalg): the same ops on
// tensors, constants as splats.
// CHECK-LABEL: func.func @e4m3_tensor
// CHECK: arith.bitcast %{{.*}} : tensor<4xf8E4M3FN> to tensor<4xi8>
// CHECK: arith.extui %{{.*}} : tensor<4xi8> to tensor<4xi16>
// CHECK: arith.select %{{.*}} : tensor<4xi1>, tensor<4xf32>
func.func @e4m3_tensor(%x: tensor<4xf8E4M3FN>) -> tensor<4xf32> {
  %y = arith.extf %x : tensor<4xf8E4M3FN> to tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// truncf to E4M3FN from f32: the exponent re-biased in place (−120 << 23),
// round to nearest even on the 20 dropped bits; subnormals through the f32
// adder (+2^23 − 2^23); past 0x7E NaN (0x7F); the sign or'ed back; a byte.
// CHECK-LABEL: func.func @truncf_to_e4m3
// CHECK-DAG: arith.constant 1006632960 : i32
// CHECK-DAG: arith.constant 524287 : i32
// CHECK-DAG: arith.constant 0x4B000000 : f32
// CHECK: arith.bitcast %{{.*}} : f32 to i32
// CHECK: arith.subi
// CHECK: arith.addf
// CHECK: arith.subf
// CHECK: arith.fptoui
// CHECK: arith.cmpi ugt
// CHECK: arith.trunci %{{.*}} : i32 to i8
// CHECK: arith.bitcast %{{.*}} : i8 to f8E4M3FN
// CHECK-NOT: arith.truncf
func.func @truncf_to_e4m3(%x: f32) -> f8E4M3FN {
  %y = arith.truncf %x : f32 to f8E4M3FN
  return %y : f8E4M3FN
}

// -----

// From bf16 (vectors too): extended to f32 first, one rounding; past 0x7B
// E5M2 gives inf (0x7C).
// CHECK-LABEL: func.func @truncf_bf16_to_e5m2
// CHECK-DAG: arith.constant dense<124> : vector<2xi32>
// CHECK: arith.extf %{{.*}} : vector<2xbf16> to vector<2xf32>
// CHECK: arith.bitcast %{{.*}} : vector<2xi8> to vector<2xf8E5M2>
func.func @truncf_bf16_to_e5m2(%x: vector<2xbf16>) -> vector<2xf8E5M2> {
  %y = arith.truncf %x : vector<2xbf16> to vector<2xf8E5M2>
  return %y : vector<2xf8E5M2>
}

// -----

// Negative: other extensions (and truncations) stay as they are.
// CHECK-LABEL: func.func @other_floats
// CHECK-NEXT: arith.extf %{{.*}} : f16 to f32
// CHECK-NEXT: arith.extf %{{.*}} : bf16 to f32
// CHECK-NEXT: arith.truncf %{{.*}} : f32 to f16
// CHECK-NEXT: return
func.func @other_floats(%a: f16, %b: bf16, %c: f32) -> (f32, f32, f16) {
  %x = arith.extf %a : f16 to f32
  %y = arith.extf %b : bf16 to f32
  %z = arith.truncf %c : f32 to f16
  return %x, %y, %z : f32, f32, f16
}

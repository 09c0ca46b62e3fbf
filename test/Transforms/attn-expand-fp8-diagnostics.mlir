// RUN: attn-opt %s -split-input-file --attn-expand-fp8 -verify-diagnostics
// What --attn-expand-fp8 cannot lower is an error at the op, not IR left
// for the LLVM conversion to pass through unlowered (found by fuzzing: a
// program with arithmetic on 8-bit floats exited 0 from
// --attn-cpu-pipeline with the op in its LLVM IR).

// From f64 the rounding would happen twice (through f32): not expanded.
func.func @truncf_from_f64(%x: f64) -> f8E4M3FN {
  // expected-error @+1 {{attn-expand-fp8: arith.truncf on 8-bit floats has no lowering (LLVM has no 8-bit float types; only arith.extf from f8E4M3FN and f8E5M2 and arith.truncf to them from f32, f16 and bf16, rounding to nearest even, are expanded)}}
  %y = arith.truncf %x : f64 to f8E4M3FN
  return %y : f8E4M3FN
}

// -----

// Another rounding mode than to-nearest-even: not expanded either.
func.func @truncf_rounding_down(%x: f32) -> f8E5M2 {
  // expected-error @+1 {{attn-expand-fp8: arith.truncf on 8-bit floats has no lowering}}
  %y = arith.truncf %x downward : f32 to f8E5M2
  return %y : f8E5M2
}

// -----

func.func @arithmetic_on_fp8(%x: vector<2xf8E5M2>) -> vector<2xf8E5M2> {
  // expected-error @+1 {{attn-expand-fp8: arith.addf on 8-bit floats has no lowering}}
  %y = arith.addf %x, %x : vector<2xf8E5M2>
  return %y : vector<2xf8E5M2>
}

// -----

// Other narrow floats (the FNUZ variants, 4-bit floats) have no expansion:
// an error, not unlowered arithmetic passed on with exit 0.
func.func @fnuz_round_trip(%x: f32) -> f32 {
  // expected-error @+1 {{attn-expand-fp8: arith.truncf on 8-bit floats has no lowering}}
  %y = arith.truncf %x : f32 to f8E4M3FNUZ
  %z = arith.extf %y : f8E4M3FNUZ to f32
  return %z : f32
}

// -----

func.func @f4_extension(%x: f4E2M1FN) -> f32 {
  // expected-error @+1 {{attn-expand-fp8: arith.extf on 8-bit floats has no lowering}}
  %z = arith.extf %x : f4E2M1FN to f32
  return %z : f32
}

// -----

// Tensors and buffers of 8-bit floats are bytes: nothing to do, no error.
func.func @fp8_tensor_constant() -> tensor<2xf8E4M3FN> {
  %c = arith.constant dense<[1.0, -2.0]> : tensor<2xf8E4M3FN>
  return %c : tensor<2xf8E4M3FN>
}

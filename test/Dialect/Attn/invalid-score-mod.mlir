// RUN: attn-opt %s -split-input-file -verify-diagnostics
// One case per verifier error of the score_mod regions (attn.attention,
// attn.online_attention) and of attn.yield; the ops' other errors are in
// invalid.mlir.

func.func @score_mod_arguments(%q: tensor<1x2x8x16xf16>) -> tensor<1x2x8x16xf16> {
  // expected-error @+1 {{score_mod must take the score ('f32') and 4 indices, one per dim of the scores}}
  %o = attn.attention %q, %q, %q scale(1.0) score_mod {
  ^bb0(%s: f32, %i: index, %j: index):
    attn.yield %s : f32
  } : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16> -> tensor<1x2x8x16xf16>
  return %o : tensor<1x2x8x16xf16>
}

// -----

func.func @score_mod_score_type(%q: tensor<1x2x8x16xf16>) -> tensor<1x2x8x16xf16> {
  // expected-error @+1 {{score_mod must take the score ('f32') and 4 indices, one per dim of the scores}}
  %o = attn.attention %q, %q, %q scale(1.0) score_mod {
  ^bb0(%s: f16, %b: index, %h: index, %i: index, %j: index):
    %x = arith.extf %s : f16 to f32
    attn.yield %x : f32
  } : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16> -> tensor<1x2x8x16xf16>
  return %o : tensor<1x2x8x16xf16>
}

// -----

func.func @score_mod_yield_type(%q: tensor<1x2x8x16xf16>) -> tensor<1x2x8x16xf16> {
  // expected-error @+1 {{score_mod must yield 'f32', got 'f16'}}
  %o = attn.attention %q, %q, %q scale(1.0) score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %x = arith.truncf %s : f32 to f16
    attn.yield %x : f16
  } : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16> -> tensor<1x2x8x16xf16>
  return %o : tensor<1x2x8x16xf16>
}

// -----

// A whole attention (or any tensor computation) per score is no score
// modification; the lowerings would bufferize it inside their loops.
func.func @score_mod_computes_a_tensor(%q: tensor<1x2x8x16xf16>) -> tensor<1x2x8x16xf16> {
  // expected-error @+1 {{score_mod must compute scalars, got 'attn.attention' yielding a 'tensor<1x2x8x16xf16>'}}
  %o = attn.attention %q, %q, %q scale(1.0) score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %inner = attn.attention %q, %q, %q scale(1.0) : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16> -> tensor<1x2x8x16xf16>
    attn.yield %s : f32
  } : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16> -> tensor<1x2x8x16xf16>
  return %o : tensor<1x2x8x16xf16>
}

// -----

func.func @score_mod_effects(%q: tensor<1x2x8x16xf16>) -> tensor<1x2x8x16xf16> {
  // expected-error @+1 {{score_mod must be free of side effects, got 'memref.alloc'}}
  %o = attn.attention %q, %q, %q scale(1.0) score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %m = memref.alloc() : memref<4xf32>
    attn.yield %s : f32
  } : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16> -> tensor<1x2x8x16xf16>
  return %o : tensor<1x2x8x16xf16>
}

// -----

func.func @score_mod_no_yield(%q: tensor<1x2x8x16xf16>) -> tensor<1x2x8x16xf16> {
  // expected-error @+1 {{score_mod must end in attn.yield}}
  %o = attn.attention %q, %q, %q scale(1.0) score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    func.return
  } : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16> -> tensor<1x2x8x16xf16>
  return %o : tensor<1x2x8x16xf16>
}

// -----

func.func @online_score_mod_origin(%q: tensor<8x4xf32>, %acc: tensor<8x4xf32>, %m: tensor<8xf32>, %i: index) -> tensor<8x4xf32> {
  // expected-error @+1 {{score_mod must take the score ('f32') and 2 indices, one per dim of the scores}}
  %a, %b, %c = attn.online_attention %q, %q, %q score_mod(%i, %i) {
  ^bb0(%s: f32, %h: index, %x: index, %y: index):
    attn.yield %s : f32
  } scale(1.0) outs(%acc, %m, %m) : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>, tensor<8xf32>, tensor<8xf32>
  return %a : tensor<8x4xf32>
}

// -----

func.func @yield_outside(%s: f32) -> f32 {
  // expected-error @+1 {{expects parent op to be one of 'attn.attention, attn.online_attention'}}
  attn.yield %s : f32
}


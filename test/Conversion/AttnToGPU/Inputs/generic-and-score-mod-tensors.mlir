// Kernels whose manifests carry what the generic kernel and score_mod
// tensors add: f32 inputs (the generic kernel), an f32 mask on f16 inputs,
// and a score_mod reading an f32 table and i32 document ids.
func.func @f32_phi(%q: tensor<1x4x24x80xf32>, %k: tensor<1x2x40x80xf32>, %v: tensor<1x2x40x72xf32>) -> tensor<1x4x24x72xf32> {
  %o = attn.attention %q, %k, %v scale(0.125) causal(bottom_right) : tensor<1x4x24x80xf32>, tensor<1x2x40x80xf32>, tensor<1x2x40x72xf32> -> tensor<1x4x24x72xf32>
  return %o : tensor<1x4x24x72xf32>
}
func.func @d36_wide_mask(%q: tensor<2x3x33x36xf16>, %m: tensor<2x1x33x33xf32>) -> tensor<2x3x33x36xf16> {
  %o = attn.attention %q, %q, %q mask(%m : tensor<2x1x33x33xf32>) scale(0.125) : tensor<2x3x33x36xf16>, tensor<2x3x33x36xf16>, tensor<2x3x33x36xf16> -> tensor<2x3x33x36xf16>
  return %o : tensor<2x3x33x36xf16>
}
func.func @bias_and_documents(%q: tensor<1x2x128x64xbf16>, %table: tensor<2x255xf32>, %doc: tensor<128xi32>) -> tensor<1x2x128x64xbf16> {
  %o = attn.attention %q, %q, %q scale(0.125) causal(top_left) score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %off = arith.constant 127 : index
    %ji = arith.subi %j, %i : index
    %r = arith.addi %ji, %off : index
    %x = tensor.extract %table[%h, %r] : tensor<2x255xf32>
    %y = arith.addf %s, %x : f32
    %dq = tensor.extract %doc[%i] : tensor<128xi32>
    %dk = tensor.extract %doc[%j] : tensor<128xi32>
    %same = arith.cmpi eq, %dq, %dk : i32
    %ninf = arith.constant 0xFF800000 : f32
    %z = arith.select %same, %y, %ninf : f32
    attn.yield %z : f32
  } : tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16> -> tensor<1x2x128x64xbf16>
  return %o : tensor<1x2x128x64xbf16>
}

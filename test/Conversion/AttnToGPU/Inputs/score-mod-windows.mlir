// Score mods whose final selects bound the keys: attn-gpu-pipeline-score-mod-bounds.test.
func.func @windows(%q: tensor<1x2x256x64xbf16>) -> (tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>) {
  // keep j + 37 > i: offsets >= -36.
  %a = attn.attention %q, %q, %q scale(0.125) causal(top_left) score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %w = arith.constant 37 : index
    %jw = arith.addi %j, %w : index
    %keep = arith.cmpi ugt, %jw, %i : index
    %ninf = arith.constant 0xFF800000 : f32
    %y = arith.select %keep, %s, %ninf : f32
    attn.yield %y : f32
  } : tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16> -> tensor<1x2x256x64xbf16>
  // drop where i - j >= 8 or j > i + 3 (signed), through a negated and: only the and's own form is read.
  %b2 = attn.attention %q, %q, %q scale(0.125) score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %d = arith.subi %i, %j : index
    %c8 = arith.constant 8 : index
    %far = arith.cmpi sge, %d, %c8 : index
    %ninf = arith.constant 0xFF800000 : f32
    %x = arith.select %far, %ninf, %s : f32
    %c3 = arith.constant 3 : index
    %i3 = arith.addi %i, %c3 : index
    %keep = arith.cmpi sle, %j, %i3 : index
    %y = arith.select %keep, %x, %ninf : f32
    attn.yield %y : f32
  } : tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16> -> tensor<1x2x256x64xbf16>
  // unsigned i - j < 8 wraps for j > i: no bound may be read from it.
  %c2 = attn.attention %q, %q, %q scale(0.125) score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %d = arith.subi %i, %j : index
    %c8 = arith.constant 8 : index
    %near = arith.cmpi ult, %d, %c8 : index
    %ninf = arith.constant 0xFF800000 : f32
    %y = arith.select %near, %s, %ninf : f32
    attn.yield %y : f32
  } : tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16> -> tensor<1x2x256x64xbf16>
  return %a, %b2, %c2 : tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>
}

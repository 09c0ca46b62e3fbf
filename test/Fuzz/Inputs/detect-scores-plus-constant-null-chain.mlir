// Causal softmax(Q·Kᵀ/8)·V in linalg (causal from an index comparison), bf16
// inputs with f32 scores: --attn-gpu-pipeline raises it and compiles it.
#id = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row = affine_map<(b, h, i, j) -> (b, h, i)>
func.func @block(%q: tensor<1x4x256x64xbf16>, %k: tensor<1x4x256x64xbf16>, %v: tensor<1x4x256x64xbf16>) -> tensor<1x4x256x64xbf16> {
  %z = arith.constant 65536.0 : f32
  %e = tensor.empty() : tensor<1x4x256x256xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<1x4x256x256xf32>) -> tensor<1x4x256x256xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, h, i, j, x) -> (b, h, i, x)>, affine_map<(b, h, i, j, x) -> (b, h, j, x)>, affine_map<(b, h, i, j, x) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<1x4x256x64xbf16>, tensor<1x4x256x64xbf16>) outs(%acc : tensor<1x4x256x256xf32>) {
  ^bb0(%a: bf16, %b: bf16, %o: f32):
    %a32 = arith.extf %a : bf16 to f32
    %b32 = arith.extf %b : bf16 to f32
    %p = arith.mulf %a32, %b32 : f32
    %r = arith.addf %o, %p : f32
    linalg.yield %r : f32
  } -> tensor<1x4x256x256xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %c = arith.constant 0.125 : f32
  %sm = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<1x4x256x256xf32>) outs(%e : tensor<1x4x256x256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %keep = arith.cmpi ule, %j, %i : index
    %x = arith.addf %in, %c : f32
    %y = arith.select %keep, %x, %ninf : f32
    linalg.yield %y : f32
  } -> tensor<1x4x256x256xf32>
  %p = linalg.softmax dimension(3) ins(%sm : tensor<1x4x256x256xf32>) outs(%e : tensor<1x4x256x256xf32>) -> tensor<1x4x256x256xf32>
  %eb = tensor.empty() : tensor<1x4x256x256xbf16>
  %pb = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%p : tensor<1x4x256x256xf32>) outs(%eb : tensor<1x4x256x256xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<1x4x256x256xbf16>
  %zb = arith.constant 0.0 : bf16
  %eo = tensor.empty() : tensor<1x4x256x64xbf16>
  %oacc = linalg.fill ins(%zb : bf16) outs(%eo : tensor<1x4x256x64xbf16>) -> tensor<1x4x256x64xbf16>
  %o = linalg.generic {indexing_maps = [affine_map<(b, h, i, j, x) -> (b, h, i, x)>, affine_map<(b, h, i, j, x) -> (b, h, x, j)>, affine_map<(b, h, i, j, x) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%pb, %v : tensor<1x4x256x256xbf16>, tensor<1x4x256x64xbf16>) outs(%oacc : tensor<1x4x256x64xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %o: bf16):
    %p2 = arith.mulf %a, %b : bf16
    %r = arith.addf %o, %p2 : bf16
    linalg.yield %r : bf16
  } -> tensor<1x4x256x64xbf16>
  return %o : tensor<1x4x256x64xbf16>
}

"""The in-tree library links libMLIR.so: what our dialect and upstream
dialects define must be the same types, traits and interfaces that
libMLIR's parser and passes see (see lib/CAPI/CMakeLists.txt)."""
import attnopt


def test_upstream_traits_and_interfaces_are_recognized():
    # The in-tree library links libMLIR.so: a terminator of our dialect
    # (attn.yield), linalg.softmax's interfaces and linalg's named ops must be
    # what libMLIR's parser and our passes take them for (the library once
    # kept its own copies of their TypeIDs: no score_mod parsed, and the
    # linalg chains of test/Transforms/attn-detect-linalg.mlir raised 0).
    text = """
func.func @f(%q: tensor<1x2x64x64xbf16>) -> tensor<1x2x64x64xbf16> {
  %o = attn.attention %q, %q, %q scale(0.125) score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    attn.yield %s : f32
  } : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
  return %o : tensor<1x2x64x64xbf16>
}
"""
    assert "score_mod" in attnopt.run_pipeline(text, "canonicalize")
    softmax = """
func.func @f(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x4xf32>) -> tensor<4x4xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x6xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
  %s = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%q, %k : tensor<4x8xf32>, tensor<6x8xf32>) outs(%acc : tensor<4x6xf32>) -> tensor<4x6xf32>
  %p = linalg.softmax dimension(1) ins(%s : tensor<4x6xf32>) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
  %eo = tensor.empty() : tensor<4x4xf32>
  %oi = linalg.fill ins(%z : f32) outs(%eo : tensor<4x4xf32>) -> tensor<4x4xf32>
  %o = linalg.matmul ins(%p, %v : tensor<4x6xf32>, tensor<6x4xf32>) outs(%oi : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %o : tensor<4x4xf32>
}
"""
    assert attnopt.detect(softmax).count == 1



func.func @split_scale_pretransposed_k(%q: tensor<24x16xf32>, %kt: tensor<16x40xf32>, %v: tensor<40x8xf32>, %keep: tensor<24x40xi1>) -> tensor<24x8xf32> {
  %qs = attn.scale %q by 0.5 : tensor<24x16xf32>
  %ks = attn.scale %kt by 63.5 : tensor<16x40xf32>
// Scale split as √ on Q and K, K stored pre-tg3 : tensor<12x40xi8>) scale(128.500000e-01)
  %s = attn.matmul %qs, %ks : tensor<24x16xf32>, tensor<16x40xf32> -> tensor<24x40xf32>
  %s1 = attn.mask keep %s, %keep : tensor<24x40xi1> : tensor<24x40xf32>
  %p = attn.softmax %s1 dim 1 : tensor<24x40xf32>
  %o = attn.matmul %p, %v : tensor<24x40xf32>, tensor<40x8xf32> -> tensor<24x8xf32>
  return %o : tensor<24x8xf32>
}


%s3 = attn.mask causal %s3 align top_left : tensor<2x4x?x48xf32>

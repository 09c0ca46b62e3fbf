// RUN: attn-opt %s -split-input-file --attn-lower-to-gpu | FileCheck %s
// RUN: attn-opt %s -split-input-file --attn-lower-to-gpu="kv-splits=1" | FileCheck %s --check-prefix=ONE

// Decode with GQA (Hq = 8, Hkv = 2, Lq = 1): one CTA row space per K/V
// head holds its 4 query heads (row = query · 4 + head in the group), so
// the grid's y axis is B · Hkv and the 16-row tile is 4 rows full. The
// 2 CTAs would idle the GPU: the keys are split (the streaming model), the
// attention kernel writes f32 partial outputs and each row's (m, l) to a
// workspace, and the combine kernel of the same gpu.module writes O.
// CHECK-LABEL: gpu.module @attn_fa2_mma_bf16_b1_h8_kv2_q1_k4096_d64_v64_bq16_bk{{[0-9]+}}_w16_pack_split{{[0-9]+}}{{(_kw[0-9])?}}_module
// CHECK: gpu.func @[[NAME:attn_fa2_mma_bf16_b1_h8_kv2_q1_k4096_d64_v64_bq16_bk[0-9]+_w16_pack_split([0-9]+)(_kw[0-9])?]](
// CHECK-SAME: %{{.*}}: memref<1x8x1x64xbf16>, %{{.*}}: memref<1x2x4096x64xbf16>, %{{.*}}: memref<1x2x4096x64xbf16>, %{{.*}}: memref<[[S:[0-9]+]]x1x8x1x64xf32>, %{{.*}}: memref<[[S]]x1x8x1x2xf32>)
// The split (blockIdx.z), each row's head (K/V head · 4 + row % 4) for the
// Q loads, then the split's key range from blockIdx.z times its keys.
// CHECK: %[[Z:.+]] = gpu.block_id  z
// CHECK: arith.remui %{{.*}}, %c4
// CHECK: vector.load %arg0
// CHECK: arith.muli %[[Z]], %c{{[0-9]+}}
// The row's max and sum, apart (m + log2 l would drop log2 l at
// m = -FLT_MAX): no lg2 in the kernel.
// CHECK-NOT: lg2.approx
// CHECK: memref.store %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c0{{.*}}] : memref<[[S]]x1x8x1x2xf32>
// CHECK: memref.store %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c1{{.*}}] : memref<[[S]]x1x8x1x2xf32>
// CHECK: gpu.func @[[NAME]]_combine(
// CHECK-SAME: %{{.*}}: memref<[[S]]x1x8x1x64xf32>, %[[STATS:.+]]: memref<[[S]]x1x8x1x2xf32>, %{{.*}}: memref<1x8x1x64xbf16>)
// CHECK-SAME: known_block_size = array<i32: 64, 1, 1>
// M = max_s m_s, then w_s = l_s * 2^(m_s - M) weighs O_s.
// CHECK: scf.for
// CHECK: %[[M:.+]] = memref.load %[[STATS]][{{.*}}, %c0{{.*}}]
// CHECK: arith.maximumf %{{.*}}, %[[M]]
// CHECK: scf.for
// CHECK: %[[MS:.+]] = memref.load %[[STATS]][{{.*}}, %c0{{.*}}]
// CHECK: %[[L:.+]] = memref.load %[[STATS]][{{.*}}, %c1{{.*}}]
// CHECK: %[[D:.+]] = arith.subf %[[MS]], %{{.*}}
// CHECK: %[[E:.+]] = llvm.inline_asm "ex2.approx.ftz.f32 $0, $1;", "=f,f" %[[D]]
// CHECK: arith.mulf %[[L]], %[[E]]
// CHECK: arith.truncf
// Host: the workspace, the two launches in order, the workspace freed.
// CHECK-LABEL: func.func @decode
// CHECK: %[[OUT:.+]] = memref.alloc() : memref<1x8x1x64xbf16>
// CHECK: %[[PART:.+]] = memref.alloc() : memref<[[S]]x1x8x1x64xf32>
// CHECK: %[[STATS:.+]] = memref.alloc() : memref<[[S]]x1x8x1x2xf32>
// CHECK: gpu.launch_func @[[NAME]]_module::@[[NAME]] blocks in (%c1{{.*}}, %c2{{.*}}, %c[[S]]{{.*}})
// CHECK: gpu.launch_func @[[NAME]]_module::@[[NAME]]_combine blocks in (%c8{{.*}}, %c1{{.*}}, %c1{{.*}}) threads in (%c64{{.*}}, {{.*}}) args(%[[PART]] : {{.*}}, %[[STATS]] : {{.*}}, %[[OUT]] : {{.*}})
// CHECK: memref.dealloc %[[PART]]
// CHECK: memref.dealloc %[[STATS]]
// Unsplit (kv-splits=1): one kernel that writes O, still packed.
// ONE: gpu.func @attn_fa2_mma_bf16_b1_h8_kv2_q1_k4096_d64_v64_bq16_bk{{32|64|128}}_w16_pack{{(_kw[0-9])?}}(
// ONE-NOT: _combine
// ONE: gpu.launch_func {{.*}} blocks in (%c1{{.*}}, %c2{{.*}}, %c1{{.*}})
func.func @decode(%q: tensor<1x8x1x64xbf16>, %kv: tensor<1x2x4096x64xbf16>) -> tensor<1x8x1x64xbf16> {
  %o = attn.attention %q, %kv, %kv scale(0.125)
      : tensor<1x8x1x64xbf16>, tensor<1x2x4096x64xbf16>, tensor<1x2x4096x64xbf16> -> tensor<1x8x1x64xbf16>
  return %o : tensor<1x8x1x64xbf16>
}

// -----

// Negative: a prefill grid that fills the GPU is neither packed nor split.
// CHECK-LABEL: gpu.func @attn_fa2_mma_bf16_b16_h16_kv16_q1024_k1024_d64_v64_bq128_bk64_w32(
// CHECK-NOT: _combine
// CHECK-LABEL: func.func @prefill
// CHECK: gpu.launch_func {{.*}} blocks in (%c8{{.*}}, %c256{{.*}}, %c1{{.*}})
func.func @prefill(%q: tensor<16x16x1024x64xbf16>) -> tensor<16x16x1024x64xbf16> {
  %o = attn.attention %q, %q, %q scale(0.125)
      : tensor<16x16x1024x64xbf16>, tensor<16x16x1024x64xbf16>, tensor<16x16x1024x64xbf16> -> tensor<16x16x1024x64xbf16>
  return %o : tensor<16x16x1024x64xbf16>
}

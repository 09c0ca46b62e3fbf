// RUN: attn-opt %s -split-input-file --attn-lower-to-gpu="kv-splits=1" | FileCheck %s
// RUN: attn-opt %s -split-input-file --attn-lower-to-gpu="kv-splits=1 mma=wgmma" | FileCheck %s --check-prefix=WG
// A score_mod region that reads only the score, its indices and constants
// is copied into the kernel once per score the lane holds, on the scaled
// score, before the masks; its math ops are rewritten into arithmetic and
// single PTX instructions;
// constants from above are cloned into the kernel
// (it is isolated from the host), and tensors it reads elements of are
// kernel parameters. What no kernel can copy stays on the host
// (attn-lower-to-gpu-fallback.mlir). The kernel name carries a hash of
// the region, so different modifications never share a kernel.

// Soft-capping at 50 with the cap defined above the op.
// CHECK-LABEL: gpu.module @attn_fa2_mma_bf16_b1_h2_kv2_q128_k128_d64_v64_causal_{{.*}}_smod0x
// CHECK: gpu.func @attn_fa2_mma_bf16_b1_h2_kv2_q128_k128_d64_v64_causal_{{.*}}_smod0x[[HASH:[0-9a-f]+]](
// The divide by the constant cap becomes a product with its reciprocal;
// math.tanh becomes 1 − 2/(e^{2x} + 1) on the SFU (ex2.approx, rcp.approx),
// never a libdevice call (those resolve only where the CUDA toolkit is
// found).
// CHECK: %[[INV:.*]] = arith.constant 2.000000e-02 : f32
// CHECK: arith.mulf %{{.*}}, %[[INV]] : f32
// CHECK: llvm.inline_asm "rcp.approx.ftz.f32 $0, $1;"
// CHECK-NOT: math.tanh
// CHECK-LABEL: func.func @softcap
// CHECK: gpu.launch_func @attn_fa2_mma_bf16_{{.*}}_smod0x[[HASH]]
// WG-LABEL: func.func @softcap
// WG: gpu.launch_func @attn_fa2_wgmma_bf16_{{.*}}_smod0x
func.func @softcap(%q: tensor<1x2x128x64xbf16>) -> tensor<1x2x128x64xbf16> {
  %cap = arith.constant 5.000000e+01 : f32
  %o = attn.attention %q, %q, %q scale(0.125) causal(top_left) score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %x = arith.divf %s, %cap : f32
    %t = math.tanh %x : f32
    %y = arith.mulf %t, %cap : f32
    attn.yield %y : f32
  } : tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16> -> tensor<1x2x128x64xbf16>
  return %o : tensor<1x2x128x64xbf16>
}

// -----

// The same cap at 30: another kernel.
// CHECK-LABEL: func.func @softcap_30
// CHECK-NOT: smod0x[[HASH]]
// CHECK: gpu.launch_func @attn_fa2_mma_bf16_{{.*}}_smod0x
func.func @softcap_30(%q: tensor<1x2x128x64xbf16>) -> tensor<1x2x128x64xbf16> {
  %cap = arith.constant 3.000000e+01 : f32
  %o = attn.attention %q, %q, %q scale(0.125) causal(top_left) score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %x = arith.divf %s, %cap : f32
    %t = math.tanh %x : f32
    %y = arith.mulf %t, %cap : f32
    attn.yield %y : f32
  } : tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16> -> tensor<1x2x128x64xbf16>
  return %o : tensor<1x2x128x64xbf16>
}

// -----

// A window from the indices at rank 3 ([H, L, d]): the region's (h, i, j)
// are the kernel's query head, query row and key.
// CHECK-LABEL: gpu.func @attn_fa2_mma_f16_b1_h2_kv2_q128_k128_d64_v64_{{.*}}_smod0x
// CHECK: %[[W:.*]] = arith.constant 37 : index
// CHECK-NEXT: %[[JW:.*]] = arith.addi %{{.*}}, %[[W]] : index
// CHECK-NEXT: arith.cmpi ugt, %[[JW]], %{{.*}} : index
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
func.func @window_rank3(%q: tensor<2x128x64xf16>) -> tensor<2x128x64xf16> {
  %o = attn.attention %q, %q, %q scale(0.125) score_mod {
  ^bb0(%s: f32, %h: index, %i: index, %j: index):
    %w = arith.constant 37 : index
    %jw = arith.addi %j, %w : index
    %keep = arith.cmpi ugt, %jw, %i : index
    %ninf = arith.constant 0xFF800000 : f32
    %y = arith.select %keep, %s, %ninf : f32
    attn.yield %y : f32
  } : tensor<2x128x64xf16>, tensor<2x128x64xf16>, tensor<2x128x64xf16> -> tensor<2x128x64xf16>
  return %o : tensor<2x128x64xf16>
}

// -----

// Mistral's mask: a window of 64 under causal. The K/V loop runs in three
// specialized runs: the tiles across the window's far edge apply the whole
// region; the tiles wholly inside the window and below the diagonal apply
// nothing per score (the region is the score itself there); the diagonal
// tiles apply the region and the causal mask.
// CHECK-LABEL: gpu.func @attn_fa2_mma_bf16_b1_h2_kv2_q256_k256_d64_v64_causal_{{.*}}_smod0x
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[EDGE_END:[0-9a-z_]+]] step
// CHECK: arith.cmpi slt, %{{.*}}, %c64
// CHECK: scf.for %{{.*}} = %[[EDGE_END]] to %[[INSIDE_END:[0-9a-z_]+]] step
// CHECK-NOT: arith.cmpi
// CHECK: scf.for %{{.*}} = %[[INSIDE_END]] to
// CHECK: arith.cmpi slt, %{{.*}}, %c64
// CHECK: arith.cmpi sgt
// CHECK: gpu.return
func.func @mistral_window(%q: tensor<1x2x256x64xbf16>) -> tensor<1x2x256x64xbf16> {
  %o = attn.attention %q, %q, %q scale(0.125) causal(top_left) score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %w = arith.constant 64 : index
    %d = arith.subi %i, %j : index
    %keep = arith.cmpi slt, %d, %w : index
    %ninf = arith.constant 0xFF800000 : f32
    %y = arith.select %keep, %s, %ninf : f32
    attn.yield %y : f32
  } : tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16> -> tensor<1x2x256x64xbf16>
  return %o : tensor<1x2x256x64xbf16>
}

// -----

// A soft-cap inside a window, with the window written as a drop: the
// tiles inside the window apply the soft-cap alone (its SFU reciprocal),
// without the window's compare and select.
// CHECK-LABEL: gpu.func @attn_fa2_mma_bf16_b1_h2_kv2_q256_k256_d64_v64_bq{{.*}}_smod0x
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[EDGE_END:[0-9a-z_]+]] step
// CHECK: arith.cmpi sge, %{{.*}}, %c64
// CHECK: scf.for %{{.*}} = %[[EDGE_END]] to
// CHECK-NOT: arith.cmpi sge
// CHECK: rcp.approx
// CHECK-NOT: arith.cmpi sge
// CHECK: gpu.return
func.func @softcap_in_window(%q: tensor<1x2x256x64xbf16>) -> tensor<1x2x256x64xbf16> {
  %o = attn.attention %q, %q, %q scale(0.125) score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %cap = arith.constant 5.000000e+01 : f32
    %x = arith.divf %s, %cap : f32
    %t = math.tanh %x : f32
    %capped = arith.mulf %t, %cap : f32
    %w = arith.constant 64 : index
    %d = arith.subi %i, %j : index
    %drop = arith.cmpi sge, %d, %w : index
    %ninf = arith.constant 0xFF800000 : f32
    %y = arith.select %drop, %ninf, %capped : f32
    attn.yield %y : f32
  } : tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16> -> tensor<1x2x256x64xbf16>
  return %o : tensor<1x2x256x64xbf16>
}

// -----

// A bound that is not exact (an unsigned i − j < 8 wraps for j > i): no
// tile is skipped and every tile applies the whole region.
// CHECK-LABEL: gpu.func @attn_fa2_mma_bf16_b1_h2_kv2_q256_k256_d64_v64_bq{{.*}}_smod0x
// CHECK: scf.for
// CHECK: arith.cmpi ult
// CHECK-NOT: scf.for
// CHECK: gpu.return
func.func @inexact_window(%q: tensor<1x2x256x64xbf16>) -> tensor<1x2x256x64xbf16> {
  %o = attn.attention %q, %q, %q scale(0.125) score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %w = arith.constant 8 : index
    %d = arith.subi %i, %j : index
    %keep = arith.cmpi ult, %d, %w : index
    %ninf = arith.constant 0xFF800000 : f32
    %y = arith.select %keep, %s, %ninf : f32
    attn.yield %y : f32
  } : tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16> -> tensor<1x2x256x64xbf16>
  return %o : tensor<1x2x256x64xbf16>
}

// -----

// A relative-position bias table (T5, or ALiBi tabulated) read from above
// with tensor.extract: the table is a kernel parameter after the others,
// each read a load at clamped indices (tensor.extract out of bounds is
// undefined; the kernel never reads past the buffer), and the host passes
// the table's buffer.
// CHECK-LABEL: gpu.func @attn_fa2_mma_bf16_b1_h2_kv2_q128_k128_d64_v64_causal_{{.*}}_smod0x
// CHECK-SAME: %[[TABLE:[a-z0-9]+]]: memref<2x255xf32>)
// CHECK: %[[R:.*]] = arith.addi %{{.*}}, %c127{{.*}} : index
// CHECK: %[[H:.*]] = arith.minui %{{.*}}, %c1{{.*}} : index
// CHECK: %[[RC:.*]] = arith.minui %[[R]], %c254{{.*}} : index
// CHECK: %[[X:.*]] = memref.load %[[TABLE]][%[[H]], %[[RC]]] : memref<2x255xf32>
// CHECK: arith.addf %{{.*}}, %[[X]] : f32
// CHECK-NOT: tensor.extract
// CHECK-LABEL: func.func @relative_bias_table
// CHECK: %[[BUF:.*]] = bufferization.to_buffer %{{.*}} : tensor<2x255xf32> to memref<2x255xf32>
// CHECK: gpu.launch_func @{{.*}}_smod0x{{.*}} args({{.*}}, %[[BUF]] : memref<2x255xf32>)
func.func @relative_bias_table(%q: tensor<1x2x128x64xbf16>, %table: tensor<2x255xf32>) -> tensor<1x2x128x64xbf16> {
  %o = attn.attention %q, %q, %q scale(0.125) causal(top_left) score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %off = arith.constant 127 : index
    %ji = arith.subi %j, %i : index
    %r = arith.addi %ji, %off : index
    %x = tensor.extract %table[%h, %r] : tensor<2x255xf32>
    %y = arith.addf %s, %x : f32
    attn.yield %y : f32
  } : tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16> -> tensor<1x2x128x64xbf16>
  return %o : tensor<1x2x128x64xbf16>
}

// -----

// The kernel a region gets. One that only bounds the keys (a sliding
// window: the score inside, -inf outside) reads nothing and runs only on
// the tiles straddling its bounds, so whole 128-row query tiles keep the
// unmodified pick at d = 128: the overlapped P·V in 128-key tiles, three
// stages (getMaskReads: MaskReads::KeyBounds). A region that changes the
// score (a soft-cap) counts as a mask read per score: no overlap, 64-key
// tiles. A window over a partial query tile is a window too: the region
// sees the rows unclamped (a clamp beside its comparisons spilled,
// bench/NOTES.md v45b, v46).
// (Not persistent CTAs, which the plain kernel of 512 causal work items
// takes: not measured with windows.) An identity region bounds nothing
// and is no window; with a mask tensor beside it, a window counts as the
// mask does (not measured together).
// WG-LABEL: func.func @window_whole_tiles
// WG: gpu.launch_func @attn_fa2_wgmma_bf16_b4_h16_kv16_q1024_k1024_d128_v128_causal_bq128_bk128_w16_s3_tma_ws_ov_smod0x
// WG-LABEL: func.func @softcap_whole_tiles
// WG: gpu.launch_func @attn_fa2_wgmma_bf16_b4_h16_kv16_q1024_k1024_d128_v128_causal_bq128_bk64_w16_tma_ws_smod0x
// WG-LABEL: func.func @window_partial_tile
// WG: gpu.launch_func @attn_fa2_wgmma_bf16_b4_h16_kv16_q1000_k1024_d128_v128_causal_bq128_bk128_w16_s3_tma_ws_ov_smod0x
// WG-LABEL: func.func @plain_whole_tiles
// WG: gpu.launch_func @attn_fa2_wgmma_bf16_b4_h16_kv16_q1024_k1024_d128_v128_causal_bq128_bk128_w16_s3_tma_ws_ov_pst132
// WG-LABEL: func.func @identity_whole_tiles
// WG: gpu.launch_func @attn_fa2_wgmma_bf16_b4_h16_kv16_q1024_k1024_d128_v128_causal_bq128_bk64_w16_tma_ws_smod0x
// WG-LABEL: func.func @window_beside_mask
// WG: gpu.launch_func @attn_fa2_wgmma_bf16_b4_h16_kv16_q1024_k1024_d128_v128_causal_keepx4x1x1x1024_bq128_bk64_w16_tma_ws_smod0x
func.func @window_whole_tiles(%q: tensor<4x16x1024x128xbf16>) -> tensor<4x16x1024x128xbf16> {
  %o = attn.attention %q, %q, %q scale(0.088) causal(top_left) score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %w = arith.constant 256 : index
    %jw = arith.addi %j, %w : index
    %keep = arith.cmpi ugt, %jw, %i : index
    %ninf = arith.constant 0xFF800000 : f32
    %y = arith.select %keep, %s, %ninf : f32
    attn.yield %y : f32
  } : tensor<4x16x1024x128xbf16>, tensor<4x16x1024x128xbf16>, tensor<4x16x1024x128xbf16> -> tensor<4x16x1024x128xbf16>
  return %o : tensor<4x16x1024x128xbf16>
}
func.func @softcap_whole_tiles(%q: tensor<4x16x1024x128xbf16>) -> tensor<4x16x1024x128xbf16> {
  %o = attn.attention %q, %q, %q scale(0.088) causal(top_left) score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %cap = arith.constant 5.000000e+01 : f32
    %x = arith.divf %s, %cap : f32
    %t = math.tanh %x : f32
    %y = arith.mulf %t, %cap : f32
    attn.yield %y : f32
  } : tensor<4x16x1024x128xbf16>, tensor<4x16x1024x128xbf16>, tensor<4x16x1024x128xbf16> -> tensor<4x16x1024x128xbf16>
  return %o : tensor<4x16x1024x128xbf16>
}
func.func @window_partial_tile(%q: tensor<4x16x1000x128xbf16>, %kv: tensor<4x16x1024x128xbf16>) -> tensor<4x16x1000x128xbf16> {
  %o = attn.attention %q, %kv, %kv scale(0.088) causal(top_left) score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %w = arith.constant 256 : index
    %jw = arith.addi %j, %w : index
    %keep = arith.cmpi ugt, %jw, %i : index
    %ninf = arith.constant 0xFF800000 : f32
    %y = arith.select %keep, %s, %ninf : f32
    attn.yield %y : f32
  } : tensor<4x16x1000x128xbf16>, tensor<4x16x1024x128xbf16>, tensor<4x16x1024x128xbf16> -> tensor<4x16x1000x128xbf16>
  return %o : tensor<4x16x1000x128xbf16>
}
func.func @plain_whole_tiles(%q: tensor<4x16x1024x128xbf16>) -> tensor<4x16x1024x128xbf16> {
  %o = attn.attention %q, %q, %q scale(0.088) causal(top_left) : tensor<4x16x1024x128xbf16>, tensor<4x16x1024x128xbf16>, tensor<4x16x1024x128xbf16> -> tensor<4x16x1024x128xbf16>
  return %o : tensor<4x16x1024x128xbf16>
}
func.func @identity_whole_tiles(%q: tensor<4x16x1024x128xbf16>) -> tensor<4x16x1024x128xbf16> {
  %o = attn.attention %q, %q, %q scale(0.088) causal(top_left) score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    attn.yield %s : f32
  } : tensor<4x16x1024x128xbf16>, tensor<4x16x1024x128xbf16>, tensor<4x16x1024x128xbf16> -> tensor<4x16x1024x128xbf16>
  return %o : tensor<4x16x1024x128xbf16>
}
func.func @window_beside_mask(%q: tensor<4x16x1024x128xbf16>, %m: tensor<4x1x1x1024xi1>) -> tensor<4x16x1024x128xbf16> {
  %o = attn.attention %q, %q, %q mask(%m : tensor<4x1x1x1024xi1>) scale(0.088) causal(top_left) score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %w = arith.constant 256 : index
    %jw = arith.addi %j, %w : index
    %keep = arith.cmpi ugt, %jw, %i : index
    %ninf = arith.constant 0xFF800000 : f32
    %y = arith.select %keep, %s, %ninf : f32
    attn.yield %y : f32
  } : tensor<4x16x1024x128xbf16>, tensor<4x16x1024x128xbf16>, tensor<4x16x1024x128xbf16> -> tensor<4x16x1024x128xbf16>
  return %o : tensor<4x16x1024x128xbf16>
}

// -----

// A finite fill (finfo.min, HuggingFace's masked_fill, which attn-detect
// keeps in the region): the region's logit goes to the exp2 domain by
// toExp2Domain, x·log2 e clamped at -FLT_MAX where x is finite, so a row
// of fills stays a uniform average; a -inf logit stays -inf, a masked key
// (bench/NOTES.md v65: multiplied by log2 e alone, -3.4e38 became -inf and
// such rows came out 0 on the GPU).
// CHECK-LABEL: gpu.func @attn_fa2_mma_bf16_b1_h2_kv2_q128_k128_d64_v64_{{.*}}_smod0x
// CHECK: %[[FILL:.*]] = arith.constant -3.40282347E+38 : f32
// CHECK: %[[Y:.*]] = arith.select %{{.*}}, %{{.*}}, %[[FILL]] : f32
// CHECK: %[[LOG2E:.*]] = arith.constant 1.44269502 : f32
// CHECK: %[[Y2:.*]] = arith.mulf %[[Y]], %[[LOG2E]] : f32
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[MASKED:.*]] = arith.cmpf oeq, %[[Y]], %[[NINF]] : f32
// CHECK: %[[LOWEST:.*]] = arith.constant -3.40282347E+38 : f32
// CHECK: %[[CLAMPED:.*]] = arith.maximumf %[[Y2]], %[[LOWEST]] : f32
// CHECK: arith.select %[[MASKED]], %[[Y2]], %[[CLAMPED]] : f32
func.func @finite_fill(%q: tensor<1x2x128x64xbf16>, %keep: tensor<128x128xi1>) -> tensor<1x2x128x64xbf16> {
  %fill = arith.constant -3.40282347E+38 : f32
  %o = attn.attention %q, %q, %q scale(0.125) score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %kp = tensor.extract %keep[%i, %j] : tensor<128x128xi1>
    %y = arith.select %kp, %s, %fill : f32
    attn.yield %y : f32
  } : tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16> -> tensor<1x2x128x64xbf16>
  return %o : tensor<1x2x128x64xbf16>
}

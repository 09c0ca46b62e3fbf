// RUN: attn-opt %s -split-input-file --attn-lower-to-gpu="mma=wgmma fp8-mma=on" -verify-diagnostics | FileCheck %s
// RUN: not attn-opt %s -split-input-file --attn-lower-to-gpu="mma=wgmma fp8-mma=on strict=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRICT
// (Under the default, as under fp8-mma=on, @split's request is an error.)
// RUN: not attn-opt %s -split-input-file --attn-lower-to-gpu="mma=wgmma" 2>&1 | FileCheck %s --check-prefix=DEFAULT
// RUN: attn-opt %s -split-input-file --attn-lower-to-gpu="mma=wgmma fp8-mma=off" 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: not attn-opt %s --attn-lower-to-gpu="fp8-mma=yes" 2>&1 | FileCheck %s --check-prefix=BADOPT
// BADOPT: error: attn-lower-to-gpu: fp8-mma must be auto, on or off, got 'yes'

// fp8-mma=auto (the default) is on: 8-bit inputs take the FP8 tensor-core
// kernel (bench/NOTES.md v43-v44b: 1.2-1.4x the bf16 kernel at N >= 4k);
// fp8-mma=off asks for the generic kernel, with the reason.
// DEFAULT: gpu.func @attn_fa2_wgmma_f8E4M3FN_b1_h2_kv2_q256_k256_d128_v128_bq128_bk128_w16_s3_tma_ws_ov_obf16_descale(
// OFF: warning: attn-lower-to-gpu: fp8-mma=off asks for the generic kernel for 8-bit float inputs; the generic GPU kernel runs it instead
// OFF: gpu.func @attn_generic_f8E4M3FN_b1_h2_kv2_q256_k256_d128_v128_obf16_descale(

// The FP8 tensor-core kernel: e4m3 Q·Kᵀ in k-steps of 32 from the
// swizzled atoms; V comes as Vᵀ tile images (the kernel's third parameter,
// [B, Hkv, tiles, 128 · dv bytes]) that a pre-kernel in the same module
// writes; the producer warpgroup (24 registers; the computing warpgroups
// 240, as bf16's) brings K's box and each tile's image by one 16 KB bulk
// copy on the same "full" mbarrier (no third barrier, no transposing
// there); P rounded to e4m3 four values per register; P·V from registers
// against Vᵀ read K-major (no transpose immediate: 8-bit wgmma has none);
// the descale factors read once. The pre-kernel gathers each 16-byte chunk
// of a Vᵀ row from 16 keys and stores it aligned; the host allocates the
// images, launches the pre-kernel, then the attention kernel, and frees them.
// CHECK-LABEL: gpu.func @attn_fa2_wgmma_f8E4M3FN_b1_h2_kv2_q256_k256_d128_v128_bq128_bk128_w16_s3_tma_ws_ov_obf16_descale(
// CHECK-SAME: %arg2: memref<1x2x2x16384xf8E4M3FN>
// CHECK-COUNT-6: nvvm.mbarrier.init %{{.*}}, %c{{1|256}}_i32
// CHECK-NOT: nvvm.mbarrier.init
// CHECK: nvvm.setmaxregister  decrease 24
// CHECK: nvvm.cp.async.bulk.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, %c16384_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.setmaxregister  increase 240
// The descale product's sign goes into the staged Q (each byte's sign bit
// flipped when it is negative: exact), so the scale times its magnitude is
// never negative and unmasked tiles keep raw scores: the row max on raw S,
// one FMA before each exp2 (bench/NOTES.md v44b).
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %{{.*}}, %c0_i32{{.*}} : i32
// CHECK: arith.select %[[NEG]], %c-9187201950435737472_i64{{.*}}, %c0_i64{{.*}} : i64
// CHECK: arith.xori %{{.*}}, %{{.*}} : vector<2xi64>
// CHECK-NOT: prmt.b32
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>, D[<f32>, <zero>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>]
// CHECK: arith.andi %{{.*}}, %c2147483647_i32{{.*}} : i32
// CHECK: llvm.intr.fma
// CHECK: cvt.rn.satfinite.e4m3x2.f32 lo, $2, $1
// CHECK: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {{.*}}, p, 1, 1;
// CHECK: gpu.func @attn_fa2_wgmma_f8E4M3FN_b1_h2_kv2_q256_k256_d128_v128_bq128_bk128_w16_s3_tma_ws_ov_obf16_descale_vt(%arg0: memref<1x2x256x128xf8E4M3FN>, %arg1: memref<1x2x2x16384xf8E4M3FN>) kernel attributes {known_block_size = array<i32: 128, 1, 1>}
// CHECK: vector.from_elements {{.*}} : vector<16xf8E4M3FN>
// CHECK: vector.store {{.*}} {alignment = 16 : i64} : memref<1x2x2x16384xf8E4M3FN>, vector<16xf8E4M3FN>
// CHECK-LABEL: func.func @fp8
// CHECK: %[[IMAGES:.*]] = memref.alloc() : memref<1x2x2x16384xf8E4M3FN>
// CHECK: gpu.launch_func  @{{.*}}::@{{.*}}_descale_vt blocks in (%c2{{.*}}, %c2{{.*}}, %c1{{.*}}) threads in (%c128{{.*}}, %c1{{.*}}, %c1{{.*}})  args(%{{.*}} : memref<1x2x256x128xf8E4M3FN>, %[[IMAGES]] : memref<1x2x2x16384xf8E4M3FN>)
// CHECK: gpu.launch_func  @{{.*}}::@{{.*}}_descale blocks
// CHECK-SAME: %[[IMAGES]] : memref<1x2x2x16384xf8E4M3FN>
// CHECK: memref.dealloc %[[IMAGES]]
func.func @fp8(%q: tensor<1x2x256x128xf8E4M3FN>, %k: tensor<1x2x256x128xf8E4M3FN>, %v: tensor<1x2x256x128xf8E4M3FN>, %a: tensor<f32>, %b: tensor<f32>, %c: tensor<f32>) -> tensor<1x2x256x128xbf16> {
  %o = attn.attention %q, %k, %v descale(%a, %b, %c : tensor<f32>, tensor<f32>, tensor<f32>) scale(0.088) : tensor<1x2x256x128xf8E4M3FN>, tensor<1x2x256x128xf8E4M3FN>, tensor<1x2x256x128xf8E4M3FN> -> tensor<1x2x256x128xbf16>
  return %o : tensor<1x2x256x128xbf16>
}

// -----

// A score_mod sees the real score: Q·Kᵀ times scale and |q_descale·
// k_descale| (its sign in Q), as the generic kernel and the CPU lowering
// (bench/NOTES.md v44b: the descale factors were missing there).
// CHECK-LABEL: gpu.func @attn_fa2_wgmma_f8E4M3FN_b1_h2_kv2_q256_k256_d128_v128_bq128_bk64_w16_tma_ws_smod{{.*}}_obf16_descale(
// CHECK: %[[SCALE:.*]] = arith.constant 1.250000e-01 : f32
// CHECK-NEXT: %[[BITS:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK-NEXT: %[[MASK:.*]] = arith.constant 2147483647 : i32
// CHECK-NEXT: %[[MAG:.*]] = arith.andi %[[BITS]], %[[MASK]] : i32
// CHECK-NEXT: %[[ABS:.*]] = arith.bitcast %[[MAG]] : i32 to f32
// CHECK-NEXT: %[[MODSCALE:.*]] = arith.mulf %[[SCALE]], %[[ABS]] : f32
// CHECK: %[[S:.*]] = arith.mulf %{{.*}}, %[[MODSCALE]] : f32
// CHECK: arith.mulf %[[S]], %cst{{.*}} : f32
func.func @softcap(%q: tensor<1x2x256x128xf8E4M3FN>, %a: tensor<f32>, %b: tensor<f32>, %c: tensor<f32>) -> tensor<1x2x256x128xbf16> {
  %cap = arith.constant 30.0 : f32
  %o = attn.attention %q, %q, %q descale(%a, %b, %c : tensor<f32>, tensor<f32>, tensor<f32>) scale(0.125) score_mod {
  ^bb0(%s: f32, %bb: index, %h: index, %i: index, %j: index):
    %x = arith.divf %s, %cap : f32
    %t = math.tanh %x : f32
    %y = arith.mulf %t, %cap : f32
    attn.yield %y : f32
  } : tensor<1x2x256x128xf8E4M3FN>, tensor<1x2x256x128xf8E4M3FN>, tensor<1x2x256x128xf8E4M3FN> -> tensor<1x2x256x128xbf16>
  return %o : tensor<1x2x256x128xbf16>
}

// -----

// E5M2 V: P stays e4m3 (three mantissa bits), V's operand e5m2.
// CHECK-LABEL: gpu.func @attn_fa2_wgmma_f8E5M2_
// CHECK: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e5m2
func.func @e5m2(%q: tensor<1x2x128x64xf8E5M2>) -> tensor<1x2x128x64xf16> {
  %o = attn.attention %q, %q, %q scale(0.125) causal(top_left) : tensor<1x2x128x64xf8E5M2>, tensor<1x2x128x64xf8E5M2>, tensor<1x2x128x64xf8E5M2> -> tensor<1x2x128x64xf16>
  return %o : tensor<1x2x128x64xf16>
}

// -----

// A head dim that is no multiple of the 32-element k-step: the generic
// kernel, with the reason (an error under strict=true).
// CHECK-LABEL: gpu.func @attn_generic_f8E4M3FN_b1_h2_kv2_q64_k64_d80_v80_obf16(
// STRICT: error: attn-lower-to-gpu: the 8-bit float tensor-core kernel needs d a multiple of 32 (its k-steps) and dv of 16, got d = 80, dv = 80
func.func @d80(%q: tensor<1x2x64x80xf8E4M3FN>) -> tensor<1x2x64x80xbf16> {
  // expected-warning @+1 {{attn-lower-to-gpu: the 8-bit float tensor-core kernel needs d a multiple of 32 (its k-steps) and dv of 16, got d = 80, dv = 80; the generic GPU kernel runs it instead}}
  %o = attn.attention %q, %q, %q scale(0.125) : tensor<1x2x64x80xf8E4M3FN>, tensor<1x2x64x80xf8E4M3FN>, tensor<1x2x64x80xf8E4M3FN> -> tensor<1x2x64x80xbf16>
  return %o : tensor<1x2x64x80xbf16>
}

// -----

// A request the kernel cannot honour (split keys) is an error: the
// options ask for a kernel that does not exist.
func.func @split(%q: tensor<1x2x256x128xf8E4M3FN>) -> tensor<1x2x256x128xbf16> {
  // expected-error @+1 {{the 8-bit float tensor-core kernel runs over unsplit keys (kv-splits=1, kv-warps=1)}}
  %o = attn.attention %q, %q, %q scale(0.088) {kernel_config = #attn.kernel_config<family = "wgmma", block_q = 128, block_kv = 128, rows_per_warp = 16, kv_stages = 3, swizzle = false, kv_splits = 2, tma_loads = true, producer_warpgroup = true, overlap_pv = true>} : tensor<1x2x256x128xf8E4M3FN>, tensor<1x2x256x128xf8E4M3FN>, tensor<1x2x256x128xf8E4M3FN> -> tensor<1x2x256x128xbf16>
  return %o : tensor<1x2x256x128xbf16>
}

// -----

// Causal with more query-tile pairs than SMs: persistent CTAs, as the bf16
// kernel takes them (bench/NOTES.md v43d); the Vᵀ pre-kernel is the same.
// CHECK-LABEL: gpu.func @attn_fa2_wgmma_f8E4M3FN_b2_h16_kv4_q2048_k2048_d128_v128_causal_bq128_bk128_w16_s3_tma_ws_ov_pst132_obf16(
// CHECK: gpu.func @attn_fa2_wgmma_f8E4M3FN_b2_h16_kv4_q2048_k2048_d128_v128_causal_bq128_bk128_w16_s3_tma_ws_ov_pst132_obf16_vt(
// CHECK-LABEL: func.func @persistent
// CHECK: gpu.launch_func  @{{.*}}::@{{.*}}_vt blocks in (%c16{{.*}}, %c8{{.*}}, %c1{{.*}})
// CHECK: gpu.launch_func  @{{.*}}::@{{.*}}_pst132_obf16 blocks in (%c132{{.*}}, %c1{{.*}}, %c1{{.*}})
func.func @persistent(%q: tensor<2x16x2048x128xf8E4M3FN>, %kv: tensor<2x4x2048x128xf8E4M3FN>) -> tensor<2x16x2048x128xbf16> {
  %o = attn.attention %q, %kv, %kv scale(0.088) causal(top_left) : tensor<2x16x2048x128xf8E4M3FN>, tensor<2x4x2048x128xf8E4M3FN>, tensor<2x4x2048x128xf8E4M3FN> -> tensor<2x16x2048x128xbf16>
  return %o : tensor<2x16x2048x128xbf16>
}

// -----

// dv = 160 and a partial last tile: the Vᵀ pre-kernel runs one task per
// thread (160 threads: 20 column octets × 8 chunks of one atom), with no
// loop (a 128-thread loop spilled at dv = 160); a task counts its present
// keys once in i32 and tests each key against that count.
// CHECK-LABEL: gpu.func @attn_fa2_wgmma_f8E4M3FN_b1_h1_kv1_q200_k200_d128_v160_{{.*}}_vt(
// CHECK-SAME: known_block_size = array<i32: 160, 1, 1>
// CHECK-NOT: scf.for
// CHECK: arith.index_castui %{{.*}} : index to i32
// CHECK-COUNT-16: arith.cmpi ult, %c{{[0-9]+}}_i32{{.*}}, %{{.*}} : i32
// CHECK: gpu.return
// CHECK-LABEL: func.func @dv160
// CHECK: gpu.launch_func  @{{.*}}::@{{.*}}_vt blocks in (%c2{{.*}}, %c1{{.*}}, %c1{{.*}}) threads in (%c160{{.*}}, %c1{{.*}}, %c1{{.*}})
func.func @dv160(%q: tensor<1x1x200x128xf8E4M3FN>, %v: tensor<1x1x200x160xf8E4M3FN>) -> tensor<1x1x200x160xbf16> {
  %o = attn.attention %q, %q, %v scale(0.088) : tensor<1x1x200x128xf8E4M3FN>, tensor<1x1x200x128xf8E4M3FN>, tensor<1x1x200x160xf8E4M3FN> -> tensor<1x1x200x160xbf16>
  return %o : tensor<1x1x200x160xbf16>
}

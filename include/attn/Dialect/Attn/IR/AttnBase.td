//===- AttnBase.td - attn dialect definition ---------------*- tablegen -*-===//
//
// The `attn` dialect: attention graphs, the exact fused attention op, and the
// tiled online-softmax form that the CPU and GPU lowerings consume.
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_DIALECT_ATTN_IR_ATTNBASE_TD
#define ATTN_DIALECT_ATTN_IR_ATTNBASE_TD

include "mlir/IR/OpBase.td"

def Attn_Dialect : Dialect {
  let name = "attn";
  let cppNamespace = "::mlir::attn";
  let summary = "Attention graphs and their fused, tiled forms";
  let description = [{
    The `attn` dialect has three layers.

    1. *Graph primitives* (`attn.matmul`, `attn.scale`, `attn.mask`,
       `attn.softmax`) are enough to spell softmax(Q·Kᵀ·s + M)·V by hand, one
       materialized tensor per step, the way frameworks emit it.
    2. `attn.attention` is the exact fused semantic op. It states *what* is
       computed and nothing about *how*: the Lq×Lk score matrix is implicit.
    3. `attn.online_attention` is one step of the tiled online-softmax
       (FlashAttention-2) recurrence on a Q tile and a K/V tile. It carries the
       running row max and row sum explicitly, so the Lq×Lk matrix is never
       materialized.

    `--attn-detect` raises (1) and linalg/tosa IR to (2); `--attn-fuse`
    rewrites (2) into loops over (3); lowerings take (3) to CPU loops or GPU
    kernels.
  }];
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

// attn ops compute tensors from values that dominate them: they must sit in
// a region with SSA dominance (a function or loop body). In a graph region
// such as a module body `%x = attn.mask causal %x` is legal IR, a cycle no
// lowering can compute (the fuzzer found the canonicalizer spinning on it).
def Attn_InSSACFGRegion : NativeOpTrait<"InSSACFGRegion"> {
  let cppNamespace = "::mlir::attn";
}

class Attn_Op<string mnemonic, list<Trait> traits = []>
    : Op<Attn_Dialect, mnemonic, !listconcat(traits, [Attn_InSSACFGRegion])>;

#endif // ATTN_DIALECT_ATTN_IR_ATTNBASE_TD

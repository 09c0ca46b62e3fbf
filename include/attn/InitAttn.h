//===- InitAttn.h - registration entry points for attn-opt users -*- C++ -*-===//
//
// The two calls an MLIR-based compiler makes to use attn-opt's dialect and
// passes: add the dialect to its registry, and make the passes (and the
// `attn-cpu-pipeline` / `attn-gpu-pipeline` pipelines) parseable by name.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_INITATTN_H
#define ATTN_INITATTN_H

namespace mlir {
class DialectRegistry;
namespace attn {

/// Adds the `attn` dialect, plus the dialects its passes create ops in, to
/// `registry`.
void registerAttnDialect(DialectRegistry &registry);

/// Registers every `attn-*` pass and pipeline with the global pass registry.
/// Safe to call more than once.
void registerAttnPasses();

} // namespace attn
} // namespace mlir

#endif // ATTN_INITATTN_H

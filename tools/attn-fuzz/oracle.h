//===- oracle.h - semantic oracle of the fuzz targets -----------*- C++ -*-===//
//
// Detection must preserve semantics. For an input that --attn-detect raises
// (more attn.attention ops after it than before) and whose public functions
// take and return small static f32/f16/bf16/i1 tensors, the oracle lowers two
// copies through --attn-cpu-pipeline (detect=false and detect=true), JITs
// both, calls every public function on the same pseudo-random inputs and
// compares the results. A difference beyond the documented ones (fully
// masked rows: 0 instead of NaN; masked keys with non-finite V) and the
// rounding tolerance prints both and aborts, so libFuzzer records it.
// FUZZING.md describes the rules.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_TOOLS_ATTN_FUZZ_ORACLE_H
#define ATTN_TOOLS_ATTN_FUZZ_ORACLE_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <string>

namespace mlir {
class DialectRegistry;
class ModuleOp;
} // namespace mlir

namespace attnfuzz {

/// Adds the LLVM IR translations the JIT needs to `registry`, and
/// initializes the native target (once).
void registerOracle(mlir::DialectRegistry &registry);

/// Runs the oracle on `module` (which it does not modify); `input` seeds the
/// random arguments. Aborts on a mismatch. Off when ATTN_FUZZ_ORACLE=0.
void checkDetectionSemantics(mlir::ModuleOp module,
                             llvm::ArrayRef<uint8_t> input);

/// One line of counters: raised inputs, checks run, mismatches, time.
std::string oracleStats();

} // namespace attnfuzz

#endif // ATTN_TOOLS_ATTN_FUZZ_ORACLE_H

/*===- attn-c/AttnOpt.h - attn-opt's C API ---------------------*- C -*-===//
 *
 * A plain C ABI over the compiler, for callers that cannot or should not link
 * C++ against one LLVM build: the attnopt Python package (through ctypes, so
 * one wheel serves every Python 3 version), and other languages' FFIs.
 *
 * Text in, JSON out. Every call parses its input in a fresh MLIRContext with
 * every dialect attn-opt knows, runs passes, and returns one JSON object in
 * *out_json (allocated here; release it with attnopt_free):
 *
 *   success (return 0):  {"ir": "<printed module>", "remarks": ["loc: remark: ..."],
 *                         "count": N}          (attnopt_run_pipeline)
 *                        {"report": "<the io-cost JSON report>", "remarks": [...]}
 *                                              (attnopt_io_cost_report)
 *   failure (return 1):  {"error": "<message, then every diagnostic as
 *                         'file:line:col: error: ...' lines>"}
 *
 * No call aborts the process on bad input: diagnostics become the error
 * message, and a crash inside MLIR or LLVM (a failed assertion, an LLVM fatal
 * error, a signal, a stack overflow from deeply nested input) is recovered
 * and reported as an error saying so. Calls may run concurrently on
 * different threads.
 *
 *===----------------------------------------------------------------------===*/
#ifndef ATTN_C_ATTNOPT_H
#define ATTN_C_ATTNOPT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define ATTNOPT_CAPI_EXPORTED __attribute__((visibility("default")))
#else
#define ATTNOPT_CAPI_EXPORTED
#endif

/* "attn-opt <version> (<git commit>)": part of every compiled-kernel cache
 * key, so that kernels compiled by another compiler are not reused. */
ATTNOPT_CAPI_EXPORTED const char *attnopt_version(void);

/* Parses `mlir` (`mlir_len` bytes; need not be NUL-terminated) and runs
 * `pipeline`, a textual pass pipeline anchored on the module (e.g.
 * "func.func(attn-detect),attn-io-cost"). When `count_op` is non-empty the
 * result's "count" is the number of ops of that name in the result. */
ATTNOPT_CAPI_EXPORTED int attnopt_run_pipeline(const char *mlir, size_t mlir_len,
                                               const char *pipeline,
                                               const char *count_op,
                                               char **out_json);

/* --attn-io-cost with typed options, returning its JSON report.
 * `options_json` is an object: "target" (a preset name, a string) and any of
 * the integer overrides "sram_bytes", "sm_count", "ctas_per_sm", "l2_bytes",
 * "block_q", "block_kv" and the rate overrides "hbm_bandwidth",
 * "l2_bandwidth", "peak_f16", "peak_bf16", "peak_f32", "peak_f64",
 * "peak_scalar". An unknown key, a wrong type, or a value that is not
 * finite and positive is an error. */
ATTNOPT_CAPI_EXPORTED int attnopt_io_cost_report(const char *mlir, size_t mlir_len,
                                                 const char *options_json,
                                                 char **out_json);

/* The attn-opt command line (argv[0] is the program name); returns its exit
 * code. It parses LLVM's global options: call it at most once per process. */
ATTNOPT_CAPI_EXPORTED int attnopt_main(int argc, char **argv);

/* Releases a string this API returned. NULL is ignored. */
ATTNOPT_CAPI_EXPORTED void attnopt_free(char *json);

#ifdef __cplusplus
}
#endif

#endif /* ATTN_C_ATTNOPT_H */

/*===- capi-test.c - attn-opt's C API from C ------------------------------===//
 *
 * Compiled as C (not C++), so the header is checked to be valid C. Each
 * step prints its status and the reply; capi.test checks them.
 *
 *===----------------------------------------------------------------------===*/
#include "attn-c/AttnOpt.h"

#include <stdio.h>
#include <string.h>

static const char kAttention[] =
    "func.func @f(%q: tensor<1x2x64x32xf16>, %k: tensor<1x2x64x32xf16>,\n"
    "             %v: tensor<1x2x64x32xf16>) -> tensor<1x2x64x32xf16> {\n"
    "  %o = attn.attention %q, %k, %v scale(0.5) : tensor<1x2x64x32xf16>,\n"
    "       tensor<1x2x64x32xf16>, tensor<1x2x64x32xf16> -> tensor<1x2x64x32xf16>\n"
    "  return %o : tensor<1x2x64x32xf16>\n}\n";

static void pipeline(const char *step, const char *mlir, size_t len, const char *passes,
                     const char *countOp) {
  char *reply = NULL;
  int status = attnopt_run_pipeline(mlir, len, passes, countOp, &reply);
  printf("%s: status %d: %.300s\n", step, status, reply ? reply : "(null)");
  attnopt_free(reply);
}

static void ioCost(const char *step, const char *options) {
  char *reply = NULL;
  int status = attnopt_io_cost_report(kAttention, strlen(kAttention), options, &reply);
  printf("%s: status %d: %s\n", step, status, reply ? reply : "(null)");
  attnopt_free(reply);
}

int main(void) {
  printf("version: %s\n", attnopt_version());
  pipeline("fuse", kAttention, strlen(kAttention), "attn-io-cost,func.func(attn-fuse)",
           "attn.online_attention");
  /* Only the first `len` bytes are input: the cut text does not parse. */
  pipeline("length", kAttention, 40, "func.func(attn-detect)", "");
  pipeline("parse-error", "func.func @f( {", 15, "func.func(attn-detect)", "");
  pipeline("bad-pipeline", kAttention, strlen(kAttention), "attn-no-such-pass", "");
  pipeline("bad-option", kAttention, strlen(kAttention), "attn-gpu-pipeline{chip=sm_70}", "");
  pipeline("null", NULL, 0, "attn-io-cost", "");
  ioCost("io-cost", "{\"target\": \"h100\", \"sram_bytes\": 65536}");
  ioCost("io-cost-unknown", "{\"sram\": 1}");
  ioCost("io-cost-negative", "{\"hbm_bandwidth\": -1}");
  ioCost("io-cost-not-int", "{\"block_q\": 2.5}");
  ioCost("io-cost-not-json", "{target");
  ioCost("io-cost-not-object", "[1]");
  attnopt_free(NULL);
  return 0;
}

//===- SanitizerDefaults.h - ASan defaults for attn's executables -*- C++ -*-===//
//
// Included by exactly one source file of each executable (it defines a
// function). Only sanitizer builds see the definition.
//
// Our code is instrumented, libMLIR.so is not, and both allocate from the
// same llvm::BumpPtrAllocator slabs (an MLIRContext's storage uniquer). The
// instrumented copy of the allocator poisons a fresh slab and unpoisons only
// what it hands out; the uninstrumented inline copy inside libMLIR.so hands
// out memory from that slab without unpoisoning it. ASan then reports a
// use-after-poison on memory that is in use correctly (attn-fuzz found
// this on its first minutes). Manual poisoning is therefore off; real heap
// errors are still caught by ASan's own redzones and quarantine.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_TOOLS_SANITIZERDEFAULTS_H
#define ATTN_TOOLS_SANITIZERDEFAULTS_H

#include "llvm/Support/Compiler.h"

#if LLVM_ADDRESS_SANITIZER_BUILD
extern "C" LLVM_ATTRIBUTE_USED const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}
#endif

#endif // ATTN_TOOLS_SANITIZERDEFAULTS_H

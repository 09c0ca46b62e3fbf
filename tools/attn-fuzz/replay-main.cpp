//===- replay-main.cpp - run the fuzz target over saved inputs ------------===//
//
// `attn-fuzz-replay PATH...` runs LLVMFuzzerTestOneInput once per file (a
// directory stands for the files in it). This is how CI replays the
// committed corpus and crash reproducers without libFuzzer: any crash,
// assertion or sanitizer report fails the run.
//
//===----------------------------------------------------------------------===//
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>
#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/// A line of target-specific counters (attn-fuzz: the semantic oracle's),
/// printed before the summary when not empty.
extern "C" const char *attnFuzzReplaySummary();

int main(int argc, char **argv) {
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    if (!llvm::sys::fs::is_directory(argv[i])) {
      files.push_back(argv[i]);
      continue;
    }
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(argv[i], ec), end;
         it != end && !ec; it.increment(ec))
      if (!llvm::sys::fs::is_directory(it->path()))
        files.push_back(it->path());
    if (ec) {
      llvm::errs() << "attn-fuzz-replay: " << argv[i] << ": " << ec.message()
                   << "\n";
      return 1;
    }
  }
  // A stable order makes a failure reproducible from the log.
  std::sort(files.begin(), files.end());
  static const bool trace = getenv("ATTN_FUZZ_REPLAY_TRACE") != nullptr;
  for (const std::string &f : files) {
    if (trace)
      llvm::errs() << "attn-fuzz-replay: " << f << "\n";
    auto buf = llvm::MemoryBuffer::getFile(f);
    if (!buf) {
      llvm::errs() << "attn-fuzz-replay: cannot read " << f << "\n";
      return 1;
    }
    LLVMFuzzerTestOneInput(
        reinterpret_cast<const uint8_t *>((*buf)->getBufferStart()),
        (*buf)->getBufferSize());
  }
  if (const char *extra = attnFuzzReplaySummary(); extra && *extra)
    llvm::outs() << extra << "\n";
  llvm::outs() << "attn-fuzz-replay: " << files.size() << " inputs, no crash\n";
  return 0;
}

//===- attn-run.cpp - Run a dumped attn-opt kernel on the GPU -------------===//
//
//   attn-run KERNEL.json --in q=q.bin --in k=k.bin --in v=v.bin --out o.bin
//            [--device N] [--repeat N] [--print-plan]
//
// Loads <KERNEL>.ptx and its manifest with libattnrt, copies each input
// from a raw little-endian file of exactly the manifest's size to the
// device, launches every kernel the manifest lists (in order, one stream),
// and writes the output `o` back. --repeat times N launches with CUDA
// events and prints the median. It is also the example of linking
// libattnrt: everything here goes through Runtime.h.
//
//===----------------------------------------------------------------------===//
#include "attn/Runtime/Runtime.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir::attn::runtime;
namespace cl = llvm::cl;

static cl::opt<std::string> manifestPath(cl::Positional, cl::Required,
                                         cl::desc("<kernel>.json (the .ptx beside it)"));
static cl::list<std::string> inputs("in", cl::desc("NAME=FILE: a raw input for param NAME"),
                                    cl::value_desc("NAME=FILE"));
static cl::opt<std::string> outputPath("out", cl::desc("Write the output o here (raw)"),
                                       cl::value_desc("FILE"));
static cl::opt<int> deviceIndex("device", cl::desc("CUDA device ordinal"), cl::init(0));
static cl::opt<int> repeat("repeat", cl::desc("Time this many launches (median, CUDA events)"),
                           cl::init(0));
static cl::opt<bool> printPlan("print-plan", cl::desc("Print the launches and exit"));

static int fail(const llvm::Twine &why) {
  llvm::WithColor::error(llvm::errs(), "attn-run") << why << "\n";
  return 1;
}

static void print(const LaunchPlan &plan) {
  llvm::outs() << plan.kernelName() << "\n";
  for (const TensorSpec &t : plan.params())
    llvm::outs() << "  param " << t.name << ": " << elementTypeName(t.type) << " x "
                 << t.numElements() << " (" << t.bytes() << " bytes)\n";
  for (const TensorSpec &t : plan.workspace())
    llvm::outs() << "  workspace " << t.name << ": " << t.bytes() << " bytes\n";
  for (const TensorMapSpec &m : plan.tensorMaps())
    llvm::outs() << "  tensor map " << m.arg << " over " << m.tensor << " (swizzle " << m.swizzle
                 << ")\n";
  for (const Launch &l : plan.launches()) {
    llvm::outs() << "  launch " << l.kernel << " grid (" << l.grid[0] << ", " << l.grid[1]
                 << ", " << l.grid[2] << ") block (" << l.block[0] << ", " << l.block[1] << ", "
                 << l.block[2] << ") smem " << l.dynamicSharedMemoryBytes << " args";
    for (const std::string &a : l.args)
      llvm::outs() << " " << a;
    llvm::outs() << "\n";
  }
}

/// The --in files by param name; every param but `o` needs one.
static llvm::Expected<llvm::StringMap<std::string>> inputFiles(const LaunchPlan &plan) {
  llvm::StringMap<std::string> files;
  for (const std::string &spec : inputs) {
    auto [name, path] = llvm::StringRef(spec).split('=');
    if (path.empty() || !plan.findParam(name) || name == "o")
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "--in " + spec + ": expected NAME=FILE for an input of " +
                                         plan.kernelName());
    files[name] = path.str();
  }
  for (const TensorSpec &p : plan.params())
    if (p.name != "o" && !files.count(p.name))
      return llvm::createStringError(llvm::inconvertibleErrorCode(), "no --in for '" + p.name + "'");
  return files;
}

/// Device buffers for every param, inputs copied from their files.
static llvm::Error upload(const LaunchPlan &plan, const llvm::StringMap<std::string> &files,
                          std::vector<TensorArg> &args) {
  for (const TensorSpec &p : plan.params()) {
    CUdeviceptr buffer;
    if (llvm::Error e = checkCuda(cuMemAlloc(&buffer, p.bytes()), "cuMemAlloc(" + p.name + ")"))
      return e;
    args.push_back({p.name, buffer, p.type, p.shape});
    if (p.name == "o")
      continue;
    // lookup() returns the path by value: a StringRef to it would dangle.
    std::string path = files.lookup(p.name);
    auto data = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
    if (!data)
      return llvm::createStringError(data.getError(), "cannot read '" + path + "'");
    if ((*data)->getBufferSize() != p.bytes())
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "'" + path + "' has " + llvm::Twine((*data)->getBufferSize()) +
                                         " bytes; " + p.name + " needs " + llvm::Twine(p.bytes()));
    if (llvm::Error e = checkCuda(cuMemcpyHtoD(buffer, (*data)->getBufferStart(), p.bytes()),
                                  "cuMemcpyHtoD(" + p.name + ")"))
      return e;
  }
  return llvm::Error::success();
}

/// The median time of `repeat` launches, in milliseconds.
static llvm::Expected<float> timeLaunches(const LoadedKernel &kernel,
                                          llvm::ArrayRef<TensorArg> args) {
  std::vector<float> ms;
  CUevent start, stop;
  if (llvm::Error e = checkCuda(cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate"))
    return std::move(e);
  if (llvm::Error e = checkCuda(cuEventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate"))
    return std::move(e);
  for (int i = 0; i < repeat; ++i) {
    float t = 0;
    if (llvm::Error e = checkCuda(cuEventRecord(start, nullptr), "cuEventRecord"))
      return std::move(e);
    if (llvm::Error e = kernel.launch(args, nullptr))
      return std::move(e);
    if (llvm::Error e = checkCuda(cuEventRecord(stop, nullptr), "cuEventRecord"))
      return std::move(e);
    if (llvm::Error e = checkCuda(cuEventSynchronize(stop), "cuEventSynchronize"))
      return std::move(e);
    if (llvm::Error e = checkCuda(cuEventElapsedTime(&t, start, stop), "cuEventElapsedTime"))
      return std::move(e);
    ms.push_back(t);
  }
  cuEventDestroy(start);
  cuEventDestroy(stop);
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  return ms[ms.size() / 2];
}

static llvm::Error run() {
  if (deviceIndex < 0 || repeat < 0)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "--device and --repeat must not be negative");
  if (llvm::Error e = initPrimaryContext(deviceIndex))
    return e;
  auto kernel = LoadedKernel::loadFiles(manifestPath);
  if (!kernel)
    return kernel.takeError();
  const LaunchPlan &plan = (*kernel)->plan();
  const TensorSpec *o = plan.findParam("o");
  if (!outputPath.empty() && !o)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "--out: the manifest has no param 'o' to copy back");
  auto files = inputFiles(plan);
  if (!files)
    return files.takeError();
  std::vector<TensorArg> args;
  llvm::Error status = upload(plan, *files, args);
  if (!status) {
    if (llvm::Error e = (*kernel)->launch(args, nullptr))
      return e;
    status = checkCuda(cuCtxSynchronize(), "the kernels");
  }
  if (!status && !outputPath.empty()) {
    std::vector<char> host(o->bytes());
    auto out = llvm::find_if(args, [](const TensorArg &a) { return a.name == "o"; });
    status = checkCuda(cuMemcpyDtoH(host.data(), out->address, host.size()), "cuMemcpyDtoH(o)");
    if (!status) {
      std::error_code ec;
      llvm::raw_fd_ostream file(outputPath, ec, llvm::sys::fs::OF_None);
      if (ec)
        status = llvm::createStringError(ec, "cannot write '" + outputPath + "'");
      else
        file.write(host.data(), host.size());
    }
  }
  if (!status && repeat > 0) {
    llvm::Expected<float> median = timeLaunches(**kernel, args);
    if (!median)
      status = median.takeError();
    else
      llvm::outs() << "median of " << repeat << " launches: " << *median << " ms\n";
  }
  for (const TensorArg &a : args)
    (void)cuMemFree(a.address);
  return status;
}

int main(int argc, char **argv) {
  cl::ParseCommandLineOptions(argc, argv, "Run a kernel that attn-opt dumped\n");
  if (printPlan) {
    auto manifest = llvm::MemoryBuffer::getFile(manifestPath, /*IsText=*/true);
    if (!manifest)
      return fail("cannot read '" + manifestPath + "': " + manifest.getError().message());
    llvm::Expected<LaunchPlan> plan = LaunchPlan::parse((*manifest)->getBuffer());
    if (!plan)
      return fail(llvm::toString(plan.takeError()));
    print(*plan);
    return 0;
  }
  if (llvm::Error e = run())
    return fail(llvm::toString(std::move(e)));
  return 0;
}

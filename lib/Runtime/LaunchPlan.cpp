//===- LaunchPlan.cpp - A kernel's launch manifest, read and checked ------===//
//
// The manifest's JSON is read with llvm::json's ObjectMapper (each error
// names the path of the field at fault), then checked as a whole: what the
// runtime would otherwise find out as a CUDA launch failure, or never.
//
//===----------------------------------------------------------------------===//
#include "attn/Runtime/LaunchPlan.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir::attn::runtime;
namespace json = llvm::json;

namespace {
/// Each element type's manifest name and size: the one table the parser,
/// the printer and the byte counts read.
struct ElementTypeInfo {
  ElementType type;
  llvm::StringLiteral name;
  size_t bytes;
};
constexpr ElementTypeInfo kElementTypes[] = {
    {ElementType::BF16, "bf16", 2}, {ElementType::F16, "f16", 2}, {ElementType::F32, "f32", 4},
    {ElementType::F64, "f64", 8},   {ElementType::F8E4M3FN, "f8E4M3FN", 1},
    {ElementType::F8E5M2, "f8E5M2", 1}, {ElementType::I8, "i8", 1},   {ElementType::I16, "i16", 2},
    {ElementType::I32, "i32", 4},   {ElementType::I64, "i64", 8}, {ElementType::Bool, "i1", 1}};

const ElementTypeInfo &info(ElementType type) {
  for (const ElementTypeInfo &i : kElementTypes)
    if (i.type == type)
      return i;
  llvm_unreachable("unknown element type");
}
} // namespace

size_t mlir::attn::runtime::elementBytes(ElementType type) { return info(type).bytes; }

llvm::StringRef mlir::attn::runtime::elementTypeName(ElementType type) { return info(type).name; }

int64_t TensorSpec::numElements() const {
  int64_t n = 1;
  for (int64_t e : shape)
    n *= e;
  return n;
}

size_t TensorSpec::bytes() const { return size_t(numElements()) * elementBytes(type); }

namespace mlir {
namespace attn {
namespace runtime {

// The manifest's pointer types: "<element>*".
static bool fromJSON(const json::Value &v, ElementType &type, json::Path path) {
  std::optional<llvm::StringRef> s = v.getAsString();
  if (s && s->consume_back("*"))
    for (const ElementTypeInfo &i : kElementTypes)
      if (*s == i.name) {
        type = i.type;
        return true;
      }
  path.report("expected a pointer type: bf16*, f16*, f32*, f64*, f8E4M3FN*, f8E5M2*, i8*, i16*, "
              "i32*, i64* or i1*");
  return false;
}

static bool fromJSON(const json::Value &v, TensorSpec &t, json::Path path) {
  json::ObjectMapper o(v, path);
  return o && o.map("name", t.name) && o.map("type", t.type) && o.map("shape", t.shape);
}

static bool fromJSON(const json::Value &v, TensorMapSpec &m, json::Path path) {
  json::ObjectMapper o(v, path);
  return o && o.map("arg", m.arg) && o.map("tensor", m.tensor) && o.map("box", m.box) &&
         o.mapOptional("l2_promotion", m.l2Promotion) &&
         o.map("swizzle", m.swizzle);
}

/// A dim3 from [x, y, z].
static bool fromJSON(const json::Value &v, std::array<uint32_t, 3> &dims, json::Path path) {
  std::vector<int64_t> xs;
  if (!json::fromJSON(v, xs, path))
    return false;
  if (xs.size() != 3 ||
      llvm::any_of(xs, [](int64_t x) { return x < 1 || x > std::numeric_limits<uint32_t>::max(); })) {
    path.report("expected three positive 32-bit extents [x, y, z]");
    return false;
  }
  for (auto [d, x] : llvm::zip_equal(dims, xs))
    d = uint32_t(x);
  return true;
}

/// The dim3 at `key` of an object (the mapper's lookup would not find the
/// overload above: std::array's associated namespace is std).
static bool dim3Field(const json::Value &v, llvm::StringRef key, std::array<uint32_t, 3> &dims,
                      json::Path path) {
  const json::Value *field = v.getAsObject()->get(key);
  if (!field) {
    path.field(key).report("missing value");
    return false;
  }
  return fromJSON(*field, dims, path.field(key));
}

static bool fromJSON(const json::Value &v, Launch &l, json::Path path) {
  json::ObjectMapper o(v, path);
  int64_t smem = 0;
  if (!o || !o.map("kernel", l.kernel) || !dim3Field(v, "grid", l.grid, path) ||
      !dim3Field(v, "block", l.block, path) ||
      !o.mapOptional("dynamic_shared_memory_bytes", smem) || !o.map("args", l.args))
    return false;
  if (smem < 0 || smem > std::numeric_limits<uint32_t>::max()) {
    path.field("dynamic_shared_memory_bytes").report("expected a 32-bit byte count");
    return false;
  }
  l.dynamicSharedMemoryBytes = uint32_t(smem);
  return true;
}

/// Manifests without `launches` (one kernel, no split) spell their one
/// launch at the top level: grid and block as {formula, value}.
static bool singleLaunch(const json::Value &root, const std::vector<TensorSpec> &params,
                         Launch &l, json::Path path) {
  const json::Object *o = root.getAsObject();
  json::ObjectMapper mapper(root, path);
  if (!mapper)
    return false;
  auto value = [&](llvm::StringRef key, std::array<uint32_t, 3> &dims) {
    const json::Object *field = o->getObject(key);
    json::Path at = path.field(key);
    if (!field || !field->get("value")) {
      at.report("expected {formula, value}");
      return false;
    }
    return fromJSON(*field->get("value"), dims, at.field("value"));
  };
  int64_t smem = 0;
  if (!mapper.map("kernel", l.kernel) || !value("grid", l.grid) || !value("block", l.block) ||
      !mapper.mapOptional("dynamic_shared_memory_bytes", smem))
    return false;
  l.dynamicSharedMemoryBytes = uint32_t(std::clamp<int64_t>(smem, 0, UINT32_MAX));
  for (const TensorSpec &p : params)
    l.args.push_back(p.name);
  return true;
}

} // namespace runtime
} // namespace attn
} // namespace mlir

/// Whether `plan`'s parts agree: unique names, positive shapes, launch
/// arguments that exist, grids and blocks CUDA can launch.
static llvm::Error validate(const LaunchPlan &plan) {
  auto fail = [](const llvm::Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "manifest: " + why);
  };
  if (!llvm::isPowerOf2_64(uint64_t(std::max<int64_t>(plan.tensorAlignment(), 0))))
    return fail("tensor_alignment must be a positive power of two, got " +
                llvm::Twine(plan.tensorAlignment()));
  llvm::StringSet<> names;
  for (const TensorSpec &t : llvm::concat<const TensorSpec>(plan.params(), plan.workspace())) {
    if (!names.insert(t.name).second)
      return fail("the tensor name '" + t.name + "' appears twice");
    // (An empty shape is a scalar: FP8's descale factors; never an
    // attention tensor.)
    bool attentionTensor = llvm::is_contained({"q", "k", "v", "o"}, t.name);
    if ((attentionTensor && t.shape.empty()) ||
        llvm::any_of(t.shape, [](int64_t e) { return e < 1; }))
      return fail("'" + t.name + "' needs a shape of positive extents");
    int64_t elements = 1, bytes;
    for (int64_t e : t.shape)
      if (llvm::MulOverflow(elements, e, elements))
        return fail("'" + t.name + "' has more elements than an int64 counts");
    if (llvm::MulOverflow(elements, int64_t(elementBytes(t.type)), bytes))
      return fail("'" + t.name + "' has more bytes than an int64 counts");
  }
  for (const TensorMapSpec &m : plan.tensorMaps()) {
    const TensorSpec *t = plan.findParam(m.tensor);
    if (!t)
      return fail("tensor map '" + m.arg + "' is over '" + m.tensor + "', which is no param");
    if (!llvm::is_contained({ElementType::BF16, ElementType::F16, ElementType::F8E4M3FN,
                             ElementType::F8E5M2},
                            t->type))
      return fail("tensor map '" + m.arg + "' is over a " + elementTypeName(t->type) +
                  " tensor; TMA maps here are f16, bf16 or 8-bit floats");
    if (m.box.size() != t->shape.size() || t->shape.size() > 5 ||
        llvm::any_of(m.box, [](int64_t e) { return e < 1 || e > 256; }))
      return fail("tensor map '" + m.arg + "' needs one box extent in [1, 256] per dim of '" +
                  m.tensor + "' (at most 5)");
    if (!llvm::is_contained({"none", "32B", "64B", "128B"}, m.swizzle))
      return fail("tensor map '" + m.arg + "' has swizzle '" + m.swizzle +
                  "'; expected none, 32B, 64B or 128B");
    if (!llvm::is_contained({"none", "64B", "128B", "256B"}, m.l2Promotion))
      return fail("tensor map '" + m.arg + "' has l2_promotion '" + m.l2Promotion +
                  "'; expected none, 64B, 128B or 256B");
    if (!names.insert(m.arg).second)
      return fail("the name '" + m.arg + "' appears twice");
  }
  if (plan.launches().empty())
    return fail("no launches");
  for (auto [i, l] : llvm::enumerate(plan.launches())) {
    std::string at = llvm::formatv("launch {0} ({1})", i, l.kernel).str();
    for (const std::string &arg : l.args)
      if (!names.contains(arg))
        return fail(at + " names '" + arg +
                    "', which is neither a param, a workspace buffer nor a tensor map");
    if (l.grid[1] > 65535 || l.grid[2] > 65535 || l.grid[0] > 2147483647u)
      return fail(at + " has a grid beyond CUDA's limits (2^31 - 1, 65535, 65535)");
    if (uint64_t(l.block[0]) * l.block[1] * l.block[2] > 1024)
      return fail(at + " has more than 1024 threads per block");
  }
  return llvm::Error::success();
}

/// The deepest nesting of arrays and objects in `text` (outside strings).
/// llvm::json::parse recurses once per level, so a hostile manifest nested
/// 50,000 deep would overflow the stack before any field is read.
static int64_t nestingDepth(llvm::StringRef text) {
  int64_t depth = 0, deepest = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

llvm::Expected<LaunchPlan> LaunchPlan::parse(llvm::StringRef manifestJSON) {
  // A manifest nests 4 levels; 64 leaves room for any future field.
  if (int64_t depth = nestingDepth(manifestJSON); depth > 64)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "manifest: nested " + llvm::Twine(depth) +
                                       " levels deep (at most 64)");
  llvm::Expected<json::Value> root = json::parse(manifestJSON);
  if (!root)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "manifest: " + llvm::toString(root.takeError()));
  LaunchPlan plan;
  json::Path::Root errors("manifest");
  json::ObjectMapper o(*root, errors);
  bool ok = o && o.map("kernel", plan.kernel) && o.map("params", plan.paramSpecs) &&
            o.mapOptional("workspace", plan.workspaceSpecs) &&
            o.mapOptional("launches", plan.launchList) &&
            o.mapOptional("tensor_maps", plan.tensorMapSpecs) &&
            o.mapOptional("tensor_alignment", plan.alignment);
  if (ok && plan.launchList.empty()) {
    Launch only;
    ok = singleLaunch(*root, plan.paramSpecs, only, errors);
    plan.launchList.push_back(std::move(only));
  }
  if (!ok)
    return errors.getError();
  if (llvm::Error e = validate(plan))
    return std::move(e);
  return plan;
}

const TensorSpec *LaunchPlan::findParam(llvm::StringRef name) const {
  auto it = llvm::find_if(paramSpecs, [&](const TensorSpec &t) { return t.name == name; });
  return it == paramSpecs.end() ? nullptr : &*it;
}

static std::string shapeString(llvm::ArrayRef<int64_t> shape) {
  return "[" + llvm::join(llvm::map_range(shape, [](int64_t e) { return std::to_string(e); }), ", ") +
         "]";
}

llvm::Error LaunchPlan::checkArgs(llvm::ArrayRef<TensorArg> args) const {
  auto fail = [](const llvm::Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), why);
  };
  llvm::StringSet<> seen;
  for (const TensorArg &a : args) {
    const TensorSpec *spec = findParam(a.name);
    if (!spec)
      return fail("'" + a.name + "' is not a parameter of " + kernel);
    if (!seen.insert(a.name).second)
      return fail("'" + a.name + "' is given twice");
    if (a.type != spec->type)
      return fail("'" + a.name + "' holds " + elementTypeName(a.type) + ", the kernel reads " +
                  elementTypeName(spec->type));
    if (a.shape != spec->shape)
      return fail("'" + a.name + "' has shape " + shapeString(a.shape) + ", the kernel needs " +
                  shapeString(spec->shape));
    if (a.address == 0)
      return fail("'" + a.name + "' is a null pointer");
    if (llvm::is_contained({"q", "k", "v", "o"}, a.name) && a.address % alignment != 0)
      return fail("'" + a.name + "' must start on a " + llvm::Twine(alignment) +
                  "-byte boundary (its address is 0x" + llvm::utohexstr(a.address, true) + ")");
  }
  for (const TensorSpec &p : paramSpecs)
    if (!seen.contains(p.name))
      return fail("'" + p.name + "' is missing: " + kernel + " takes " +
                  llvm::join(llvm::map_range(paramSpecs, [](const TensorSpec &t) { return t.name; }),
                             ", "));
  return llvm::Error::success();
}

llvm::Expected<std::vector<std::vector<uint64_t>>>
LaunchPlan::argumentAddresses(llvm::ArrayRef<TensorArg> args,
                              llvm::ArrayRef<uint64_t> workspaceAddresses,
                              llvm::ArrayRef<uint64_t> tensorMapAddresses) const {
  if (llvm::Error e = checkArgs(args))
    return std::move(e);
  if (workspaceAddresses.size() != workspaceSpecs.size())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   llvm::formatv("{0} workspace addresses for {1} buffers",
                                                 workspaceAddresses.size(), workspaceSpecs.size()));
  if (tensorMapAddresses.size() != tensorMapSpecs.size())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   llvm::formatv("{0} tensor map addresses for {1} maps",
                                                 tensorMapAddresses.size(), tensorMapSpecs.size()));
  llvm::StringMap<uint64_t> address;
  for (auto [spec, at] : llvm::zip_equal(tensorMapSpecs, tensorMapAddresses))
    address[spec.arg] = at;
  for (const TensorArg &a : args)
    address[a.name] = a.address;
  for (auto [spec, at] : llvm::zip_equal(workspaceSpecs, workspaceAddresses))
    address[spec.name] = at;
  std::vector<std::vector<uint64_t>> perLaunch;
  for (const Launch &l : launchList) {
    std::vector<uint64_t> pointers;
    for (const std::string &name : l.args)
      pointers.push_back(address.lookup(name));
    perLaunch.push_back(std::move(pointers));
  }
  return perLaunch;
}

//===- LaunchPlanTest.cpp - The launch manifest reader --------------------===//
#include "attn/Runtime/LaunchPlan.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace mlir::attn::runtime;

namespace {

// The shape of what --attn-dump-gpu-kernels writes for a split-KV decode
// kernel (fields the reader ignores left out).
constexpr const char *kSplitKV = R"({
  "kernel": "attn_split",
  "params": [
    {"name": "q", "type": "bf16*", "shape": [1, 32, 1, 128]},
    {"name": "k", "type": "bf16*", "shape": [1, 8, 4096, 128]},
    {"name": "v", "type": "bf16*", "shape": [1, 8, 4096, 128]},
    {"name": "o", "type": "bf16*", "shape": [1, 32, 1, 128]}],
  "workspace": [
    {"name": "o_partial", "type": "f32*", "shape": [8, 1, 32, 1, 128]},
    {"name": "row_stats", "type": "f32*", "shape": [8, 1, 32, 1, 2]}],
  "launches": [
    {"kernel": "attn_split", "grid": [1, 8, 8], "block": [32, 1, 1],
     "dynamic_shared_memory_bytes": 69632, "args": ["q", "k", "v", "o_partial", "row_stats"]},
    {"kernel": "attn_split_combine", "grid": [32, 1, 1], "block": [128, 1, 1],
     "dynamic_shared_memory_bytes": 0, "args": ["o_partial", "row_stats", "o"]}]
})";

std::string errorOf(llvm::StringRef json) {
  llvm::Expected<LaunchPlan> plan = LaunchPlan::parse(json);
  if (plan)
    return "";
  return llvm::toString(plan.takeError());
}

std::vector<TensorArg> splitArgs() {
  return {{"q", 0x100, ElementType::BF16, {1, 32, 1, 128}},
          {"k", 0x200, ElementType::BF16, {1, 8, 4096, 128}},
          {"v", 0x300, ElementType::BF16, {1, 8, 4096, 128}},
          {"o", 0x400, ElementType::BF16, {1, 32, 1, 128}}};
}

TEST(LaunchPlan, ReadsSplitKVLaunchesInOrder) {
  llvm::Expected<LaunchPlan> plan = LaunchPlan::parse(kSplitKV);
  ASSERT_TRUE(bool(plan)) << llvm::toString(plan.takeError());
  ASSERT_EQ(plan->params().size(), 4u);
  EXPECT_EQ(plan->params()[1].bytes(), 8u * 4096 * 128 * 2);
  ASSERT_EQ(plan->workspace().size(), 2u);
  EXPECT_EQ(plan->workspace()[0].bytes(), 8u * 32 * 128 * 4);
  ASSERT_EQ(plan->launches().size(), 2u);
  EXPECT_EQ(plan->launches()[0].grid, (std::array<uint32_t, 3>{1, 8, 8}));
  EXPECT_EQ(plan->launches()[0].dynamicSharedMemoryBytes, 69632u);
  EXPECT_EQ(plan->launches()[1].kernel, "attn_split_combine");

  auto addresses = plan->argumentAddresses(splitArgs(), {0xA00, 0xB00});
  ASSERT_TRUE(bool(addresses)) << llvm::toString(addresses.takeError());
  EXPECT_EQ((*addresses)[0], (std::vector<uint64_t>{0x100, 0x200, 0x300, 0xA00, 0xB00}));
  EXPECT_EQ((*addresses)[1], (std::vector<uint64_t>{0xA00, 0xB00, 0x400}));
}

TEST(LaunchPlan, OneLaunchSpelledAtTheTopLevel) {
  llvm::Expected<LaunchPlan> plan = LaunchPlan::parse(R"({
    "kernel": "attn_plain", "dynamic_shared_memory_bytes": 0,
    "grid": {"formula": "...", "value": [32, 64, 1]},
    "block": {"formula": "...", "value": [128, 1, 1]},
    "params": [{"name": "q", "type": "f16*", "shape": [4]},
               {"name": "mask", "type": "i1*", "shape": [4]}]})");
  ASSERT_TRUE(bool(plan)) << llvm::toString(plan.takeError());
  ASSERT_EQ(plan->launches().size(), 1u);
  EXPECT_EQ(plan->launches()[0].kernel, "attn_plain");
  EXPECT_EQ(plan->launches()[0].args, (std::vector<std::string>{"q", "mask"}));
  EXPECT_EQ(plan->params()[1].bytes(), 4u);
}

TEST(LaunchPlan, ReadsFP8KernelsWithScalarDescaleFactors) {
  // FP8 inputs, a bf16 output and three f32 scalars (shape []).
  auto plan = LaunchPlan::parse(R"({"kernel": "k", "params": [
      {"name": "q", "type": "f8E4M3FN*", "shape": [1, 2, 4, 8]},
      {"name": "v", "type": "f8E5M2*", "shape": [1, 2, 4, 8]},
      {"name": "o", "type": "bf16*", "shape": [1, 2, 4, 8]},
      {"name": "q_descale", "type": "f32*", "shape": []}],
    "launches": [{"kernel": "k", "grid": [1, 1, 1], "block": [32, 1, 1],
                  "args": ["q", "v", "o", "q_descale"]}]})");
  ASSERT_TRUE(bool(plan)) << llvm::toString(plan.takeError());
  EXPECT_EQ(plan->params()[0].bytes(), 64u);
  EXPECT_EQ(elementTypeName(plan->params()[1].type), "f8E5M2");
  EXPECT_EQ(plan->params()[2].bytes(), 128u);
  EXPECT_EQ(plan->params()[3].numElements(), 1);
  EXPECT_EQ(plan->params()[3].bytes(), 4u);
}

TEST(LaunchPlan, ReadsEveryScoreModOperandType) {
  // A score_mod's tensors may hold any integer or float up to 64 bits.
  for (auto [type, bytes] : {std::pair<const char *, size_t>{"f64", 8}, {"i64", 8},
                             {"i16", 2}, {"i8", 1}, {"f32", 4}}) {
    std::string manifest = llvm::formatv(R"({{"kernel": "k", "params": [
        {{"name": "q", "type": "bf16*", "shape": [2]},
        {{"name": "score_mod_operand_0", "type": "{0}*", "shape": [3]}],
      "launches": [{{"kernel": "k", "grid": [1, 1, 1], "block": [32, 1, 1],
                     "args": ["q", "score_mod_operand_0"]}]})",
                                         type)
                              .str();
    auto plan = LaunchPlan::parse(manifest);
    ASSERT_TRUE(bool(plan)) << llvm::toString(plan.takeError());
    EXPECT_EQ(plan->params()[1].bytes(), 3 * bytes) << type;
    EXPECT_EQ(elementTypeName(plan->params()[1].type), type);
  }
}

TEST(LaunchPlan, RejectsMalformedManifestsWithThePath) {
  EXPECT_NE(errorOf("{").find("manifest"), std::string::npos);
  EXPECT_NE(errorOf("[]").find("expected object"), std::string::npos);
  std::string badType = kSplitKV;
  badType.replace(badType.find("\"bf16*\""), 7, "\"f8E4M3*\"");
  EXPECT_NE(errorOf(badType).find("params[0].type"), std::string::npos) << errorOf(badType);
  std::string badArg = kSplitKV;
  badArg.replace(badArg.find("\"row_stats\"]"), 11, "\"row_stat\"");
  EXPECT_NE(errorOf(badArg).find("names 'row_stat', which is neither a param, a workspace buffer nor a tensor map"),
            std::string::npos)
      << errorOf(badArg);
  std::string bigGrid = kSplitKV;
  bigGrid.replace(bigGrid.find("[1, 8, 8]"), 9, "[1, 70000, 8]");
  EXPECT_NE(errorOf(bigGrid).find("grid beyond CUDA's limits"), std::string::npos);
  std::string bigBlock = kSplitKV;
  bigBlock.replace(bigBlock.find("[128, 1, 1]"), 11, "[128, 16, 1]");
  EXPECT_NE(errorOf(bigBlock).find("more than 1024 threads"), std::string::npos);
  std::string zeroGrid = kSplitKV;
  zeroGrid.replace(zeroGrid.find("[1, 8, 8]"), 9, "[0, 8, 8]");
  EXPECT_NE(errorOf(zeroGrid).find("launches[0].grid"), std::string::npos) << errorOf(zeroGrid);
  std::string twice = kSplitKV;
  twice.replace(twice.find("\"name\": \"row_stats\""), 19, "\"name\": \"q\"");
  EXPECT_NE(errorOf(twice).find("'q' appears twice"), std::string::npos);
  std::string empty = kSplitKV;
  empty.replace(empty.find("[8, 1, 32, 1, 2]"), 16, "[8, 0, 32, 1, 2]");
  EXPECT_NE(errorOf(empty).find("positive extents"), std::string::npos);
  std::string noLaunch = R"({"kernel": "k", "params": []})";
  EXPECT_NE(errorOf(noLaunch).find("manifest.grid"), std::string::npos) << errorOf(noLaunch);
  // Found by a hostile-manifest campaign: each crashed attn-run.
  std::string deep = std::string(50000, '[') + std::string(50000, ']');
  EXPECT_NE(errorOf(deep).find("nested 50000 levels deep"), std::string::npos) << errorOf(deep);
  std::string wraps = kSplitKV;
  wraps.replace(wraps.find("[1, 32, 1, 128]"), 15, "[1073741824, 1073741824, 1, 4]");
  EXPECT_NE(errorOf(wraps).find("'q' has more bytes than an int64 counts"), std::string::npos)
      << errorOf(wraps);
}

TEST(LaunchPlan, ChecksTheCallersTensors) {
  llvm::Expected<LaunchPlan> plan = LaunchPlan::parse(kSplitKV);
  ASSERT_TRUE(bool(plan));
  auto why = [&](std::vector<TensorArg> args) {
    llvm::Error e = plan->checkArgs(args);
    return e ? llvm::toString(std::move(e)) : std::string();
  };
  EXPECT_EQ(why(splitArgs()), "");
  auto args = splitArgs();
  args.pop_back();
  EXPECT_NE(why(args).find("'o' is missing"), std::string::npos);
  args = splitArgs();
  args[1].shape = {1, 8, 4095, 128};
  EXPECT_NE(why(args).find("'k' has shape [1, 8, 4095, 128], the kernel needs [1, 8, 4096, 128]"),
            std::string::npos);
  args = splitArgs();
  args[0].type = ElementType::F16;
  EXPECT_NE(why(args).find("'q' holds f16, the kernel reads bf16"), std::string::npos);
  args = splitArgs();
  args[2].address = 0;
  EXPECT_NE(why(args).find("'v' is a null pointer"), std::string::npos);
  args = splitArgs();
  args.push_back(args[0]);
  EXPECT_NE(why(args).find("'q' is given twice"), std::string::npos);

  args = splitArgs();
  args[3].name = "row_stats";
  EXPECT_NE(why(args).find("'row_stats' is not a parameter"), std::string::npos);
  auto addresses = plan->argumentAddresses(splitArgs(), {0xA00});
  ASSERT_FALSE(bool(addresses));
  EXPECT_NE(llvm::toString(addresses.takeError()).find("1 workspace addresses for 2 buffers"),
            std::string::npos);
}

TEST(LaunchPlan, ChecksTheTensorAlignment) {
  // A manifest without the field asks for nothing; with it, q, k, v and o
  // must start on that boundary.
  std::string aligned = kSplitKV;
  aligned.insert(aligned.find("\"kernel\"") , "\"tensor_alignment\": 16, ");
  llvm::Expected<LaunchPlan> plan = LaunchPlan::parse(aligned);
  ASSERT_TRUE(bool(plan)) << llvm::toString(plan.takeError());
  EXPECT_EQ(plan->tensorAlignment(), 16);
  EXPECT_EQ(LaunchPlan::parse(kSplitKV)->tensorAlignment(), 1);
  auto args = splitArgs();
  EXPECT_FALSE(bool(plan->checkArgs(args)));
  args[0].address = 0x102;
  llvm::Error e = plan->checkArgs(args);
  ASSERT_TRUE(bool(e));
  EXPECT_NE(llvm::toString(std::move(e)).find("'q' must start on a 16-byte boundary (its address is 0x102)"),
            std::string::npos);
  std::string odd = kSplitKV;
  odd.insert(odd.find("\"kernel\""), "\"tensor_alignment\": 12, ");
  EXPECT_NE(errorOf(odd).find("tensor_alignment must be a positive power of two, got 12"),
            std::string::npos)
      << errorOf(odd);
}

// Every manifest attn-opt wrote into $ATTN_MANIFEST_DIR (launch-plan-unit.test).
TEST(LaunchPlan, ReadsWhatTheCompilerWrites) {
  const char *dir = std::getenv("ATTN_MANIFEST_DIR");
  if (!dir)
    GTEST_SKIP() << "ATTN_MANIFEST_DIR is not set";
  int manifests = 0, split = 0, paged = 0, masked = 0, varlen = 0, tma = 0;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec)) {
    if (llvm::sys::path::extension(it->path()) != ".json")
      continue;
    auto text = llvm::MemoryBuffer::getFile(it->path());
    ASSERT_TRUE(bool(text)) << it->path();
    llvm::Expected<LaunchPlan> plan = LaunchPlan::parse((*text)->getBuffer());
    ASSERT_TRUE(bool(plan)) << it->path() << ": " << llvm::toString(plan.takeError());
    ++manifests;
    // The kernels' calling convention: q, k, v, o first.
    std::vector<std::string> names;
    for (const TensorSpec &t : plan->params())
      names.push_back(t.name);
    ASSERT_GE(names.size(), 4u) << it->path();
    EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + 4),
              (std::vector<std::string>{"q", "k", "v", "o"}));
    // One launch, or split-KV's two sharing the workspace.
    EXPECT_EQ(plan->launches().size(), plan->workspace().empty() ? 1u : 2u) << it->path();
    split += !plan->workspace().empty();
    paged += plan->findParam("block_table") != nullptr;
    masked += plan->findParam("mask") != nullptr;
    // A packed batch's cumulative lengths: [B + 1] int32 each, the last
    // two parameters.
    if (const TensorSpec *cuQ = plan->findParam("cu_seqlens_q")) {
      ++varlen;
      const TensorSpec *cuK = plan->findParam("cu_seqlens_k");
      ASSERT_NE(cuK, nullptr) << it->path();
      EXPECT_EQ(cuQ->type, ElementType::I32);
      EXPECT_EQ(cuQ->shape, cuK->shape);
      EXPECT_EQ(plan->params().back().name, "cu_seqlens_k");
    }
    // TMA kernels: a map over k and one over v, each its launch argument.
    if (!plan->tensorMaps().empty()) {
      ++tma;
      ASSERT_EQ(plan->tensorMaps().size(), 2u) << it->path();
      EXPECT_EQ(plan->tensorMaps()[0].tensor, "k");
      EXPECT_EQ(plan->tensorMaps()[1].tensor, "v");
      EXPECT_EQ(plan->tensorMaps()[0].swizzle, "128B");
      // The compiler's L2 promotion (kTensorMapL2Promotion, NOTES v36e).
      EXPECT_EQ(plan->tensorMaps()[0].l2Promotion, "none");
      const std::vector<std::string> &args = plan->launches()[0].args;
      EXPECT_EQ(std::vector<std::string>(args.end() - 2, args.end()),
                (std::vector<std::string>{"k_tensor_map", "v_tensor_map"}));
    }
    // Every param is read or written by some launch.
    llvm::StringSet<> used;
    for (const Launch &l : plan->launches())
      for (const std::string &a : l.args)
        used.insert(a);
    for (const std::string &n : names)
      EXPECT_TRUE(used.contains(n)) << it->path() << ": " << n << " is never passed";
  }
  ASSERT_FALSE(ec) << ec.message();
  // The lit test dumps decode (split-KV), paged and masked kernels.
  EXPECT_GE(manifests, 8);
  EXPECT_GT(split, 0);
  EXPECT_GT(paged, 0);
  EXPECT_GT(masked, 0);
  EXPECT_GT(varlen, 0);
  EXPECT_GT(tma, 0);
}

// A TMA kernel's manifest: maps parsed, passed after the tensors, and
// their specs checked.
TEST(LaunchPlan, TensorMaps) {
  std::string manifest = R"({"kernel": "t", "params": [
      {"name": "q", "type": "bf16*", "shape": [1, 2, 128, 64]},
      {"name": "k", "type": "bf16*", "shape": [1, 2, 128, 64]},
      {"name": "v", "type": "bf16*", "shape": [1, 2, 128, 64]},
      {"name": "o", "type": "bf16*", "shape": [1, 2, 128, 64]}],
    "launches": [{"kernel": "t", "grid": [1, 2, 1], "block": [128, 1, 1],
                  "args": ["q", "k", "v", "o", "k_tensor_map", "v_tensor_map"]}],
    "tensor_maps": [
      {"arg": "k_tensor_map", "tensor": "k", "box": [64, 64, 1, 1], "swizzle": "128B"},
      {"arg": "v_tensor_map", "tensor": "v", "box": [64, 64, 1, 1], "swizzle": "SWIZZLE",
       "l2_promotion": "256B"}]})";
  auto parse = [](const std::string &text) { return LaunchPlan::parse(text); };
  llvm::Expected<LaunchPlan> bad = parse(manifest);
  ASSERT_FALSE(bool(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("has swizzle 'SWIZZLE'"), std::string::npos);
  std::string good = manifest;
  good.replace(good.find("SWIZZLE"), 7, "128B");
  llvm::Expected<LaunchPlan> plan = parse(good);
  ASSERT_TRUE(bool(plan)) << llvm::toString(plan.takeError());
  ASSERT_EQ(plan->tensorMaps().size(), 2u);
  EXPECT_EQ(plan->tensorMaps()[1].box, (std::vector<int64_t>{64, 64, 1, 1}));
  // l2_promotion: none when absent, else as given, and checked.
  EXPECT_EQ(plan->tensorMaps()[0].l2Promotion, "none");
  EXPECT_EQ(plan->tensorMaps()[1].l2Promotion, "256B");
  std::string badPromotion = good;
  badPromotion.replace(badPromotion.find("256B"), 4, "512B");
  llvm::Expected<LaunchPlan> refused = parse(badPromotion);
  ASSERT_FALSE(bool(refused));
  EXPECT_NE(llvm::toString(refused.takeError()).find("has l2_promotion '512B'"),
            std::string::npos);
  std::vector<TensorArg> args;
  for (auto [i, name] : llvm::enumerate(std::vector<std::string>{"q", "k", "v", "o"}))
    args.push_back({name, 0x1000u * (i + 1), ElementType::BF16, {1, 2, 128, 64}});
  auto addresses = plan->argumentAddresses(args, {}, {0xA00, 0xB00});
  ASSERT_TRUE(bool(addresses)) << llvm::toString(addresses.takeError());
  EXPECT_EQ((*addresses)[0],
            (std::vector<uint64_t>{0x1000, 0x2000, 0x3000, 0x4000, 0xA00, 0xB00}));
  auto missing = plan->argumentAddresses(args, {});
  ASSERT_FALSE(bool(missing));
  EXPECT_NE(llvm::toString(missing.takeError()).find("0 tensor map addresses for 2 maps"),
            std::string::npos);
  // A map over no param, or a box of the wrong rank.
  std::string noTensor = good;
  noTensor.replace(noTensor.find("\"tensor\": \"v\""), 13, "\"tensor\": \"w\"");
  llvm::Expected<LaunchPlan> overNothing = parse(noTensor);
  ASSERT_FALSE(bool(overNothing));
  EXPECT_NE(llvm::toString(overNothing.takeError()).find("is over 'w', which is no param"),
            std::string::npos);
  std::string rank = good;
  rank.replace(rank.find("[64, 64, 1, 1]"), 14, "[64, 64]");
  llvm::Expected<LaunchPlan> wrongRank = parse(rank);
  ASSERT_FALSE(bool(wrongRank));
  EXPECT_NE(llvm::toString(wrongRank.takeError()).find("one box extent in [1, 256] per dim"),
            std::string::npos);
}

} // namespace

//===- IOCost.cpp - --attn-io-cost ----------------------------------------===//
//
// Runs the cost model (lib/Analysis/IOCost.cpp) on every attention op and on
// every op of an unfused chain, attaches the results, and writes the JSON
// report, the table and the roofline SVG. No formula lives here.
//
//===----------------------------------------------------------------------===//
#include "attn/Analysis/IOCost.h"
#include "attn/Analysis/RooflinePlot.h"
#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/Dialect/Attn/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mlir {
namespace attn {
#define GEN_PASS_DEF_ATTNIOCOSTPASS
#include "attn/Dialect/Attn/Transforms/Passes.h.inc"
} // namespace attn
} // namespace mlir

using namespace mlir;
using namespace mlir::attn;

namespace {

/// Bytes of a statically shaped tensor value, or nullopt.
std::optional<int64_t> tensorBytes(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  if (!rt || !rt.hasStaticShape())
    return std::nullopt;
  int64_t bits = rt.getElementTypeBitWidth();
  int64_t bytes;
  if (llvm::MulOverflow(rt.getNumElements(), std::max<int64_t>(bits / 8, 1), bytes))
    return std::nullopt;
  return bytes;
}

/// FLOPs and bytes of one op of an unfused chain, counted as one kernel that
/// reads its tensor operands and writes its results.
struct ChainOpCost {
  int64_t flops = 0;
  int64_t bytes = 0;
  bool tensorCores = false;
  DType dtype = DType::F32;
};

std::optional<ChainOpCost> costChainOp(Operation *op) {
  bool isAttnPrimitive = isa<MatmulOp, ScaleOp, MaskOp, SoftmaxOp>(op);
  bool isLinalg = isa<linalg::LinalgOp, linalg::SoftmaxOp>(op);
  bool isTosa = isa<tosa::TosaDialect>(op->getDialect()) &&
                !isa<tosa::ConstOp, tosa::ConstShapeOp>(op);
  if (!isAttnPrimitive && !isLinalg && !isTosa)
    return std::nullopt;
  if (op->getNumResults() != 1)
    return std::nullopt;
  auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!resultType || !resultType.hasStaticShape())
    return std::nullopt;
  ChainOpCost c;
  std::optional<DType> dt = getCostDType(resultType.getElementType());
  if (!dt)
    return std::nullopt;
  c.dtype = *dt;
  // Bytes: tensors read (DPS inits only when the payload reads them) and the
  // result written.
  auto dps = dyn_cast<DestinationStyleOpInterface>(op);
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  for (OpOperand &operand : op->getOpOperands()) {
    if (dps && dps.isDpsInit(&operand) &&
        !(linalgOp && linalgOp.payloadUsesValueFromOperand(&operand)))
      continue;
    if (std::optional<int64_t> b = tensorBytes(operand.get().getType()))
      if (llvm::AddOverflow(c.bytes, *b, c.bytes))
        return std::nullopt;
  }
  std::optional<int64_t> resultBytes = tensorBytes(resultType);
  if (!resultBytes || llvm::AddOverflow(c.bytes, *resultBytes, c.bytes))
    return std::nullopt;
  int64_t n = resultType.getNumElements();
  // FLOPs: 2·M·N·K for products, 5 per element for softmax (max, subtract,
  // exp, sum, divide), 1 per element otherwise.
  // Counts that overflow int64 (fuzzed extents) leave the op uncosted
  // rather than wrapping (UBSan, fuzz run 8).
  bool overflow = false;
  auto mul = [&](int64_t a, int64_t b) {
    int64_t r = 0;
    overflow |= llvm::MulOverflow(a, b, r);
    return r;
  };
  auto contraction = [&](Value lhs) {
    auto t = cast<RankedTensorType>(lhs.getType());
    return mul(mul(2, n), t.getDimSize(t.getRank() - 1));
  };
  if (auto mm = dyn_cast<MatmulOp>(op)) {
    c.flops = contraction(mm.getLhs());
    c.tensorCores = true;
  } else if (isa<tosa::MatMulOp>(op)) {
    c.flops = contraction(op->getOperand(0));
    c.tensorCores = true;
  } else if (isa<SoftmaxOp, linalg::SoftmaxOp>(op)) {
    c.flops = mul(5, n);
  } else if (linalgOp) {
    // Iteration space times the arithmetic ops in the payload; matmul-like
    // generics (a reduction with mul+add) are tensor-core work.
    SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
    int64_t space = 1;
    for (int64_t r : ranges)
      space = ShapedType::isDynamic(r) ? space : mul(space, r);
    int64_t payloadOps = 0;
    for (Operation &inner : linalgOp.getBlock()->without_terminator())
      if (isa<arith::ArithDialect, math::MathDialect>(inner.getDialect()))
        ++payloadOps;
    c.flops = mul(space, std::max<int64_t>(payloadOps, 1));
    c.tensorCores = linalgOp.getNumReductionLoops() > 0 &&
                    (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) ||
                     payloadOps >= 2) &&
                    linalg::isaContractionOpInterface(linalgOp);
  } else {
    c.flops = n;
  }
  if (overflow)
    return std::nullopt;
  return c;
}

struct AttnIOCostPass : public attn::impl::AttnIOCostPassBase<AttnIOCostPass> {
  using AttnIOCostPassBase::AttnIOCostPassBase;

  /// Pass-level errors (bad options, unwritable files) point at the first
  /// attention op: the implicit module has no location a user could see.
  Operation *diagnosticAnchor() {
    Operation *anchor = getOperation();
    getOperation().walk([&](Operation *op) {
      if (!isa<AttentionOp, PagedAttentionOp, VarlenAttentionOp>(op))
        return WalkResult::advance();
      anchor = op;
      return WalkResult::interrupt();
    });
    return anchor;
  }

  FailureOr<TargetSpec> buildTarget() {
    std::optional<TargetSpec> t = getTargetPreset(target);
    if (!t) {
      std::string names;
      for (const std::string &n : getTargetPresetNames())
        names += (names.empty() ? "" : ", ") + n;
      diagnosticAnchor()->emitError("unknown io-cost target '")
          << target << "'; known targets: " << names;
      return failure();
    }
    // An override other than -1 (the default: "the preset's value")
    // replaces the preset's field, whatever it is: validateTarget then
    // rejects what no GPU has (0, negative, NaN, inf) instead of silently
    // keeping the preset.
    auto over = [](auto &field, const auto &option) {
      if (option.getValue() != -1)
        field = option.getValue();
    };
    over(t->sramBytesPerBlock, sramBytes);
    over(t->smCount, smCount);
    over(t->ctasPerSm, ctasPerSm);
    over(t->l2Bytes, l2Bytes);
    over(t->hbmBytesPerSec, hbmBandwidth);
    over(t->l2BytesPerSec, l2Bandwidth);
    over(t->tensorF16, peakF16);
    over(t->tensorBF16, peakBF16);
    over(t->tensorF32, peakF32);
    over(t->tensorF64, peakF64);
    over(t->tensorF8, peakF8);
    over(t->scalarF32, peakScalar);
    if (llvm::Error e = validateTarget(*t)) {
      diagnosticAnchor()->emitError("attn-io-cost: ")
          << llvm::toString(std::move(e));
      return failure();
    }
    if (blockQ < 0 || blockKV < 0) {
      diagnosticAnchor()->emitError("attn-io-cost: block-q and block-kv must be "
                                    "0 (the chosen tiles) or positive, got ")
          << blockQ.getValue() << " and " << blockKV.getValue();
      return failure();
    }
    return *t;
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    FailureOr<TargetSpec> maybeTarget = buildTarget();
    if (failed(maybeTarget))
      return signalPassFailure();
    const TargetSpec &tgt = *maybeTarget;

    llvm::json::Array attentionReports, chainReports;
    std::vector<RooflinePoint> points;
    std::string table;
    llvm::raw_string_ostream tableOs(table);
    bool failedAny = false;
    int attnIndex = 0, chainIndex = 0;
    std::optional<DType> plotDType;

    module.walk([&](Operation *op) {
      if (isa<AttentionOp, PagedAttentionOp, VarlenAttentionOp>(op)) {
        // A paged attention is costed with every sequence full (Lk = its
        // key capacity): an upper bound; a packed batch as B sequences of
        // the mean lengths.
        auto paged = dyn_cast<PagedAttentionOp>(op);
        auto varlen = dyn_cast<VarlenAttentionOp>(op);
        Operation *attn = op;
        FailureOr<AttentionShape> shape = paged    ? paged.getCostShape()
                                          : varlen ? varlen.getCostShape()
                                                   : cast<AttentionOp>(op).getCostShape();
        if (failed(shape)) {
          bool isStatic = llvm::all_of(attn->getOperandTypes(), [](Type t) {
            return cast<ShapedType>(t).hasStaticShape();
          });
          InFlightDiagnostic skipped = attn->emitWarning("io-cost skipped: ");
          if (!isStatic)
            skipped << "the cost model needs static shapes";
          else if (varlen && varlen.getNumSequences() < 1)
            skipped << "a packed batch of no sequences";
          else
            skipped << "the cost model has no element type "
                    << cast<ShapedType>(attn->getOperand(0).getType()).getElementType();
          return;
        }
        // No query, key, head or batch: valid (e.g. a packed batch of
        // empty prompts), but nothing to cost or to tile.
        if (llvm::is_contained({shape->batch, shape->headsQ, shape->headsKV, shape->seqQ,
                                shape->seqKV, shape->headDim, shape->headDimV},
                               int64_t(0))) {
          attn->emitWarning("io-cost skipped: the attention has an extent of 0 (no work)");
          return;
        }
        auto attention = dyn_cast<AttentionOp>(op);
        MaskReads mask = attention ? getMaskReads(attention) : MaskReads::None;
        FailureOr<std::optional<KernelConfig>> config =
            chooseConfig(attn, *shape, mask, tgt);
        if (failed(config)) {
          failedAny = true;
          return;
        }
        llvm::Expected<AttentionCost> cost =
            computeAttentionCost(*shape, tgt, costedTiles(*shape, tgt, *config));
        if (!cost) {
          attn->emitError("io-cost failed: ") << llvm::toString(cost.takeError());
          failedAny = true;
          return;
        }
        const AttentionCost &c = *cost;
        std::string name = "attention#" + std::to_string(attnIndex++);
        auto f64 = [&](double v) { return FloatAttr::get(Float64Type::get(ctx), v); };
        auto bound = [&](bool mem) {
          return StringAttr::get(ctx, mem ? "memory" : "compute");
        };
        if (*config)
          attn->setAttr(kKernelConfigAttrName,
                        getKernelConfigAttr(ctx, **config));
        else
          attn->removeAttr(kKernelConfigAttrName);
        attn->setAttr(kIOCostAttrName,
                      IOCostAttr::get(ctx, StringAttr::get(ctx, tgt.name), c.flops,
                                      c.naiveHbmBytes, c.fusedSramL2Bytes,
                                      c.fusedDramBytes(), f64(c.intensityNaive),
                                      f64(c.intensityFused), f64(c.ridge),
                                      bound(c.naiveMemoryBound),
                                      bound(c.fusedMemoryBound), c.tiles.blockQ,
                                      c.tiles.blockKV));
        if (emitRemarks)
          attn->emitRemark(llvm::formatv(
              "io-cost on {0}: fused {1}-bound ({2:F1} FLOP/B vs ridge {3:F1}), "
              "unfused {4}-bound ({5:F1} FLOP/B); predicted speedup {6:F2}x, "
              "tiles {7}x{8}",
              tgt.name, c.fusedMemoryBound ? "memory" : "compute",
              c.intensityFused, c.ridge, c.naiveMemoryBound ? "memory" : "compute",
              c.intensityNaive, c.predictedSpeedup(), c.tiles.blockQ,
              c.tiles.blockKV));
        llvm::json::Object report = attentionCostToJSON(name, c);
        if (paged)
          report["paged"] = llvm::json::Object{{"page_size", paged.getPageSize()},
                                               {"lk_is_capacity", true}};
        if (varlen)
          report["varlen"] = llvm::json::Object{{"sequences", varlen.getNumSequences()},
                                                {"lengths_are_means", true}};
        if (*config)
          report["kernel_config"] = kernelConfigToJSON(**config);
        attentionReports.push_back(std::move(report));
        plotDType = shape->dtype;
        points.push_back({name + " fused", c.intensityFused,
                          double(c.flops) / c.predictedTimeFusedSec, true});
        // The unfused path computes the whole score matrix even when causal.
        double naiveFlops = c.shape.causal ? 2.0 * c.flops : double(c.flops);
        points.push_back({name + " unfused", c.intensityNaive,
                          naiveFlops / c.predictedTimeNaiveSec, false});
        tableOs << llvm::format(
            "%-13s B=%-3lld Hq=%-3lld Hkv=%-3lld Lq=%-6lld Lk=%-6lld d=%-4lld "
            "%-4s %s\n  flops %.3e | naive %.3e B (I=%.1f, %s) | fused dram "
            "%.3e B (I=%.1f, %s) | sram<-l2 %.3e B | tiles %lldx%lld | "
            "speedup %.2fx\n",
            name.c_str(), (long long)c.shape.batch, (long long)c.shape.headsQ,
            (long long)c.shape.headsKV, (long long)c.shape.seqQ,
            (long long)c.shape.seqKV, (long long)c.shape.headDim,
            stringifyDType(c.shape.dtype).data(), c.shape.causal ? "causal" : "",
            double(c.flops), double(c.naiveHbmBytes), c.intensityNaive,
            c.naiveMemoryBound ? "memory" : "compute",
            double(c.fusedDramBytes()), c.intensityFused,
            c.fusedMemoryBound ? "memory" : "compute",
            double(c.fusedSramL2Bytes), (long long)c.tiles.blockQ,
            (long long)c.tiles.blockKV, c.predictedSpeedup());
        return;
      }
      std::optional<ChainOpCost> chain = costChainOp(op);
      if (!chain)
        return;
      std::string name = "op#" + std::to_string(chainIndex++) + " " +
                         op->getName().getStringRef().str();
      OpCost oc = rooflineOp(name, chain->flops, chain->bytes, chain->dtype,
                             chain->tensorCores, tgt);
      llvm::json::Object o{{"op", name},
                           {"flops", oc.flops},
                           {"bytes", oc.bytes},
                           {"intensity", oc.intensity},
                           {"bound", oc.memoryBound ? "memory" : "compute"},
                           {"tensor_cores", chain->tensorCores},
                           {"predicted_time_s", oc.predictedTimeSec}};
      chainReports.push_back(std::move(o));
      plotDType = plotDType.value_or(chain->dtype);
      points.push_back({name, oc.intensity,
                        oc.predictedTimeSec > 0 ? oc.flops / oc.predictedTimeSec : 0,
                        false});
      tableOs << llvm::format("%-28s flops %.3e | bytes %.3e | I=%.2f | %s-bound\n",
                              name.c_str(), double(oc.flops), double(oc.bytes),
                              oc.intensity, oc.memoryBound ? "memory" : "compute");
    });
    if (failedAny)
      return signalPassFailure();

    if (!report.empty()) {
      if (report == "-") {
        llvm::outs() << "attn-io-cost on " << tgt.name << " (ridge "
                     << llvm::format("%.1f", tgt.ridge(DType::BF16))
                     << " FLOP/B in bf16)\n"
                     << table;
      } else {
        int64_t unfusedBytes = 0, unfusedFlops = 0;
        for (const llvm::json::Value &v : chainReports) {
          unfusedBytes += *v.getAsObject()->getInteger("bytes");
          unfusedFlops += *v.getAsObject()->getInteger("flops");
        }
        llvm::json::Object root{
            {"target", targetToJSON(tgt)},
            {"attention", std::move(attentionReports)},
            {"unfused_ops", std::move(chainReports)},
            {"unfused_total", llvm::json::Object{{"flops", unfusedFlops},
                                                 {"bytes", unfusedBytes}}}};
        if (failed(writeFile(report, [&](llvm::raw_ostream &os) {
              os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root)))
                 << "\n";
            })))
          return signalPassFailure();
      }
    }
    if (!roofline.empty()) {
      if (failed(writeFile(roofline, [&](llvm::raw_ostream &os) {
            writeRooflineSVG(os, tgt, plotDType.value_or(DType::BF16), points);
          })))
        return signalPassFailure();
    }
    markAllAnalysesPreserved();
  }

  /// The kernel config requested by the options (0 / auto: choose).
  FailureOr<KernelConfigRequest> kernelRequest() {
    KernelConfigRequest r;
    // The option parser has already rejected values other than auto,
    // mma.sync and wgmma.
    r.family = getTensorCoreFamily(mma);
    if (rowsPerWarp < 0 || kvStages < 0) {
      diagnosticAnchor()->emitError("attn-io-cost: rows-per-warp and kv-stages "
                                    "must be 0 (chosen) or positive");
      return failure();
    }
    r.blockQ = blockQ;
    r.blockKV = blockKV;
    r.rowsPerWarp = rowsPerWarp;
    r.kvStages = kvStages;
    r.swizzle = swizzle;
    if (kvSplits < 0 || kvSplits > 65535) {
      diagnosticAnchor()->emitError("attn-io-cost: kv-splits must be 0 "
                                    "(chosen) or 1 to 65535, got ")
          << kvSplits.getValue();
      return failure();
    }
    r.kvSplits = kvSplits;
    // Checked here, not only by the chooser: an op no kernel runs never
    // asks it.
    if (!llvm::is_contained({0, 1, 2, 4, 8}, int64_t(kvWarps))) {
      diagnosticAnchor()->emitError("attn-io-cost: kv-warps must be 0 (chosen), 1, 2, 4 "
                                    "or 8, got ")
          << kvWarps.getValue();
      return failure();
    }
    r.kvWarps = kvWarps;
    if (llvm::Error e = applyLoadOptions(kvLoads, overlapPV, persistent, fp8Mma, r)) {
      diagnosticAnchor()->emitError("attn-io-cost: ") << llvm::toString(std::move(e));
      return failure();
    }
    return r;
  }

  /// The GPU kernel this attention gets (the one chooser), or nullopt for
  /// shapes no GPU kernel runs (other dtypes and head dims: the CPU path).
  /// Explicit options that no kernel can run on a shape one can run are an
  /// error with the chooser's reason.
  FailureOr<std::optional<KernelConfig>>
  chooseConfig(Operation *op, const AttentionShape &shape, MaskReads mask,
               const TargetSpec &tgt) {
    FailureOr<KernelConfigRequest> request = kernelRequest();
    if (failed(request))
      return failure();
    // No kernel takes this op's form: no config, and no option can be at
    // fault (the GPU pipeline leaves the op to the host).
    if (whyNoGPUKernelForm(op))
      return std::optional<KernelConfig>();
    llvm::Expected<KernelConfig> chosen =
        chooseKernelConfig(shape, mask, tgt, *request);
    if (chosen)
      return std::optional<KernelConfig>(*chosen);
    std::string why = llvm::toString(chosen.takeError());
    if (!isRefusedOnlyByRequest(shape, mask, tgt, *request))
      return std::optional<KernelConfig>();
    op->emitError("attn-io-cost: ") << why;
    return failure();
  }

  /// The tiles the cost is computed for: the kernel that runs, else the
  /// explicit block-q/block-kv (what-if costing of another kernel), else
  /// the FlashAttention rule for shapes no GPU kernel runs.
  TileSizes costedTiles(const AttentionShape &shape, const TargetSpec &tgt,
                        const std::optional<KernelConfig> &config) {
    if (config)
      return config->tiles();
    TileSizes t = chooseTileSizes(shape, tgt);
    return {blockQ > 0 ? int64_t(blockQ) : t.blockQ,
            blockKV > 0 ? int64_t(blockKV) : t.blockKV};
  }

  static llvm::json::Object kernelConfigToJSON(const KernelConfig &c) {
    return llvm::json::Object{{"family", stringifyTensorCoreFamily(c.family)},
                              {"block_q", c.blockQ},
                              {"block_kv", c.blockKV},
                              {"rows_per_warp", c.rowsPerWarp},
                              {"kv_stages", c.kvStages},
                              {"swizzle", c.swizzle},
                              {"kv_splits", c.kvSplits},
                              {"pack_kv_groups", c.packKVGroups},
                              {"kv_warps", c.kvWarps},
                              {"tma_loads", c.tmaLoads},
                              {"producer_warpgroup", c.producerWarpgroup},
                              {"overlap_pv", c.overlapPV},
                              {"persistent", c.persistent}};
  }

  LogicalResult writeFile(StringRef path,
                          llvm::function_ref<void(llvm::raw_ostream &)> body) {
    std::error_code ec;
    llvm::ToolOutputFile out(path, ec, llvm::sys::fs::OF_Text);
    if (ec)
      return diagnosticAnchor()->emitError("cannot write '")
             << path << "': " << ec.message();
    body(out.os());
    // A write error (a full device) is a diagnostic, cleared so that the
    // stream's destructor does not abort the process.
    out.os().flush();
    if (std::error_code werr = out.os().error()) {
      out.os().clear_error();
      return diagnosticAnchor()->emitError("cannot write '")
             << path << "': " << werr.message();
    }
    out.keep();
    return success();
  }

};
} // namespace

//===- Fuse.cpp - --attn-fuse: attention -> tiled online softmax ----------===//
//
// attn.attention becomes loops over (batch…, head, query tile, K/V tile)
// whose body is one attn.online_attention. The loops are scf.for on tensors;
// the Lq×Lk matrix never exists, only Br×Bc tiles inside the step.
//
//===----------------------------------------------------------------------===//
#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/Dialect/Attn/Transforms/Passes.h"
#include "RuntimeShapeChecks.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <limits>

namespace mlir {
namespace attn {
#define GEN_PASS_DEF_ATTNFUSEPASS
#include "attn/Dialect/Attn/Transforms/Passes.h.inc"
} // namespace attn
} // namespace mlir

using namespace mlir;
using namespace mlir::attn;

namespace {

/// 64×64 is legal for the GPU kernel at every head dim we support (it fits
/// the register and shared-memory budgets of chooseTileSizes up to d = 256)
/// and keeps a CPU tile of f32 scores at 16 KB, inside L1/L2.
constexpr int64_t kDefaultBlock = 64;

/// Extent `dim` of `v` as an index value (a constant when static).
Value dimValue(OpBuilder &b, Location loc, Value v, int64_t dim) {
  auto t = cast<RankedTensorType>(v.getType());
  if (!t.isDynamicDim(dim))
    return arith::ConstantIndexOp::create(b, loc, t.getDimSize(dim));
  return tensor::DimOp::create(b, loc, v, dim);
}

OpFoldResult dimFold(OpBuilder &b, Location loc, Value v, int64_t dim) {
  auto t = cast<RankedTensorType>(v.getType());
  if (!t.isDynamicDim(dim))
    return b.getIndexAttr(t.getDimSize(dim));
  return tensor::DimOp::create(b, loc, v, dim).getResult();
}

/// Size of the tile that starts at `start` along an extent `extent` cut into
/// blocks of `block`: `block` statically when every tile is full, otherwise
/// min(block, extent - start), which is smaller only for the remainder tile.
OpFoldResult tileSize(OpBuilder &b, Location loc, int64_t staticExtent,
                      Value extent, int64_t block, Value start) {
  if (!ShapedType::isDynamic(staticExtent) && staticExtent % block == 0)
    return b.getIndexAttr(block);
  Value left = arith::SubIOp::create(b, loc, extent, start);
  Value blockV = arith::ConstantIndexOp::create(b, loc, block);
  return arith::MinSIOp::create(b, loc, blockV, left).getResult();
}

/// A rank-reducing slice of the last two dims of `src` at leading indices
/// `lead` (each dim of size 1), rows [row, row+rows) and columns
/// [col, col+cols).
Value sliceTile(OpBuilder &b, Location loc, Value src, ArrayRef<OpFoldResult> lead,
                OpFoldResult row, OpFoldResult rows, OpFoldResult col,
                OpFoldResult cols) {
  auto srcType = cast<RankedTensorType>(src.getType());
  SmallVector<OpFoldResult> offsets(lead.begin(), lead.end());
  SmallVector<OpFoldResult> sizes(lead.size(), b.getIndexAttr(1));
  offsets.append({row, col});
  sizes.append({rows, cols});
  SmallVector<OpFoldResult> strides(srcType.getRank(), b.getIndexAttr(1));
  auto resultType =
      tensor::ExtractSliceOp::inferCanonicalRankReducedResultType(2, srcType, sizes);
  return tensor::ExtractSliceOp::create(b, loc, resultType, src, offsets, sizes,
                                        strides);
}

Value filledTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> shape,
                   Type elementType, double value) {
  Value empty = tensor::EmptyOp::create(b, loc, shape, elementType);
  Value cst =
      arith::ConstantOp::create(b, loc, b.getFloatAttr(elementType, value));
  return linalg::FillOp::create(b, loc, cst, empty).getResult(0);
}

/// An FP8 tile as f32 real values: each element extended (exactly) and
/// times `descale` (a 0-d f32 tensor; none: 1). The steps then read f32
/// tiles, so attn.online_attention never sees an 8-bit float.
Value dequantizeTile(OpBuilder &b, Location loc, Value tile, Value descale) {
  Type f32 = b.getF32Type();
  Value factor;
  if (descale)
    factor = tensor::ExtractOp::create(b, loc, descale, ValueRange{});
  SmallVector<OpFoldResult> shape{dimFold(b, loc, tile, 0), dimFold(b, loc, tile, 1)};
  Value empty = tensor::EmptyOp::create(b, loc, shape, f32);
  AffineMap id = AffineMap::getMultiDimIdentityMap(2, b.getContext());
  return linalg::GenericOp::create(
             b, loc, TypeRange{empty.getType()}, ValueRange{tile}, ValueRange{empty},
             ArrayRef<AffineMap>{id, id},
             SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location l, ValueRange args) {
               Value x = arith::ExtFOp::create(nb, l, f32, args[0]);
               if (factor)
                 x = arith::MulFOp::create(nb, l, x, factor);
               linalg::YieldOp::create(nb, l, x);
             })
      .getResult(0);
}

struct FuseAttention : public OpRewritePattern<AttentionOp> {
  FuseAttention(MLIRContext *ctx, int64_t blockQ, int64_t blockKV)
      : OpRewritePattern(ctx), optBlockQ(blockQ), optBlockKV(blockKV) {}

  /// Options first, then the io-cost verdict, then the default.
  std::pair<int64_t, int64_t> tiles(AttentionOp op) const {
    int64_t bq = optBlockQ, bkv = optBlockKV;
    if (auto cost = op->getAttrOfType<IOCostAttr>(kIOCostAttrName)) {
      if (bq <= 0) bq = cost.getBlockQ();
      if (bkv <= 0) bkv = cost.getBlockKv();
    }
    return {bq > 0 ? bq : kDefaultBlock, bkv > 0 ? bkv : kDefaultBlock};
  }

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
    Value mask = op.getMask();
    auto qType = cast<RankedTensorType>(q.getType());
    auto resultType = cast<RankedTensorType>(op.getResult().getType());
    int64_t rank = op.getRank();
    auto [blockQ, blockKV] = tiles(op);
    // A single tile covers a short static sequence: no remainder logic.
    if (!qType.isDynamicDim(rank - 2))
      blockQ = std::min(blockQ, qType.getDimSize(rank - 2));
    int64_t staticLk = cast<RankedTensorType>(k.getType()).getDimSize(rank - 2);
    if (!ShapedType::isDynamic(staticLk))
      blockKV = std::min(blockKV, staticLk);

    // Dynamic extents are checked before anything divides by or indexes
    // with them.
    emitRuntimeShapeChecks(rewriter, op);
    Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value c1 = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value lq = dimValue(rewriter, loc, q, rank - 2);
    Value lk = dimValue(rewriter, loc, k, rank - 2);
    OpFoldResult d = dimFold(rewriter, loc, q, rank - 1);
    OpFoldResult dv = dimFold(rewriter, loc, v, rank - 1);
    // GQA: query head h reads K/V head h / group.
    Value group;
    if (op.hasHeadDim())
      group = arith::DivUIOp::create(rewriter, loc, dimValue(rewriter, loc, q, rank - 3),
                                     dimValue(rewriter, loc, k, rank - 3));
    // Causal shift: query i sees keys j <= i + shift.
    Value shift = c0;
    if (op.getCausal() == CausalAlignment::bottom_right)
      shift = arith::SubIOp::create(rewriter, loc, lk, lq);

    SmallVector<OpFoldResult> outShape;
    for (int64_t i = 0; i < rank; ++i)
      outShape.push_back(dimFold(rewriter, loc, op.getResult(), i));
    // Shapes of the result come from Q and V when the result is dynamic.
    for (int64_t i = 0; i < rank - 1; ++i)
      if (resultType.isDynamicDim(i))
        outShape[i] = dimFold(rewriter, loc, q, i);
    if (resultType.isDynamicDim(rank - 1))
      outShape[rank - 1] = dv;
    Value init = tensor::EmptyOp::create(rewriter, loc, outShape,
                                         resultType.getElementType());

    // Loops over batch dims and heads, carrying the output tensor.
    SmallVector<Value> leadIvs;
    Value out = init;
    OpBuilder::InsertionGuard guard(rewriter);
    SmallVector<scf::ForOp> loops;
    for (int64_t i = 0; i < rank - 2; ++i) {
      auto loop = scf::ForOp::create(rewriter, loc, c0,
                                     dimValue(rewriter, loc, q, i), c1, ValueRange{out});
      if (!loops.empty())
        scf::YieldOp::create(rewriter, loc, loop.getResults());
      loops.push_back(loop);
      rewriter.setInsertionPointToStart(loop.getBody());
      leadIvs.push_back(loop.getInductionVar());
      out = loop.getRegionIterArgs()[0];
    }

    // Query tiles.
    Value blockQV = arith::ConstantIndexOp::create(rewriter, loc, blockQ);
    auto qLoop = scf::ForOp::create(rewriter, loc, c0, lq, blockQV, ValueRange{out});
    if (!loops.empty())
      scf::YieldOp::create(rewriter, loc, qLoop.getResults());
    rewriter.setInsertionPointToStart(qLoop.getBody());
    Value qStart = qLoop.getInductionVar();
    OpFoldResult bq = tileSize(rewriter, loc, qType.getDimSize(rank - 2), lq,
                               blockQ, qStart);

    SmallVector<OpFoldResult> qLead(leadIvs.begin(), leadIvs.end());
    SmallVector<OpFoldResult> kvLead = qLead;
    if (op.hasHeadDim())
      kvLead.back() =
          arith::DivUIOp::create(rewriter, loc, leadIvs.back(), group).getResult();
    Value qTile = sliceTile(rewriter, loc, q, qLead, qStart, bq, rewriter.getIndexAttr(0), d);
    bool fp8 = op.hasFP8Inputs();
    if (fp8)
      qTile = dequantizeTile(rewriter, loc, qTile, op.getQueryDescale());

    Type accT = getAccumulatorType(resultType.getElementType());
    Value acc = filledTensor(rewriter, loc, {bq, dv}, accT, 0.0);
    Value rowMax = filledTensor(rewriter, loc, {bq}, accT,
                                -std::numeric_limits<double>::infinity());
    Value rowSum = filledTensor(rewriter, loc, {bq}, accT, 0.0);

    // Causal: K/V tiles that start past the last visible key of this query
    // tile are wholly above the diagonal; the loop stops before them.
    Value kvEnd = lk;
    if (op.isCausal()) {
      Value bqV = getValueOrCreateConstantIndexOp(rewriter, loc, bq);
      Value lastVisible = arith::AddIOp::create(
          rewriter, loc, arith::AddIOp::create(rewriter, loc, qStart, bqV), shift);
      kvEnd = arith::MinSIOp::create(
          rewriter, loc, lk, arith::MaxSIOp::create(rewriter, loc, lastVisible, c0));
    }
    Value blockKVV = arith::ConstantIndexOp::create(rewriter, loc, blockKV);
    auto kvLoop = scf::ForOp::create(rewriter, loc, c0, kvEnd, blockKVV,
                                     ValueRange{acc, rowMax, rowSum});
    {
      OpBuilder::InsertionGuard inner(rewriter);
      rewriter.setInsertionPointToStart(kvLoop.getBody());
      Value kvStart = kvLoop.getInductionVar();
      OpFoldResult bkv = tileSize(rewriter, loc, staticLk, lk, blockKV, kvStart);
      Value kTile = sliceTile(rewriter, loc, k, kvLead, kvStart, bkv,
                              rewriter.getIndexAttr(0), d);
      Value vTile = sliceTile(rewriter, loc, v, kvLead, kvStart, bkv,
                              rewriter.getIndexAttr(0), dv);
      if (fp8) {
        kTile = dequantizeTile(rewriter, loc, kTile, op.getKeyDescale());
        vTile = dequantizeTile(rewriter, loc, vTile, op.getValueDescale());
      }
      Value maskTile;
      if (mask)
        maskTile = sliceMask(rewriter, loc, mask, leadIvs, qStart, bq, kvStart, bkv);
      Value diagonal;
      if (op.isCausal())
        diagonal = arith::AddIOp::create(
            rewriter, loc, arith::SubIOp::create(rewriter, loc, qStart, kvStart),
            shift);
      ValueRange state = kvLoop.getRegionIterArgs();
      // A score_mod goes with the step, with the tile's place in the scores.
      SmallVector<Value> origin;
      if (op.hasScoreMod()) {
        origin.assign(leadIvs.begin(), leadIvs.end());
        origin.append({qStart, kvStart});
      }
      auto step = OnlineAttentionOp::create(rewriter, loc, qTile, kTile, vTile,
                                            state[0], state[1], state[2], maskTile,
                                            diagonal, origin, op.getScaleAttr());
      if (op.hasScoreMod()) {
        IRMapping same;
        op.getScoreMod().cloneInto(&step.getScoreMod(), same);
      }
      scf::YieldOp::create(rewriter, loc, step.getResults());
    }

    // O = acc / l, 0 for fully masked rows (l = 0), cast to the result type.
    Value finalAcc = kvLoop.getResult(0), finalSum = kvLoop.getResult(2);
    Type outElt = resultType.getElementType();
    Value outTile = tensor::EmptyOp::create(rewriter, loc, SmallVector<OpFoldResult>{bq, dv},
                                            outElt);
    MLIRContext *ctx = rewriter.getContext();
    AffineMap id = AffineMap::getMultiDimIdentityMap(2, ctx);
    AffineMap rowMap = AffineMap::get(2, 0, {rewriter.getAffineDimExpr(0)}, ctx);
    auto normalize = linalg::GenericOp::create(
        rewriter, loc, TypeRange{outTile.getType()}, ValueRange{finalAcc, finalSum},
        ValueRange{outTile}, ArrayRef<AffineMap>{id, rowMap, id},
        SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value zero = arith::ConstantOp::create(b, l, b.getFloatAttr(accT, 0.0));
          Value isEmpty = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ,
                                                args[1], zero);
          Value div = arith::DivFOp::create(b, l, args[0], args[1]);
          Value res = arith::SelectOp::create(b, l, isEmpty, zero, div);
          if (outElt != accT)
            res = arith::TruncFOp::create(b, l, outElt, res);
          linalg::YieldOp::create(b, l, res);
        });
    SmallVector<OpFoldResult> offsets(qLead.begin(), qLead.end());
    offsets.append({qStart, rewriter.getIndexAttr(0)});
    SmallVector<OpFoldResult> sizes(rank - 2, rewriter.getIndexAttr(1));
    sizes.append({bq, dv});
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    Value inserted = tensor::InsertSliceOp::create(
        rewriter, loc, normalize.getResult(0), qLoop.getRegionIterArgs()[0],
        offsets, sizes, strides);
    scf::YieldOp::create(rewriter, loc, inserted);

    Value result = loops.empty() ? qLoop.getResult(0) : loops.front().getResult(0);
    // The extents came from Q and V; the op's result type may be less
    // static than they are.
    if (result.getType() != op.getType()) {
      rewriter.setInsertionPointAfter(result.getDefiningOp());
      result = tensor::CastOp::create(rewriter, loc, op.getType(), result);
    }
    rewriter.replaceOp(op, result);
    return success();
  }

  /// The [bq, bkv] tile of a mask that broadcasts along dims of size 1.
  static Value sliceMask(OpBuilder &b, Location loc, Value mask,
                         ArrayRef<Value> leadIvs, Value qStart, OpFoldResult bq,
                         Value kvStart, OpFoldResult bkv) {
    auto type = cast<RankedTensorType>(mask.getType());
    int64_t rank = type.getRank();
    SmallVector<OpFoldResult> offsets, sizes;
    for (int64_t i = 0; i < rank - 2; ++i) {
      offsets.push_back(type.getDimSize(i) == 1 ? OpFoldResult(b.getIndexAttr(0))
                                                : OpFoldResult(leadIvs[i]));
      sizes.push_back(b.getIndexAttr(1));
    }
    bool bcastRows = type.getDimSize(rank - 2) == 1;
    bool bcastCols = type.getDimSize(rank - 1) == 1;
    offsets.push_back(bcastRows ? OpFoldResult(b.getIndexAttr(0)) : OpFoldResult(qStart));
    offsets.push_back(bcastCols ? OpFoldResult(b.getIndexAttr(0)) : OpFoldResult(kvStart));
    sizes.push_back(bcastRows ? OpFoldResult(b.getIndexAttr(1)) : bq);
    sizes.push_back(bcastCols ? OpFoldResult(b.getIndexAttr(1)) : bkv);
    SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
    auto sliceType =
        tensor::ExtractSliceOp::inferCanonicalRankReducedResultType(2, type, sizes);
    Value tile = tensor::ExtractSliceOp::create(b, loc, sliceType, mask, offsets,
                                                sizes, strides);
    if (!bcastRows && !bcastCols)
      return tile;
    // Broadcast the size-1 dims up to the tile.
    MLIRContext *ctx = b.getContext();
    AffineExpr zero = getAffineConstantExpr(0, ctx);
    AffineMap inMap = AffineMap::get(
        2, 0, {bcastRows ? zero : getAffineDimExpr(0, ctx),
               bcastCols ? zero : getAffineDimExpr(1, ctx)}, ctx);
    Value empty = tensor::EmptyOp::create(b, loc, SmallVector<OpFoldResult>{bq, bkv},
                                          type.getElementType());
    return linalg::GenericOp::create(
               b, loc, TypeRange{empty.getType()}, ValueRange{tile}, ValueRange{empty},
               ArrayRef<AffineMap>{inMap, AffineMap::getMultiDimIdentityMap(2, ctx)},
               SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
               [](OpBuilder &nb, Location l, ValueRange args) {
                 linalg::YieldOp::create(nb, l, args[0]);
               })
        .getResult(0);
  }

  int64_t optBlockQ, optBlockKV;
};

struct AttnFusePass : public attn::impl::AttnFusePassBase<AttnFusePass> {
  using AttnFusePassBase::AttnFusePassBase;

  void runOnOperation() override {
    if (blockQ < 0 || blockKV < 0) {
      getOperation().emitError("attn-fuse: block-q and block-kv must be >= 0");
      return signalPassFailure();
    }
    RewritePatternSet patterns(&getContext());
    populateAttnFusePatterns(patterns, blockQ, blockKV);
    // Every attention is rewritten exactly once; no folding is wanted here.
    GreedyRewriteConfig config;
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      return signalPassFailure();
  }
};
} // namespace

void mlir::attn::populateAttnFusePatterns(RewritePatternSet &patterns,
                                          int64_t blockQ, int64_t blockKV) {
  patterns.add<FuseAttention>(patterns.getContext(), blockQ, blockKV);
}

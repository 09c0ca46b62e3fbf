//===- DecomposeToLinalg.cpp - attn ops -> linalg on tensors --------------===//
//
// Each attn op becomes linalg.generic ops on tensors that spell out its math.
// Upstream bufferization and loop lowering take it from there, so the CPU
// path shares every line after this file with any other linalg user.
//
//===----------------------------------------------------------------------===//
#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/Dialect/Attn/Transforms/Passes.h"
#include "RuntimeShapeChecks.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

#include <limits>

using namespace mlir;
using namespace mlir::attn;

namespace {

using utils::IteratorType;
constexpr IteratorType kPar = IteratorType::parallel;
constexpr IteratorType kRed = IteratorType::reduction;

/// Converts `v` (a float scalar) to `to` by extension or truncation.
Value castFloat(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (cast<FloatType>(from).getWidth() < cast<FloatType>(to).getWidth())
    return arith::ExtFOp::create(b, loc, to, v);
  return arith::TruncFOp::create(b, loc, to, v);
}

Value floatConst(OpBuilder &b, Location loc, Type t, double v) {
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(t, v));
}

/// One term of P·V: p·v, except that a masked key (score -inf: causal,
/// keep=false or an additive -inf) contributes nothing at all, even when v
/// is NaN or inf. attn.attention's rule, in the naive and the fused
/// lowering alike, so that the result does not depend on which K/V tiles
/// the fused loop happens to skip (0·NaN would be NaN only in the diagonal
/// tile). An unmasked key whose p underflows to 0 still gives 0·v.
Value pvTerm(OpBuilder &b, Location loc, Value score, Value p, Value v) {
  Value prod = arith::MulFOp::create(b, loc, p, castFloat(b, loc, v, p.getType()));
  Value ninf = floatConst(b, loc, score.getType(),
                          -std::numeric_limits<double>::infinity());
  Value masked =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, score, ninf);
  return arith::SelectOp::create(b, loc, masked,
                                 floatConst(b, loc, p.getType(), 0.0), prod);
}

/// A tensor.empty with the given extents, each taken from (value, dim).
Value emptyLike(OpBuilder &b, Location loc, ArrayRef<std::pair<Value, int64_t>> dims,
                Type elt) {
  SmallVector<OpFoldResult> shape;
  for (auto [v, d] : dims) {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.isDynamicDim(d))
      shape.push_back(tensor::DimOp::create(b, loc, v, d).getResult());
    else
      shape.push_back(b.getIndexAttr(t.getDimSize(d)));
  }
  return tensor::EmptyOp::create(b, loc, shape, elt);
}

Value fill(OpBuilder &b, Location loc, Value empty, double v) {
  Type elt = cast<RankedTensorType>(empty.getType()).getElementType();
  return linalg::FillOp::create(b, loc, floatConst(b, loc, elt, v), empty)
      .getResult(0);
}

Value generic(OpBuilder &b, Location loc, ValueRange ins, Value init,
              ArrayRef<AffineMap> maps, ArrayRef<IteratorType> iters,
              function_ref<void(OpBuilder &, Location, ValueRange)> body) {
  return linalg::GenericOp::create(b, loc, TypeRange{init.getType()}, ins,
                                   ValueRange{init}, maps, iters, body)
      .getResult(0);
}

/// The value exp() is taken relative to: the running max, or 0 for a row
/// that has seen only -inf (exp(-inf - 0) = 0, where -inf - -inf is NaN).
Value safeMax(OpBuilder &b, Location loc, Value m) {
  Value negInf = floatConst(b, loc, m.getType(), -std::numeric_limits<double>::infinity());
  Value isNegInf = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, m, negInf);
  return arith::SelectOp::create(b, loc, isNegInf,
                                 floatConst(b, loc, m.getType(), 0.0), m);
}

/// Applies the mask value `maskElt` (float: added; i1: keep) to score `s`.
Value applyMask(OpBuilder &b, Location loc, Value s, Value maskElt) {
  if (maskElt.getType().isInteger(1))
    return arith::SelectOp::create(
        b, loc, maskElt, s,
        floatConst(b, loc, s.getType(), -std::numeric_limits<double>::infinity()));
  return arith::AddFOp::create(b, loc, s, castFloat(b, loc, maskElt, s.getType()));
}

/// -inf where column `col` lies above the diagonal: col > row + delta.
Value applyCausal(OpBuilder &b, Location loc, Value s, Value row, Value col,
                  Value delta) {
  Value limit = arith::AddIOp::create(b, loc, row, delta);
  Value above = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, col, limit);
  return arith::SelectOp::create(
      b, loc, above,
      floatConst(b, loc, s.getType(), -std::numeric_limits<double>::infinity()), s);
}

/// The generic's loop indices [first, first + n) as values.
SmallVector<Value> loopIndices(OpBuilder &b, Location loc, int64_t first, int64_t n) {
  SmallVector<Value> out;
  for (int64_t d = first; d < first + n; ++d)
    out.push_back(linalg::IndexOp::create(b, loc, d));
  return out;
}

/// Affine map of a mask operand: broadcast dims (size 1) read index 0.
AffineMap maskMap(RankedTensorType maskType, ArrayRef<AffineExpr> scoreDims,
                  unsigned numLoops, MLIRContext *ctx) {
  SmallVector<AffineExpr> exprs;
  for (auto [i, e] : llvm::enumerate(scoreDims))
    exprs.push_back(maskType.getDimSize(i) == 1 ? getAffineConstantExpr(0, ctx) : e);
  return AffineMap::get(numLoops, 0, exprs, ctx);
}

//===----------------------------------------------------------------------===//
// attn.online_attention: one step of the recurrence on a tile.
//===----------------------------------------------------------------------===//

struct DecomposeOnlineAttention : public OpRewritePattern<OnlineAttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(OnlineAttentionOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
    Type accT = getAccumulatorType(getElementTypeOrSelf(q.getType()));
    AffineExpr i = b.getAffineDimExpr(0), j = b.getAffineDimExpr(1),
               l = b.getAffineDimExpr(2);
    auto map3 = [&](ArrayRef<AffineExpr> e) { return AffineMap::get(3, 0, e, ctx); };
    auto map2 = [&](ArrayRef<AffineExpr> e) { return AffineMap::get(2, 0, e, ctx); };
    AffineMap id2 = map2({i, j}), row2 = map2({i});

    // S = Q·Kᵀ in the accumulator type (f32, f64 for f64).
    Value sInit = fill(b, loc, emptyLike(b, loc, {{q, 0}, {k, 0}}, accT), 0.0);
    Value s = generic(b, loc, {q, k}, sInit, {map3({i, l}), map3({j, l}), map3({i, j})},
                      {kPar, kPar, kRed}, [&](OpBuilder &nb, Location nl, ValueRange a) {
                        Value prod = arith::MulFOp::create(
                            nb, nl, castFloat(nb, nl, a[0], accT),
                            castFloat(nb, nl, a[1], accT));
                        linalg::YieldOp::create(
                            nb, nl, arith::AddFOp::create(nb, nl, a[2], prod).getResult());
                      });
    // S = S·scale, then the mask tile and the causal diagonal.
    SmallVector<Value> ins{s};
    SmallVector<AffineMap> maps{id2};
    if (op.getMask()) {
      ins.push_back(op.getMask());
      maps.push_back(id2);
    }
    maps.push_back(id2);
    Value delta = op.getCausalDiagonal();
    double scale = op.getScale().convertToDouble();
    s = generic(b, loc, ins, emptyLike(b, loc, {{q, 0}, {k, 0}}, accT), maps,
                {kPar, kPar}, [&](OpBuilder &nb, Location nl, ValueRange a) {
                  Value x = arith::MulFOp::create(nb, nl, a[0],
                                                  floatConst(nb, nl, accT, scale));
                  if (!op.getScoreMod().empty()) {
                    // The tile's (b…, h, i0, j0) plus the element's (r, c).
                    SmallVector<Value> at(op.getScoreOrigin());
                    SmallVector<Value> rc = loopIndices(nb, nl, 0, 2);
                    at[at.size() - 2] = arith::AddIOp::create(nb, nl, at[at.size() - 2], rc[0]);
                    at[at.size() - 1] = arith::AddIOp::create(nb, nl, at[at.size() - 1], rc[1]);
                    x = applyScoreMod(nb, op.getScoreMod(), x, at);
                  }
                  if (op.getMask())
                    x = applyMask(nb, nl, x, a[1]);
                  if (delta)
                    x = applyCausal(nb, nl, x, linalg::IndexOp::create(nb, nl, 0),
                                    linalg::IndexOp::create(nb, nl, 1), delta);
                  linalg::YieldOp::create(nb, nl, x);
                });
    // The state tensors are updated in place (DPS inits are the loop's
    // iter_args), so one-shot bufferization keeps acc/max/sum in one buffer
    // across K/V tiles instead of copying them every step.
    AffineMap id1 = AffineMap::getMultiDimIdentityMap(1, ctx);
    auto yieldOf = [](auto fn) {
      return [fn](OpBuilder &nb, Location nl, ValueRange a) {
        linalg::YieldOp::create(nb, nl, fn(nb, nl, a));
      };
    };
    // m' = max(m, rowmax S), into a fresh tensor: alpha still needs m.
    Value rowMax = generic(b, loc, {s},
                           fill(b, loc, emptyLike(b, loc, {{q, 0}}, accT),
                                -std::numeric_limits<double>::infinity()),
                           {id2, row2}, {kPar, kRed},
                           yieldOf([](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                             return arith::MaximumFOp::create(nb, nl, a[0], a[1]);
                           }));
    Value mNew = generic(b, loc, {rowMax, op.getMax()}, emptyLike(b, loc, {{q, 0}}, accT),
                         {id1, id1, id1}, {kPar},
                         yieldOf([](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                           return arith::MaximumFOp::create(nb, nl, a[0], a[1]);
                         }));
    // P = exp(S − m').
    Value p = generic(b, loc, {s, mNew}, emptyLike(b, loc, {{q, 0}, {k, 0}}, accT),
                      {id2, row2, id2}, {kPar, kPar},
                      yieldOf([](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                        Value x = arith::SubFOp::create(nb, nl, a[0], safeMax(nb, nl, a[1]));
                        return math::ExpOp::create(nb, nl, x);
                      }));
    // α = e^(m − m').
    Value alpha = generic(b, loc, {op.getMax(), mNew}, emptyLike(b, loc, {{q, 0}}, accT),
                          {id1, id1, id1}, {kPar},
                          yieldOf([](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                            Value x = arith::SubFOp::create(nb, nl, a[0],
                                                            safeMax(nb, nl, a[1]));
                            return math::ExpOp::create(nb, nl, x);
                          }));
    auto scaleByAlpha = yieldOf([](OpBuilder &nb, Location nl, ValueRange a) -> Value {
      return arith::MulFOp::create(nb, nl, a[1], a[0]);
    });
    // l' = α·l + rowsum P.
    Value lScaled = generic(b, loc, {alpha}, op.getSum(), {id1, id1}, {kPar}, scaleByAlpha);
    Value lNew = generic(b, loc, {p}, lScaled, {id2, row2}, {kPar, kRed},
                         yieldOf([](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                           return arith::AddFOp::create(nb, nl, a[0], a[1]);
                         }));
    // acc' = α·acc + P·V.
    Value accScaled = generic(b, loc, {alpha}, op.getAcc(), {row2, id2}, {kPar, kPar},
                              scaleByAlpha);
    Value accNew = generic(b, loc, {p, v, s}, accScaled,
                           {map3({i, l}), map3({l, j}), map3({i, l}), map3({i, j})},
                           {kPar, kPar, kRed},
                           [&](OpBuilder &nb, Location nl, ValueRange a) {
                             Value term = pvTerm(nb, nl, a[2], a[0], a[1]);
                             linalg::YieldOp::create(
                                 nb, nl, arith::AddFOp::create(nb, nl, a[3], term).getResult());
                           });
    // m is written last, after α has read the old value.
    Value mFinal = generic(b, loc, {mNew}, op.getMax(), {id1, id1}, {kPar},
                           yieldOf([](OpBuilder &, Location, ValueRange a) -> Value {
                             return a[0];
                           }));
    b.replaceOp(op, {accNew, mFinal, lNew});
    return success();
  }
};

//===----------------------------------------------------------------------===//
// attn.attention: the naive reference, S materialized.
//===----------------------------------------------------------------------===//

struct DecomposeAttention : public OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
    Type accT = getAccumulatorType(getElementTypeOrSelf(q.getType()));
    int64_t r = op.getRank();
    int64_t group = op.getGroupSize();
    if (op.hasHeadDim() && (cast<RankedTensorType>(q.getType()).isDynamicDim(r - 3) ||
                            cast<RankedTensorType>(k.getType()).isDynamicDim(r - 3)))
      return b.notifyMatchFailure(op, "dynamic head counts");
    emitRuntimeShapeChecks(b, op);
    // Loops: lead dims (batch…, head), i (query), j (key), x (contraction).
    unsigned nLead = r - 2;
    SmallVector<AffineExpr> lead, kvLead;
    for (unsigned t = 0; t < nLead; ++t)
      lead.push_back(b.getAffineDimExpr(t));
    kvLead = lead;
    if (op.hasHeadDim() && group > 1)
      kvLead.back() = lead.back().floorDiv(group);
    AffineExpr i = b.getAffineDimExpr(nLead), j = b.getAffineDimExpr(nLead + 1),
               x = b.getAffineDimExpr(nLead + 2);
    auto mapOf = [&](unsigned n, ArrayRef<AffineExpr> head, ArrayRef<AffineExpr> tail) {
      SmallVector<AffineExpr> e(head.begin(), head.end());
      e.append(tail.begin(), tail.end());
      return AffineMap::get(n, 0, e, ctx);
    };
    SmallVector<IteratorType> par2(nLead + 2, kPar), par1(nLead + 1, kPar);
    SmallVector<IteratorType> mm(nLead + 2, kPar);
    mm.push_back(kRed);
    SmallVector<IteratorType> rowRed(nLead + 1, kPar);
    rowRed.push_back(kRed);

    SmallVector<std::pair<Value, int64_t>> scoreDims, rowDims, outDims;
    for (unsigned t = 0; t < nLead; ++t)
      scoreDims.push_back({q, t});
    rowDims = scoreDims;
    rowDims.push_back({q, r - 2});
    scoreDims.push_back({q, r - 2});
    scoreDims.push_back({k, r - 2});
    outDims = rowDims;
    outDims.push_back({v, r - 1});

    // S = Q·Kᵀ·scale (+ mask) (causal), in the accumulator type.
    unsigned nMM = nLead + 3;
    Value s = generic(b, loc, {q, k}, fill(b, loc, emptyLike(b, loc, scoreDims, accT), 0.0),
                      {mapOf(nMM, lead, {i, x}), mapOf(nMM, kvLead, {j, x}),
                       mapOf(nMM, lead, {i, j})},
                      mm, [&](OpBuilder &nb, Location nl, ValueRange a) {
                        Value prod = arith::MulFOp::create(nb, nl, castFloat(nb, nl, a[0], accT),
                                                           castFloat(nb, nl, a[1], accT));
                        linalg::YieldOp::create(
                            nb, nl, arith::AddFOp::create(nb, nl, a[2], prod).getResult());
                      });
    unsigned n2 = nLead + 2;
    AffineMap id2 = AffineMap::getMultiDimIdentityMap(n2, ctx);
    AffineMap row = mapOf(n2, lead, {i});
    SmallVector<Value> ins{s};
    SmallVector<AffineMap> maps{id2};
    if (Value mask = op.getMask()) {
      SmallVector<AffineExpr> sd(lead);
      sd.append({i, j});
      ins.push_back(mask);
      maps.push_back(maskMap(cast<RankedTensorType>(mask.getType()), sd, n2, ctx));
    }
    maps.push_back(id2);
    Value shift;
    if (op.isCausal()) {
      shift = arith::ConstantIndexOp::create(b, loc, 0);
      if (op.getCausal() == CausalAlignment::bottom_right)
        shift = arith::SubIOp::create(b, loc, tensor::DimOp::create(b, loc, k, r - 2),
                                      tensor::DimOp::create(b, loc, q, r - 2));
    }
    // FP8: the real scores are Q·Kᵀ times q_descale·k_descale (extending
    // the 8-bit floats to accT above is exact).
    Value scale = floatConst(b, loc, accT, op.getScale().convertToDouble());
    if (Value qd = op.getQueryDescale()) {
      Value qk = arith::MulFOp::create(b, loc, tensor::ExtractOp::create(b, loc, qd, ValueRange{}),
                                       tensor::ExtractOp::create(b, loc, op.getKeyDescale(),
                                                                 ValueRange{}));
      scale = arith::MulFOp::create(b, loc, scale, qk);
    }
    bool hasMask = static_cast<bool>(op.getMask());
    s = generic(b, loc, ins, emptyLike(b, loc, scoreDims, accT), maps, par2,
                [&](OpBuilder &nb, Location nl, ValueRange a) {
                  Value y = arith::MulFOp::create(nb, nl, a[0], scale);
                  y = applyScoreMod(nb, op.getScoreMod(), y, loopIndices(nb, nl, 0, n2));
                  if (hasMask)
                    y = applyMask(nb, nl, y, a[1]);
                  if (shift)
                    y = applyCausal(nb, nl, y, linalg::IndexOp::create(nb, nl, nLead),
                                    linalg::IndexOp::create(nb, nl, nLead + 1), shift);
                  linalg::YieldOp::create(nb, nl, y);
                });
    // Row max, exp, row sum.
    Value m = generic(b, loc, {s},
                      fill(b, loc, emptyLike(b, loc, rowDims, accT),
                           -std::numeric_limits<double>::infinity()),
                      {id2, row}, rowRed, [](OpBuilder &nb, Location nl, ValueRange a) {
                        linalg::YieldOp::create(
                            nb, nl, arith::MaximumFOp::create(nb, nl, a[0], a[1]).getResult());
                      });
    Value p = generic(b, loc, {s, m}, emptyLike(b, loc, scoreDims, accT), {id2, row, id2},
                      par2, [](OpBuilder &nb, Location nl, ValueRange a) {
                        Value y = arith::SubFOp::create(nb, nl, a[0], safeMax(nb, nl, a[1]));
                        linalg::YieldOp::create(nb, nl, math::ExpOp::create(nb, nl, y).getResult());
                      });
    Value l = generic(b, loc, {p}, fill(b, loc, emptyLike(b, loc, rowDims, accT), 0.0),
                      {id2, row}, rowRed, [](OpBuilder &nb, Location nl, ValueRange a) {
                        linalg::YieldOp::create(
                            nb, nl, arith::AddFOp::create(nb, nl, a[0], a[1]).getResult());
                      });
    // O = (P·V) / l, 0 for fully masked rows.
    Value o = generic(b, loc, {p, v, s}, fill(b, loc, emptyLike(b, loc, outDims, accT), 0.0),
                      {mapOf(nMM, lead, {i, x}), mapOf(nMM, kvLead, {x, j}),
                       mapOf(nMM, lead, {i, x}), mapOf(nMM, lead, {i, j})},
                      mm, [&](OpBuilder &nb, Location nl, ValueRange a) {
                        Value term = pvTerm(nb, nl, a[2], a[0], a[1]);
                        linalg::YieldOp::create(
                            nb, nl, arith::AddFOp::create(nb, nl, a[3], term).getResult());
                      });
    Type outElt = op.getResult().getType().getElementType();
    Value valueDescale;
    if (Value vd = op.getValueDescale())
      valueDescale = tensor::ExtractOp::create(b, loc, vd, ValueRange{});
    Value out = generic(b, loc, {o, l}, emptyLike(b, loc, outDims, outElt),
                        {id2, row, id2}, par2, [&](OpBuilder &nb, Location nl, ValueRange a) {
                          Value zero = floatConst(nb, nl, accT, 0.0);
                          Value empty = arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OEQ,
                                                              a[1], zero);
                          Value y = arith::DivFOp::create(nb, nl, a[0], a[1]);
                          // (Before the select: a dead row stays 0 even
                          // for a v_descale of inf or NaN.)
                          if (valueDescale)
                            y = arith::MulFOp::create(nb, nl, y, valueDescale);
                          y = arith::SelectOp::create(nb, nl, empty, zero, y);
                          linalg::YieldOp::create(nb, nl, castFloat(nb, nl, y, outElt));
                        });
    // The extents came from Q and V; the op's result type may be less
    // static than they are.
    if (out.getType() != op.getType())
      out = tensor::CastOp::create(b, loc, op.getType(), out);
    b.replaceOp(op, out);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Graph primitives.
//===----------------------------------------------------------------------===//

struct DecomposeMatmul : public OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    int64_t r = op.getLhs().getType().getRank();
    unsigned n = r + 1; // batch…, i, j, k
    SmallVector<AffineExpr> batch;
    for (int64_t t = 0; t < r - 2; ++t)
      batch.push_back(b.getAffineDimExpr(t));
    AffineExpr i = b.getAffineDimExpr(r - 2), j = b.getAffineDimExpr(r - 1),
               kk = b.getAffineDimExpr(r);
    auto mapOf = [&](AffineExpr a, AffineExpr c) {
      SmallVector<AffineExpr> e(batch);
      e.append({a, c});
      return AffineMap::get(n, 0, e, ctx);
    };
    SmallVector<std::pair<Value, int64_t>> dims;
    for (int64_t t = 0; t < r - 1; ++t)
      dims.push_back({op.getLhs(), t});
    dims.push_back({op.getRhs(), op.getTransposeRhs() ? r - 2 : r - 1});
    Type elt = op.getResult().getType().getElementType();
    SmallVector<IteratorType> iters(r, kPar);
    iters.push_back(kRed);
    Value res = generic(
        b, loc, {op.getLhs(), op.getRhs()}, fill(b, loc, emptyLike(b, loc, dims, elt), 0.0),
        {mapOf(i, kk), op.getTransposeRhs() ? mapOf(j, kk) : mapOf(kk, j), mapOf(i, j)},
        iters, [&](OpBuilder &nb, Location nl, ValueRange a) {
          Value prod = arith::MulFOp::create(nb, nl, castFloat(nb, nl, a[0], elt),
                                             castFloat(nb, nl, a[1], elt));
          linalg::YieldOp::create(nb, nl, arith::AddFOp::create(nb, nl, a[2], prod).getResult());
        });
    b.replaceOp(op, res);
    return success();
  }
};

/// Elementwise helper for scale and mask: one generic over the input shape.
Value elementwise(OpBuilder &b, Location loc, Value input, ArrayRef<Value> extra,
                  ArrayRef<AffineMap> extraMaps,
                  function_ref<Value(OpBuilder &, Location, ValueRange)> fn) {
  auto t = cast<RankedTensorType>(input.getType());
  SmallVector<std::pair<Value, int64_t>> dims;
  for (int64_t d = 0; d < t.getRank(); ++d)
    dims.push_back({input, d});
  AffineMap id = AffineMap::getMultiDimIdentityMap(t.getRank(), b.getContext());
  SmallVector<Value> ins{input};
  ins.append(extra.begin(), extra.end());
  SmallVector<AffineMap> maps{id};
  maps.append(extraMaps.begin(), extraMaps.end());
  maps.push_back(id);
  return generic(b, loc, ins, emptyLike(b, loc, dims, t.getElementType()), maps,
                 SmallVector<IteratorType>(t.getRank(), kPar),
                 [&](OpBuilder &nb, Location nl, ValueRange a) {
                   linalg::YieldOp::create(nb, nl, fn(nb, nl, a));
                 });
}

struct DecomposeScale : public OpRewritePattern<ScaleOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ScaleOp op, PatternRewriter &b) const override {
    double f = op.getFactor().convertToDouble();
    b.replaceOp(op, elementwise(b, op.getLoc(), op.getInput(), {}, {},
                                [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                                  return arith::MulFOp::create(
                                      nb, nl, a[0], floatConst(nb, nl, a[0].getType(), f));
                                }));
    return success();
  }
};

struct DecomposeMask : public OpRewritePattern<MaskOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MaskOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto t = op.getInput().getType();
    int64_t r = t.getRank();
    if (op.getKind() == MaskKind::causal) {
      Value shift = arith::ConstantIndexOp::create(b, loc, 0);
      if (op.getAlign() == CausalAlignment::bottom_right)
        shift = arith::SubIOp::create(b, loc, tensor::DimOp::create(b, loc, op.getInput(), r - 1),
                                      tensor::DimOp::create(b, loc, op.getInput(), r - 2));
      b.replaceOp(op, elementwise(b, loc, op.getInput(), {}, {},
                                  [&](OpBuilder &nb, Location nl, ValueRange a) {
                                    return applyCausal(nb, nl, a[0],
                                                       linalg::IndexOp::create(nb, nl, r - 2),
                                                       linalg::IndexOp::create(nb, nl, r - 1),
                                                       shift);
                                  }));
      return success();
    }
    SmallVector<AffineExpr> dims;
    for (int64_t d = 0; d < r; ++d)
      dims.push_back(b.getAffineDimExpr(d));
    AffineMap m = maskMap(cast<RankedTensorType>(op.getMask().getType()), dims, r,
                          b.getContext());
    b.replaceOp(op, elementwise(b, loc, op.getInput(), {op.getMask()}, {m},
                                [&](OpBuilder &nb, Location nl, ValueRange a) {
                                  return applyMask(nb, nl, a[0], a[1]);
                                }));
    return success();
  }
};

/// softmax along `dim`, the textbook way: a fully -inf row gives NaN, as in
/// every framework. (attn.attention defines such rows as 0 instead.)
struct DecomposeSoftmax : public OpRewritePattern<SoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SoftmaxOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    Value x = op.getInput();
    auto t = op.getInput().getType();
    int64_t r = t.getRank(), dim = op.getDim();
    Type elt = t.getElementType();
    SmallVector<std::pair<Value, int64_t>> all, reduced;
    SmallVector<AffineExpr> keep;
    for (int64_t d = 0; d < r; ++d) {
      all.push_back({x, d});
      if (d != dim) {
        reduced.push_back({x, d});
        keep.push_back(b.getAffineDimExpr(d));
      }
    }
    AffineMap id = AffineMap::getMultiDimIdentityMap(r, ctx);
    AffineMap red = AffineMap::get(r, 0, keep, ctx);
    SmallVector<IteratorType> par(r, kPar), rd(r, kPar);
    rd[dim] = kRed;
    Value m = generic(b, loc, {x},
                      fill(b, loc, emptyLike(b, loc, reduced, elt),
                           -std::numeric_limits<double>::infinity()),
                      {id, red}, rd, [](OpBuilder &nb, Location nl, ValueRange a) {
                        linalg::YieldOp::create(
                            nb, nl, arith::MaximumFOp::create(nb, nl, a[0], a[1]).getResult());
                      });
    Value e = generic(b, loc, {x, m}, emptyLike(b, loc, all, elt), {id, red, id}, par,
                      [](OpBuilder &nb, Location nl, ValueRange a) {
                        Value y = arith::SubFOp::create(nb, nl, a[0], a[1]);
                        linalg::YieldOp::create(nb, nl, math::ExpOp::create(nb, nl, y).getResult());
                      });
    Value s = generic(b, loc, {e}, fill(b, loc, emptyLike(b, loc, reduced, elt), 0.0),
                      {id, red}, rd, [](OpBuilder &nb, Location nl, ValueRange a) {
                        linalg::YieldOp::create(
                            nb, nl, arith::AddFOp::create(nb, nl, a[0], a[1]).getResult());
                      });
    Value out = generic(b, loc, {e, s}, emptyLike(b, loc, all, elt), {id, red, id}, par,
                        [](OpBuilder &nb, Location nl, ValueRange a) {
                          linalg::YieldOp::create(
                              nb, nl, arith::DivFOp::create(nb, nl, a[0], a[1]).getResult());
                        });
    b.replaceOp(op, out);
    return success();
  }
};

} // namespace

void mlir::attn::populateAttnDecomposeToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<DecomposeOnlineAttention, DecomposeAttention, DecomposeMatmul,
               DecomposeScale, DecomposeMask, DecomposeSoftmax>(patterns.getContext());
}

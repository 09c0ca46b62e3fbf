//===- UnpackVarlen.cpp - --attn-unpack-varlen ----------------------------===//
//
// attn.varlen_attention -> an scf.for over the batch's sequences, each an
// attn.attention on [Hq, Lq_b, d] slices of dynamic length (Passes.td says
// why this is the CPU path). Later passes see ordinary attentions.
//
//===----------------------------------------------------------------------===//
#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/Dialect/Attn/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace attn {
#define GEN_PASS_DEF_ATTNUNPACKVARLENPASS
#include "attn/Dialect/Attn/Transforms/Passes.h.inc"
} // namespace attn
} // namespace mlir

using namespace mlir;
using namespace mlir::attn;

namespace {

/// Index arithmetic and tensor plumbing at one location.
struct Builder {
  OpBuilder &b;
  Location loc;
  Value c(int64_t x) { return arith::ConstantIndexOp::create(b, loc, x); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  /// cu[i] (an i32) as an index, sign-extended.
  Value load(Value cu, Value i) {
    Value x = tensor::ExtractOp::create(b, loc, cu, i);
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), x);
  }
  Value dim(Value t, int64_t i) { return tensor::DimOp::create(b, loc, t, i); }
  /// The extents of `t`, with `lengthDim`'s replaced by `length`.
  SmallVector<OpFoldResult> sizes(Value t, int64_t lengthDim, Value length) {
    SmallVector<OpFoldResult> out = tensor::getMixedSizes(b, loc, t);
    out[lengthDim] = length;
    return out;
  }
  /// Rows [start, start + length) of a packed [T, H, d] tensor as [H, length, d].
  Value sequence(Value packed, Value start, Value length) {
    auto t = cast<RankedTensorType>(packed.getType());
    SmallVector<OpFoldResult> offsets{start, b.getIndexAttr(0), b.getIndexAttr(0)};
    SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
    Value rows = tensor::ExtractSliceOp::create(b, loc, packed, offsets,
                                                sizes(packed, 0, length), strides);
    return transpose(rows, t.getElementType());
  }
  /// [X, Y, Z] -> [Y, X, Z], either way between the packed and head-major
  /// layouts.
  Value transpose(Value x, Type elt) {
    SmallVector<OpFoldResult> in = tensor::getMixedSizes(b, loc, x);
    Value init = tensor::EmptyOp::create(b, loc, {in[1], in[0], in[2]}, elt);
    return linalg::TransposeOp::create(b, loc, x, init, ArrayRef<int64_t>{1, 0, 2})
        .getResult()[0];
  }
};

class UnpackVarlenAttention : public OpRewritePattern<VarlenAttentionOp> {
public:
  UnpackVarlenAttention(MLIRContext *ctx, bool checkBounds)
      : OpRewritePattern(ctx), checkBounds(checkBounds) {}

  LogicalResult matchAndRewrite(VarlenAttentionOp op, PatternRewriter &rewriter) const override {
    Builder m{rewriter, op.getLoc()};
    if (checkBounds)
      emitContractChecks(m, op);
    // Rows outside every sequence stay 0.
    Type elt = op.getResult().getType().getElementType();
    SmallVector<OpFoldResult> outSizes{
        tensor::getMixedSize(rewriter, m.loc, op.getQuery(), 0),
        tensor::getMixedSize(rewriter, m.loc, op.getQuery(), 1),
        tensor::getMixedSize(rewriter, m.loc, op.getValue(), 2)};
    Value empty = tensor::EmptyOp::create(rewriter, m.loc, outSizes, elt);
    Value zero = arith::ConstantOp::create(rewriter, m.loc, rewriter.getZeroAttr(elt));
    Value init = linalg::FillOp::create(rewriter, m.loc, zero, empty).getResult(0);
    Value batch = m.sub(m.dim(op.getCuSeqlensQ(), 0), m.c(1));
    auto perSequence = scf::ForOp::create(
        rewriter, m.loc, m.c(0), batch, m.c(1), ValueRange{init},
        [&](OpBuilder &nb, Location loc, Value seq, ValueRange acc) {
          Builder n{nb, loc};
          scf::YieldOp::create(nb, loc, attendOne(n, op, seq, acc[0]));
        });
    // The op's result type may be more or less static than Q and V say.
    Value result = perSequence.getResult(0);
    if (result.getType() != op.getResult().getType())
      result = tensor::CastOp::create(rewriter, m.loc, op.getResult().getType(), result);
    rewriter.replaceOp(op, result);
    return success();
  }

private:
  /// `acc` with sequence `seq`'s output rows written.
  Value attendOne(Builder &m, VarlenAttentionOp op, Value seq, Value acc) const;
  /// The same for a sequence with queries and keys, at the given rows.
  Value attendNonEmpty(Builder &m, VarlenAttentionOp op, Value acc, Value qStart,
                       Value qLength, Value kStart, Value kLength) const;
  /// cf.asserts of the caller's contract (Passes.td), both cu tensors.
  void emitContractChecks(Builder &m, VarlenAttentionOp op) const;
  /// Those of one: 0 <= cu[0] <= ... <= cu[B] <= tokens.
  void emitBoundsChecks(Builder &m, Value cu, Value tokens, StringRef name) const;

  bool checkBounds;
};

Value UnpackVarlenAttention::attendOne(Builder &m, VarlenAttentionOp op, Value seq,
                                       Value acc) const {
  Value next = arith::AddIOp::create(m.b, m.loc, seq, m.c(1));
  Value qStart = m.load(op.getCuSeqlensQ(), seq);
  Value qLength = m.sub(m.load(op.getCuSeqlensQ(), next), qStart);
  Value kStart = m.load(op.getCuSeqlensK(), seq);
  Value kLength = m.sub(m.load(op.getCuSeqlensK(), next), kStart);
  // attn.attention needs a key and a query (its run-time shape checks
  // assert it); a sequence without keys gives 0, which its rows hold.
  Value nonEmpty = arith::AndIOp::create(m.b, m.loc,
                                         m.cmp(arith::CmpIPredicate::sgt, qLength, m.c(0)),
                                         m.cmp(arith::CmpIPredicate::sgt, kLength, m.c(0)));
  auto ifNonEmpty = scf::IfOp::create(
      m.b, m.loc, nonEmpty,
      [&](OpBuilder &tb, Location loc) {
        Builder t{tb, loc};
        scf::YieldOp::create(tb, loc, attendNonEmpty(t, op, acc, qStart, qLength, kStart, kLength));
      },
      [&](OpBuilder &eb, Location loc) { scf::YieldOp::create(eb, loc, acc); });
  return ifNonEmpty.getResult(0);
}

Value UnpackVarlenAttention::attendNonEmpty(Builder &m, VarlenAttentionOp op, Value acc,
                                            Value qStart, Value qLength, Value kStart,
                                            Value kLength) const {
  Value q = m.sequence(op.getQuery(), qStart, qLength);
  Value k = m.sequence(op.getKey(), kStart, kLength);
  Value v = m.sequence(op.getValue(), kStart, kLength);
  auto qType = cast<RankedTensorType>(q.getType());
  auto outType = RankedTensorType::get(
      {qType.getDimSize(0), ShapedType::kDynamic, op.getValue().getType().getDimSize(2)},
      qType.getElementType());
  // The per-sequence causal diagonal is the op's, on this sequence's
  // Lq_b x Lk_b scores.
  Value out = AttentionOp::create(m.b, m.loc, outType, q, k, v, /*mask=*/Value(),
                                  /*descale=*/ValueRange(), op.getScaleAttr(),
                                  op.getCausalAttr());
  Value rows = m.transpose(out, qType.getElementType());
  SmallVector<OpFoldResult> offsets{qStart, m.b.getIndexAttr(0), m.b.getIndexAttr(0)};
  SmallVector<OpFoldResult> strides(3, m.b.getIndexAttr(1));
  return tensor::InsertSliceOp::create(m.b, m.loc, rows, acc, offsets,
                                       tensor::getMixedSizes(m.b, m.loc, rows), strides);
}

void UnpackVarlenAttention::emitContractChecks(Builder &m, VarlenAttentionOp op) const {
  // What the verifier checks of static shapes, for dynamic ones: B + 1
  // entries in both, and the keys' rows in both K and V.
  Value entries = m.dim(op.getCuSeqlensQ(), 0);
  Value sameBatch = arith::AndIOp::create(
      m.b, m.loc, m.cmp(arith::CmpIPredicate::eq, entries, m.dim(op.getCuSeqlensK(), 0)),
      m.cmp(arith::CmpIPredicate::sge, entries, m.c(1)));
  cf::AssertOp::create(m.b, m.loc, sameBatch,
                       "attn.varlen_attention: cu_seqlens_q and cu_seqlens_k need the same "
                       "B + 1 >= 1 entries");
  Value kvTokens =
      arith::MinSIOp::create(m.b, m.loc, m.dim(op.getKey(), 0), m.dim(op.getValue(), 0));
  emitBoundsChecks(m, op.getCuSeqlensQ(), m.dim(op.getQuery(), 0), "cu_seqlens_q");
  emitBoundsChecks(m, op.getCuSeqlensK(), kvTokens, "cu_seqlens_k");
}

void UnpackVarlenAttention::emitBoundsChecks(Builder &m, Value cu, Value tokens,
                                             StringRef name) const {
  Value entries = m.dim(cu, 0);
  Value first = m.load(cu, m.c(0));
  Value last = m.load(cu, m.sub(entries, m.c(1)));
  Value inRange = arith::AndIOp::create(m.b, m.loc,
                                        m.cmp(arith::CmpIPredicate::sge, first, m.c(0)),
                                        m.cmp(arith::CmpIPredicate::sle, last, tokens));
  cf::AssertOp::create(m.b, m.loc, inRange,
                       ("attn.varlen_attention: " + name + " leaves [0, tokens]").str());
  auto pairs = scf::ForOp::create(m.b, m.loc, m.c(1), entries, m.c(1));
  OpBuilder::InsertionGuard guard(m.b);
  m.b.setInsertionPointToStart(pairs.getBody());
  Value i = pairs.getInductionVar();
  Value ordered = m.cmp(arith::CmpIPredicate::sle, m.load(cu, m.sub(i, m.c(1))), m.load(cu, i));
  cf::AssertOp::create(m.b, m.loc, ordered,
                       ("attn.varlen_attention: " + name + " decreases").str());
}

struct AttnUnpackVarlenPass
    : public attn::impl::AttnUnpackVarlenPassBase<AttnUnpackVarlenPass> {
  using AttnUnpackVarlenPassBase::AttnUnpackVarlenPassBase;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateAttnUnpackVarlenPatterns(patterns, checkBounds);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::attn::populateAttnUnpackVarlenPatterns(RewritePatternSet &patterns,
                                                  bool checkBounds) {
  patterns.add<UnpackVarlenAttention>(patterns.getContext(), checkBounds);
}

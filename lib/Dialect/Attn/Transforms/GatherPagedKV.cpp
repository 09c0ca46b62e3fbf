//===- GatherPagedKV.cpp - --attn-gather-paged-kv -------------------------===//
//
// attn.paged_attention -> tensor.generate gathers of the pages, a keep mask
// of each sequence's keys, and attn.attention (Passes.td says why this is
// the CPU path). Every later pass of the CPU pipeline (io-cost, fuse, the
// loop lowering) then sees an ordinary attention.
//
//===----------------------------------------------------------------------===//
#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/Dialect/Attn/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace attn {
#define GEN_PASS_DEF_ATTNGATHERPAGEDKVPASS
#include "attn/Dialect/Attn/Transforms/Passes.h.inc"
} // namespace attn
} // namespace mlir

using namespace mlir;
using namespace mlir::attn;

namespace {

/// Index arithmetic at one location.
struct IndexMath {
  OpBuilder &b;
  Location loc;
  Value c(int64_t x) { return arith::ConstantIndexOp::create(b, loc, x); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  /// tensor[idx] (an i32 element) as an index, sign-extended.
  Value loadIndex(Value tensor, ValueRange idx) {
    Value x = tensor::ExtractOp::create(b, loc, tensor, idx);
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), x);
  }
};

bool hasStaticShapes(PagedAttentionOp op) {
  return llvm::all_of(op->getOperandTypes(), [](Type t) {
    return cast<RankedTensorType>(t).hasStaticShape();
  });
}

class GatherPagedAttention : public OpRewritePattern<PagedAttentionOp> {
public:
  GatherPagedAttention(MLIRContext *ctx, bool checkBounds)
      : OpRewritePattern(ctx), checkBounds(checkBounds) {}

  LogicalResult matchAndRewrite(PagedAttentionOp op, PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    if (checkBounds)
      emitBoundsChecks(rewriter, op);
    Value key = gather(rewriter, op, op.getKeyCache());
    Value value = gather(rewriter, op, op.getValueCache());
    Value keep = keysMask(rewriter, op);
    // The causal diagonal is per sequence, so it is in the mask.
    rewriter.replaceOpWithNewOp<AttentionOp>(op, op.getResult().getType(), op.getQuery(), key,
                                             value, keep, /*descale=*/ValueRange(),
                                             op.getScaleAttr(), /*causal=*/nullptr);
    return success();
  }

private:
  /// The sequences' keys of one cache as [B, Hkv, C, cols]: element
  /// (b, h, j, c) is cache[T[b, j / S], j mod S, h, c] for j < L[b], else 0.
  Value gather(OpBuilder &b, PagedAttentionOp op, Value cache) const;
  /// keep[b, 0, i, j]: key j exists (j < L[b]) and, causal, query i sees it.
  Value keysMask(OpBuilder &b, PagedAttentionOp op) const;
  /// cf.asserts of the caller's contract (Passes.td).
  void emitBoundsChecks(OpBuilder &b, PagedAttentionOp op) const;

  bool checkBounds;
};

Value GatherPagedAttention::gather(OpBuilder &b, PagedAttentionOp op, Value cache) const {
  Location loc = op.getLoc();
  auto cacheType = cast<RankedTensorType>(cache.getType());
  int64_t batch = op.getQuery().getType().getDimSize(0);
  auto type = RankedTensorType::get(
      {batch, cacheType.getDimSize(2), op.getKeyCapacity(), cacheType.getDimSize(3)},
      cacheType.getElementType());
  const int64_t pageSize = op.getPageSize();
  auto generate = tensor::GenerateOp::create(
      b, loc, type, ValueRange{}, [&](OpBuilder &nb, Location loc, ValueRange ivs) {
        IndexMath m{nb, loc};
        Value seq = ivs[0], head = ivs[1], key = ivs[2], col = ivs[3];
        Value length = m.loadIndex(op.getSeqLens(), seq);
        Value inside = m.cmp(arith::CmpIPredicate::slt, key, length);
        // The block-table entry is read only for keys inside the sequence:
        // entries past its last page may hold anything.
        auto read = scf::IfOp::create(
            nb, loc, inside,
            [&](OpBuilder &tb, Location loc) {
              IndexMath t{tb, loc};
              Value slot = arith::DivUIOp::create(tb, loc, key, t.c(pageSize));
              Value page = t.loadIndex(op.getBlockTable(), ValueRange{seq, slot});
              Value offset = arith::RemUIOp::create(tb, loc, key, t.c(pageSize));
              Value x = tensor::ExtractOp::create(tb, loc, cache,
                                                  ValueRange{page, offset, head, col});
              scf::YieldOp::create(tb, loc, x);
            },
            [&](OpBuilder &eb, Location loc) {
              Value zero = arith::ConstantOp::create(
                  eb, loc, eb.getZeroAttr(cacheType.getElementType()));
              scf::YieldOp::create(eb, loc, zero);
            });
        tensor::YieldOp::create(nb, loc, read.getResult(0));
      });
  return generate.getResult();
}

Value GatherPagedAttention::keysMask(OpBuilder &b, PagedAttentionOp op) const {
  Location loc = op.getLoc();
  RankedTensorType q = op.getQuery().getType();
  const int64_t lq = q.getDimSize(2);
  auto type = RankedTensorType::get({q.getDimSize(0), 1, lq, op.getKeyCapacity()},
                                    b.getI1Type());
  std::optional<CausalAlignment> causal = op.getCausal();
  auto generate = tensor::GenerateOp::create(
      b, loc, type, ValueRange{}, [&](OpBuilder &nb, Location loc, ValueRange ivs) {
        IndexMath m{nb, loc};
        Value seq = ivs[0], query = ivs[2], key = ivs[3];
        Value length = m.loadIndex(op.getSeqLens(), seq);
        Value keep = m.cmp(arith::CmpIPredicate::slt, key, length);
        if (causal) {
          // Query i sees keys j <= i + shift; signed, since the shift of a
          // sequence shorter than Lq is negative.
          Value limit = query;
          if (*causal == CausalAlignment::bottom_right)
            limit = arith::AddIOp::create(
                nb, loc, query, arith::SubIOp::create(nb, loc, length, m.c(lq)));
          Value seen = m.cmp(arith::CmpIPredicate::sle, key, limit);
          keep = arith::AndIOp::create(nb, loc, keep, seen);
        }
        tensor::YieldOp::create(nb, loc, keep);
      });
  return generate.getResult();
}

void GatherPagedAttention::emitBoundsChecks(OpBuilder &b, PagedAttentionOp op) const {
  Location loc = op.getLoc();
  IndexMath m{b, loc};
  const int64_t batch = op.getQuery().getType().getDimSize(0);
  const int64_t pages = op.getKeyCache().getType().getDimSize(0);
  const int64_t pageSize = op.getPageSize();
  auto perSequence = scf::ForOp::create(b, loc, m.c(0), m.c(batch), m.c(1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(perSequence.getBody());
  Value seq = perSequence.getInductionVar();
  Value length = m.loadIndex(op.getSeqLens(), seq);
  Value nonNegative = m.cmp(arith::CmpIPredicate::sge, length, m.c(0));
  Value fits = m.cmp(arith::CmpIPredicate::sle, length, m.c(op.getKeyCapacity()));
  cf::AssertOp::create(b, loc, arith::AndIOp::create(b, loc, nonNegative, fits),
                       "attn.paged_attention: a sequence length is outside [0, max_pages * "
                       "page_size]");
  // The pages the sequence's keys use: ceil(L / S) (0 when L <= 0).
  Value clamped = arith::MaxSIOp::create(b, loc, length, m.c(0));
  Value used = arith::CeilDivUIOp::create(b, loc, clamped, m.c(pageSize));
  used = arith::MinUIOp::create(b, loc, used,
                                m.c(op.getBlockTable().getType().getDimSize(1)));
  auto perPage = scf::ForOp::create(b, loc, m.c(0), used, m.c(1));
  b.setInsertionPointToStart(perPage.getBody());
  Value page = m.loadIndex(op.getBlockTable(), ValueRange{seq, perPage.getInductionVar()});
  Value inPool = arith::AndIOp::create(b, loc, m.cmp(arith::CmpIPredicate::sge, page, m.c(0)),
                                       m.cmp(arith::CmpIPredicate::slt, page, m.c(pages)));
  cf::AssertOp::create(b, loc, inPool,
                       "attn.paged_attention: a block-table entry is not a page of the pool");
}

struct AttnGatherPagedKVPass
    : public attn::impl::AttnGatherPagedKVPassBase<AttnGatherPagedKVPass> {
  using AttnGatherPagedKVPassBase::AttnGatherPagedKVPassBase;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateAttnGatherPagedKVPatterns(patterns, checkBounds);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // What the pattern refused stays, and fails the pass with the reason.
    WalkResult left = getOperation().walk([](PagedAttentionOp op) {
      op.emitOpError("attn-gather-paged-kv: the gathers need static shapes");
      return WalkResult::interrupt();
    });
    if (left.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace

void mlir::attn::populateAttnGatherPagedKVPatterns(RewritePatternSet &patterns,
                                                   bool checkBounds) {
  patterns.add<GatherPagedAttention>(patterns.getContext(), checkBounds);
}

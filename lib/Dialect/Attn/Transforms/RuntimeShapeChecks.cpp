//===- RuntimeShapeChecks.cpp - run-time checks of dynamic shapes ---------===//
#include "RuntimeShapeChecks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::attn;

namespace {

/// Builds the checks of one op; an extent is (value, dim).
class ShapeChecker {
public:
  ShapeChecker(OpBuilder &b, AttentionOp op) : b(b), loc(op.getLoc()) {}

  static bool isDynamic(Value t, int64_t i) {
    return cast<RankedTensorType>(t.getType()).isDynamicDim(i);
  }
  static int64_t size(Value t, int64_t i) {
    return cast<RankedTensorType>(t.getType()).getDimSize(i);
  }

  Value extent(Value t, int64_t i) {
    if (!isDynamic(t, i))
      return arith::ConstantIndexOp::create(b, loc, size(t, i));
    return tensor::DimOp::create(b, loc, t, i);
  }

  void require(Value cond, const Twine &message) {
    cf::AssertOp::create(b, loc, cond, ("attn.attention: " + message).str());
  }

  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }

  /// t[i] == u[j], checked when either is dynamic.
  void requireEqual(Value t, int64_t i, Value u, int64_t j, const Twine &message) {
    if (isDynamic(t, i) || isDynamic(u, j))
      require(cmp(arith::CmpIPredicate::eq, extent(t, i), extent(u, j)), message);
  }

  /// t[i] == n for a static n, checked when t[i] is dynamic.
  void requireStatic(Value t, int64_t i, int64_t n, const Twine &message) {
    if (isDynamic(t, i) && !ShapedType::isDynamic(n))
      require(cmp(arith::CmpIPredicate::eq, extent(t, i),
                  arith::ConstantIndexOp::create(b, loc, n)),
              message);
  }

  void requireNonEmpty(Value t, StringRef name) {
    for (int64_t i = 0, r = cast<RankedTensorType>(t.getType()).getRank(); i < r; ++i)
      if (isDynamic(t, i))
        require(cmp(arith::CmpIPredicate::ne, extent(t, i),
                    arith::ConstantIndexOp::create(b, loc, 0)),
                name + " has an empty dim " + Twine(i));
  }

  /// Hkv divides Hq (Hkv is non-zero already).
  void requireDivides(Value hkv, Value hq, int64_t i) {
    if (!isDynamic(hq, i) && !isDynamic(hkv, i))
      return;
    Value rem = arith::RemUIOp::create(b, loc, extent(hq, i), extent(hkv, i));
    require(cmp(arith::CmpIPredicate::eq, rem,
                arith::ConstantIndexOp::create(b, loc, 0)),
            "query heads must be a multiple of key/value heads");
  }

private:
  OpBuilder &b;
  Location loc;
};

} // namespace

void mlir::attn::emitRuntimeShapeChecks(OpBuilder &b, AttentionOp op) {
  Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
  int64_t r = op.getRank();
  ShapeChecker c(b, op);
  c.requireNonEmpty(q, "query");
  c.requireNonEmpty(k, "key");
  c.requireNonEmpty(v, "value");
  c.requireEqual(k, r - 1, q, r - 1, "key head dim differs from query head dim");
  c.requireEqual(v, r - 2, k, r - 2, "value sequence length differs from key length");
  for (int64_t i = 0; i < op.getNumBatchDims(); ++i) {
    c.requireEqual(k, i, q, i, "batch dim " + Twine(i) + " differs between query and key");
    c.requireEqual(v, i, q, i, "batch dim " + Twine(i) + " differs between query and value");
  }
  if (op.hasHeadDim()) {
    c.requireEqual(v, r - 3, k, r - 3, "key and value head counts differ");
    c.requireDivides(k, q, r - 3);
  }
  // The result's static extents must be what the inputs give it.
  auto result = cast<RankedTensorType>(op.getResult().getType());
  for (int64_t i = 0; i < r; ++i)
    c.requireStatic(i == r - 1 ? v : q, i, result.getDimSize(i),
                    "result dim " + Twine(i) + " differs from the inputs'");
  if (Value mask = op.getMask()) {
    // A dynamic mask extent is read as the full extent (the lowerings
    // broadcast only static size-1 dims), so it must equal the scores'.
    auto maskType = cast<RankedTensorType>(mask.getType());
    for (int64_t i = 0; i < r; ++i) {
      Value target = i == r - 1 ? k : q;
      int64_t targetDim = i == r - 1 ? r - 2 : i;
      std::string message = ("mask dim " + Twine(i) +
                             " differs from the scores' (a dynamic mask dim is "
                             "not broadcast)")
                                .str();
      if (maskType.isDynamicDim(i))
        c.requireEqual(mask, i, target, targetDim, message);
      else if (maskType.getDimSize(i) != 1)
        c.requireStatic(target, targetDim, maskType.getDimSize(i), message);
    }
  }
}

//===- DetectIndexCompare.cpp - --attn-detect: index comparisons ----------===//
//
// A causal diagonal written as a comparison of loop indices inside an
// elementwise generic (select(j <= i + c, s, -inf)), read exactly: the
// comparison means the diagonal only where no index wraps in its type.
//
//===----------------------------------------------------------------------===//
#include "DetectNormalize.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::attn;

/// The predicate that holds for (b, a) when `pred` holds for (a, b).
static arith::CmpIPredicate swapOperands(arith::CmpIPredicate pred) {
  using P = arith::CmpIPredicate;
  switch (pred) {
  case P::slt: return P::sgt;
  case P::sgt: return P::slt;
  case P::sle: return P::sge;
  case P::sge: return P::sle;
  case P::ult: return P::ugt;
  case P::ugt: return P::ult;
  case P::ule: return P::uge;
  case P::uge: return P::ule;
  default: return pred;
  }
}

/// Whether an index of loop extent `extent` plus `plus` (computed in
/// `index`, then cast to a `width`-bit integer if narrower) reaches the
/// comparison without wrapping: every value in [plus, extent - 1 + plus]
/// fits a signed `width`-bit integer, and none is negative where the
/// comparison is unsigned. A dynamic extent is that of a tensor that
/// exists, below 2^48 elements.
static bool comparedWithoutWrap(int64_t extent, int64_t plus, unsigned width,
                                bool isUnsigned) {
  if (ShapedType::isDynamic(extent))
    extent = int64_t(1) << 48;
  if (width == 0 || (isUnsigned && plus < 0))
    return false;
  if (width >= 64)
    return std::abs(plus) < (int64_t(1) << 48);
  int64_t limit = int64_t(1) << (width - 1);
  int64_t hi;
  if (llvm::AddOverflow(extent - 1, plus, hi))
    return false;
  return plus >= -limit && hi < limit;
}

/// Reads `keep iff j <= i + offset` out of an index comparison, where i and
/// j are linalg.index of the last two loop dims (possibly plus constants,
/// possibly cast to a narrower integer): only where no value wraps in the
/// comparison's type (`loopRanges`: the generic's static loop extents), so
/// that the comparison means on every index what it means on small ones.
std::optional<int64_t> detect::causalFromCompare(Value cond, ArrayRef<int64_t> loopRanges,
                                                 bool &keepWhenTrue) {
  auto cmp = cond.getDefiningOp<arith::CmpIOp>();
  if (!cmp)
    return std::nullopt;
  unsigned rank = loopRanges.size();
  // An index expression: linalg.index d, optionally +/- a constant.
  auto indexOf = [](Value v, int64_t &plus) -> std::optional<unsigned> {
    plus = 0;
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(v.getDefiningOp()))
      v = v.getDefiningOp()->getOperand(0);
    if (auto add = v.getDefiningOp<arith::AddIOp>()) {
      APInt c;
      if (matchPattern(add.getRhs(), m_ConstantInt(&c))) {
        plus = c.getSExtValue();
        v = add.getLhs();
      } else if (matchPattern(add.getLhs(), m_ConstantInt(&c))) {
        plus = c.getSExtValue();
        v = add.getRhs();
      }
    }
    if (auto idx = v.getDefiningOp<linalg::IndexOp>())
      return idx.getDim();
    return std::nullopt;
  };
  int64_t pl = 0, pr = 0;
  std::optional<unsigned> l = indexOf(cmp.getLhs(), pl), r = indexOf(cmp.getRhs(), pr);
  if (!l || !r || *l >= rank || *r >= rank)
    return std::nullopt;
  unsigned width = cmp.getLhs().getType().isIndex()
                       ? 64
                       : cmp.getLhs().getType().getIntOrFloatBitWidth();
  using P = arith::CmpIPredicate;
  P pred = cmp.getPredicate();
  bool isUnsigned = pred == P::ult || pred == P::ule || pred == P::ugt || pred == P::uge;
  if (!comparedWithoutWrap(loopRanges[*l], pl, width, isUnsigned) ||
      !comparedWithoutWrap(loopRanges[*r], pr, width, isUnsigned))
    return std::nullopt;
  unsigned qDim = rank - 2, kDim = rank - 1;
  // Normalize to "lhs = j (key), rhs = i (query)".
  if (*l == qDim && *r == kDim) {
    std::swap(pl, pr);
    pred = swapOperands(pred);
  } else if (!(*l == kDim && *r == qDim)) {
    return std::nullopt;
  }
  // Now: cmp(j + pl, i + pr), both sides in range (no wrap, and not
  // negative for the unsigned predicates, which then order as signed).
  switch (pred) {
  case P::sle: case P::ule: keepWhenTrue = true; return pr - pl;      // j <= i + (pr-pl)
  case P::slt: case P::ult: keepWhenTrue = true; return pr - pl - 1;  // j <  i + ..
  case P::sgt: case P::ugt: keepWhenTrue = false; return pr - pl;     // masked iff j > i + ..
  case P::sge: case P::uge: keepWhenTrue = false; return pr - pl - 1;
  default: return std::nullopt;
  }
}

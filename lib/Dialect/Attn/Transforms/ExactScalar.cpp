//===- ExactScalar.cpp - IR-exact scalar arithmetic for folding -----------===//
#include "ExactScalar.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::attn;

double mlir::attn::floatResult(Operation *op, double x, double y) {
  if (isa<arith::AddFOp>(op))
    return x + y;
  if (isa<arith::SubFOp>(op))
    return x - y;
  if (isa<arith::MulFOp>(op))
    return x * y;
  return -x; // arith.negf
}

/// Binary integer ops on APInts of the operands' width; nullopt where the
/// op's overflow flags make the result poison.
std::optional<Scalar> mlir::attn::integerResult(Operation *op, ScalarKind rk,
                                           const APInt &x, const APInt &y) {
  bool nsw = false, nuw = false;
  if (auto ov = dyn_cast<arith::ArithIntegerOverflowFlagsInterface>(op)) {
    nsw = ov.hasNoSignedWrap();
    nuw = ov.hasNoUnsignedWrap();
  }
  bool so = false, uo = false;
  APInt r = TypeSwitch<Operation *, APInt>(op)
                .Case<arith::AddIOp>([&](auto) {
                  (void)x.sadd_ov(y, so);
                  (void)x.uadd_ov(y, uo);
                  return x + y;
                })
                .Case<arith::SubIOp>([&](auto) {
                  (void)x.ssub_ov(y, so);
                  (void)x.usub_ov(y, uo);
                  return x - y;
                })
                .Case<arith::MulIOp>([&](auto) {
                  (void)x.smul_ov(y, so);
                  (void)x.umul_ov(y, uo);
                  return x * y;
                })
                .Case<arith::AndIOp>([&](auto) { return x & y; })
                .Case<arith::OrIOp>([&](auto) { return x | y; })
                .Case<arith::XOrIOp>([&](auto) { return x ^ y; })
                .Case<arith::MaxSIOp>([&](auto) { return x.sgt(y) ? x : y; })
                .Case<arith::MinSIOp>([&](auto) { return x.slt(y) ? x : y; })
                .Case<arith::MaxUIOp>([&](auto) { return x.ugt(y) ? x : y; })
                .Default([&](auto) { return x.ult(y) ? x : y; });
  if ((nsw && so) || (nuw && uo))
    return std::nullopt;
  return Scalar{r.getZExtValue() & rk.mask(), 0.0};
}

uint64_t mlir::attn::compareInts(arith::CmpIPredicate p, const APInt &x,
                            const APInt &y) {
  using P = arith::CmpIPredicate;
  switch (p) {
  case P::eq: return x.eq(y);
  case P::ne: return x.ne(y);
  case P::slt: return x.slt(y);
  case P::sle: return x.sle(y);
  case P::sgt: return x.sgt(y);
  case P::sge: return x.sge(y);
  case P::ult: return x.ult(y);
  case P::ule: return x.ule(y);
  case P::ugt: return x.ugt(y);
  case P::uge: return x.uge(y);
  }
  llvm_unreachable("unknown cmpi predicate");
}

uint64_t mlir::attn::compareFloats(arith::CmpFPredicate p, double x, double y) {
  bool unordered = std::isnan(x) || std::isnan(y);
  using P = arith::CmpFPredicate;
  switch (p) {
  case P::AlwaysFalse: return 0;
  case P::AlwaysTrue: return 1;
  case P::OEQ: return !unordered && x == y;
  case P::OGT: return !unordered && x > y;
  case P::OGE: return !unordered && x >= y;
  case P::OLT: return !unordered && x < y;
  case P::OLE: return !unordered && x <= y;
  case P::ONE: return !unordered && x != y;
  case P::ORD: return !unordered;
  case P::UEQ: return unordered || x == y;
  case P::UGT: return unordered || x > y;
  case P::UGE: return unordered || x >= y;
  case P::ULT: return unordered || x < y;
  case P::ULE: return unordered || x <= y;
  case P::UNE: return unordered || x != y;
  case P::UNO: return unordered;
  }
  llvm_unreachable("unknown cmpf predicate");
}

//===- ExactScalar.h - IR-exact scalar arithmetic for folding ---*- C++ -*-===//
//
// The scalars of a linalg.generic payload as MaskEvaluator folds them, with
// the IR's semantics: integers are bit patterns at their width (wrap, and
// signedness from each op), floats are rounded to their type after every
// op, and results that the IR leaves poison (nsw/nuw overflow) are refused.
// A fold that cannot be exact is refused, never approximated: the mask is
// then kept as a tensor, which is always correct.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_LIB_TRANSFORMS_EXACTSCALAR_H
#define ATTN_LIB_TRANSFORMS_EXACTSCALAR_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"

#include <cstdint>
#include <optional>

namespace mlir {
namespace attn {

/// Integers beyond this are not exact in a double; evaluated tensors that
/// would hold them are refused.
constexpr int64_t kMaxExactInt = int64_t(1) << 53;

/// A payload scalar: an integer's bit pattern (zero-extended to 64 bits) or
/// a float's value. Which one, and the width, come from its type.
struct Scalar {
  uint64_t bits = 0;
  double f = 0.0;
};

/// How the scalars of one type behave. Integers keep their bit pattern, so
/// every op reads them with its own signedness and results wrap at the
/// width, exactly as the IR says; `index` is 64 bits, as in arith's own
/// folders. Floats are doubles rounded to their type after every op.
/// Integers wider than 64 bits and floats wider than f64 are not handled.
class ScalarKind {
public:
  static std::optional<ScalarKind> of(Type t) {
    if (t.isIndex())
      return ScalarKind(64, nullptr);
    if (auto it = dyn_cast<IntegerType>(t); it && it.getWidth() <= 64)
      return ScalarKind(it.getWidth(), nullptr);
    if (auto ft = dyn_cast<FloatType>(t); ft && ft.getWidth() <= 64)
      return ScalarKind(0, &ft.getFloatSemantics());
    return std::nullopt;
  }
  bool isInt() const { return width != 0; }
  uint64_t mask() const {
    return width == 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1;
  }
  APInt asAPInt(Scalar s) const { return APInt(width, s.bits); }
  int64_t signedValue(Scalar s) const { return asAPInt(s).getSExtValue(); }
  const llvm::fltSemantics &semantics() const { return *sem; }
  double round(double x) const {
    APFloat f(x);
    bool lost = false;
    f.convert(*sem, APFloat::rmNearestTiesToEven, &lost);
    return toDouble(f);
  }
  double round(APFloat f, const APInt &i, bool isSigned) const {
    f.convertFromAPInt(i, isSigned, APFloat::rmNearestTiesToEven);
    return toDouble(f);
  }
  /// Evaluated tensors hold integers as their signed value and i1 as 0/1.
  Scalar fromStored(double x) const {
    if (!isInt())
      return {0, x};
    return {static_cast<uint64_t>(static_cast<int64_t>(x)) & mask(), 0.0};
  }
  std::optional<double> toStored(Scalar s) const {
    if (!isInt())
      return s.f;
    if (width == 1)
      return double(s.bits);
    int64_t v = signedValue(s);
    if (v > kMaxExactInt || v < -kMaxExactInt)
      return std::nullopt;
    return double(v);
  }

private:
  ScalarKind(unsigned width, const llvm::fltSemantics *sem)
      : width(width), sem(sem) {}
  static double toDouble(APFloat f) {
    bool lost = false;
    f.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
    return f.convertToDouble();
  }
  unsigned width; // 0 for floats
  const llvm::fltSemantics *sem;
};

/// x op y for arith.addf/subf/mulf, or -x for arith.negf, in double (one
/// rounding to the result type after it is exact for every type up to f32,
/// since a double has more than 2p+2 bits, and for f64 itself).
double floatResult(Operation *op, double x, double y);

/// A binary integer op (addi, subi, muli, andi, ori, xori, max/min s/u) on
/// APInts of the operands' width; nullopt where the op's overflow flags
/// make the result poison.
std::optional<Scalar> integerResult(Operation *op, ScalarKind resultKind,
                                    const llvm::APInt &x, const llvm::APInt &y);

/// arith.cmpi / arith.cmpf with the predicate's exact meaning (signedness;
/// ordered or unordered NaN handling): 1 or 0.
uint64_t compareInts(arith::CmpIPredicate p, const llvm::APInt &x,
                     const llvm::APInt &y);
uint64_t compareFloats(arith::CmpFPredicate p, double x, double y);

} // namespace attn
} // namespace mlir

#endif // ATTN_LIB_TRANSFORMS_EXACTSCALAR_H

//===- MaskEvaluator.cpp - fold index-built masks to their values ---------===//
#include "MaskEvaluator.h"
#include "ExactScalar.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::attn;

namespace {

using Tensor = EvaluatedTensor;


SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> s(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i)
    s[i] = s[i + 1] * shape[i + 1];
  return s;
}

/// Calls f(multiIndex, flat) for every point of `shape`, row-major.
template <typename F>
void forEachPoint(ArrayRef<int64_t> shape, F f) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  SmallVector<int64_t> idx(shape.size(), 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    f(ArrayRef<int64_t>(idx), flat);
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
  }
}

// Scalar and ScalarKind: ExactScalar.h.

/// One scalar instruction of a linalg.generic payload.
struct Instr {
  Operation *op;
  SmallVector<unsigned, 3> args; // slots of the operands
  unsigned result;               // slot of the result
};

class Evaluator {
public:
  explicit Evaluator(int64_t maxElements) : maxElements(maxElements) {}

  std::optional<Tensor> eval(Value v, int depth = 0) {
    if (depth > 32)
      return std::nullopt;
    auto it = memo.find(v);
    if (it != memo.end())
      return it->second;
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || !type.hasStaticShape() || !fitsBudget(type.getShape()))
      return std::nullopt;
    std::optional<Tensor> t = evalOp(v, type, depth);
    if (t && static_cast<int64_t>(t->data.size()) != type.getNumElements())
      t.reset();
    memo[v] = t;
    return t;
  }

private:
  int64_t maxElements;

  /// The element count is at most maxElements; checked per dim, so that
  /// shapes whose product overflows int64 are refused, not wrapped.
  bool fitsBudget(ArrayRef<int64_t> shape) const {
    int64_t n = 1;
    for (int64_t d : shape) {
      if (d < 0 || (d != 0 && n > maxElements / d))
        return false;
      n *= d;
    }
    return n <= maxElements;
  }
  DenseMap<Value, std::optional<Tensor>> memo;

  static Tensor splat(RankedTensorType type, double x) {
    Tensor t;
    t.shape.assign(type.getShape().begin(), type.getShape().end());
    t.data.assign(type.getNumElements(), x);
    return t;
  }

  std::optional<Tensor> evalOp(Value v, RankedTensorType type, int depth) {
    Operation *def = v.getDefiningOp();
    if (!def)
      return std::nullopt; // a block argument: depends on the inputs
    Attribute cst;
    if (matchPattern(v, m_Constant(&cst)))
      return fromAttr(cst, type);
    return TypeSwitch<Operation *, std::optional<Tensor>>(def)
        .Case<linalg::GenericOp>(
            [&](auto g) { return evalGeneric(g, type, depth); })
        .Case<linalg::FillOp>([&](linalg::FillOp f) -> std::optional<Tensor> {
          std::optional<double> x = scalar(f.getInputs()[0]);
          if (!x)
            return std::nullopt;
          return splat(type, *x);
        })
        .Case<linalg::BroadcastOp>(
            [&](linalg::BroadcastOp b) -> std::optional<Tensor> {
              auto in = eval(b.getInput(), depth + 1);
              if (!in)
                return std::nullopt;
              // Output dims listed in `dimensions` are the new ones.
              SmallVector<bool> added(type.getRank(), false);
              for (int64_t d : b.getDimensions())
                added[d] = true;
              SmallVector<int64_t> inStrides = stridesOf(in->shape);
              Tensor t = splat(type, 0);
              forEachPoint(type.getShape(), [&](ArrayRef<int64_t> idx,
                                                int64_t flat) {
                int64_t src = 0, k = 0;
                for (int64_t d = 0; d < type.getRank(); ++d)
                  if (!added[d])
                    src += idx[d] * inStrides[k++];
                t.data[flat] = in->data[src];
              });
              return t;
            })
        .Case<linalg::TransposeOp>(
            [&](linalg::TransposeOp tr) -> std::optional<Tensor> {
              auto in = eval(tr.getInput(), depth + 1);
              if (!in)
                return std::nullopt;
              SmallVector<int64_t> inStrides = stridesOf(in->shape);
              ArrayRef<int64_t> perm = tr.getPermutation();
              Tensor t = splat(type, 0);
              forEachPoint(type.getShape(), [&](ArrayRef<int64_t> idx,
                                                int64_t flat) {
                int64_t src = 0;
                for (size_t d = 0; d < perm.size(); ++d)
                  src += idx[d] * inStrides[perm[d]];
                t.data[flat] = in->data[src];
              });
              return t;
            })
        .Case<tensor::ExpandShapeOp, tensor::CollapseShapeOp, tosa::ReshapeOp>(
            [&](auto r) -> std::optional<Tensor> {
              // Row-major data is unchanged by a reshape.
              auto in = eval(r->getOperand(0), depth + 1);
              if (!in)
                return std::nullopt;
              in->shape.assign(type.getShape().begin(), type.getShape().end());
              return in;
            })
        .Case<tosa::CastOp>([&](tosa::CastOp c) -> std::optional<Tensor> {
          auto in = eval(c.getInput(), depth + 1);
          if (!in)
            return std::nullopt;
          Type to = type.getElementType();
          for (double &x : in->data) {
            std::optional<double> y = convert(x, to);
            if (!y)
              return std::nullopt;
            x = *y;
          }
          return in;
        })
        .Case<tosa::SubOp, tosa::AddOp, tosa::GreaterOp, tosa::GreaterEqualOp,
              tosa::EqualOp, tosa::LogicalAndOp, tosa::LogicalOrOp,
              tosa::MulOp, tosa::SelectOp, tosa::LogicalNotOp>(
            [&](Operation *op) { return evalTosaElementwise(op, type, depth); })
        .Default([](Operation *) { return std::nullopt; });
  }

  /// A scalar (index/int/float constant).
  static std::optional<double> scalar(Value v) {
    APInt i;
    if (matchPattern(v, m_ConstantInt(&i)))
      return v.getType().isInteger(1) ? double(i.getZExtValue())
                                      : double(i.getSExtValue());
    APFloat f(0.0);
    if (matchPattern(v, m_ConstantFloat(&f)))
      return f.convertToDouble();
    return std::nullopt;
  }

  /// x as an element of type `to`: floats round to nearest even; integers
  /// only when x is one that `to` holds exactly (tosa.cast rounds and
  /// saturates, tosa's integer arithmetic must not overflow; such values are
  /// refused rather than modelled); i1 is x != 0.
  static std::optional<double> convert(double x, Type to) {
    if (auto ft = dyn_cast<FloatType>(to)) {
      APFloat f(x);
      bool lost = false;
      f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      f.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
      return f.convertToDouble();
    }
    if (to.isInteger(1))
      return x != 0.0 ? 1.0 : 0.0;
    unsigned width = to.isIndex() ? 64 : to.getIntOrFloatBitWidth();
    double limit = std::ldexp(1.0, std::min(width - 1, 53u));
    if (!to.isIntOrIndex() || std::trunc(x) != x || x >= limit || x < -limit)
      return std::nullopt;
    return x;
  }

  static std::optional<Tensor> fromAttr(Attribute cst, RankedTensorType type) {
    Type elt = type.getElementType();
    if (auto dense = dyn_cast<DenseElementsAttr>(cst)) {
      Tensor t = splat(type, 0);
      if (elt.isInteger(1)) {
        size_t k = 0;
        for (bool b : dense.getValues<bool>())
          t.data[k++] = b ? 1.0 : 0.0;
      } else if (elt.isIntOrIndex()) {
        size_t k = 0;
        for (APInt i : dense.getValues<APInt>()) {
          if (i.getSignificantBits() > 53)
            return std::nullopt;
          t.data[k++] = double(i.getSExtValue());
        }
      } else if (isa<FloatType>(elt)) {
        size_t k = 0;
        for (APFloat f : dense.getValues<APFloat>())
          t.data[k++] = f.convertToDouble();
      } else {
        return std::nullopt;
      }
      return t;
    }
    // torch-mlir stores buffers as dense_resource blobs: float ones, and
    // integer ones such as GPT-NeoX's uint8 tril buffer (signless i8 here,
    // read sign-extended as the dense case above reads it).
    std::optional<Tensor> t;
    if ((t = fromResource<DenseF32ResourceElementsAttr>(cst, type)) ||
        (t = fromResource<DenseF64ResourceElementsAttr>(cst, type)) ||
        (t = fromResource<DenseBoolResourceElementsAttr>(cst, type)) ||
        (t = fromResource<DenseI8ResourceElementsAttr>(cst, type)) ||
        (t = fromResource<DenseI16ResourceElementsAttr>(cst, type)) ||
        (t = fromResource<DenseI32ResourceElementsAttr>(cst, type)) ||
        (t = fromResource<DenseI64ResourceElementsAttr>(cst, type)) ||
        (t = fromResource<DenseUI8ResourceElementsAttr>(cst, type)))
      return t;
    return std::nullopt;
  }

  /// The blob of a typed dense_resource, when `cst` is one and its data is
  /// loaded; integers beyond 2^53 are not doubles exactly and are refused.
  template <typename ResourceAttr>
  static std::optional<Tensor> fromResource(Attribute cst, RankedTensorType type) {
    auto res = dyn_cast<ResourceAttr>(cst);
    if (!res)
      return std::nullopt;
    auto data = res.tryGetAsArrayRef();
    if (!data || static_cast<int64_t>(data->size()) != type.getNumElements())
      return std::nullopt;
    Tensor t = splat(type, 0);
    for (size_t k = 0; k < data->size(); ++k) {
      double x = static_cast<double>((*data)[k]);
      if (std::fabs(x) > 0x1p53)
        return std::nullopt;
      t.data[k] = x;
    }
    return t;
  }

  /// tosa's elementwise ops broadcast size-1 dims of equal-rank operands.
  std::optional<Tensor> evalTosaElementwise(Operation *op,
                                            RankedTensorType type, int depth) {
    SmallVector<Value> ins(op->getOperands());
    if (auto mul = dyn_cast<tosa::MulOp>(op)) {
      // The third operand is the shift of integer multiplies; only 0 is
      // plain multiplication.
      std::optional<Tensor> shift = eval(mul.getShift(), depth + 1);
      if (!shift || llvm::any_of(shift->data, [](double s) { return s != 0; }))
        return std::nullopt;
      ins.pop_back();
    }
    SmallVector<Tensor> args;
    for (Value in : ins) {
      auto t = eval(in, depth + 1);
      if (!t || t->shape.size() != static_cast<size_t>(type.getRank()))
        return std::nullopt;
      for (int64_t d = 0; d < type.getRank(); ++d)
        if (t->shape[d] != 1 && t->shape[d] != type.getDimSize(d))
          return std::nullopt;
      args.push_back(std::move(*t));
    }
    SmallVector<SmallVector<int64_t>> strides;
    for (const Tensor &a : args)
      strides.push_back(stridesOf(a.shape));
    Type elt = type.getElementType();
    Tensor t = splat(type, 0);
    SmallVector<double, 3> x(args.size());
    bool representable = true;
    forEachPoint(type.getShape(), [&](ArrayRef<int64_t> idx, int64_t flat) {
      for (size_t a = 0; a < args.size(); ++a) {
        int64_t src = 0;
        for (size_t d = 0; d < idx.size(); ++d)
          src += (args[a].shape[d] == 1 ? 0 : idx[d]) * strides[a][d];
        x[a] = args[a].data[src];
      }
      double r = 0;
      if (isa<tosa::SubOp>(op)) r = x[0] - x[1];
      else if (isa<tosa::AddOp>(op)) r = x[0] + x[1];
      else if (isa<tosa::MulOp>(op)) r = x[0] * x[1];
      else if (isa<tosa::GreaterOp>(op)) r = x[0] > x[1];
      else if (isa<tosa::GreaterEqualOp>(op)) r = x[0] >= x[1];
      else if (isa<tosa::EqualOp>(op)) r = x[0] == x[1];
      else if (isa<tosa::LogicalAndOp>(op)) r = (x[0] != 0) && (x[1] != 0);
      else if (isa<tosa::LogicalOrOp>(op)) r = (x[0] != 0) || (x[1] != 0);
      else if (isa<tosa::LogicalNotOp>(op)) r = x[0] == 0;
      else if (isa<tosa::SelectOp>(op)) r = x[0] != 0 ? x[1] : x[2];
      std::optional<double> y = convert(r, elt);
      representable &= y.has_value();
      t.data[flat] = y.value_or(0.0);
    });
    if (!representable)
      return std::nullopt;
    return t;
  }

  /// An all-parallel generic whose payload only reads its inputs, constants
  /// and linalg.index.
  std::optional<Tensor> evalGeneric(linalg::GenericOp g, RankedTensorType type,
                                    int depth) {
    if (g.getNumResults() != 1 || g.getNumReductionLoops() != 0 ||
        !g.getIndexingMapsArray().back().isIdentity())
      return std::nullopt;
    Block *body = g.getBody();
    unsigned numInputs = g.getNumDpsInputs();
    // The output's old value must not be read.
    if (!body->getArgument(numInputs).use_empty())
      return std::nullopt;

    // Inputs and their maps; each map result must be a loop dim or a
    // constant (broadcasts and transposes; nothing else occurs in masks).
    SmallVector<Tensor> inputs;
    SmallVector<SmallVector<int64_t>> inDim, inConst, inStrides;
    for (unsigned a = 0; a < numInputs; ++a) {
      auto t = eval(g.getDpsInputs()[a], depth + 1);
      if (!t)
        return std::nullopt;
      AffineMap map = g.getIndexingMapsArray()[a];
      SmallVector<int64_t> dims, consts;
      if (map.getNumResults() != t->shape.size())
        return std::nullopt;
      // Every access stays in bounds, whatever the verifier let through.
      for (auto [r, e] : llvm::enumerate(map.getResults())) {
        if (auto d = dyn_cast<AffineDimExpr>(e)) {
          if (d.getPosition() >= type.getRank() ||
              t->shape[r] != type.getDimSize(d.getPosition()))
            return std::nullopt;
          dims.push_back(d.getPosition());
          consts.push_back(0);
        } else if (auto c = dyn_cast<AffineConstantExpr>(e)) {
          if (c.getValue() < 0 || c.getValue() >= t->shape[r])
            return std::nullopt;
          dims.push_back(-1);
          consts.push_back(c.getValue());
        } else {
          return std::nullopt;
        }
      }
      inStrides.push_back(stridesOf(t->shape));
      inputs.push_back(std::move(*t));
      inDim.push_back(dims);
      inConst.push_back(consts);
    }

    // The payload as straight-line code over numbered slots: the block's
    // arguments first, then one slot per op result.
    DenseMap<Value, unsigned> slot;
    unsigned next = 0;
    for (BlockArgument arg : body->getArguments()) {
      if (!ScalarKind::of(arg.getType()))
        return std::nullopt;
      slot[arg] = next++;
    }
    SmallVector<Instr> code;
    SmallVector<std::pair<unsigned, Scalar>> constants;
    auto addConstant = [&](Value c) -> std::optional<unsigned> {
      std::optional<Scalar> x = scalarConstant(c);
      if (!x)
        return std::nullopt;
      constants.push_back({next, *x});
      slot[c] = next;
      return next++;
    };
    for (Operation &op : body->without_terminator()) {
      if (op.getNumResults() != 1 || op.getNumRegions() != 0 ||
          !ScalarKind::of(op.getResult(0).getType()))
        return std::nullopt;
      if (addConstant(op.getResult(0)))
        continue;
      if (!isa<linalg::IndexOp, arith::IndexCastOp, arith::IndexCastUIOp,
               arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp,
               arith::SIToFPOp, arith::UIToFPOp, arith::ExtFOp,
               arith::TruncFOp, arith::AddIOp, arith::SubIOp, arith::MulIOp,
               arith::AndIOp, arith::OrIOp, arith::XOrIOp, arith::MaxSIOp,
               arith::MinSIOp, arith::MaxUIOp, arith::MinUIOp, arith::CmpIOp,
               arith::CmpFOp, arith::SelectOp, arith::AddFOp, arith::SubFOp,
               arith::MulFOp, arith::NegFOp>(op))
        return std::nullopt;
      if (auto ix = dyn_cast<linalg::IndexOp>(op);
          ix && ix.getDim() >= static_cast<uint64_t>(type.getRank()))
        return std::nullopt;
      Instr in{&op, {}, 0};
      for (Value o : op.getOperands()) {
        auto it = slot.find(o);
        if (it == slot.end()) {
          // Captured from outside the payload: only scalar constants.
          if (!ScalarKind::of(o.getType()) || !addConstant(o))
            return std::nullopt;
          it = slot.find(o);
        }
        in.args.push_back(it->second);
      }
      in.result = next++;
      slot[op.getResult(0)] = in.result;
      code.push_back(in);
    }
    Value yielded = body->getTerminator()->getOperand(0);
    if (!slot.count(yielded) && !addConstant(yielded))
      return std::nullopt;
    unsigned yieldSlot = slot.lookup(yielded);
    ScalarKind outKind = *ScalarKind::of(type.getElementType());
    SmallVector<ScalarKind> argKinds;
    for (BlockArgument arg : body->getArguments())
      argKinds.push_back(*ScalarKind::of(arg.getType()));

    Tensor t = splat(type, 0);
    SmallVector<Scalar> s(next);
    for (auto [k, c] : constants)
      s[k] = c;
    bool ok = true;
    forEachPoint(type.getShape(), [&](ArrayRef<int64_t> idx, int64_t flat) {
      if (!ok)
        return;
      for (unsigned a = 0; a < numInputs; ++a) {
        int64_t src = 0;
        for (size_t r = 0; r < inDim[a].size(); ++r)
          src += (inDim[a][r] < 0 ? inConst[a][r] : idx[inDim[a][r]]) *
                 inStrides[a][r];
        s[a] = argKinds[a].fromStored(inputs[a].data[src]);
      }
      for (const Instr &in : code)
        if (!step(in, s, idx)) {
          ok = false;
          return;
        }
      std::optional<double> out = outKind.toStored(s[yieldSlot]);
      if (!out) {
        ok = false;
        return;
      }
      t.data[flat] = *out;
    });
    if (!ok)
      return std::nullopt;
    return t;
  }

  /// A payload scalar constant (integer, index or float), exactly.
  static std::optional<Scalar> scalarConstant(Value v) {
    std::optional<ScalarKind> kind = ScalarKind::of(v.getType());
    if (!kind)
      return std::nullopt;
    APInt i;
    if (kind->isInt() && matchPattern(v, m_ConstantInt(&i)))
      return Scalar{i.getZExtValue() & kind->mask(), 0.0};
    APFloat f(0.0);
    if (!kind->isInt() && matchPattern(v, m_ConstantFloat(&f)))
      return Scalar{0, f.convertToDouble()};
    return std::nullopt;
  }

  /// Executes one payload op with the IR's semantics: integers wrap at their
  /// width, signedness comes from the op, floats round to their type. False
  /// where the result is poison (nsw/nuw overflow) or not representable
  /// here; the mask is then left alone, which is always correct.
  static bool step(const Instr &in, SmallVectorImpl<Scalar> &s,
                   ArrayRef<int64_t> idx) {
    Operation *op = in.op;
    auto arg = [&](unsigned k) { return s[in.args[k]]; };
    auto kindOf = [&](unsigned k) {
      return *ScalarKind::of(op->getOperand(k).getType());
    };
    ScalarKind rk = *ScalarKind::of(op->getResult(0).getType());
    std::optional<Scalar> r;
    if (auto ix = dyn_cast<linalg::IndexOp>(op))
      r = Scalar{static_cast<uint64_t>(idx[ix.getDim()]), 0.0};
    else if (isa<arith::IndexCastOp, arith::ExtSIOp>(op))
      // index_cast sign-extends when widening and truncates when narrowing.
      r = Scalar{static_cast<uint64_t>(kindOf(0).signedValue(arg(0))) &
                     rk.mask(), 0.0};
    else if (isa<arith::IndexCastUIOp, arith::ExtUIOp, arith::TruncIOp>(op))
      r = Scalar{arg(0).bits & rk.mask(), 0.0};
    else if (isa<arith::SIToFPOp>(op))
      r = Scalar{0, rk.round(APFloat(rk.semantics()),
                             kindOf(0).asAPInt(arg(0)), /*isSigned=*/true)};
    else if (isa<arith::UIToFPOp>(op))
      r = Scalar{0, rk.round(APFloat(rk.semantics()),
                             kindOf(0).asAPInt(arg(0)), /*isSigned=*/false)};
    else if (isa<arith::ExtFOp, arith::TruncFOp>(op))
      r = Scalar{0, rk.round(arg(0).f)};
    else if (isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::NegFOp>(op))
      // One rounding from double is exact for every type up to f32 (double
      // has more than 2p+2 bits) and for f64 itself.
      r = Scalar{0, rk.round(floatResult(op, arg(0).f,
                                         op->getNumOperands() > 1 ? arg(1).f
                                                                  : 0.0))};
    else if (auto c = dyn_cast<arith::CmpIOp>(op))
      r = Scalar{compareInts(c.getPredicate(), kindOf(0).asAPInt(arg(0)),
                             kindOf(0).asAPInt(arg(1))),
                 0.0};
    else if (auto c = dyn_cast<arith::CmpFOp>(op))
      r = Scalar{compareFloats(c.getPredicate(), arg(0).f, arg(1).f), 0.0};
    else if (isa<arith::SelectOp>(op))
      r = arg(0).bits ? arg(1) : arg(2);
    else
      r = integerResult(op, rk, kindOf(0).asAPInt(arg(0)),
                        kindOf(1).asAPInt(arg(1)));
    if (!r)
      return false;
    s[in.result] = *r;
    return true;
  }

};

} // namespace

std::optional<EvaluatedTensor>
mlir::attn::evaluateInputFreeTensor(Value v, int64_t maxElements) {
  return Evaluator(maxElements).eval(v);
}

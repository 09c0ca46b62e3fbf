//===- DetectScoreMod.cpp - --attn-detect: score modifications ------------===//
//
// The captured code is a DAG over "one score's worth" of values: tensors of
// the scores' shape read element for element, and scalars in the payloads of
// elementwise generics over the scores. Its root is the chain's value, its
// only sink is Q·Kᵀ. `ScoreModWalker` defines that DAG once, for the check
// (captureScoreMod) and the copy (buildScoreModRegion), so the two cannot
// disagree about what belongs to it.
//
//===----------------------------------------------------------------------===//
#include "DetectScoreMod.h"
#include "DetectNormalize.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::attn;
using namespace mlir::attn::detect;

namespace {

/// The DAG's structure; shared by the check and the copy.
class ScoreModWalker {
public:
  explicit ScoreModWalker(int64_t rank) : rank(rank) {}

  /// Q·Kᵀ behind a tensor, through casts and batch reshapes; null if none.
  static Value scoresBehind(Value tensor) {
    Value s = strip(tensor);
    return classify(s).kind == NodeKind::MatMul ? s : Value();
  }

  /// A linalg op computing each element of its results from the same
  /// element of its operands, over the scores' index space.
  linalg::LinalgOp elementwiseGeneric(Operation *op) const {
    auto g = dyn_cast_or_null<linalg::LinalgOp>(op);
    if (!g || g.getNumLoops() != static_cast<unsigned>(rank) ||
        g.getNumReductionLoops() != 0 || !g.hasPureTensorSemantics())
      return {};
    for (OpOperand &init : g.getDpsInitsMutable())
      if (!g.getMatchingIndexingMap(&init).isIdentity())
        return {};
    return g;
  }

  /// An op applied element for element to tensors of the scores' rank:
  /// arith or math on tensors (`arith.mulf %s, %g : tensor<..>`), or one of
  /// the TOSA elementwise ops whose scalar meaning emitTosaScalar spells
  /// (their operands may broadcast size-1 dims).
  bool isTensorElementwise(Operation *op) const {
    if (!op || op->getNumResults() != 1 || op->getNumRegions() != 0)
      return false;
    bool arithOrMath = op->hasTrait<OpTrait::Elementwise>() &&
                       isa<arith::ArithDialect, math::MathDialect>(op->getDialect());
    if (!arithOrMath && (!isTosaElementwise(op) || broadcastsAtRunTime(op, dataOperands(op))))
      return false;
    auto sameRank = [&](Value v) {
      auto r = dyn_cast<RankedTensorType>(v.getType());
      return r && r.getRank() == rank;
    };
    return llvm::all_of(dataOperands(op), sameRank) && sameRank(op->getResult(0));
  }

  /// The TOSA ops captured, on floats (compares and selects on any type).
  static bool isTosaElementwise(Operation *op) {
    if (isa<tosa::SelectOp, tosa::GreaterOp, tosa::GreaterEqualOp, tosa::EqualOp>(op))
      return true;
    return isa<tosa::AddOp, tosa::SubOp, tosa::MulOp, tosa::TanhOp, tosa::ExpOp, tosa::AbsOp,
               tosa::NegateOp, tosa::ReciprocalOp, tosa::SigmoidOp>(op) &&
           isa<FloatType>(getElementTypeOrSelf(op->getResult(0).getType()));
  }

  /// The operands an elementwise op computes from: all but tosa.mul's shift
  /// (0 for floats) and tosa.negate's zero points (0 for floats).
  static OperandRange dataOperands(Operation *op) {
    if (isa<tosa::MulOp>(op))
      return op->getOperands().take_front(2);
    if (isa<tosa::NegateOp>(op))
      return op->getOperands().take_front(1);
    return op->getOperands();
  }

  /// Whether elementwise `op` reads `operand` at the result's own point (no
  /// broadcast dim).
  static bool readsAtPoint(Operation *op, Value operand) {
    return operand.getType() == op->getResult(0).getType() ||
           cast<ShapedType>(operand.getType()).getShape() ==
               cast<ShapedType>(op->getResult(0).getType()).getShape();
  }

  /// Whether `tensor` belongs to the DAG: Q·Kᵀ itself, or computed
  /// elementwise from something that does. Everything else is read as a
  /// leaf.
  bool inDag(Value tensor) {
    auto [it, inserted] = dagMemo.try_emplace(tensor, false);
    if (!inserted)
      return it->second;
    bool result = false;
    if (scoresBehind(tensor)) {
      result = true;
    } else if (Operation *def = tensor.getDefiningOp()) {
      if (isa<tensor::CastOp>(def)) {
        result = inDag(def->getOperand(0));
      } else if (linalg::LinalgOp g = elementwiseGeneric(def)) {
        for (OpOperand &o : g->getOpOperands())
          if (readsElementwise(g, o) && inDag(o.get()))
            result = true;
      } else if (isTensorElementwise(def)) {
        result = llvm::any_of(dataOperands(def), [&](Value v) {
          return readsAtPoint(def, v) && inDag(v);
        });
      }
    }
    dagMemo[tensor] = result;
    return result;
  }

  /// Whether `g` reads operand `o` at the loop point itself.
  static bool readsElementwise(linalg::LinalgOp g, OpOperand &o) {
    return g.getMatchingIndexingMap(&o).isIdentity();
  }

  /// Whether `v` is computed in `g`'s payload (or is its block argument),
  /// as opposed to captured from above.
  static bool definedInPayload(linalg::LinalgOp g, Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v))
      return arg.getOwner() == g.getBlock();
    return g->isProperAncestor(v.getDefiningOp());
  }

  /// The generic's operand behind a block argument of its payload.
  static OpOperand &operandOf(linalg::LinalgOp g, BlockArgument arg) {
    return *g.getMatchingOpOperand(arg);
  }

  int64_t rank;

private:
  DenseMap<Value, bool> dagMemo;
};

//===----------------------------------------------------------------------===//
// The check
//===----------------------------------------------------------------------===//

class ScoreModChecker {
public:
  ScoreModChecker(int64_t rank, SmallPtrSetImpl<Operation *> &chain, std::string &why)
      : walk(rank), chain(chain), why(why) {}

  /// The ops the captured code replaces go into `chain` only on success.

  FailureOr<ScoreModCapture> run(Value top) {
    ScoreModCapture c;
    c.top = top;
    c.rank = walk.rank;
    Type elt = getElementTypeOrSelf(top.getType());
    if (!isa<FloatType>(elt))
      return fail("the scores are not floating-point");
    if (!isa<ShapedType>(top.getType())) {
      auto g = walk.elementwiseGeneric(top.getParentRegion()->getParentOp());
      if (!g)
        return fail("the scores are computed by a generic that is not elementwise over them");
      if (failed(checkPayload(g, top)))
        return failure();
    } else if (failed(checkTensor(top))) {
      return failure();
    }
    if (!scores)
      return fail("the softmax input is not computed from a Q·Kᵀ product");
    for (Value leaf : leaves)
      if (failed(checkLeaf(leaf)))
        return failure();
    c.scores = scores;
    c.readsIndexSpace = readsIndexSpace;
    chain.insert(passed.begin(), passed.end());
    return c;
  }

private:
  LogicalResult fail(const Twine &reason) {
    why = reason.str();
    return failure();
  }

  LogicalResult checkTensor(Value t) {
    if (!visited.insert(t).second)
      return success();
    if (Value s = ScoreModWalker::scoresBehind(t)) {
      if (scores && scores != s)
        return fail("the score modification combines two products");
      scores = s;
      strip(t, &passed); // the casts and reshapes in between are replaced too
      return success();
    }
    Operation *def = t.getDefiningOp();
    if (def && isa<tensor::CastOp>(def)) {
      passed.insert(def);
      return checkTensor(def->getOperand(0));
    }
    if (linalg::LinalgOp g = walk.elementwiseGeneric(def)) {
      passed.insert(def);
      auto yield = g.getBlock()->getTerminator();
      return checkPayload(g, yield->getOperand(cast<OpResult>(t).getResultNumber()));
    }
    if (walk.isTensorElementwise(def)) {
      passed.insert(def);
      for (Value operand : ScoreModWalker::dataOperands(def))
        if (failed(checkOperand(operand, ScoreModWalker::readsAtPoint(def, operand))))
          return failure();
      return success();
    }
    if (def && ScoreModWalker::isTosaElementwise(def) &&
        broadcastsAtRunTime(def, ScoreModWalker::dataOperands(def)))
      return fail("the scores go through '" + def->getName().getStringRef() +
                  "', whose dynamic extents TOSA may broadcast at run time (no "
                  "indexing map states that read)");
    if (def && def->hasTrait<OpTrait::tosa::TosaElementwiseOperator>() &&
        !ScoreModWalker::isTosaElementwise(def))
      return fail("the score modification holds '" + def->getName().getStringRef() +
                  "', which the capture has no scalar form for");
    return fail("the scores go through '" +
                (def ? def->getName().getStringRef() : StringRef("a block argument")) +
                "', which is not elementwise in them");
  }

  /// A tensor the DAG reads at the loop point (identity) or through a map.
  LogicalResult checkOperand(Value t, bool identityRead) {
    if (identityRead && walk.inDag(t))
      return checkTensor(t);
    if (!isSplatConstant(t))
      readsIndexSpace = true;
    leaves.push_back(t);
    return success();
  }

  LogicalResult checkPayload(linalg::LinalgOp g, Value v) {
    if (!visited.insert(v).second)
      return success();
    if (!ScoreModWalker::definedInPayload(g, v)) {
      leaves.push_back(v); // captured from above: must not depend on S
      return success();
    }
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      OpOperand &o = ScoreModWalker::operandOf(g, arg);
      AffineMap map = g.getMatchingIndexingMap(&o);
      if (!llvm::all_of(map.getResults(), [](AffineExpr e) {
            return isa<AffineDimExpr, AffineConstantExpr>(e);
          }))
        return fail("the score modification reads a tensor through a non-trivial indexing map");
      return checkOperand(o.get(), ScoreModWalker::readsElementwise(g, o));
    }
    Operation *def = v.getDefiningOp();
    if (isa<linalg::IndexOp>(def)) {
      readsIndexSpace = true;
      return success();
    }
    if (def->getNumRegions() != 0 || !isMemoryEffectFree(def))
      return fail("the score modification holds '" + def->getName().getStringRef() +
                  "', which is not a side-effect-free scalar op");
    for (Value operand : def->getOperands())
      if (failed(checkPayload(g, operand)))
        return failure();
    return success();
  }

  /// "Depends on nothing else of S": a value read besides the score itself
  /// (a bias, a threshold) must not be computed from the scores.
  LogicalResult checkLeaf(Value leaf) {
    if (leaf == scores)
      return fail("the score modification reads other scores than its own");
    Operation *def = leaf.getDefiningOp();
    if (!def)
      return success();
    SetVector<Operation *> slice;
    BackwardSliceOptions options;
    options.omitUsesFromAbove = false;
    options.omitBlockArguments = true;
    (void)getBackwardSlice(def, &slice, options);
    if (slice.contains(scores.getDefiningOp()))
      return fail("the score modification reads other scores than its own "
                  "(a row statistic, a transpose or a threshold of S)");
    return success();
  }

  static bool isSplatConstant(Value t) {
    DenseElementsAttr attr;
    return (matchPattern(t, m_Constant(&attr)) && attr.isSplat()) ||
           (isa<FloatType>(getElementTypeOrSelf(t.getType())) && scalarConstant(t));
  }

  ScoreModWalker walk;
  SmallPtrSetImpl<Operation *> &chain;
  std::string &why;
  SmallPtrSet<Operation *, 16> passed;
  DenseSet<Value> visited;
  SmallVector<Value> leaves;
  Value scores;
  bool readsIndexSpace = false;
};

//===----------------------------------------------------------------------===//
// The copy
//===----------------------------------------------------------------------===//

class ScoreModBuilder {
public:
  ScoreModBuilder(OpBuilder &b, Location loc, const ScoreModCapture &c, Block &block)
      : b(b), loc(loc), walk(c.rank), block(block) {}

  /// The captured value `top`, computed from the block's arguments.
  Value build(Value top) {
    if (isa<ShapedType>(top.getType()))
      return emitTensor(top);
    return emitPayload(walk.elementwiseGeneric(top.getParentRegion()->getParentOp()), top);
  }

  /// `v` as a float of type `to`, by extf or truncf.
  Value convert(Value v, Type to) {
    auto from = cast<FloatType>(v.getType());
    auto dst = cast<FloatType>(to);
    if (from == dst)
      return v;
    if (from.getWidth() < dst.getWidth())
      return arith::ExtFOp::create(b, loc, dst, v);
    return arith::TruncFOp::create(b, loc, dst, v);
  }

private:
  Value score() { return block.getArgument(0); }
  Value index(unsigned d) { return block.getArgument(1 + d); }

  Value emitTensor(Value t) {
    if (Value done = memo.lookup(t))
      return done;
    Value result;
    Operation *def = t.getDefiningOp();
    if (ScoreModWalker::scoresBehind(t)) {
      result = convert(score(), getElementTypeOrSelf(t.getType()));
    } else if (isa_and_nonnull<tensor::CastOp>(def)) {
      result = emitTensor(def->getOperand(0));
    } else if (linalg::LinalgOp g = walk.elementwiseGeneric(def)) {
      Operation *yield = g.getBlock()->getTerminator();
      result = emitPayload(g, yield->getOperand(cast<OpResult>(t).getResultNumber()));
    } else {
      // An arith/math or TOSA op on tensors, applied to one element.
      SmallVector<Value> scalars;
      for (Value operand : ScoreModWalker::dataOperands(def))
        scalars.push_back(ScoreModWalker::readsAtPoint(def, operand) && walk.inDag(operand)
                              ? emitTensor(operand)
                              : readLeaf(operand, broadcastIndices(operand)));
      if (ScoreModWalker::isTosaElementwise(def)) {
        result = emitTosaScalar(def, scalars);
      } else {
        OperationState state(loc, def->getName());
        state.addOperands(scalars);
        state.addTypes(getElementTypeOrSelf(t.getType()));
        state.addAttributes(def->getAttrs());
        result = b.create(state)->getResult(0);
      }
    }
    memo[t] = result;
    return result;
  }

  Value emitPayload(linalg::LinalgOp g, Value v) {
    if (Value done = memo.lookup(v))
      return done;
    if (!ScoreModWalker::definedInPayload(g, v))
      return v; // captured from above the generic; it dominates the attention
    Value result;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      OpOperand &o = ScoreModWalker::operandOf(g, arg);
      AffineMap map = g.getMatchingIndexingMap(&o);
      result = ScoreModWalker::readsElementwise(g, o) && walk.inDag(o.get())
                   ? emitTensor(o.get())
                   : readLeaf(o.get(), indicesOf(map));
    } else if (auto index = v.getDefiningOp<linalg::IndexOp>()) {
      result = this->index(index.getDim());
    } else {
      Operation *def = v.getDefiningOp();
      IRMapping map;
      for (Value operand : def->getOperands())
        map.map(operand, emitPayload(g, operand));
      Operation *copy = b.clone(*def, map);
      for (auto [from, to] : llvm::zip_equal(def->getResults(), copy->getResults()))
        memo[from] = to;
      return memo.lookup(v);
    }
    memo[v] = result;
    return result;
  }

  /// The indices a tensor of the scores' rank is read at: the point, with
  /// 0 along its size-1 (broadcast) dims.
  SmallVector<Value> broadcastIndices(Value t) {
    SmallVector<Value> out;
    for (auto [d, size] : llvm::enumerate(cast<ShapedType>(t.getType()).getShape()))
      out.push_back(size == 1 ? arith::ConstantIndexOp::create(b, loc, 0).getResult()
                              : index(d));
    return out;
  }

  /// One element of a TOSA elementwise op, as TOSA's lowering to linalg
  /// computes it (tosa-to-linalg): reciprocal as 1/x, sigmoid as
  /// 1/(1 + e^{-x}), compares as ordered float (or signed integer) ones.
  Value emitTosaScalar(Operation *op, ArrayRef<Value> x) {
    auto compare = [&](arith::CmpFPredicate f, arith::CmpIPredicate i) -> Value {
      if (isa<FloatType>(x[0].getType()))
        return arith::CmpFOp::create(b, loc, f, x[0], x[1]);
      return arith::CmpIOp::create(b, loc, i, x[0], x[1]);
    };
    auto one = [&] {
      return arith::ConstantOp::create(b, loc, FloatAttr::get(x[0].getType(), 1.0));
    };
    return TypeSwitch<Operation *, Value>(op)
        .Case([&](tosa::AddOp) { return arith::AddFOp::create(b, loc, x[0], x[1]); })
        .Case([&](tosa::SubOp) { return arith::SubFOp::create(b, loc, x[0], x[1]); })
        .Case([&](tosa::MulOp) { return arith::MulFOp::create(b, loc, x[0], x[1]); })
        .Case([&](tosa::TanhOp) { return math::TanhOp::create(b, loc, x[0]); })
        .Case([&](tosa::ExpOp) { return math::ExpOp::create(b, loc, x[0]); })
        .Case([&](tosa::AbsOp) { return math::AbsFOp::create(b, loc, x[0]); })
        .Case([&](tosa::NegateOp) { return arith::NegFOp::create(b, loc, x[0]); })
        .Case([&](tosa::ReciprocalOp) { return arith::DivFOp::create(b, loc, one(), x[0]); })
        .Case([&](tosa::SigmoidOp) {
          Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x[0]));
          return arith::DivFOp::create(b, loc, one(), arith::AddFOp::create(b, loc, one(), e));
        })
        .Case([&](tosa::SelectOp) { return arith::SelectOp::create(b, loc, x[0], x[1], x[2]); })
        .Case([&](tosa::GreaterOp) {
          return compare(arith::CmpFPredicate::OGT, arith::CmpIPredicate::sgt);
        })
        .Case([&](tosa::GreaterEqualOp) {
          return compare(arith::CmpFPredicate::OGE, arith::CmpIPredicate::sge);
        })
        .Case([&](tosa::EqualOp) {
          return compare(arith::CmpFPredicate::OEQ, arith::CmpIPredicate::eq);
        });
  }

  SmallVector<Value> indicesOf(AffineMap map) {
    SmallVector<Value> out;
    for (AffineExpr e : map.getResults()) {
      if (auto d = dyn_cast<AffineDimExpr>(e))
        out.push_back(index(d.getPosition()));
      else
        out.push_back(arith::ConstantIndexOp::create(
            b, loc, cast<AffineConstantExpr>(e).getValue()));
    }
    return out;
  }

  /// One element of a tensor the DAG does not compute: a splat constant as
  /// a scalar constant, anything else by tensor.extract.
  Value readLeaf(Value t, ArrayRef<Value> indices) {
    DenseElementsAttr attr;
    if (matchPattern(t, m_Constant(&attr)) && attr.isSplat())
      return arith::ConstantOp::create(b, loc, attr.getSplatValue<TypedAttr>());
    Type elt = getElementTypeOrSelf(t.getType());
    if (std::optional<double> fill = scalarConstant(t); fill && isa<FloatType>(elt))
      return arith::ConstantOp::create(b, loc, FloatAttr::get(elt, *fill));
    return tensor::ExtractOp::create(b, loc, t, indices);
  }

  OpBuilder &b;
  Location loc;
  ScoreModWalker walk;
  Block &block;
  DenseMap<Value, Value> memo;
};

/// Replaces the finfo.min-like fills of the region's selects by -inf (see
/// ScoreModCapture::fillsDropKeys).
void fillsToNegInf(RewriterBase &rewriter, Block &block) {
  block.walk([&](arith::SelectOp select) {
    auto type = dyn_cast<FloatType>(select.getType());
    if (!type)
      return;
    double lowest = -APFloat::getLargest(type.getFloatSemantics()).convertToDouble();
    for (OpOperand *side : {&select.getTrueValueMutable(), &select.getFalseValueMutable()}) {
      std::optional<double> c = scalarConstant(side->get());
      if (!c || std::isinf(*c) || *c > 0.5 * lowest)
        continue;
      rewriter.setInsertionPoint(select);
      Value negInf = arith::ConstantOp::create(
          rewriter, select.getLoc(),
          FloatAttr::get(type, -std::numeric_limits<double>::infinity()));
      rewriter.modifyOpInPlace(select, [&] { side->set(negInf); });
    }
  });
}

/// Folds `score · c` (or `score / c`), applied first to the raw score and
/// nowhere else, out of the region: its factor joins the op's `scale`, where
/// the lowerings apply it anyway. Returns the new scale.
double foldLeadingFactors(RewriterBase &rewriter, Block &block, double scale) {
  double factor = scale;
  Value score = block.getArgument(0);
  while (score.hasOneUse()) {
    Operation *user = *score.getUsers().begin();
    std::optional<double> c;
    if (auto mul = dyn_cast<arith::MulFOp>(user))
      c = scalarConstant(mul.getLhs() == score ? mul.getRhs() : mul.getLhs());
    else if (auto div = dyn_cast<arith::DivFOp>(user); div && div.getLhs() == score)
      if ((c = scalarConstant(div.getRhs())))
        c = 1.0 / *c;
    if (!c || !std::isfinite(*c) || *c == 0.0 || !std::isfinite(factor * *c))
      break;
    factor *= *c;
    rewriter.replaceAllUsesWith(user->getResult(0), score);
    rewriter.eraseOp(user);
  }
  return factor;
}

} // namespace

FailureOr<ScoreModCapture>
mlir::attn::detect::captureScoreMod(Value top, int64_t rank,
                                    SmallPtrSetImpl<Operation *> &chain,
                                    std::string &why) {
  return ScoreModChecker(rank, chain, why).run(top);
}

double mlir::attn::detect::buildScoreModRegion(RewriterBase &b, Location loc, Region &region,
                                               const ScoreModCapture &capture,
                                               Type scoreType, int64_t numIndices,
                                               double scale) {
  assert((!capture.readsIndexSpace || numIndices == capture.rank) &&
         "a score_mod that reads the index space is raised at its own rank");
  OpBuilder::InsertionGuard guard(b);
  SmallVector<Type> argTypes{scoreType};
  argTypes.append(numIndices, b.getIndexType());
  Block *block = b.createBlock(&region, {}, argTypes,
                               SmallVector<Location>(argTypes.size(), loc));
  ScoreModBuilder builder(b, loc, capture, *block);
  Value y = builder.convert(builder.build(capture.top), scoreType);
  if (capture.factorAbove != 1.0)
    y = arith::MulFOp::create(
        b, loc, y, arith::ConstantOp::create(b, loc, FloatAttr::get(scoreType, capture.factorAbove)));
  YieldOp::create(b, loc, y);
  if (capture.fillsDropKeys)
    fillsToNegInf(b, *block);
  return foldLeadingFactors(b, *block, scale);
}

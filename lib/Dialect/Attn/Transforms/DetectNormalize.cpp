//===- DetectNormalize.cpp - --attn-detect, layer 1: normalization --------===//
//
// Spelling differences (named op vs generic, maps vs explicit transposes and
// broadcasts, keepdim reductions, scalars in the payload vs splat constants)
// end here: every op is read as a Node whose tensor operands carry the map
// through which the node reads them.
//
// Row reductions and contractions (linalg ops with reduction loops) are read
// in DetectNormalizeReductions.cpp. The rest (~690 lines) is one file: one function per
// kind of IR the detector reads (attn primitives, elementwise generics with
// their payloads, tosa and its run-time broadcasts, tensor reshapes), all producing the same Node and
// sharing the map-composition helpers at the top.
//
//===----------------------------------------------------------------------===//
#include "DetectNormalize.h"
#include "MaskEvaluator.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"

#include <cmath>

namespace mlir {
namespace attn {
namespace detect {
//===----------------------------------------------------------------------===//
// Layer 1: normalization
//===----------------------------------------------------------------------===//

/// A conversion between float types that detection reads as a cast: float
/// extensions (exact) and truncations (roundings, see isRoundingCast) — but
/// never one to an 8-bit float, whose 2-3 mantissa bits are a quantization
/// the program asked for (fake-quantized FP8); raising through it would drop
/// it and change the result by percents. A tosa.cast from or to an integer
/// rounds or saturates: no cast to look through.
bool isValueCast(Operation *op) {
  if (!isa<arith::ExtFOp, arith::TruncFOp, tosa::CastOp>(op))
    return false;
  Type from = getElementTypeOrSelf(op->getOperand(0).getType());
  Type to = getElementTypeOrSelf(op->getResult(0).getType());
  return isa<FloatType>(from) && isa<FloatType>(to) && !isFP8Type(to);
}

bool isRoundingCast(Operation *op) {
  if (!isValueCast(op))
    return false;
  auto from = cast<FloatType>(getElementTypeOrSelf(op->getOperand(0).getType()));
  auto to = cast<FloatType>(getElementTypeOrSelf(op->getResult(0).getType()));
  // Wider in both exponent and mantissa is exact (f16/bf16 -> f32 -> f64).
  return to.getWidth() <= from.getWidth() && to != from;
}

int64_t rankOf(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t ? t.getRank() : 0;
}

/// Splat or scalar float constant behind `v`, if any.
std::optional<double> scalarConstant(Value v) {
  // A filled tensor is a splat whatever it overwrote.
  if (auto fill = v.getDefiningOp<linalg::FillOp>())
    return scalarConstant(fill.getInputs()[0]);
  if (auto splat = v.getDefiningOp<tensor::SplatOp>())
    return scalarConstant(splat.getInput());
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  if (auto f = dyn_cast<FloatAttr>(attr))
    return f.getValueAsDouble();
  if (auto d = dyn_cast<DenseFPElementsAttr>(attr))
    if (d.isSplat())
      return d.getSplatValue<APFloat>().convertToDouble();
  if (auto d = dyn_cast<DenseIntElementsAttr>(attr))
    if (d.isSplat() && d.getElementType().isInteger(1))
      return d.getSplatValue<bool>() ? 1.0 : 0.0;
  return std::nullopt;
}

/// Broadcast by shape (tosa, attn.mask), as an indexing map: operand dims
/// align with the trailing result dims, and a dim of extent 1 against a
/// larger result dim is read at 0.
AffineMap mapByShape(Value operand, Value result) {
  auto ot = cast<RankedTensorType>(operand.getType());
  auto rt = cast<RankedTensorType>(result.getType());
  int64_t off = rt.getRank() - ot.getRank();
  SmallVector<AffineExpr> exprs;
  for (int64_t od = 0; od < ot.getRank(); ++od) {
    bool broadcast = ot.getDimSize(od) == 1 && rt.getDimSize(od + off) != 1;
    exprs.push_back(broadcast ? getAffineConstantExpr(0, result.getContext())
                              : getAffineDimExpr(od + off, result.getContext()));
  }
  return AffineMap::get(rt.getRank(), 0, exprs, result.getContext());
}

/// Where dim `d` of `v` takes its extent from: followed back through ops
/// that keep it (TOSA reductions over another axis, one-operand TOSA
/// elementwise ops, tensor.cast). Two dims with the same origin have equal
/// extents whatever the run-time shapes.
static std::pair<Value, int64_t> extentOrigin(Value v, int64_t d) {
  for (int depth = 0; depth < 64; ++depth) {
    Operation *def = v.getDefiningOp();
    if (!def)
      break;
    if (auto cast = dyn_cast<tensor::CastOp>(def)) {
      v = cast.getSource();
      continue;
    }
    auto axis = def->getAttrOfType<IntegerAttr>("axis");
    bool reduction = isa<tosa::ReduceMaxOp, tosa::ReduceMinOp, tosa::ReduceSumOp,
                         tosa::ReduceProductOp, tosa::ReduceAllOp, tosa::ReduceAnyOp>(def);
    bool unary = def->hasTrait<OpTrait::tosa::TosaElementwiseOperator>() &&
                 def->getNumOperands() == 1;
    if ((reduction && axis && axis.getInt() != d) || unary) {
      v = def->getOperand(0);
      continue;
    }
    break;
  }
  return {v, d};
}

bool broadcastsAtRunTime(Operation *op, ValueRange operands) {
  if (!op->hasTrait<OpTrait::tosa::TosaElementwiseOperator>() || op->getNumResults() != 1)
    return false;
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!result)
    return false;
  SmallVector<Value> same;
  for (Value x : operands)
    if (auto t = dyn_cast<RankedTensorType>(x.getType()); t && t.getRank() == result.getRank())
      same.push_back(x);
  auto extent = [&](size_t i, int64_t d) {
    return cast<RankedTensorType>(same[i].getType()).getDimSize(d);
  };
  for (int64_t d = 0; d < result.getRank(); ++d)
    for (size_t i = 0; i < same.size(); ++i) {
      if (!ShapedType::isDynamic(extent(i, d)))
        continue;
      for (size_t j = 0; j < same.size(); ++j) {
        if (j == i || extent(j, d) == 1)
          continue;
        // Equal extents (one origin) never broadcast either way.
        if (ShapedType::isDynamic(extent(j, d)) &&
            extentOrigin(same[i], d) == extentOrigin(same[j], d))
          continue;
        return true;
      }
    }
  return false;
}

SmallVector<bool> variesByMap(AffineMap map) {
  SmallVector<bool> v(map.getNumDims(), false);
  for (AffineExpr e : map.getResults())
    e.walk([&](AffineExpr sub) {
      if (auto d = dyn_cast<AffineDimExpr>(sub))
        v[d.getPosition()] = true;
    });
  return v;
}

/// A copy that only broadcasts (linalg.broadcast, or a generic yielding its
/// one input read through a map that drops dims or reads unit dims at 0).
/// Its input map, expressed over the result's dims; null otherwise. A
/// permutation is a transpose, never a broadcast.
AffineMap broadcastMap(Value v) {
  auto op = v.getDefiningOp<linalg::LinalgOp>();
  if (!op || op->getNumResults() != 1 || op.getNumDpsInputs() != 1 ||
      op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 0 || !op.getBlock())
    return {};
  Block *body = op.getBlock();
  if (body->getTerminator()->getOperand(0) != body->getArgument(0))
    return {};
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (!maps[1].isPermutation() || maps[0].isPermutation())
    return {};
  auto in = cast<RankedTensorType>(op.getDpsInputs()[0].getType());
  for (auto [i, e] : llvm::enumerate(maps[0].getResults())) {
    auto c = dyn_cast<AffineConstantExpr>(e);
    if (!isa<AffineDimExpr>(e) && !(c && c.getValue() == 0 && in.getDimSize(i) == 1))
      return {};
  }
  return maps[0].compose(inversePermutation(maps[1]));
}

/// Reads through broadcasts: the operand becomes the broadcast's input, read
/// through the composed map. A mask broadcast by an op and one broadcast by
/// the consumer's map are then one and the same.
void lookThroughBroadcasts(NodeOperand &o) {
  if (!o.map)
    return;
  while (AffineMap b = broadcastMap(o.value)) {
    o.map = b.compose(o.map);
    o.value = o.value.getDefiningOp<linalg::LinalgOp>().getDpsInputs()[0];
  }
  o.varies = variesByMap(o.map);
}

/// The loop exprs that index a tensor operand's dims of extent != 1, in
/// order: unit dims, added or dropped by keepdim reductions and reshapes,
/// carry no row information.
SmallVector<AffineExpr> nonUnitReads(const NodeOperand &o) {
  SmallVector<AffineExpr> r;
  auto t = dyn_cast<RankedTensorType>(o.value.getType());
  if (!t || !o.map || o.map.getNumResults() != t.getRank())
    return r;
  for (auto [i, e] : llvm::enumerate(o.map.getResults()))
    if (t.getDimSize(i) != 1)
      r.push_back(e);
  return r;
}

/// Whether a chain operand is read element for element (the identity map):
/// anything else would be a transpose or broadcast hidden in the read.
bool readsElementwise(const NodeOperand &o) {
  return !o.map || o.map.isIdentity();
}

/// The elementwise generic whose payload holds `v`, if `v` is a scalar
/// computed inside one.
linalg::LinalgOp enclosingElementwise(Value v) {
  auto g = dyn_cast_or_null<linalg::LinalgOp>(v.getParentRegion()->getParentOp());
  // Its payload values vary over its loops, which are its result's dims
  // only when it writes the result in loop order (classifyPayload).
  if (!g || g.getNumReductionLoops() != 0 || g.getNumDpsInits() != 1 ||
      !g.getIndexingMapsArray().back().isIdentity())
    return {};
  return g;
}

/// Visits what a payload value is computed from: the block arguments and
/// linalg.index ops in its backward slice inside `g`'s payload. False when
/// the slice reaches something else (the output's old value, a nested
/// region's argument, an op with regions).
static bool forEachPayloadLeaf(Value inner, linalg::LinalgOp g,
                               function_ref<void(BlockArgument)> onArg,
                               function_ref<void(linalg::IndexOp)> onIndex) {
  SmallVector<Value> work = {inner};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() != g.getBlock() ||
          arg.getArgNumber() >= static_cast<unsigned>(g.getNumDpsInputs()))
        return false;
      onArg(arg);
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (!g->isAncestor(def))
      continue; // captured from outside: the same at every point
    if (auto index = dyn_cast<linalg::IndexOp>(def)) {
      onIndex(index);
      continue;
    }
    if (def->getNumRegions() != 0)
      return false;
    llvm::append_range(work, def->getOperands());
  }
  return true;
}

/// The loops a payload value varies along: those through which it reads the
/// generic's inputs, and those of the linalg.index ops it reads. A value
/// computed from row statistics alone (1 / sum, -max inside P's payload) is
/// then per row, as it would be as a tensor of its own.
static SmallVector<bool> payloadVaries(Value inner, linalg::LinalgOp g) {
  unsigned loops = g.getNumLoops();
  SmallVector<bool> varies(loops, false);
  auto onArg = [&](BlockArgument arg) {
    SmallVector<bool> read = variesByMap(g.getIndexingMapsArray()[arg.getArgNumber()]);
    for (unsigned d = 0; d < loops; ++d)
      varies[d] = varies[d] || read[d];
  };
  auto onIndex = [&](linalg::IndexOp index) { varies[index.getDim()] = true; };
  if (!forEachPayloadLeaf(inner, g, onArg, onIndex))
    return SmallVector<bool>(loops, true);
  return varies;
}

SmallVector<Value> tensorsBehind(Value v) {
  if (isa<ShapedType>(v.getType()))
    return {v};
  linalg::LinalgOp g = enclosingElementwise(v);
  if (!g)
    return {};
  SmallVector<Value> tensors;
  auto onArg = [&](BlockArgument arg) {
    tensors.push_back(g.getDpsInputs()[arg.getArgNumber()]);
  };
  forEachPayloadLeaf(v, g, onArg, [](linalg::IndexOp) {});
  return tensors;
}

/// An operand inside an elementwise generic's payload: block arguments are
/// the generic's input tensors (with their broadcast), constants are
/// scalars, and other payload values stay payload values, which vary along
/// the loops they read (payloadVaries). Elementwise fusion (sub+exp in one
/// generic, say) therefore reads exactly like the unfused chain.
std::optional<NodeOperand> payloadOperand(Value inner, linalg::LinalgOp g) {
  NodeOperand o;
  if (auto arg = dyn_cast<BlockArgument>(inner)) {
    if (arg.getOwner() != g.getBlock() ||
        arg.getArgNumber() >= static_cast<unsigned>(g.getNumDpsInputs()))
      return std::nullopt; // the output's old value
    o.value = g.getDpsInputs()[arg.getArgNumber()];
    o.map = g.getIndexingMapsArray()[arg.getArgNumber()];
    o.scalar = scalarConstant(o.value); // a splat tensor input
    lookThroughBroadcasts(o);
    return o;
  }
  if ((o.scalar = scalarConstant(inner)))
    return o;
  if (!g->isAncestor(inner.getDefiningOp()))
    return std::nullopt; // captured from outside
  o.value = inner;
  o.varies = payloadVaries(inner, g);
  return o;
}

/// A scalar op in an elementwise generic's payload, as a node whose op is the
/// generic itself.
Node classifyPayload(Value y, linalg::LinalgOp g) {
  Node n;
  n.op = g;
  // Nodes read their operands over the result's dims, which are the loops
  // only where the result is written in loop order. A generic that writes
  // it permuted (Sᵀ, Oᵀ by its output map) is read only as a copy: an
  // adversarial helper's softmax(Sᵀ)·V, written so, had been raised as
  // softmax(S)·V.
  AffineMap out = g.getIndexingMapsArray().back();
  if (!out.isIdentity() && !(isa<BlockArgument>(y) && out.isPermutation()))
    return n;
  if (auto arg = dyn_cast<BlockArgument>(y)) {
    // A copy or broadcast of an input: a cast when the map is the identity,
    // a transpose when it is a permutation.
    auto o = payloadOperand(y, g);
    if (!o || !o->value)
      return n;
    AffineMap resultToLoops = inversePermutation(out);
    AffineMap map = g.getIndexingMapsArray()[arg.getArgNumber()].compose(resultToLoops);
    o->map = o->map.compose(resultToLoops);
    o->varies = variesByMap(o->map);
    if (map.isIdentity()) {
      n.kind = NodeKind::Cast;
      n.operands = {*o};
    } else if (map.isPermutation() && g.getNumDpsInputs() == 1) {
      n.kind = NodeKind::Transpose;
      n.operands = {*o};
      for (AffineExpr ex : inversePermutation(map).getResults())
        n.perm.push_back(cast<AffineDimExpr>(ex).getPosition());
    }
    return n;
  }
  Operation *def = y.getDefiningOp();
  if (!def || !g->isAncestor(def))
    return n;
  if (isValueCast(def)) {
    if (auto o = payloadOperand(def->getOperand(0), g); o && o->value) {
      n.kind = NodeKind::Cast;
      n.rounds = isRoundingCast(def);
      n.operands = {*o};
    }
    return n;
  }
  if (auto sel = dyn_cast<arith::SelectOp>(def)) {
    auto tv = payloadOperand(sel.getTrueValue(), g);
    auto fv = payloadOperand(sel.getFalseValue(), g);
    if (!tv || !fv)
      return n;
    NodeOperand cond;
    bool keepWhenTrue = true;
    if (auto c = causalFromCompare(sel.getCondition(), g.getStaticLoopRanges(), keepWhenTrue)) {
      cond.causalOffset = *c;
    } else if (auto o = payloadOperand(sel.getCondition(), g); o && o->value) {
      cond = *o;
    } else {
      return n;
    }
    n.kind = NodeKind::Select;
    n.operands = {cond, *tv, *fv};
    // For an index comparison, fold "keep when false" into the operands.
    if (cond.causalOffset && !keepWhenTrue)
      std::swap(n.operands[1], n.operands[2]);
    return n;
  }
  NodeKind kind = NodeKind::Unknown;
  if (isa<arith::AddFOp>(def)) kind = NodeKind::Add;
  else if (isa<arith::SubFOp>(def)) kind = NodeKind::Sub;
  else if (isa<arith::MulFOp>(def)) kind = NodeKind::Mul;
  else if (isa<arith::DivFOp>(def)) kind = NodeKind::Div;
  else if (isa<math::ExpOp>(def)) kind = NodeKind::Exp;
  else if (isa<math::Exp2Op>(def)) kind = NodeKind::Exp2;
  else if (isa<arith::NegFOp>(def)) kind = NodeKind::Neg;
  else if (isa<math::LogOp>(def)) kind = NodeKind::Log;
  if (kind == NodeKind::Unknown)
    return n;
  for (Value operand : def->getOperands()) {
    auto o = payloadOperand(operand, g);
    if (!o)
      return n;
    n.operands.push_back(*o);
  }
  n.kind = kind;
  // 1 / x is a reciprocal.
  if (kind == NodeKind::Div && n.operands[0].scalar && *n.operands[0].scalar == 1.0 &&
      n.operands[1].value) {
    n.kind = NodeKind::Reciprocal;
    n.operands = {n.operands[1]};
  }
  return n;
}

/// The normalization: one abstract node per op.
Node classify(Value v) {
  Node n;
  // No value (the constant side of an op, where the matcher expected the
  // chain): an unknown node, which every matcher refuses (fuzz finding:
  // S + c with S not a product).
  if (!v)
    return n;
  // A scalar inside an elementwise generic's payload.
  if (!isa<ShapedType>(v.getType()))
    if (linalg::LinalgOp g = enclosingElementwise(v))
      return classifyPayload(v, g);
  Operation *def = v.getDefiningOp();
  if (!def)
    return n;
  // Row reductions (possibly with unused extra results); contractions, which
  // also have one reduction loop but two inputs, are matmuls below.
  if (auto g = dyn_cast<linalg::LinalgOp>(def);
      g && g.getNumReductionLoops() >= 1 && g.getNumDpsInputs() == 1 &&
      v == def->getResult(0))
    return classifyReduction(g);
  if (def->getNumResults() != 1 || broadcastsAtRunTime(def, def->getOperands()))
    return n;
  n.op = def;
  auto tensorOperand = [&](Value x) {
    NodeOperand o;
    o.value = x;
    o.scalar = scalarConstant(x);
    if (isa<RankedTensorType>(x.getType()) && isa<RankedTensorType>(v.getType()) &&
        rankOf(x) <= rankOf(v)) {
      o.map = mapByShape(x, v);
      // A linalg.broadcast feeding a tensor-level op is read through, as
      // in a generic's payload.
      lookThroughBroadcasts(o);
    }
    return o;
  };
  auto binary = [&](NodeKind k, Value a, Value b) {
    n.kind = k;
    n.operands = {tensorOperand(a), tensorOperand(b)};
    return n;
  };
  auto unary = [&](NodeKind k, Value a) {
    n.kind = k;
    n.operands = {tensorOperand(a)};
    return n;
  };
  // attn primitives.
  if (auto mm = dyn_cast<MatmulOp>(def)) {
    n.kind = NodeKind::MatMul;
    n.rhsTransposed = mm.getTransposeRhs();
    n.operands = {tensorOperand(mm.getLhs()), tensorOperand(mm.getRhs())};
    return n;
  }
  if (auto sc = dyn_cast<ScaleOp>(def)) {
    n.kind = NodeKind::Mul;
    NodeOperand c;
    c.scalar = sc.getFactor().convertToDouble();
    n.operands = {tensorOperand(sc.getInput()), c};
    return n;
  }
  if (auto sm = dyn_cast<SoftmaxOp>(def)) {
    unary(NodeKind::Softmax, sm.getInput());
    n.axis = sm.getDim();
    return n;
  }
  if (auto mk = dyn_cast<MaskOp>(def)) {
    if (mk.getKind() == MaskKind::causal) {
      unary(NodeKind::CausalMask, mk.getInput());
      n.causal = mk.getAlign().value_or(CausalAlignment::top_left);
      return n;
    }
    if (mk.getKind() == MaskKind::additive)
      return binary(NodeKind::Add, mk.getInput(), mk.getMask());
    n.kind = NodeKind::Select;
    NodeOperand negInf;
    negInf.scalar = -std::numeric_limits<double>::infinity();
    n.operands = {tensorOperand(mk.getMask()), tensorOperand(mk.getInput()), negInf};
    return n;
  }
  // linalg.
  if (auto sm = dyn_cast<linalg::SoftmaxOp>(def)) {
    unary(NodeKind::Softmax, sm.getInput());
    n.axis = sm.getDimension();
    return n;
  }
  if (auto tr = dyn_cast<linalg::TransposeOp>(def)) {
    unary(NodeKind::Transpose, tr.getInput());
    n.perm = llvm::to_vector(tr.getPermutation());
    return n;
  }
  if (auto lop = dyn_cast<linalg::LinalgOp>(def)) {
    if (linalg::isaContractionOpInterface(lop))
      return classifyContraction(lop);
    // Elementwise generics and named elementwise ops (linalg.mul, ...) alike:
    // read the payload.
    if (lop.getNumReductionLoops() == 0 && lop.getNumDpsInits() == 1 &&
        lop.getBlock())
      return classifyPayload(lop.getBlock()->getTerminator()->getOperand(0), lop);
    return n;
  }
  // Elementwise arith/math directly on tensors.
  if (isa<tensor::CastOp>(def) || isValueCast(def)) {
    n.rounds = isRoundingCast(def);
    return unary(NodeKind::Cast, def->getOperand(0));
  }
  if (isa<arith::AddFOp, tosa::AddOp>(def))
    return binary(NodeKind::Add, def->getOperand(0), def->getOperand(1));
  if (isa<arith::SubFOp, tosa::SubOp>(def))
    return binary(NodeKind::Sub, def->getOperand(0), def->getOperand(1));
  if (isa<arith::MulFOp, tosa::MulOp>(def))
    return binary(NodeKind::Mul, def->getOperand(0), def->getOperand(1));
  if (isa<arith::DivFOp>(def))
    return binary(NodeKind::Div, def->getOperand(0), def->getOperand(1));
  if (isa<math::ExpOp, tosa::ExpOp>(def))
    return unary(NodeKind::Exp, def->getOperand(0));
  if (isa<math::Exp2Op>(def))
    return unary(NodeKind::Exp2, def->getOperand(0));
  if (isa<math::LogOp, tosa::LogOp>(def))
    return unary(NodeKind::Log, def->getOperand(0));
  if (isa<tosa::ReciprocalOp>(def))
    return unary(NodeKind::Reciprocal, def->getOperand(0));
  // A float negate's zero points are 0: it is -x.
  if (isa<arith::NegFOp, tosa::NegateOp>(def) && isa<FloatType>(getElementTypeOrSelf(v.getType())))
    return unary(NodeKind::Neg, def->getOperand(0));
  if (auto sel = dyn_cast<tosa::SelectOp>(def)) {
    n.kind = NodeKind::Select;
    n.operands = {tensorOperand(sel->getOperand(0)), tensorOperand(sel->getOperand(1)),
                  tensorOperand(sel->getOperand(2))};
    return n;
  }
  if (isa<tosa::ReduceMaxOp, tosa::ReduceSumOp>(def)) {
    unary(isa<tosa::ReduceMaxOp>(def) ? NodeKind::MaxReduce : NodeKind::SumReduce,
          def->getOperand(0));
    n.axis = cast<IntegerAttr>(def->getAttr("axis")).getInt();
    return n;
  }
  if (auto mm = dyn_cast<tosa::MatMulOp>(def)) {
    n.kind = NodeKind::MatMul;
    n.rhsTransposed = false;
    n.operands = {tensorOperand(mm->getOperand(0)), tensorOperand(mm->getOperand(1))};
    return n;
  }
  if (auto tr = dyn_cast<tosa::TransposeOp>(def)) {
    unary(NodeKind::Transpose, tr->getOperand(0));
    for (int32_t p : tr.getPerms())
      n.perm.push_back(p);
    return n;
  }
  return n;
}

/// Whether a reshape only merges or splits the leading (batch and head)
/// dims and keeps the last two: the [B·H, L, d] round trips of frontends.
bool reshapeKeepsLastTwo(Value from, Value to) {
  auto a = dyn_cast<RankedTensorType>(from.getType());
  auto b = dyn_cast<RankedTensorType>(to.getType());
  if (!a || !b || a.getRank() < 2 || b.getRank() < 2 || !a.hasStaticShape() ||
      !b.hasStaticShape())
    return false;
  auto lead = [](RankedTensorType t) {
    int64_t p = 1;
    for (int64_t i = 0; i < t.getRank() - 2; ++i)
      p *= t.getDimSize(i);
    return p;
  };
  return a.getShape().take_back(2) == b.getShape().take_back(2) && lead(a) == lead(b);
}

/// Whether a reshape only adds or drops unit dims (keepdim reductions).
bool reshapeOnlyUnitDims(Value from, Value to) {
  auto a = dyn_cast<RankedTensorType>(from.getType());
  auto b = dyn_cast<RankedTensorType>(to.getType());
  if (!a || !b)
    return false;
  auto nonUnit = [](RankedTensorType t) {
    SmallVector<int64_t> d;
    for (int64_t e : t.getShape())
      if (e != 1)
        d.push_back(e);
    return d;
  };
  return nonUnit(a) == nonUnit(b);
}

/// Looks through casts, copies and (unless told not to) batch reshapes;
/// records the ops passed.
Value strip(Value v, SmallPtrSetImpl<Operation *> *chain, bool throughReshapes,
            bool throughRoundings) {
  while (v) {
    if (Operation *def = v.getDefiningOp();
        throughReshapes && def &&
        isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp, tosa::ReshapeOp>(def) &&
        reshapeKeepsLastTwo(def->getOperand(0), v)) {
      if (chain)
        chain->insert(def);
      v = def->getOperand(0);
      continue;
    }
    Node n = classify(v);
    if (n.kind != NodeKind::Cast || !n.operands[0].value || (n.rounds && !throughRoundings))
      return v;
    if (chain)
      chain->insert(n.op);
    v = n.operands[0].value;
  }
  return v;
}

/// Masks up to this many elements are folded to their values to test them
/// for the causal pattern (2048 x 2048). Larger ones stay mask tensors:
/// correct, only slower.
constexpr int64_t kMaxFoldedMaskElements = int64_t(1) << 22;

bool absorbsScores(double d, Type elt) {
  if (std::isinf(d) && d < 0)
    return true;
  auto ft = dyn_cast<FloatType>(elt);
  if (!ft)
    return false;
  double lowest = llvm::APFloat::getLargest(ft.getFloatSemantics(), /*Negative=*/true)
                      .convertToDouble();
  return d <= 0.5 * lowest;
}

/// A tensor that is the causal pattern itself: a constant, or a tensor
/// computed from loop indices and constants alone (arange, broadcast,
/// subtract, compare, select: MaskEvaluator.h), whose kept entries
/// (non-zero for i1 and with `nonZeroKeeps`, else 0 rather than -inf or
/// a value that absorbs the scores: absorbsScores) are exactly
/// j <= i + offset.
std::optional<int64_t> causalConstant(Value m, bool nonZeroKeeps, bool *finiteFill) {
  auto t = dyn_cast<RankedTensorType>(m.getType());
  if (!t || t.getRank() < 2 || !t.hasStaticShape())
    return std::nullopt;
  std::optional<EvaluatedTensor> folded =
      evaluateInputFreeTensor(m, kMaxFoldedMaskElements);
  if (!folded || folded->data.empty())
    return std::nullopt;
  ArrayRef<double> values = folded->data;
  // A uniform tensor keeps everything or nothing: not a causal mask.
  if (llvm::all_equal(values))
    return std::nullopt;
  int64_t lq = t.getDimSize(t.getRank() - 2), lk = t.getDimSize(t.getRank() - 1);
  bool isBool = t.getElementType().isInteger(1);
  SmallVector<bool> keep;
  bool anyFiniteFill = false;
  for (double d : values) {
    if (isBool || nonZeroKeeps) {
      keep.push_back(d != 0.0);
      continue;
    }
    if (d != 0.0 && !absorbsScores(d, t.getElementType()))
      return std::nullopt; // a real bias, not a pure mask
    keep.push_back(d == 0.0);
    anyFiniteFill |= d != 0.0 && !std::isinf(d);
  }
  // The offset from the first row: number of kept keys minus one.
  int64_t first = 0;
  while (first < lk && keep[first])
    ++first;
  int64_t offset = first - 1;
  for (size_t e = 0; e < keep.size(); ++e) {
    int64_t i = (e / lk) % lq, j = e % lk;
    if (keep[e] != (j <= i + offset))
      return std::nullopt;
  }
  if (finiteFill)
    *finiteFill = anyFiniteFill;
  return offset;
}

} // namespace detect
} // namespace attn
} // namespace mlir

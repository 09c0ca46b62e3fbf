//===- GPUKernelForms.cpp - Which attention forms a GPU kernel takes ------===//
//
// One predicate for --attn-io-cost and --attn-lower-to-gpu (AttnOps.h): the
// operand forms no GPU kernel is built for, whatever its configuration; and
// how a score_mod region is applied, which keys it can keep, and whether a
// kernel can copy it.
//
//===----------------------------------------------------------------------===//
#include "attn/Dialect/Attn/IR/AttnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

#include <cmath>

using namespace mlir;
using namespace mlir::attn;

Value mlir::attn::applyScoreMod(OpBuilder &b, Region &scoreMod, Value score,
                                ValueRange indices, IRMapping &map, Value result) {
  if (scoreMod.empty())
    return score;
  Block &block = scoreMod.front();
  map.map(block.getArgument(0), score);
  for (auto [arg, index] : llvm::zip_equal(block.getArguments().drop_front(), indices))
    map.map(arg, index);
  if (!result)
    result = cast<YieldOp>(block.getTerminator()).getScore();
  // Only the ops `result` depends on: the rest would be dead code.
  llvm::SmallPtrSet<Operation *, 16> needed;
  SmallVector<Value> worklist{result};
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (def && def->getBlock() == &block && needed.insert(def).second)
      llvm::append_range(worklist, def->getOperands());
  }
  for (Operation &op : block.without_terminator())
    if (needed.contains(&op))
      b.clone(op, map);
  // A value from above (a function argument the region yields as it is)
  // stands for itself unless `map` rebinds it.
  return map.lookupOrDefault(result);
}

namespace {
/// Why a tensor operand `t` of `user` in a score_mod cannot be a kernel
/// parameter, or nullopt: the kernel reads single elements of tensors from
/// above, of static shape and a scalar type it can load (a table of
/// relative-position biases, a bias or gate tensor).
std::optional<std::string> whyNoKernelParameter(Operation *user, Value t, Region &scoreMod) {
  auto extract = dyn_cast<tensor::ExtractOp>(user);
  if (!extract || extract.getTensor() != t || scoreMod.isAncestor(t.getParentRegion()))
    return "a score_mod whose '" + user->getName().getStringRef().str() +
           "' takes a tensor has no GPU kernel (the kernel reads single elements of "
           "tensors defined above the op)";
  auto type = cast<RankedTensorType>(t.getType());
  Type elt = type.getElementType();
  if (!type.hasStaticShape())
    return std::string("a score_mod that reads a tensor of dynamic shape has no GPU kernel");
  if (!(isa<FloatType>(elt) || elt.isSignlessInteger()) || elt.getIntOrFloatBitWidth() > 64)
    return std::string("a score_mod that reads a tensor of ") +
           (isa<IndexType>(elt) ? "index" : "this element type") +
           " has no GPU kernel (it takes integers and floats of up to 64 bits)";
  return std::nullopt;
}
} // namespace

SmallVector<Value> mlir::attn::getScoreModTensorOperands(Region &scoreMod) {
  llvm::SetVector<Value> tensors;
  scoreMod.walk([&](tensor::ExtractOp extract) {
    if (!scoreMod.isAncestor(extract.getTensor().getParentRegion()))
      tensors.insert(extract.getTensor());
  });
  return tensors.takeVector();
}

/// The kernel copies a score_mod region op for op into the kernel, which
/// is isolated from the host: what the region reads from above must be a
/// constant (cloned into the kernel), or a tensor that it only reads
/// elements of (a kernel parameter, getScoreModTensorOperands).
std::optional<std::string> mlir::attn::whyNoGPUScoreMod(Region &scoreMod) {
  std::optional<std::string> why;
  scoreMod.walk([&](Operation *inner) {
    for (Value operand : inner->getOperands()) {
      if (isa<ShapedType>(operand.getType())) {
        if (std::optional<std::string> whyNot = whyNoKernelParameter(inner, operand, scoreMod)) {
          why = *whyNot;
          return WalkResult::interrupt();
        }
        continue;
      }
      Operation *def = operand.getDefiningOp();
      bool fromAbove = !scoreMod.isAncestor(operand.getParentRegion());
      if (fromAbove && !(def && def->hasTrait<OpTrait::ConstantLike>() &&
                         def->getNumOperands() == 0)) {
        why = std::string("a score_mod that reads a non-constant value from above has no "
                          "GPU kernel");
        return WalkResult::interrupt();
      }
    }
    // The kernel rewrites these into arithmetic and single PTX instructions
    // (FlashAttentionEmitter::expandScoreModMath); others would become
    // libdevice calls, which resolve only where the CUDA toolkit is found.
    static const llvm::StringSet<> kernelMath = {
        "math.tanh", "math.exp", "math.exp2", "math.expm1", "math.log", "math.log2",
        "math.log1p", "math.erf", "math.erfc", "math.sin", "math.cos", "math.tan",
        "math.atan", "math.sinh", "math.cosh", "math.asinh", "math.acosh", "math.atanh",
        "math.absf", "math.floor", "math.ceil", "math.trunc", "math.roundeven", "math.sqrt",
        "math.rsqrt", "math.cbrt", "math.fma", "math.copysign"};
    if (inner->getDialect() && inner->getDialect()->getNamespace() == "math" &&
        !kernelMath.contains(inner->getName().getStringRef())) {
      why = "'" + inner->getName().getStringRef().str() +
            "' in a score_mod has no GPU lowering without libdevice";
      return WalkResult::interrupt();
    }
    // NVPTX has registers for integers up to 64 bits and f16/bf16/f32/f64,
    // and no instruction for a float remainder (llvm.frem is a libcall
    // there): others would abort the backend, not fall back.
    auto kernelType = [](Type type) {
      Type t = getElementTypeOrSelf(type); // (a tensor the region reads elements of)
      if (auto i = dyn_cast<IntegerType>(t))
        return i.getWidth() <= 64;
      return t.isIndex() || t.isF16() || t.isBF16() || t.isF32() || t.isF64();
    };
    if (!llvm::all_of(inner->getOperandTypes(), kernelType) ||
        !llvm::all_of(inner->getResultTypes(), kernelType) || isa<arith::RemFOp>(inner) ||
        (inner->getDialect() && inner->getDialect()->getNamespace() == "complex")) {
      why = "'" + inner->getName().getStringRef().str() +
            "' in a score_mod has no GPU lowering (integers up to 64 bits, f16, bf16, f32 "
            "and f64 arithmetic only)";
      return WalkResult::interrupt();
    }
    if (inner->getNumRegions() != 0) {
      why = "a score_mod with nested regions ('" + inner->getName().getStringRef().str() +
            "') has no GPU kernel yet";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return why;
}

/// What neither kind of GPU kernel takes: dynamic shapes, a rank above
/// 4, a score_mod the kernels cannot copy, an empty packed batch.
static std::optional<std::string> whyNoKernelOperands(Operation *op) {
  // (The result too: a result type less static than Q and V imply is
  // legal IR, and the host's lowering casts to it.)
  auto isStatic = [](Type t) { return cast<RankedTensorType>(t).hasStaticShape(); };
  if (!llvm::all_of(op->getOperandTypes(), isStatic) ||
      !llvm::all_of(op->getResultTypes(), isStatic))
    return std::string("the GPU kernel needs static shapes");
  if (auto varlen = dyn_cast<VarlenAttentionOp>(op)) {
    // (Nothing to compute: the result is empty or 0.)
    if (varlen.getCuSeqlensQ().getType().getDimSize(0) == 1 ||
        varlen.getQuery().getType().getDimSize(0) == 0 ||
        varlen.getKey().getType().getDimSize(0) == 0)
      return std::string("a packed batch without sequences, query tokens or key tokens has no "
                         "GPU kernel");
    return std::nullopt;
  }
  auto attention = dyn_cast<AttentionOp>(op);
  if (!attention)
    return std::nullopt;
  if (attention.hasScoreMod()) {
    if (std::optional<std::string> why = whyNoGPUScoreMod(attention.getScoreMod()))
      return why;
  }
  int64_t r = attention.getRank();
  if (r > 4)
    return "the GPU kernel takes [L, d], [H, L, d] or [B, H, L, d], got rank " +
           std::to_string(r);
  return std::nullopt;
}

std::optional<std::string> mlir::attn::whyNoGPUKernelForm(Operation *op) {
  if (std::optional<std::string> why = whyNoKernelOperands(op))
    return why;
  auto attention = dyn_cast<AttentionOp>(op);
  // The kernel reads an additive mask in the inputs' element type; a wider
  // bias would have to be rounded, which changes the result.
  if (Value mask = attention ? attention.getMask() : Value()) {
    Type maskElt = cast<RankedTensorType>(mask.getType()).getElementType();
    if (!maskElt.isInteger(1) && maskElt != attention.getQuery().getType().getElementType())
      return std::string("the GPU kernel reads an additive mask in the inputs' element type; "
                         "cast the mask to it (rounding the bias) or run on the CPU");
  }
  return std::nullopt;
}

std::optional<std::string> mlir::attn::whyNoGenericGPUKernelForm(Operation *op) {
  if (isa<VarlenAttentionOp>(op))
    return std::string("packed variable-length batches run on the tensor-core kernels only "
                       "(f16 or bf16, head dims multiples of 8 up to 256)");
  return whyNoKernelOperands(op);
}


namespace {

/// a·i + b·j + c over the region's query and key indices.
struct AffineIJ {
  int64_t i = 0, j = 0, c = 0;
  AffineIJ operator-(const AffineIJ &o) const { return {i - o.i, j - o.j, c - o.c}; }
  AffineIJ operator+(const AffineIJ &o) const { return {i + o.i, j + o.j, c + o.c}; }
  bool nonNegative() const { return i >= 0 && j >= 0 && c >= 0; } // for i, j >= 0
};

/// `v` as an AffineIJ of the block's last two arguments (i, j), if it is
/// one: sums and differences of them and index constants. The bounds are
/// small (sequence lengths), so index arithmetic does not wrap.
std::optional<AffineIJ> affineIJ(Value v, Block &block, int depth = 0) {
  unsigned n = block.getNumArguments();
  if (v == block.getArgument(n - 2))
    return AffineIJ{1, 0, 0};
  if (v == block.getArgument(n - 1))
    return AffineIJ{0, 1, 0};
  APInt c;
  if (v.getType().isIndex() && matchPattern(v, m_ConstantInt(&c)))
    return AffineIJ{0, 0, c.getSExtValue()};
  if (depth > 8)
    return std::nullopt;
  Operation *def = v.getDefiningOp();
  if (!isa_and_nonnull<arith::AddIOp, arith::SubIOp>(def))
    return std::nullopt;
  auto a = affineIJ(def->getOperand(0), block, depth + 1);
  auto b = affineIJ(def->getOperand(1), block, depth + 1);
  if (!a || !b)
    return std::nullopt;
  return isa<arith::AddIOp>(def) ? *a + *b : *a - *b;
}

/// Tightens `bounds` by a condition that holds wherever the score is kept
/// (`holds`: the condition itself, else its negation). Returns whether the
/// condition is exactly the bounds it added (every (i, j) inside them
/// satisfies it), so that a select on it can be dropped there.
bool addKeepCondition(Value cond, bool holds, Block &block, ScoreModKeyBounds &bounds) {
  // keep = a ∧ b, or drop = a ∨ b (keep = ¬a ∧ ¬b).
  Operation *def = cond.getDefiningOp();
  if ((holds && isa_and_nonnull<arith::AndIOp>(def)) ||
      (!holds && isa_and_nonnull<arith::OrIOp>(def))) {
    bool lhs = addKeepCondition(def->getOperand(0), holds, block, bounds);
    bool rhs = addKeepCondition(def->getOperand(1), holds, block, bounds);
    return lhs && rhs;
  }
  auto cmp = dyn_cast_or_null<arith::CmpIOp>(def);
  if (!cmp)
    return false;
  auto lhs = affineIJ(cmp.getLhs(), block), rhs = affineIJ(cmp.getRhs(), block);
  if (!lhs || !rhs)
    return false;
  using P = arith::CmpIPredicate;
  P pred = holds ? cmp.getPredicate() : arith::invertPredicate(cmp.getPredicate());
  bool isUnsigned = pred == P::ugt || pred == P::uge || pred == P::ult || pred == P::ule;
  // Unsigned order is the signed one only where neither side can be
  // negative (j + W vs i, say; not i − j).
  if (isUnsigned && !(lhs->nonNegative() && rhs->nonNegative()))
    return false;
  // As `e >= 0` with e affine in i and j.
  AffineIJ e = *lhs - *rhs;
  switch (pred) {
  case P::sgt: case P::ugt: e.c -= 1; break;
  case P::sge: case P::uge: break;
  case P::slt: case P::ult: e = AffineIJ{} - e; e.c -= 1; break;
  case P::sle: case P::ule: e = AffineIJ{} - e; break;
  default: return false;
  }
  // j − i + c >= 0: j >= i − c.  i − j + c >= 0: j <= i + c.
  if (e.j == 1 && e.i == -1) {
    bounds.lowest = std::max(bounds.lowest.value_or(INT64_MIN), -e.c);
    return true;
  }
  if (e.j == -1 && e.i == 1) {
    bounds.highest = std::min(bounds.highest.value_or(INT64_MAX), e.c);
    return true;
  }
  return false;
}

bool isNegInf(Value v) {
  FloatAttr f;
  return matchPattern(v, m_Constant(&f)) && f.getValue().isInfinity() &&
         f.getValue().isNegative();
}

} // namespace

ScoreModKeyBounds mlir::attn::getScoreModKeyBounds(Region &scoreMod) {
  ScoreModKeyBounds bounds;
  if (scoreMod.empty() || scoreMod.front().getNumArguments() < 3)
    return bounds;
  Block &block = scoreMod.front();
  // select(keep, s, -inf) or select(drop, -inf, s), possibly nested. The
  // outer selects whose conditions are exactly bounds always keep inside
  // them: what they keep is the region's value there.
  Value y = block.getTerminator()->getOperand(0);
  bounds.insideBounds = y;
  bool exactSoFar = true;
  while (auto select = y.getDefiningOp<arith::SelectOp>()) {
    bool holds = isNegInf(select.getFalseValue());
    if (!holds && !isNegInf(select.getTrueValue()))
      break;
    exactSoFar &= addKeepCondition(select.getCondition(), holds, block, bounds);
    y = holds ? select.getTrueValue() : select.getFalseValue();
    if (exactSoFar)
      bounds.insideBounds = y;
  }
  return bounds;
}

bool mlir::attn::scoreModOnlyBoundsKeys(Region &scoreMod) {
  // (An identity region bounds nothing: it is no window.)
  ScoreModKeyBounds bounds = getScoreModKeyBounds(scoreMod);
  return (bounds.lowest || bounds.highest) && bounds.insideBounds &&
         bounds.insideBounds == scoreMod.front().getArgument(0);
}

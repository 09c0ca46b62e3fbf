//===- DetectNormalize.h - --attn-detect, layer 1: normalization -*- C++ -*-===//
//
// Any op of the attn, linalg or tosa dialects that can sit in an attention
// chain, read as one abstract `Node` (see Detect.cpp for the three layers).
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_DIALECT_ATTN_TRANSFORMS_DETECTNORMALIZE_H
#define ATTN_DIALECT_ATTN_TRANSFORMS_DETECTNORMALIZE_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Operation.h"
#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <optional>

namespace mlir {
namespace attn {
namespace detect {

enum class NodeKind {
  Unknown, MatMul, Softmax, Exp, Exp2, Log, Add, Sub, Mul, Div, Reciprocal, Neg,
  Select, MaxReduce, SumReduce, Cast, Transpose, CausalMask
};

/// One operand of a node. Either a tensor, with the result dims it varies
/// along (false = broadcast), or a scalar constant.
struct NodeOperand {
  Value value;
  std::optional<double> scalar;
  SmallVector<bool> varies;
  /// How the node reads a tensor operand: the node's loops (its result
  /// dims) to the operand's dims. Null for scalars and payload values.
  AffineMap map;
  /// Index-comparison condition of a select, as "keep iff j <= i + offset".
  std::optional<int64_t> causalOffset;
};

struct Node {
  NodeKind kind = NodeKind::Unknown;
  Operation *op = nullptr;
  SmallVector<NodeOperand> operands;
  int64_t axis = -1;          // reductions and softmax; -1: several dims
  bool rhsTransposed = false; // matmul: rhs is [b.., n, k]
  /// Matmul: the result written permuted by its output map (Oᵀ, or
  /// torch's transpose(1, 2) as [B, L, H, d]): result dim i is dim
  /// outPerm[i] of [b.., m, n]. Empty: in that order.
  SmallVector<int64_t> outPerm;
  /// Matmul: the batch dims (result positions) the rhs lacks, along which it
  /// is broadcast.
  SmallVector<int64_t> rhsBroadcastDims;
  SmallVector<int64_t> perm;  // transpose
  /// CausalMask: alignment of the diagonal.
  std::optional<CausalAlignment> causal;
  /// Select: true when the chain value is taken where the condition holds.
  bool keepWhereTrue = true;
  /// Select: index of the operand that continues the chain.
  unsigned chainOperand = 0;
  /// Cast: a rounding (isRoundingCast), not an exact conversion.
  bool rounds = false;
};

/// Rank of a ranked tensor, else 0.
int64_t rankOf(Value v);
/// Splat or scalar float constant behind `v` (a fill counts), if any.
std::optional<double> scalarConstant(Value v);
/// The input map of a pure broadcast, over the result's dims; null otherwise.
AffineMap broadcastMap(Value v);
/// The loop exprs that index a tensor operand's dims of extent != 1.
SmallVector<AffineExpr> nonUnitReads(const NodeOperand &o);
/// Whether a chain operand is read element for element.
bool readsElementwise(const NodeOperand &o);
/// The tensors `v` is computed from: itself when it is one; for a scalar in
/// an elementwise generic's payload, the inputs its payload slice reads.
SmallVector<Value> tensorsBehind(Value v);
/// Whether a linalg reduction starts every accumulator from a finite value
/// or from its combiner's identity (-inf for a max, +inf for a min): a min
/// from -inf is -inf whatever it reads. True for anything else.
bool reductionStartsFinite(Operation *op);
/// The elementwise generic whose payload holds `v`, if any.
linalg::LinalgOp enclosingElementwise(Value v);
/// Reads `keep iff j <= i + offset` out of an index comparison, where i and
/// j are linalg.index of the last two of `loopRanges`' loops (possibly plus
/// constants, possibly cast to a narrower integer), only where no value
/// wraps in the comparison's type (DetectIndexCompare.cpp).
std::optional<int64_t> causalFromCompare(Value cond, ArrayRef<int64_t> loopRanges,
                                         bool &keepWhenTrue);
/// The normalization: one abstract node per value.
Node classify(Value v);
/// Whether `op` converts between float types in a way detection reads as a
/// cast (not to an 8-bit float, not from or to an integer).
bool isValueCast(Operation *op);
/// Row reductions (max or sum) and contractions, as classify() reads them
/// (DetectNormalizeReductions.cpp).
Node classifyReduction(linalg::LinalgOp g);
Node classifyContraction(linalg::LinalgOp op);
/// Whether a reshape only adds or drops unit dims.
bool reshapeOnlyUnitDims(Value from, Value to);
/// Whether adding `d` to a score of type `elt` drops it as -inf would: d is
/// -inf, or within a factor 2 of the type's lowest value (finfo.min, what
/// frontends fill with), which every score below 2^(emax - p) (1e31 in f32)
/// rounds into, so exp gives 0 as for -inf. A merely large negative value
/// (-1e4, -1e9) is a bias: the scores can outgrow it. The fuzzer's oracle
/// found a -1e4 causal fill under a scale of 8.5e35 raised as a causal mask,
/// where the original kept every key.
bool absorbsScores(double d, Type elt);
/// Whether TOSA elementwise `op` may broadcast one of `operands` in a way
/// its types do not fix: TOSA broadcasts a dim whose extent is 1 at run
/// time, so a dynamic extent against another operand's dynamic or larger
/// one is read either in order or at index 0. No indexing map states such
/// a read (an adversarial helper found a dynamic [1, ?, ?] mask raised as
/// read in order, and the raised program aborting on its extent check where
/// TOSA broadcast a size-1 run-time extent). False for non-TOSA ops, whose
/// tensor operands have the result's shape, and for TOSA ops that are not
/// elementwise (matmul, reductions).
bool broadcastsAtRunTime(Operation *op, ValueRange operands);
/// Whether `op` converts floats to a type that is not wider in both range
/// and precision (truncf, f16 <-> bf16): a rounding the program asked for.
bool isRoundingCast(Operation *op);
/// Looks through casts, copies and (unless told not to) batch reshapes and
/// roundings; records the ops passed. Operands of the raised op stop at a
/// rounding (`throughRoundings` false): the op then reads the rounded
/// values, exactly as the program did.
Value strip(Value v, SmallPtrSetImpl<Operation *> *chain = nullptr,
            bool throughReshapes = true, bool throughRoundings = true);
/// The offset of a tensor that is the causal pattern j <= i + offset.
/// `finiteFill` (if given) is set where a dropped entry of an additive mask
/// is finite (finfo.min rather than -inf).
std::optional<int64_t> causalConstant(Value m, bool nonZeroKeeps = false,
                                      bool *finiteFill = nullptr);

} // namespace detect
} // namespace attn
} // namespace mlir

#endif // ATTN_DIALECT_ATTN_TRANSFORMS_DETECTNORMALIZE_H

//===- DetectMatchHeads.cpp - --attn-detect: K/V head repeats -------------===//
//
// Part of layer 2 (DetectMatch.cpp), apart because it reads spellings, not
// the chain: GQA and MQA written as a repeat or an expand of K/V heads,
// which attn.attention reads natively, so the copy is dropped.
//
//===----------------------------------------------------------------------===//
#include "DetectMatch.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"

using namespace mlir;
using namespace mlir::attn;
using namespace mlir::attn::detect;

/// MQA written as torch's expand: K/V [B, 1, L, d] broadcast to
/// [B, H, L, d] by a map that reads the head dim at 0, or a tosa tile of
/// that unit dim. attn.attention broadcasts one K/V head natively.
static Value foldSingleHeadExpand(Value v) {
  int64_t r = rankOf(v);
  Value in;
  if (AffineMap b = broadcastMap(v)) {
    // Every dim but the head dim, which is read at 0 or dropped.
    SmallVector<AffineExpr> kept;
    for (AffineExpr e : b.getResults())
      if (e != getAffineConstantExpr(0, v.getContext()))
        kept.push_back(e);
    for (int64_t d = 0, i = 0; d < r; ++d)
      if (d != r - 3 && (i >= static_cast<int64_t>(kept.size()) ||
                         kept[i++] != getAffineDimExpr(d, v.getContext())))
        return {};
    if (static_cast<int64_t>(kept.size()) != r - 1)
      return {};
    in = v.getDefiningOp<linalg::LinalgOp>().getDpsInputs()[0];
    // torch-mlir drops the unit head dim by a collapse first.
    if (auto c = in.getDefiningOp<tensor::CollapseShapeOp>();
        c && rankOf(in) == r - 1 && reshapeOnlyUnitDims(c.getSrc(), in))
      in = c.getSrc();
  } else if (auto tile = v.getDefiningOp<tosa::TileOp>()) {
    SmallVector<int64_t> multiples;
    if (failed(tile.getConstantMultiples(multiples)))
      return {};
    for (int64_t d = 0; d < r; ++d)
      if (d != r - 3 && multiples[d] != 1)
        return {};
    in = tile.getInput1();
  } else {
    return {};
  }
  auto t = cast<RankedTensorType>(in.getType());
  return t.getRank() == r && t.getDimSize(r - 3) == 1 ? in : Value();
}

/// GQA written as a repeat: K/V [B, Hkv, L, d] broadcast to
/// [B, Hkv, G, L, d] (then merged to Hkv·G heads, which strip() looked
/// through). attn.attention reads head h from K/V head h / G natively, so
/// the repeat is dropped instead of copying K/V G times.
Value detect::foldHeadRepeat(Value v) {
  int64_t r = rankOf(v);
  if (r == 4)
    if (Value one = foldSingleHeadExpand(v))
      return one;
  if (r < 5)
    return v;
  if (auto bc = v.getDefiningOp<linalg::BroadcastOp>()) {
    ArrayRef<int64_t> dims = bc.getDimensions();
    return dims.size() == 1 && dims[0] == r - 3 ? bc.getInput() : v;
  }
  // tosa spells the repeat as reshape [B, Hkv, 1, L, d] then tile by G
  // along that unit dim.
  if (auto tile = v.getDefiningOp<tosa::TileOp>()) {
    SmallVector<int64_t> multiples;
    if (failed(tile.getConstantMultiples(multiples)))
      return v;
    auto in = dyn_cast<RankedTensorType>(tile.getInput1().getType());
    for (int64_t d = 0; d < r; ++d)
      if (d != r - 3 && multiples[d] != 1)
        return v;
    if (!in || in.getDimSize(r - 3) != 1)
      return v;
    auto reshape = tile.getInput1().getDefiningOp<tosa::ReshapeOp>();
    if (!reshape)
      return v;
    auto src = dyn_cast<RankedTensorType>(reshape.getInput1().getType());
    SmallVector<int64_t> dropped(in.getShape());
    dropped.erase(dropped.begin() + (r - 3));
    return src && src.getShape() == ArrayRef<int64_t>(dropped) ? reshape.getInput1() : v;
  }
  // The same broadcast as a generic: the input map drops loop r-3.
  auto g = v.getDefiningOp<linalg::GenericOp>();
  if (!g || g.getNumDpsInputs() != 1 || g.getNumReductionLoops() != 0 ||
      g.getBody()->getTerminator()->getOperand(0) != g.getBody()->getArgument(0))
    return v;
  SmallVector<AffineExpr> expected;
  for (int64_t d = 0; d < r; ++d)
    if (d != r - 3)
      expected.push_back(getAffineDimExpr(d, v.getContext()));
  AffineMap in = g.getIndexingMapsArray()[0];
  if (llvm::to_vector(in.getResults()) != expected)
    return v;
  return g.getDpsInputs()[0];
}

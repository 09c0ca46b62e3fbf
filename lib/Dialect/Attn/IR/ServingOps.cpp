//===- ServingOps.cpp - attn.paged_attention and attn.varlen_attention ---===//
//
// The serving forms of attention: K/V in the pages of a pool (vLLM's
// layout) and packed batches of variable-length sequences (FlashAttention's
// varlen). Their verifiers, and the problem each is costed and chosen for.
//
//===----------------------------------------------------------------------===//
#include "VerifierHelpers.h"
#include "attn/Dialect/Attn/IR/AttnOps.h"

#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::attn;

//===----------------------------------------------------------------------===//
// PagedAttentionOp
//===----------------------------------------------------------------------===//

LogicalResult PagedAttentionOp::verify() {
  RankedTensorType q = getQuery().getType(), kc = getKeyCache().getType(),
                   vc = getValueCache().getType(), table = getBlockTable().getType(),
                   lens = getSeqLens().getType(), o = getResult().getType();
  if (q.getRank() != 4 || o.getRank() != 4)
    return emitOpError("query and result must be [B, Hq, Lq, d], got rank ")
           << q.getRank() << " and " << o.getRank();
  if (kc.getRank() != 4 || vc.getRank() != 4)
    return emitOpError("key and value caches must be [pages, page_size, Hkv, d], got rank ")
           << kc.getRank() << " and " << vc.getRank();
  if (table.getRank() != 2)
    return emitOpError("block table must be [B, max_pages], got rank ") << table.getRank();
  if (lens.getRank() != 1)
    return emitOpError("sequence lengths must be [B], got rank ") << lens.getRank();
  Type elt = q.getElementType();
  if (kc.getElementType() != elt || vc.getElementType() != elt)
    return emitOpError("query, key cache and value cache must share an element type");
  if (o.getElementType() != elt)
    return emitOpError("result element type must be ") << elt;
  for (auto [name, t] : {std::pair<StringRef, RankedTensorType>{"query", q},
                         {"key cache", kc}, {"value cache", vc}, {"block table", table}})
    if (std::optional<std::string> error = emptyDimError(name, t))
      return emitOpError(*error);
  for (int64_t i = 0; i < 3; ++i)
    if (!extentsAgree(kc.getDimSize(i), vc.getDimSize(i)))
      return emitOpError("key and value caches differ in dim ")
             << i << ": " << fmtExtent(kc.getDimSize(i)) << " vs " << fmtExtent(vc.getDimSize(i));
  if (!extentsAgree(kc.getDimSize(3), q.getDimSize(3)))
    return emitOpError("key head dim ") << fmtExtent(kc.getDimSize(3))
                                        << " differs from query head dim "
                                        << fmtExtent(q.getDimSize(3));
  int64_t batch = q.getDimSize(0);
  if (!extentsAgree(table.getDimSize(0), batch) || !extentsAgree(lens.getDimSize(0), batch))
    return emitOpError("block table and sequence lengths must have one row per batch entry (")
           << fmtExtent(batch) << "), got " << fmtExtent(table.getDimSize(0)) << " and "
           << fmtExtent(lens.getDimSize(0));
  int64_t hq = q.getDimSize(1), hkv = kc.getDimSize(2);
  if (!ShapedType::isDynamic(hq) && !ShapedType::isDynamic(hkv) && hq % hkv != 0)
    return emitOpError("query heads (") << hq << ") must be a multiple of key/value heads ("
                                        << hkv << ")";
  SmallVector<int64_t> expected(q.getShape());
  expected[3] = vc.getDimSize(3);
  for (int64_t i = 0; i < 4; ++i)
    if (!extentsAgree(o.getDimSize(i), expected[i]))
      return emitOpError("result dim ")
             << i << " must be " << fmtExtent(expected[i]) << ", got "
             << fmtExtent(o.getDimSize(i));
  if (getKeyCapacity() != ShapedType::kDynamic && getKeyCapacity() > std::numeric_limits<int32_t>::max())
    return emitOpError("max_pages · page_size must fit the i32 sequence lengths, got ")
           << getKeyCapacity();
  if (!std::isfinite(getScale().convertToDouble()))
    return emitOpError("scale must be finite");
  return success();
}

FailureOr<AttentionShape> PagedAttentionOp::getCostShape() {
  RankedTensorType q = getQuery().getType(), kc = getKeyCache().getType(),
                   vc = getValueCache().getType();
  if (!llvm::all_of(getOperandTypes(),
                    [](Type t) { return cast<RankedTensorType>(t).hasStaticShape(); }))
    return failure();
  std::optional<DType> dtype = getCostDType(q.getElementType());
  if (!dtype)
    return failure();
  AttentionShape s;
  s.batch = q.getDimSize(0);
  s.headsQ = q.getDimSize(1);
  s.headsKV = kc.getDimSize(2);
  s.seqQ = q.getDimSize(2);
  s.seqKV = getKeyCapacity();
  s.pageSize = getPageSize();
  s.headDim = q.getDimSize(3);
  s.headDimV = vc.getDimSize(3);
  s.dtype = *dtype;
  s.causal = getCausal().has_value();
  s.causalBottomRight = getCausal() == CausalAlignment::bottom_right;
  return s;
}

int64_t PagedAttentionOp::getKeyCapacity() {
  int64_t pages = getBlockTable().getType().getDimSize(1), size = getPageSize();
  if (ShapedType::isDynamic(pages) || ShapedType::isDynamic(size))
    return ShapedType::kDynamic;
  int64_t capacity;
  if (llvm::MulOverflow(pages, size, capacity))
    return std::numeric_limits<int64_t>::max();
  return capacity;
}

//===----------------------------------------------------------------------===//
// VarlenAttentionOp
//===----------------------------------------------------------------------===//

LogicalResult VarlenAttentionOp::verify() {
  RankedTensorType q = getQuery().getType(), k = getKey().getType(), v = getValue().getType(),
                   cuQ = getCuSeqlensQ().getType(), cuK = getCuSeqlensK().getType(),
                   o = getResult().getType();
  if (q.getRank() != 3 || k.getRank() != 3 || v.getRank() != 3 || o.getRank() != 3)
    return emitOpError("query, key, value and result must be packed as [tokens, heads, d]");
  if (cuQ.getRank() != 1 || cuK.getRank() != 1)
    return emitOpError("cumulative sequence lengths must be [B + 1], got rank ")
           << cuQ.getRank() << " and " << cuK.getRank();
  if (!extentsAgree(cuQ.getDimSize(0), cuK.getDimSize(0)))
    return emitOpError("cu_seqlens_q and cu_seqlens_k must both have B + 1 entries, got ")
           << fmtExtent(cuQ.getDimSize(0)) << " and " << fmtExtent(cuK.getDimSize(0));
  if (cuQ.getDimSize(0) == 0 || cuK.getDimSize(0) == 0)
    return emitOpError("cumulative sequence lengths need B + 1 >= 1 entries, got 0");
  Type elt = q.getElementType();
  if (k.getElementType() != elt || v.getElementType() != elt)
    return emitOpError("query, key and value must share an element type");
  if (o.getElementType() != elt)
    return emitOpError("result element type must be ") << elt;
  // Heads and head dims only: a batch may hold no tokens.
  for (auto [name, t] : {std::pair<StringRef, RankedTensorType>{"query", q},
                         {"key", k}, {"value", v}})
    for (int64_t i : {1, 2})
      if (t.getDimSize(i) == 0)
        return emitOpError(name) << " has an empty dim " << i;
  if (!extentsAgree(k.getDimSize(2), q.getDimSize(2)))
    return emitOpError("key head dim ") << fmtExtent(k.getDimSize(2))
                                        << " differs from query head dim "
                                        << fmtExtent(q.getDimSize(2));
  for (int64_t i : {0, 1})
    if (!extentsAgree(k.getDimSize(i), v.getDimSize(i)))
      return emitOpError("key and value differ in dim ")
             << i << ": " << fmtExtent(k.getDimSize(i)) << " vs " << fmtExtent(v.getDimSize(i));
  int64_t hq = q.getDimSize(1), hkv = k.getDimSize(1);
  if (!ShapedType::isDynamic(hq) && !ShapedType::isDynamic(hkv) && hq % hkv != 0)
    return emitOpError("query heads (") << hq << ") must be a multiple of key/value heads ("
                                        << hkv << ")";
  SmallVector<int64_t> expected{q.getDimSize(0), hq, v.getDimSize(2)};
  for (int64_t i = 0; i < 3; ++i)
    if (!extentsAgree(o.getDimSize(i), expected[i]))
      return emitOpError("result dim ")
             << i << " must be " << fmtExtent(expected[i]) << ", got "
             << fmtExtent(o.getDimSize(i));
  if (!std::isfinite(getScale().convertToDouble()))
    return emitOpError("scale must be finite");
  return success();
}

int64_t VarlenAttentionOp::getNumSequences() {
  int64_t entries = getCuSeqlensQ().getType().getDimSize(0);
  return ShapedType::isDynamic(entries) ? entries : entries - 1;
}

FailureOr<AttentionShape> VarlenAttentionOp::getCostShape() {
  RankedTensorType q = getQuery().getType(), k = getKey().getType(), v = getValue().getType();
  if (!llvm::all_of(getOperandTypes(),
                    [](Type t) { return cast<RankedTensorType>(t).hasStaticShape(); }) ||
      getNumSequences() < 1)
    return failure();
  std::optional<DType> dtype = getCostDType(q.getElementType());
  if (!dtype)
    return failure();
  AttentionShape s;
  s.batch = getNumSequences();
  s.headsQ = q.getDimSize(1);
  s.headsKV = k.getDimSize(1);
  s.seqQ = llvm::divideCeil(q.getDimSize(0), s.batch);
  s.seqKV = llvm::divideCeil(k.getDimSize(0), s.batch);
  s.varlen = true;
  s.headDim = q.getDimSize(2);
  s.headDimV = v.getDimSize(2);
  s.dtype = *dtype;
  s.causal = getCausal().has_value();
  s.causalBottomRight = getCausal() == CausalAlignment::bottom_right;
  return s;
}


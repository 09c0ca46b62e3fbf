//===- PackedSequences.cpp - where a CTA's queries and keys live ----------===//
//
// The addressing of Q, O, K and V for both tensor layouts the tensor-core
// kernels take, and, for a packed variable-length batch
// (attn.varlen_attention), which sequence a CTA serves.
//
// Varlen grid. The sequences' boundaries are known only at run time, and
// the grid is fixed when the kernel is built (no host round trip to read
// cu_q, and the launch can be captured in a CUDA graph). The CTAs' flat x
// index is therefore dealt out over B + 2 segments of the query tokens,
// with bounds
//
//   t_0 = 0, t_1 = cu_q[0], ..., t_{B+1} = cu_q[B], t_{B+2} = Tq
//
// (segment s + 1 is sequence s; segments 0 and B + 1 are the tokens before
// the first and after the last sequence, which see no key and so are
// written as 0, as the op requires). Segment s starts at tile
//
//   first(s) = ⌊G · t_s / Br⌋ + s        (G: heads per row space)
//
// which is non-decreasing in s and leaves segment s at least
// ⌊G·t_{s+1}/Br⌋ − ⌊G·t_s/Br⌋ + 1 ≥ ⌈G·(t_{s+1} − t_s)/Br⌉ tiles, all it
// needs, wherever the boundaries fall; the grid is first(B + 2) =
// ⌊G·Tq/Br⌋ + B + 2 (FlashKernelSpec::numQueryTiles), at most B + 2 CTAs
// per head more than the packed rows in tiles, ⌈G·Tq/Br⌉, and those end
// at once (no keys, nothing stored or zeros).
// A CTA finds its segment by binary search on first(s): ⌈log2(B + 2)⌉
// reads of cu_q, from L2.
//
// Bounds read from cu_q and cu_k are clamped into [0, T] and every token
// address into [0, T − 1], so a batch that breaks the caller's contract
// (decreasing or out-of-range lengths) computes garbage but never reads or
// writes outside the tensors.
//
//===----------------------------------------------------------------------===//
#include "FlashAttentionEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::attn;

SmallVector<Value> KernelContext::queryAt(Value q, Value head, Value col) {
  if (!s.varlen)
    return {v.batch, head, q, col};
  // (Operands are built one statement each: C++ leaves the order of
  // argument evaluation open, and the IR's must not depend on the host
  // compiler.)
  Value token = k.add(v.qTokenBase, q);
  Value last = k.idx(s.seqQ - 1);
  return {arith::MinUIOp::create(k.b, k.loc, token, last), head, col};
}

SmallVector<Value> KernelContext::keyAt(Value key, Value col, bool inSequence) {
  if (!s.varlen)
    return {v.batch, v.kvHead, key, col};
  Value token = k.add(v.kvTokenBase, key);
  if (!inSequence) {
    Value last = k.idx(s.seqKV - 1);
    token = arith::MinUIOp::create(k.b, k.loc, token, last);
  }
  return {token, v.kvHead, col};
}

namespace {

/// Reads of a cumulative-lengths tensor cu [B + 1], clamped into [0, T].
struct CumulativeLengths {
  KernelBuilder &k;
  Value cu;
  int64_t batch, tokens;

  /// cu[i] for an index i in [0, B].
  Value at(Value i) {
    Value x = memref::LoadOp::create(k.b, k.loc, cu, ValueRange{i});
    x = arith::IndexCastOp::create(k.b, k.loc, k.b.getIndexType(), x);
    x = arith::MaxSIOp::create(k.b, k.loc, x, k.idx(0));
    return arith::MinSIOp::create(k.b, k.loc, x, k.idx(tokens));
  }
  /// The segment bound t_s, s in [0, B + 2]: 0, cu[0], ..., cu[B], T.
  Value segmentBound(Value s) {
    // s − 1 wraps to the largest index for s = 0, and min() keeps the read
    // in bounds; the selects then replace the ends.
    Value previous = k.add(s, -1), lastEntry = k.idx(batch);
    Value inner = at(arith::MinUIOp::create(k.b, k.loc, previous, lastEntry));
    Value isFirst = arith::CmpIOp::create(k.b, k.loc, arith::CmpIPredicate::eq, s, k.idx(0));
    Value isLast =
        arith::CmpIOp::create(k.b, k.loc, arith::CmpIPredicate::eq, s, k.idx(batch + 2));
    Value bound = arith::SelectOp::create(k.b, k.loc, isLast, k.idx(tokens), inner);
    return arith::SelectOp::create(k.b, k.loc, isFirst, k.idx(0), bound);
  }
};

} // namespace

void FlashAttentionEmitter::locateSequence(Value tileIdx) {
  CumulativeLengths cuQ{k, v.cuSeqlensQ, s.batch, s.seqQ};
  auto firstTile = [&](Value seg) {
    return k.add(k.div(k.mul(cuQ.segmentBound(seg), c.packed), c.bq), seg);
  };
  // The last segment whose first tile is at most tileIdx: the invariant
  // first(lo) <= tileIdx < first(hi) holds from [0, B + 2) on.
  int64_t steps = llvm::Log2_64_Ceil(s.batch + 2);
  Value zero = k.idx(0), numSteps = k.idx(steps), one = k.idx(1), end = k.idx(s.batch + 2);
  auto search = scf::ForOp::create(b, loc, zero, numSteps, one, ValueRange{zero, end});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(search.getBody());
    Value lo = search.getRegionIterArg(0), hi = search.getRegionIterArg(1);
    Value mid = k.div(k.add(lo, hi), 2);
    Value inside =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, firstTile(mid), tileIdx);
    scf::YieldOp::create(b, loc,
                         ValueRange{arith::SelectOp::create(b, loc, inside, mid, lo),
                                    arith::SelectOp::create(b, loc, inside, hi, mid)});
  }
  Value segment = search.getResult(0);
  v.qTokenBase = cuQ.segmentBound(segment);
  Value qEnd = cuQ.segmentBound(k.add(segment, 1));
  v.qLen = arith::SubIOp::create(b, loc, arith::MaxUIOp::create(b, loc, qEnd, v.qTokenBase),
                                 v.qTokenBase);
  v.numRows = k.mul(v.qLen, c.packed);
  v.qStart = k.mul(arith::SubIOp::create(b, loc, tileIdx, firstTile(segment)), c.bq);
  // Sequence segment − 1 (clamped into [0, B − 1] for the reads; the two
  // end segments have no keys).
  Value previous = k.add(segment, -1), lastSequence = k.idx(s.batch - 1);
  Value sequence = arith::MinUIOp::create(b, loc, previous, lastSequence);
  v.batch = sequence;
  CumulativeLengths cuK{k, v.cuSeqlensK, s.batch, s.seqKV};
  v.kvTokenBase = cuK.at(sequence);
  Value kvEnd = cuK.at(k.add(sequence, 1));
  Value kvLen = arith::SubIOp::create(b, loc, arith::MaxUIOp::create(b, loc, kvEnd, v.kvTokenBase),
                                      v.kvTokenBase);
  // No keys for the end segments, nor for a tile past its sequence's rows
  // (a segment may own one tile more than it needs): such CTAs visit no
  // K/V tile and store nothing, or zeros.
  auto both = [&](Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); };
  Value afterFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, segment, k.idx(1));
  Value beforeLast =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, segment, k.idx(s.batch));
  Value hasRows = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, v.qStart, v.numRows);
  Value works = both(both(afterFirst, beforeLast), hasRows);
  v.kvLen = arith::SelectOp::create(b, loc, works, kvLen, k.idx(0));
}

//===- RooflinePlot.h - roofline chart as SVG -------------------*- C++ -*-===//
#ifndef ATTN_ANALYSIS_ROOFLINEPLOT_H
#define ATTN_ANALYSIS_ROOFLINEPLOT_H

#include "attn/Analysis/IOCost.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mlir {
namespace attn {

/// One labelled point: a kernel's intensity (FLOP/byte) and the performance
/// the roofline predicts for it (FLOP/s).
struct RooflinePoint {
  std::string label;
  double intensity = 0;
  double flopsPerSec = 0;
  /// Fused kernels and unfused ops are drawn in different colours.
  bool fused = false;
};

/// Writes a self-contained SVG: log-log axes, the memory roof (I × BW), the
/// tensor and non-tensor compute roofs for `dtype`, the ridge point, and the
/// points.
void writeRooflineSVG(llvm::raw_ostream &os, const TargetSpec &target,
                      DType dtype, const std::vector<RooflinePoint> &points);

} // namespace attn
} // namespace mlir

#endif // ATTN_ANALYSIS_ROOFLINEPLOT_H

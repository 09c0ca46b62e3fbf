//===- RooflinePlot.cpp - roofline chart as SVG ---------------------------===//
//
// Hand-written SVG rather than a plotting dependency: the chart is a handful
// of lines and circles, and the compiler must not pull in Python to draw it.
//
//===----------------------------------------------------------------------===//
#include "attn/Analysis/RooflinePlot.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::attn;

namespace {
/// Maps log10 data coordinates onto the plot area.
struct LogAxes {
  double xMinLog, xMaxLog, yMinLog, yMaxLog;
  double left = 90, right = 860, top = 50, bottom = 520;
  double x(double v) const {
    return left + (std::log10(v) - xMinLog) / (xMaxLog - xMinLog) * (right - left);
  }
  double y(double v) const {
    return bottom - (std::log10(v) - yMinLog) / (yMaxLog - yMinLog) * (bottom - top);
  }
};

std::string escapeXml(llvm::StringRef s) {
  std::string out;
  for (char c : s) {
    switch (c) {
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '&': out += "&amp;"; break;
    case '"': out += "&quot;"; break;
    default: out += c;
    }
  }
  return out;
}

std::string siFlops(double v) {
  const char *units[] = {"", "K", "M", "G", "T", "P"};
  int u = 0;
  while (v >= 1000 && u < 5) {
    v /= 1000;
    ++u;
  }
  return (llvm::formatv("{0}{1}FLOP/s", v, units[u])).str();
}
} // namespace

void mlir::attn::writeRooflineSVG(llvm::raw_ostream &os,
                                  const TargetSpec &target, DType dtype,
                                  const std::vector<RooflinePoint> &points) {
  double bw = target.hbmBytesPerSec;
  double peak = target.peakFor(dtype);
  double scalar = target.scalarF32;
  double ridge = peak / bw;

  // Axes cover the ridge and every point, with a decade of margin.
  double xMin = 0.1, xMax = std::max(1e4, ridge * 10);
  double yMax = peak * 4, yMin = peak / 1e5;
  for (const RooflinePoint &p : points) {
    if (p.intensity > 0)
      xMin = std::min(xMin, p.intensity / 3), xMax = std::max(xMax, p.intensity * 3);
    if (p.flopsPerSec > 0)
      yMin = std::min(yMin, p.flopsPerSec / 3);
  }
  LogAxes ax{std::floor(std::log10(xMin)), std::ceil(std::log10(xMax)),
             std::floor(std::log10(yMin)), std::ceil(std::log10(yMax))};

  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1100\" height=\"580\" "
        "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n";
  os << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  os << llvm::formatv("<text x=\"{0}\" y=\"28\" font-size=\"16\" "
                      "font-weight=\"bold\">Roofline: {1}, {2} "
                      "(peak {3}, HBM {4} TB/s, ridge {5:F1} FLOP/B)</text>\n",
                      ax.left, escapeXml(target.name), stringifyDType(dtype),
                      siFlops(peak), bw / 1e12, ridge);

  // Grid and decade labels.
  for (double e = ax.xMinLog; e <= ax.xMaxLog; e += 1) {
    double x = ax.x(std::pow(10, e));
    os << llvm::formatv("<line x1=\"{0:F1}\" y1=\"{1}\" x2=\"{0:F1}\" y2=\"{2}\" "
                        "stroke=\"#ddd\"/>\n", x, ax.top, ax.bottom);
    os << llvm::formatv("<text x=\"{0:F1}\" y=\"{1}\" text-anchor=\"middle\">"
                        "1e{2}</text>\n", x, ax.bottom + 18, int(e));
  }
  for (double e = ax.yMinLog; e <= ax.yMaxLog; e += 1) {
    double y = ax.y(std::pow(10, e));
    os << llvm::formatv("<line x1=\"{0}\" y1=\"{1:F1}\" x2=\"{2}\" y2=\"{1:F1}\" "
                        "stroke=\"#ddd\"/>\n", ax.left, y, ax.right);
    os << llvm::formatv("<text x=\"{0}\" y=\"{1:F1}\" text-anchor=\"end\">"
                        "1e{2}</text>\n", ax.left - 6, y + 4, int(e));
  }
  os << llvm::formatv("<rect x=\"{0}\" y=\"{1}\" width=\"{2}\" height=\"{3}\" "
                      "fill=\"none\" stroke=\"black\"/>\n", ax.left, ax.top,
                      ax.right - ax.left, ax.bottom - ax.top);
  os << llvm::formatv("<text x=\"{0}\" y=\"{1}\" text-anchor=\"middle\">"
                      "arithmetic intensity (FLOP / DRAM byte)</text>\n",
                      (ax.left + ax.right) / 2, ax.bottom + 40);
  os << llvm::formatv("<text transform=\"translate(24,{0}) rotate(-90)\" "
                      "text-anchor=\"middle\">attainable FLOP/s</text>\n",
                      (ax.top + ax.bottom) / 2);

  // Roofs: memory slope up to each compute roof.
  double xLo = std::pow(10, ax.xMinLog), xHi = std::pow(10, ax.xMaxLog);
  auto roof = [&](double ceiling, const char *colour, const char *dash,
                  llvm::StringRef label) {
    double knee = ceiling / bw;
    double yStart = std::max(xLo * bw, std::pow(10, ax.yMinLog));
    double xStart = yStart / bw;
    os << llvm::formatv("<polyline fill=\"none\" stroke=\"{0}\" stroke-width=\"2\" "
                        "stroke-dasharray=\"{1}\" points=\"{2:F1},{3:F1} "
                        "{4:F1},{5:F1} {6:F1},{5:F1}\"/>\n",
                        colour, dash, ax.x(xStart), ax.y(yStart), ax.x(knee),
                        ax.y(ceiling), ax.x(xHi));
    os << llvm::formatv("<text x=\"{0:F1}\" y=\"{1:F1}\" text-anchor=\"end\" "
                        "fill=\"{2}\">{3}</text>\n", ax.right - 4,
                        ax.y(ceiling) - 5, colour, escapeXml(label));
  };
  roof(peak, "#1f4e99", "none",
       (llvm::Twine("tensor ") + stringifyDType(dtype) + " " + siFlops(peak)).str());
  roof(scalar, "#7f7f7f", "6,4", "non-tensor f32 " + siFlops(scalar));
  os << llvm::formatv("<line x1=\"{0:F1}\" y1=\"{1}\" x2=\"{0:F1}\" y2=\"{2}\" "
                      "stroke=\"#1f4e99\" stroke-dasharray=\"2,3\"/>\n",
                      ax.x(ridge), ax.y(peak), ax.bottom);
  os << llvm::formatv("<text x=\"{0:F1}\" y=\"{1}\" fill=\"#1f4e99\">ridge "
                      "{2:F0}</text>\n", ax.x(ridge) + 4, ax.bottom - 6, ridge);

  // Points; a label moves down until it clears the labels already placed,
  // so that points at the same spot (e.g. both matmuls) stay readable.
  std::vector<std::pair<double, double>> placed;
  for (const RooflinePoint &p : points) {
    if (p.intensity <= 0 || p.flopsPerSec <= 0)
      continue;
    double x = ax.x(p.intensity), y = ax.y(p.flopsPerSec);
    const char *colour = p.fused ? "#2ca02c" : "#d62728";
    os << llvm::formatv("<circle cx=\"{0:F1}\" cy=\"{1:F1}\" r=\"5\" fill=\"{2}\">"
                        "<title>{3}: {4:F2} FLOP/B, {5}</title></circle>\n",
                        x, y, colour, escapeXml(p.label), p.intensity,
                        siFlops(p.flopsPerSec));
    double ly = y + 4;
    auto clashes = [&](double cy) {
      return llvm::any_of(placed, [&](const std::pair<double, double> &o) {
        return std::abs(o.first - (x + 7)) < 140 && std::abs(o.second - cy) < 11;
      });
    };
    while (clashes(ly))
      ly += 11;
    placed.push_back({x + 7, ly});
    os << llvm::formatv("<text x=\"{0:F1}\" y=\"{1:F1}\" fill=\"{2}\" "
                        "font-size=\"10\">{3}</text>\n", x + 7, ly, colour,
                        escapeXml(p.label));
  }
  // Legend.
  os << llvm::formatv("<g transform=\"translate({0},{1})\">", ax.right + 12, ax.top);
  os << "<circle cx=\"6\" cy=\"6\" r=\"5\" fill=\"#2ca02c\"/><text x=\"16\" y=\"10\">"
        "fused attention</text>";
  os << "<circle cx=\"6\" cy=\"26\" r=\"5\" fill=\"#d62728\"/><text x=\"16\" y=\"30\">"
        "unfused op / chain</text></g>\n";
  os << "</svg>\n";
}

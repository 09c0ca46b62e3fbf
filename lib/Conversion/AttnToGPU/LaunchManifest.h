//===- LaunchManifest.h - A kernel's launch manifest -----------*- C++ -*-===//
#ifndef ATTN_LIB_CONVERSION_ATTNTOGPU_LAUNCHMANIFEST_H
#define ATTN_LIB_CONVERSION_ATTNTOGPU_LAUNCHMANIFEST_H

#include "attn/Conversion/AttnToGPU/AttnToGPU.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <string>

namespace mlir {
namespace attn {

/// The launch manifest of the kernel of `s` (see LaunchManifest.cpp): the
/// attribute --attn-lower-to-gpu records under kLaunchManifestsAttrName.
DictionaryAttr manifestFor(Builder &b, const FlashKernelSpec &s);

/// The mask in a kernel's name: kind and broadcast shape ("" without one).
std::string maskSuffix(const FlashKernelSpec &s);
/// A hash of the score_mod region in a kernel's name ("" without one).
std::string scoreModSuffix(const FlashKernelSpec &s);

} // namespace attn
} // namespace mlir

#endif // ATTN_LIB_CONVERSION_ATTNTOGPU_LAUNCHMANIFEST_H

# ATTN_LINK_MLIR_STATIC: link LLVM and MLIR from their static archives.
#
# Debian builds LLVM with LLVM_LINK_LLVM_DYLIB=ON, so its MLIR archives name
# "LLVM" (libLLVM.so) in their link interfaces, and LLVMSupport names the
# shared zstd. For a library that loads no LLVM shared object, every "LLVM"
# is replaced by LLVM's component archives (only the objects something
# references are linked, and --gc-sections drops the rest), and zstd and
# zlib by their archives. Components that need other shared libraries and
# that nothing of MLIR uses (tools, BOLT, Polly, the line editor, Windows
# manifests, debuginfod, the Polly extension) are left out, so the link fails loudly rather than
# silently needing one.
include_guard(GLOBAL)

set(attn_llvm_archives)
foreach(lib IN LISTS LLVM_AVAILABLE_LIBS)
  if(lib MATCHES "^LLVM[A-Za-z0-9]+$" AND NOT lib MATCHES
     "^LLVM(BOLT|Exegesis|OptDriver|Polly|LineEditor|WindowsManifest|Debuginfod|TableGen|Fuzz|CFIVerify|Diff|Plugins|DTLTO|LTO$)")
    list(APPEND attn_llvm_archives ${lib})
  endif()
endforeach()

get_property(imported DIRECTORY PROPERTY IMPORTED_TARGETS)
foreach(target IN LISTS imported)
  if(NOT target MATCHES "^(MLIR|LLVM|mlir_)")
    continue()
  endif()
  get_target_property(deps ${target} INTERFACE_LINK_LIBRARIES)
  if(NOT deps)
    continue()
  endif()
  list(FIND deps LLVM at)
  list(FIND deps "$<LINK_ONLY:LLVM>" at_private)
  if(NOT at EQUAL -1 OR NOT at_private EQUAL -1)
    list(REMOVE_ITEM deps LLVM "$<LINK_ONLY:LLVM>")
    list(APPEND deps ${attn_llvm_archives})
  endif()
  # Debian ships no Polly archive; nothing of MLIR calls it.
  list(REMOVE_ITEM deps Polly PollyISL)
  list(TRANSFORM deps REPLACE "^zstd::libzstd_shared$" "zstd::libzstd_static")
  set_target_properties(${target} PROPERTIES INTERFACE_LINK_LIBRARIES "${deps}")
endforeach()

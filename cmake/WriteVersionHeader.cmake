# Writes ATTNOPT_VERSION_STRING into ${OUTPUT} at build time, so the version
# the C API reports (part of every compiled-kernel cache key) follows the
# commit that was built, not the one that was configured. Run by
# `cmake -DSOURCE_DIR=... -DVERSION=... -DOUTPUT=... -P`; the file is only
# rewritten when its text changes, so an unchanged commit rebuilds nothing.
execute_process(COMMAND git -C "${SOURCE_DIR}" describe --always --dirty --abbrev=12
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE
                ERROR_QUIET RESULT_VARIABLE status)
if(NOT status EQUAL 0 OR commit STREQUAL "")
  set(commit "no git")
endif()
set(text "#define ATTNOPT_VERSION_STRING \"attn-opt ${VERSION} (${commit})\"\n")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUTPUT}" "${text}")
endif()

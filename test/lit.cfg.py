# -*- Python -*-
# lit configuration for attn-opt.
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "ATTN"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.attn_obj_root, "test")
config.excludes = ["Inputs", "Consumer", "CMakeLists.txt", "lit.cfg.py",
                   "lit.site.cfg.py", "fixtures", "corpus", "upstream",
                   "roundtrip.py"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%shlibext", config.llvm_shlib_ext))
config.substitutions.append(("%attn_src_root", config.attn_src_root))
config.substitutions.append(("%attn_obj_root", config.attn_obj_root))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%cmake", config.cmake_command))
config.substitutions.append(("%mlir_dir", config.mlir_dir))
# Shared libraries for CPU execution tests through mlir-runner.
config.substitutions.append(
    ("%mlir_runner_utils",
     os.path.join(config.mlir_lib_dir, "libmlir_runner_utils" + config.llvm_shlib_ext)))
config.substitutions.append(
    ("%mlir_c_runner_utils",
     os.path.join(config.mlir_lib_dir, "libmlir_c_runner_utils" + config.llvm_shlib_ext)))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP",
                                     "ASAN_OPTIONS", "UBSAN_OPTIONS"])
llvm_config.use_default_substitutions()

llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
tool_dirs = [config.attn_tools_dir, config.llvm_tools_dir]
# `lit --param roundtrip=1`: every attn-opt invocation goes through
# test/roundtrip.py, which adds --verify-roundtrip (the parsed input prints
# and parses back to the same IR) and then checks that the IR attn-opt
# printed round-trips too, in the spirit of CIRCT's round-trip mode.
if lit_config.params.get("roundtrip"):
    attn_opt = ToolSubst("attn-opt", command=config.python_executable,
                         extra_args=[os.path.join(config.attn_src_root, "test",
                                                  "roundtrip.py"),
                                     os.path.join(config.attn_tools_dir, "attn-opt")])
else:
    attn_opt = "attn-opt"
tools = [attn_opt, "attn-fuzz-replay", "mlir-runner", "mlir-opt", "FileCheck", "not", "count",
         ToolSubst("%attn_iocost_tests",
                   os.path.join(config.attn_obj_root, "test", "Analysis",
                                "AttnIOCostTests")),
         ToolSubst("%attn_capi_test",
                   os.path.join(config.attn_obj_root, "test", "CAPI", "attn-capi-test")),
         ToolSubst("%attn_launch_plan_tests",
                   os.path.join(config.attn_obj_root, "test", "Runtime",
                                "AttnLaunchPlanTests"))]
llvm_config.add_tool_substitutions(tools, tool_dirs)
# Absolute paths for helpers that run the tools themselves.
config.substitutions.append(("%attn_opt_bin", os.path.join(config.attn_tools_dir, "attn-opt")))
config.substitutions.append(("%mlir_runner_bin", os.path.join(config.llvm_tools_dir, "mlir-runner")))

if config.ptxas and os.path.exists(config.ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", config.ptxas))
if config.nvdisasm and os.path.exists(config.nvdisasm):
    config.available_features.add("nvdisasm")
    config.substitutions.append(("%nvdisasm", config.nvdisasm))
if config.sanitizers in ("ON", "1", "TRUE", "True"):
    config.available_features.add("asan")

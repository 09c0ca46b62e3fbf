// RUN: rm -rf %t && mkdir -p %t/a/b
// RUN: attn-opt %s -split-input-file --attn-dump-gpu-kernels="dump-dir=%t/a/b" -verify-diagnostics
// RUN: not ls %t/a/escaped.ptx %t/escaped.ptx
// RUN: ls %t/a/b/attn_ok.ptx %t/a/b/attn_ok.json
// A kernel's name becomes a file name inside dump-dir, never a path out of
// it (a manifest's "kernel" string is the module's to say).

module attributes {attn.launch_manifests = {evil_module = {kernel = "../escaped"}}, gpu.container_module} {
  // expected-error @+1 {{attn-dump-gpu-kernels: the kernel name '../escaped' is no file name (letters, digits, '_', '.', '$'; not starting with '.')}}
  gpu.binary @evil_module [#gpu.object<#nvvm.target<chip = "sm_90a">, assembly = "// ptx">]
}

// -----

module attributes {attn.launch_manifests = {hidden_module = {kernel = ".hidden"}}, gpu.container_module} {
  // expected-error @+1 {{attn-dump-gpu-kernels: the kernel name '.hidden' is no file name}}
  gpu.binary @hidden_module [#gpu.object<#nvvm.target<chip = "sm_90a">, assembly = "// ptx">]
}

// -----

// A plain name is written.
module attributes {attn.launch_manifests = {ok_module = {kernel = "attn_ok"}}, gpu.container_module} {
  gpu.binary @ok_module [#gpu.object<#nvvm.target<chip = "sm_90a">, assembly = "// ptx">]
}

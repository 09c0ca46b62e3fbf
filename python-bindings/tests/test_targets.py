"""attnopt's chips and cost presets: every chip the GPU pipeline accepts
compiles from Python within the chip's shared memory, and a device's
compute capability maps to the chip its kernels are built for."""
import pytest

import attnopt
from attnopt import graph

# Shared memory one block may opt into (the CUDA programming guide's table
# per compute capability), independent of attn-opt's presets.
BLOCK_SMEM_OPTIN = {"sm_80": 163, "sm_86": 99, "sm_87": 163, "sm_89": 99, "sm_90": 227,
                    "sm_90a": 227, "sm_100": 227, "sm_120": 99}


@pytest.mark.parametrize("chip", attnopt.CHIPS)
def test_every_chip_compiles_within_its_shared_memory(chip):
    # Gemma's d = 256: 135,168 bytes in 128-row mma.sync CTAs, which the 99
    # KB chips (sm_86, sm_89, sm_120) cannot launch; they take 64 rows.
    gemma = attnopt.compile(graph.attention(1, 4, 1024, 256), target=chip)
    assert (gemma.manifest["dynamic_shared_memory_bytes"] +
            gemma.manifest["static_shared_memory_bytes"]) <= 1024 * BLOCK_SMEM_OPTIN[chip]
    assert (".target %s" % chip) in gemma.ptx


def test_every_chip_has_its_opt_in_limit():
    assert set(BLOCK_SMEM_OPTIN) == set(attnopt.CHIPS)


def test_chip_for_capability():
    # Hopper takes wgmma; chips attn-opt has are their own; devices whose SMs
    # are one of those chips' (same shared memory) take that chip's PTX.
    assert attnopt.chip_for_capability(9, 0) == "sm_90a"
    assert attnopt.chip_for_capability(8, 9) == "sm_89"
    assert attnopt.chip_for_capability(12, 0) == "sm_120"
    assert attnopt.chip_for_capability(12, 1) == "sm_120"
    assert attnopt.chip_for_capability(10, 3) == "sm_100"
    assert attnopt.chip_for_capability(8, 8) == "sm_86"
    for major, minor in ((7, 5), (7, 0), (13, 0), (9, 1)):
        with pytest.raises(ValueError, match="builds no kernels for compute capability "
                                             "%d.%d; it builds for sm_80" % (major, minor)):
            attnopt.chip_for_capability(major, minor)
    for major, minor in ((8, 0), (8, 6), (8, 7), (8, 9), (9, 0), (10, 0), (12, 0), (8, 8),
                         (10, 3), (11, 0), (12, 1)):
        assert attnopt.chip_for_capability(major, minor) in attnopt.CHIPS


@pytest.mark.parametrize("name, sm_count, preset", [
    ("NVIDIA H100 80GB HBM3", 132, "h100"),
    ("NVIDIA H200", 132, "h200"),
    ("NVIDIA A100-SXM4-80GB", 108, "a100"),
    ("NVIDIA A10", 72, "a10"),
    ("NVIDIA L40S", 142, "l40s"),
    ("NVIDIA GeForce RTX 5090", 170, "rtx5090"),
    # Same name, other SMs (and bandwidth): not the preset's GPU.
    ("NVIDIA H100 PCIe", 114, "auto"),
    ("NVIDIA A100 80GB PCIe", 100, "auto"),
    # "A10" is not "A100"'s prefix match, nor is H1000 an H100.
    ("NVIDIA A100-PCIE-40GB", 72, "auto"),
    ("NVIDIA H1000", 132, "auto"),
    ("Tesla V100-SXM2-16GB", 80, "auto"),
    ("", 132, "auto"),
])
def test_cost_target_for_device(name, sm_count, preset):
    assert attnopt.cost_target_for_device(name, sm_count) == preset
    assert preset in attnopt.COST_TARGETS


DECODE_16K = graph.attention(1, 64, 1, 128, Lk=16384, hkv=8)


def test_cost_target_chooses_for_that_gpu():
    # An H100 streams 3.35 TB/s, an H200 4.8: fewer splits fill the H100's
    # bandwidth at B = 1, and the manifest and the cost say which GPU.
    h100 = attnopt.compile(DECODE_16K, cost_target="h100")
    h200 = attnopt.compile(DECODE_16K, cost_target="h200")
    auto = attnopt.compile(DECODE_16K)
    assert h100.manifest["chosen_for"] == "h100"
    assert h200.manifest["chosen_for"] == auto.manifest["chosen_for"] == "h200"
    assert h100.manifest["kv_splits"] < h200.manifest["kv_splits"]
    assert auto.name == h200.name and auto.ptx == h200.ptx
    # The cost is the chosen GPU's: its config, its bandwidth.
    assert h100.cost["kernel_config"]["kv_splits"] == h100.manifest["kv_splits"]
    assert h100.cost["predicted_time_fused_s"] > h200.cost["predicted_time_fused_s"]


@pytest.mark.parametrize("chip, cost_target, accepted", [
    ("sm_90a", "a100", "auto, h100, h200"),
    ("sm_80", "h100", "auto, a100"),
    ("sm_100", "h100", "auto, h200"),
])
def test_cost_target_must_fit_the_chip(chip, cost_target, accepted):
    with pytest.raises(ValueError, match="accepted for chip %s: %s" % (chip, accepted)):
        attnopt.compile(DECODE_16K, target=chip, cost_target=cost_target)

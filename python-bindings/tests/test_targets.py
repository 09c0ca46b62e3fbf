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

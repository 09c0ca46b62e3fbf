#!/bin/bash
# v43h: the Vᵀ pre-kernel with coalesced stores (kernels_fp8v43h) beside
# v43f's (kernels_fp8v43f; the attention kernels are the same).
exec bash "$(dirname "$0")/run43f.sh" fp8v43h fp8v43f v43h

#!/usr/bin/env bash
# Prints the instance set for this machine (TESSEL_LADDER_INSTANCES for the
# ladder's teaching steps; scripts/test.sh passes it as TESSEL_GEMM_INSTANCES
# for every step too; CMakeLists.txt): `all` where a GPU is present, so that
# every step runs in every layout; `one` otherwise, where the kernels are
# compile and SASS checks only (one input type and layout per step).
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then echo all; else echo one; fi

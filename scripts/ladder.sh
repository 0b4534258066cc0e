#!/usr/bin/env bash
# Prints the instance set of the ladder's teaching steps for this machine
# (TESSEL_LADDER_INSTANCES, CMakeLists.txt; the steps themselves are built
# where TESSEL_BUILD_LADDER is on): `all` where a GPU is present, so
# that every step runs in every layout; `one` otherwise, where the kernels are
# compile and SASS checks only (one input type and layout per teaching step;
# every kernel `auto` can pick is built in full either way).
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then echo all; else echo one; fi

#!/usr/bin/env bash
# Prints the CMake preset for this machine: sm90a where nvcc exists (host code
# plus the CUDA translation units), default (host only) otherwise.
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then echo sm90a; else echo default; fi

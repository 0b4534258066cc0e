#!/usr/bin/env bash
# CUDA compiler launcher (CMAKE_CUDA_COMPILER_LAUNCHER): runs the compile
# command it is given, passes its output through, and fails the compile when
# ptxas reports that wgmma instructions were serialized (warning C7511) or
# that it injected a warpgroup.wait the code did not ask for (C7517).  A
# serialized wgmma waits for each instruction before the next one issues:
# a silent 2-3x slowdown of a Hopper GEMM.  An injected wait keeps no batch
# in flight where the code meant one to be (the FP8 main loop lost its
# overlap that way, every k-tile), so both are errors here.
# Remaining arguments after the launcher's own: the real command (a further
# launcher such as ccache may come first).
log=$(mktemp "${TMPDIR:-/tmp}/tessel_ptxas.XXXXXX") || exit 1
"$@" 2>"$log"
rc=$?
cat "$log" >&2
if grep -q -e "C7511" -e "wgmma.mma_async instructions are serialized" -e "C7517" "$log"; then
  echo "error: ptxas serialized wgmma (C7511) or injected a warpgroup.wait (C7517) in the compile above; tessel" \
    "treats this as an error" >&2
  rc=1
fi
rm -f "$log"
exit $rc

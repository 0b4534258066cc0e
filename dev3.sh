set -u
cmake -S . -B /tmp/bn -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc >/dev/null 2>&1
t0=$(date +%s); cmake --build /tmp/bn -j16 > /tmp/bn.log 2>&1; echo "build rc $? in $(( $(date +%s) - t0 )) s"
grep -E "warning|error" /tmp/bn.log | head -40 > $OUT/build_warnings.txt; wc -l < $OUT/build_warnings.txt
(cd /tmp/bn && ctest -j10 -E "fuzz" --timeout 300 > $OUT/ctest.log 2>&1; tail -4 $OUT/ctest.log; grep -E "\*\*\*Failed|\(Failed\)" $OUT/ctest.log | head)
CUOBJDUMP=cuobjdump python3 bench/sass_counts.py /tmp/bn/CMakeFiles/tessel_kernels.dir/src/kernels/gemm/*.o /tmp/bn/CMakeFiles/tessel_kernels.dir/src/kernels/copy.cu.o > $OUT/sass_after.tsv
timeout 150 /tmp/bn/tessel bench gemm --suite bench/ladder_suite.csv --impl k09,k10,k11 --repeat 2 --csv $OUT/ladder_top.csv > $OUT/ladder_top.log 2>&1; echo "bench rc $?"; grep -E "summary|geomean" -A4 $OUT/ladder_top.log | tail -5

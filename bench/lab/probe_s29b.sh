#!/usr/bin/env bash
# Session-29 device run (b): what cuBLASLt's 1000^3 kernel
# (nvjet_sm90_tst_64x128_64x8_2x1_v_bz_NNN: 384 threads, 168 registers, 2 x 1
# clusters, 10.8 us under ncu) does that k14's 64 x 128 in 2 x 1 clusters
# (256 threads, 232 registers, 13.7 us) does not.  s29a: the same grid (128
# CTAs), the same DRAM bytes, L2 throughput 44 % of peak in both, so k14 does
# a third more L2 work in total; cuBLASLt's warps stall on L1TEX scoreboards
# (8.9 of 15.2 cycles), k14's on the CTA barrier.  The nvjet kernels are not
# in libcublasLt's fatbins as SASS, so their code is read here through ncu's
# source page.  Then L2 requests and sectors by source unit and operation, for
# cuBLASLt, k14 m64, k13 m64 and k15 at 1000^3, cuBLASLt and k13 m64 at 1024^3.
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli
B=/tmp/bn
run_ncu() { # name filter spec... ; the rest of the arguments go to ncu before the program
  local name=$1 filt=$2 shape=$3; shift 3
  timeout 100 ncu --kernel-name-base mangled -k regex:$filt --launch-skip 2 --launch-count 1 "$@" \
    $B/tessel bench gemm --m $shape --n $shape --k $shape $SPEC --iterations 6 --warmup 2 --verify none
}
SPEC="--impl cublas" run_ncu cublas nvjet 1000 --section SourceCounters --page source --print-source sass --csv > "$R/sass_cublas_1000.csv" 2> "$R/sass_cublas_1000.err"
SPEC="--impl k14 --tile-m 64" run_ncu k14 gemm_kernels 1000 --section SourceCounters --page source --print-source sass --csv > "$R/sass_k14_1000.csv" 2> "$R/sass_k14_1000.err"
wc -c "$R"/sass_*.csv; elapsed "sass"; pack
M1="gpu__time_duration.sum,sm__cycles_active.avg,lts__t_bytes.sum,lts__t_sectors.sum,lts__t_requests_srcunit_tex.sum,lts__t_sectors_srcunit_tex.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__inst_executed.sum"
M2="smsp__inst_executed_op_ldgsts.sum,smsp__inst_executed_op_global_ld.sum,smsp__inst_executed_op_global_st.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,l1tex__m_xbar2l1tex_read_sectors.sum,l1tex__m_l1tex2xbar_write_sectors.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_elapsed"
for spec in "cublas|nvjet|1000|--impl cublas" "k14m64|gemm_kernels|1000|--impl k14 --tile-m 64" "k13m64|gemm_kernels|1000|--impl k13 --tile-m 64 --swap-ab off" \
            "k15|gemm_kernels|1000|--impl k15" "cublas|nvjet|1024|--impl cublas" "k13m64|gemm_kernels|1024|--impl k13 --tile-m 64 --swap-ab off"; do
  IFS='|' read -r name filt shape sp <<< "$spec"
  for MM in "$M1" "$M2"; do
    echo "=== $shape $name"
    SPEC="$sp" run_ncu $name $filt $shape --metrics $MM 2>&1 | grep -E "^  [_a-zA-Z]|^    [a-z]" | cut -c1-130
  done
done > "$R/ncu_l2.txt" 2>&1
grep -v "^  [_a-zA-Z]" "$R/ncu_l2.txt" | head -200
elapsed "done"
pack

# Hopper (sm_90a) wrappers: tessel/arch/sm90.hpp, sm90_desc.hpp and the tensor
# maps of tessel/arch/sm90_tensor_map.hpp, one test executable per topic (they
# compile in parallel) sharing sm90_test_util.hpp:
#   golden      ownership formulas, TMA image = wgmma atom, descriptor bits (host only)
#   tensor_map  the tensor-map rules (host only) and the driver's verdict (GPU)
#   wgmma       wgmma SS and RS against a host GEMM (GPU)
#   wgmma_fp8   FP8 wgmma SS, every e4m3/e5m2 pair, against a host GEMM (GPU)
#   tma         TMA load/store round trips (GPU)
#   sync        mbarrier, elect.sync, setmaxnreg, cluster multicast (GPU)
# The host-only tests run everywhere; the GPU ones skip with a message where
# no sm_90 device is present.
foreach(topic IN ITEMS golden tensor_map wgmma wgmma_fp8 tma sync)
  set(sm90_test arch_sm90_${topic}_test)
  add_executable(${sm90_test} ${sm90_test}.cu)
  target_link_libraries(${sm90_test} PRIVATE tessel::tessel tessel::calc tessel_cuda_flags tessel_warnings
                                             GTest::gtest_main CUDA::cudart)
  # The golden atom layouts (read by sm90_test_util.hpp, so every executable
  # gets the path); the binaries also look for tests/data/atom_layouts.tsv
  # relative to the working directory (the repository root on the device).
  target_compile_definitions(${sm90_test} PRIVATE TESSEL_ATOM_TSV="${TESSEL_TEST_DATA}/atom_layouts.tsv")
  gtest_discover_tests(${sm90_test} DISCOVERY_TIMEOUT 60)
endforeach()

# The committed wgmma wrappers are exactly what the generator writes.
add_test(NAME gen_wgmma_up_to_date
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/gen/gen_wgmma.py --check)

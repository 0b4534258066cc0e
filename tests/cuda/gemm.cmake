# The GEMM ladder through the public API: every step, bit for bit against an
# exact host reference (GPU; skips without one), and the host API's checks
# and names (no GPU needed).
add_executable(gemm_test gemm_test.cu)
target_link_libraries(gemm_test PRIVATE tessel::kernels GTest::gtest_main)
# The run-time compiled epilogues' cubins (GemmEpiJit, GemmJitCache): here
# unless TESSEL_CACHE_DIR is set; the first run compiles them with nvcc.
target_compile_definitions(gemm_test PRIVATE TESSEL_JIT_TEST_CACHE="${CMAKE_CURRENT_BINARY_DIR}/jit_cache")
gtest_discover_tests(gemm_test DISCOVERY_TIMEOUT 60)

add_executable(gemm_api_test gemm_api_test.cpp)
target_link_libraries(gemm_api_test PRIVATE tessel::kernels tessel_bench_args GTest::gtest_main tessel_warnings)
target_compile_definitions(gemm_api_test PRIVATE TESSEL_TEST_DATA="${TESSEL_TEST_DATA}")  # the plan's record
if(TESSEL_LADDER_INSTANCES STREQUAL "one")
  target_compile_definitions(gemm_api_test PRIVATE TESSEL_LADDER_BUILT_ONE)  # the library's instance set
endif()
gtest_discover_tests(gemm_api_test DISCOVERY_TIMEOUT 60)

# A caller-owned workspace and alpha/beta in device memory (GPU; skips without one).
add_executable(gemm_workspace_test gemm_workspace_test.cpp)
target_link_libraries(gemm_workspace_test PRIVATE tessel::kernels GTest::gtest_main tessel_warnings)
gtest_discover_tests(gemm_workspace_test DISCOVERY_TIMEOUT 60)

# k13 on FP8 operands through k13's launch body (GPU; skips without one; it
# instantiates its kernels itself), and the FP8 plan's choices (no GPU needed).
add_executable(gemm_fp8_test gemm_fp8_test.cu)
target_include_directories(gemm_fp8_test PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(gemm_fp8_test PRIVATE tessel::kernels tessel_cuda_flags GTest::gtest_main)
gtest_discover_tests(gemm_fp8_test DISCOVERY_TIMEOUT 60)

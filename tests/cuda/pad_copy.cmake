# The padded copy of the TMA steps' unaligned operands (src/kernels/gemm/pad_copy.cu):
# every destination element bit for bit, zero pads, one and two copies per
# launch (GPU; skips without one), and the argument checks (no GPU needed).
# It compiles the kernel's own source rather than linking tessel_kernels, so
# that `cmake --build --preset sm90a --target pad_copy_test` builds in seconds.
add_executable(pad_copy_test pad_copy_test.cu ${PROJECT_SOURCE_DIR}/src/kernels/gemm/pad_copy.cu)
target_include_directories(pad_copy_test PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(pad_copy_test PRIVATE tessel::tessel tessel_cuda_flags GTest::gtest_main CUDA::cudart
  tessel_warnings)
gtest_discover_tests(pad_copy_test DISCOVERY_TIMEOUT 60)

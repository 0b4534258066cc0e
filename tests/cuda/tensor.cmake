# TiledMMA partitions and gemm() on the GPU.
add_executable(tiled_mma_test tiled_mma_test.cu)
target_link_libraries(tiled_mma_test PRIVATE tessel::tessel tessel_cuda_flags GTest::gtest_main CUDA::cudart)
gtest_discover_tests(tiled_mma_test DISCOVERY_TIMEOUT 60)

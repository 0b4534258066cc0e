# TiledMMA partitions and gemm() on the GPU.
add_executable(tiled_mma_test tiled_mma_test.cu)
target_link_libraries(tiled_mma_test PRIVATE tessel::tessel tessel_cuda_flags GTest::gtest_main CUDA::cudart)
gtest_discover_tests(tiled_mma_test DISCOVERY_TIMEOUT 60)

# The wgmma atom (SS, swizzled K-major tiles) on one warpgroup.
add_executable(wgmma_atom_test wgmma_atom_test.cu)
target_link_libraries(wgmma_atom_test PRIVATE tessel::tessel tessel_cuda_flags GTest::gtest_main CUDA::cudart)
gtest_discover_tests(wgmma_atom_test DISCOVERY_TIMEOUT 60)

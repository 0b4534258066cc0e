# The kernels' building blocks on the GPU (kernels/blocks/): the TMA pipeline
# over mbarriers.  Skips with a message where no GPU is present.
add_executable(pipeline_test pipeline_test.cu)
target_link_libraries(pipeline_test PRIVATE tessel::tessel tessel_cuda_flags tessel_warnings GTest::gtest_main
                                            CUDA::cudart)
gtest_discover_tests(pipeline_test DISCOVERY_TIMEOUT 60)

# TMA as a copy of tiles (atom/copy_sm90.hpp): box plans, loads through the
# shared layout, clipped stores, multicast in a cluster.
add_executable(tma_tile_test tma_tile_test.cu)
target_link_libraries(tma_tile_test PRIVATE tessel::tessel tessel_cuda_flags tessel_warnings GTest::gtest_main
                                            CUDA::cudart)
gtest_discover_tests(tma_tile_test DISCOVERY_TIMEOUT 60)

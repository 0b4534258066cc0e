# The kernels' building blocks on the GPU (kernels/blocks/): the TMA pipeline
# over mbarriers.  Skips with a message where no GPU is present.
add_executable(pipeline_test pipeline_test.cu)
target_link_libraries(pipeline_test PRIVATE tessel::tessel tessel_cuda_flags tessel_warnings GTest::gtest_main
                                            CUDA::cudart)
gtest_discover_tests(pipeline_test DISCOVERY_TIMEOUT 60)

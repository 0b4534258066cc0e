# Tile copy kernels: correctness on shapes that are not tile multiples.
add_executable(copy_kernels_test copy_kernels_test.cu)
target_link_libraries(copy_kernels_test PRIVATE tessel::kernels GTest::gtest_main)
gtest_discover_tests(copy_kernels_test DISCOVERY_TIMEOUT 60)

# tessel::attention: its checks (no GPU needed) and every step against an
# fp64 reference (GPU; skips without one).
add_executable(attention_test attention_test.cu)
target_include_directories(attention_test PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(attention_test PRIVATE tessel::kernels tessel_cuda_flags GTest::gtest_main)
gtest_discover_tests(attention_test DISCOVERY_TIMEOUT 60)

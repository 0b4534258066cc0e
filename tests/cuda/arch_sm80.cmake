# GPU tests of tessel/arch/sm80.hpp (cp.async, ldmatrix, mma.sync) and
# tessel/arch/sm90_stmatrix.hpp against the layouts of atom_reference.hpp.
add_executable(arch_sm80_test ${CMAKE_CURRENT_LIST_DIR}/arch_sm80_test.cu)
target_link_libraries(arch_sm80_test PRIVATE tessel::tessel tessel_cuda_flags tessel_warnings GTest::gtest_main CUDA::cudart)
gtest_discover_tests(arch_sm80_test DISCOVERY_TIMEOUT 60)

# Hopper (sm_90a) wrappers: tessel/arch/sm90.hpp, sm90_desc.hpp and the tensor
# maps of tessel/arch/sm90_tensor_map.hpp.  The host-only parts of the test (golden
# formulas, descriptor bits, tensor-map rules) run everywhere; the GPU parts
# skip with a message where no sm_90 device is present.
add_executable(arch_sm90_test arch_sm90_test.cu)
target_link_libraries(arch_sm90_test PRIVATE tessel::tessel tessel::calc tessel_cuda_flags tessel_warnings
                                             GTest::gtest_main CUDA::cudart)
# The golden atom layouts; the binary also looks for tests/data/atom_layouts.tsv
# relative to the working directory (the repository root on the device).
target_compile_definitions(arch_sm90_test PRIVATE TESSEL_ATOM_TSV="${TESSEL_TEST_DATA}/atom_layouts.tsv")
gtest_discover_tests(arch_sm90_test DISCOVERY_TIMEOUT 60)

# The committed wgmma wrappers are exactly what the generator writes.
add_test(NAME gen_wgmma_up_to_date
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/gen/gen_wgmma.py --check)

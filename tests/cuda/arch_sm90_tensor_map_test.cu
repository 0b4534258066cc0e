// Tests of the tensor-map builder (tessel/arch/sm90_tensor_map.hpp) against
// docs/hardware.md §10.1: valid specs pass, every rule is rejected with a
// message naming it, and encode_tiled checks before calling the driver (host
// only, run everywhere); on the GPU (skipped with a message where no sm_90
// device is present), the driver's own verdict on the rejected maps.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sm90_test_util.hpp"

// ---------------------------------------------------------------- tensor-map rules (§10.1), no GPU needed

namespace {

/// A valid map: a 200 x 100 bf16 matrix, rows 416 B apart, 64 x 32 box with
/// 128B swizzle.  The address is never dereferenced by validation.
TensorMapSpec valid_spec(const void* address = reinterpret_cast<const void*>(std::uintptr_t{0x10000})) {
  TensorMapSpec s;
  s.dtype = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  s.rank = 2;
  s.global_address = address;
  s.global_dim = {200, 100, 1, 1, 1};
  s.global_stride_bytes = {0, 416, 0, 0, 0};
  s.box_dim = {64, 32, 1, 1, 1};
  s.swizzle = CU_TENSOR_MAP_SWIZZLE_128B;
  return s;
}

struct BadCase {
  const char* what;
  TensorMapErrc code;
  const char* message_part;  // a piece of the message that names the numbers
  bool driver_rejects;       // the driver is documented (§10.1 / cuda.h) to refuse it too
  void (*edit)(TensorMapSpec&);
};

const std::vector<BadCase>& bad_cases() {
  static const std::vector<BadCase> cases = {
      {"address +8 B", TensorMapErrc::address_alignment, "is not 16-byte aligned", true,
       [](TensorMapSpec& s) { s.global_address = static_cast<const char*>(s.global_address) + 8; }},
      {"stride 424 B", TensorMapErrc::global_stride, "stride 424 bytes of dimension 1", true,
       [](TensorMapSpec& s) { s.global_stride_bytes[1] = 424; }},
      {"stride 2^40", TensorMapErrc::global_stride, "is not below 2^40", true,
       [](TensorMapSpec& s) { s.global_stride_bytes[1] = std::uint64_t{1} << 40; }},
      {"box dim 257", TensorMapErrc::box_dim, "box extent 257 of dimension 1", true,
       [](TensorMapSpec& s) {
         s.swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
         s.box_dim[1] = 257;
       }},
      {"box dim 0", TensorMapErrc::box_dim, "box extent 0 of dimension 1", true,
       [](TensorMapSpec& s) { s.box_dim[1] = 0; }},
      {"8-byte inner box", TensorMapErrc::box_inner_bytes, "= 8 bytes is not a multiple of 16", true,
       [](TensorMapSpec& s) {
         s.swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
         s.box_dim[0] = 4;
       }},
      {"128 B inner box, 64B swizzle", TensorMapErrc::box_inner_swizzle, "128 bytes exceeds the 64-byte span", true,
       [](TensorMapSpec& s) { s.swizzle = CU_TENSOR_MAP_SWIZZLE_64B; }},
      {"256 B inner box, 128B swizzle", TensorMapErrc::box_inner_swizzle, "256 bytes exceeds the 128-byte span", true,
       [](TensorMapSpec& s) { s.box_dim[0] = 128; }},
      {"64 B inner box, 32B swizzle", TensorMapErrc::box_inner_swizzle, "64 bytes exceeds the 32-byte span", true,
       [](TensorMapSpec& s) {
         s.swizzle = CU_TENSOR_MAP_SWIZZLE_32B;
         s.box_dim[0] = 32;
       }},
      {"rank 0", TensorMapErrc::rank, "rank 0 is not in 1..5", true, [](TensorMapSpec& s) { s.rank = 0; }},
      {"rank 6", TensorMapErrc::rank, "rank 6 is not in 1..5", true, [](TensorMapSpec& s) { s.rank = 6; }},
      {"interleave with rank 2", TensorMapErrc::rank, "below 3", true,
       [](TensorMapSpec& s) { s.interleave = CU_TENSOR_MAP_INTERLEAVE_16B; }},
      {"extent 0", TensorMapErrc::global_dim, "extent 0 of dimension 0", true,
       [](TensorMapSpec& s) { s.global_dim[0] = 0; }},
      {"extent 2^32 + 1", TensorMapErrc::global_dim, "extent 4294967297 of dimension 1", true,
       [](TensorMapSpec& s) { s.global_dim[1] = (std::uint64_t{1} << 32) + 1; }},
      {"element stride 0", TensorMapErrc::element_stride, "element stride 0 of dimension 1", true,
       [](TensorMapSpec& s) { s.element_strides[1] = 0; }},
      {"element stride 9", TensorMapErrc::element_stride, "element stride 9 of dimension 1", true,
       [](TensorMapSpec& s) { s.element_strides[1] = 9; }},
      {"NaN fill of an integer type", TensorMapErrc::oob_fill, "needs a floating-point data type", true,
       [](TensorMapSpec& s) {
         s.dtype = CU_TENSOR_MAP_DATA_TYPE_UINT16;
         s.oob_fill = CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA;
       }},
      {"unknown data type", TensorMapErrc::dtype, "data type 99", false,
       [](TensorMapSpec& s) { s.dtype = static_cast<CUtensorMapDataType>(99); }},
      {"unknown swizzle", TensorMapErrc::enum_value, "swizzle 42", false,
       [](TensorMapSpec& s) { s.swizzle = static_cast<CUtensorMapSwizzle>(42); }},
      {"null address", TensorMapErrc::address_alignment, "null", false,
       [](TensorMapSpec& s) { s.global_address = nullptr; }},
  };
  return cases;
}

}  // namespace

TEST(TensorMapValidation, ValidSpecsPass) {
  EXPECT_TRUE(arch::sm90::validate_tiled(valid_spec()).ok()) << arch::sm90::validate_tiled(valid_spec()).message;
  TensorMapSpec wide = valid_spec();  // 256 B inner box is fine without swizzle (§10.1)
  wide.swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
  wide.box_dim[0] = 128;
  EXPECT_TRUE(arch::sm90::validate_tiled(wide).ok()) << arch::sm90::validate_tiled(wide).message;
  TensorMapSpec narrow = valid_spec();  // inner box narrower than the span is allowed
  narrow.box_dim[0] = 32;
  EXPECT_TRUE(arch::sm90::validate_tiled(narrow).ok()) << arch::sm90::validate_tiled(narrow).message;
  TensorMapSpec five = valid_spec();
  five.rank = 5;
  five.global_dim = {64, 4, 3, 2, 2};
  five.global_stride_bytes = {0, 128, 512, 1536, 3072};
  five.box_dim = {64, 2, 2, 2, 2};
  EXPECT_TRUE(arch::sm90::validate_tiled(five).ok()) << arch::sm90::validate_tiled(five).message;
}

TEST(TensorMapValidation, EachRuleRejectedWithItsName) {
  for (const BadCase& c : bad_cases()) {
    TensorMapSpec s = valid_spec();
    c.edit(s);
    const TensorMapStatus st = arch::sm90::validate_tiled(s);
    EXPECT_EQ(st.code, c.code) << c.what << ": " << st.message;
    const std::string keyword = arch::sm90::tensor_map_errc_keyword(c.code);
    EXPECT_EQ(st.message.rfind(keyword + ": ", 0), 0u)
        << c.what << ": message does not start with the rule: " << st.message;
    EXPECT_NE(st.message.find(c.message_part), std::string::npos) << c.what << ": " << st.message;
  }
}

TEST(TensorMapValidation, EncodeChecksBeforeTheDriver) {
  // Rejected before any driver call, so this needs no GPU: a misaligned map
  // object, and an invalid spec.
  alignas(64) unsigned char storage[sizeof(CUtensorMap) + 64] = {};
  CUtensorMap* misaligned = reinterpret_cast<CUtensorMap*>(storage + 16);
  TensorMapStatus st = arch::sm90::encode_tiled(*misaligned, valid_spec());
  EXPECT_EQ(st.code, TensorMapErrc::map_alignment) << st.message;
  CUtensorMap map;
  TensorMapSpec bad = valid_spec();
  bad.global_stride_bytes[1] = 424;
  st = arch::sm90::encode_tiled(map, bad);
  EXPECT_EQ(st.code, TensorMapErrc::global_stride) << st.message;
  EXPECT_EQ(st.driver_result, CUDA_SUCCESS) << "the driver must not have been called";
}

TEST(TensorMapDriver, AgreesWithValidation) {
  REQUIRE_SM90();
  DeviceArray<std::uint16_t> buf(100 * 208 + 64);
  ASSERT_NE(buf.ptr, nullptr);
  CUtensorMap map;
  const TensorMapStatus good = arch::sm90::encode_tiled(map, valid_spec(buf.ptr));
  ASSERT_TRUE(good.ok()) << good.message;
  // Every documented rule that validate_tiled enforces, the driver enforces too.
  for (const BadCase& c : bad_cases()) {
    if (!c.driver_rejects) continue;
    TensorMapSpec s = valid_spec(buf.ptr);
    c.edit(s);
    const TensorMapStatus st = arch::sm90::detail::encode_tiled_unchecked(map, s);
    EXPECT_EQ(st.code, TensorMapErrc::driver_rejected) << c.what << ": the driver accepted it";
    EXPECT_EQ(st.driver_result, CUDA_ERROR_INVALID_VALUE) << c.what << ": " << st.message;
  }
  // And valid variants pass the driver.
  TensorMapSpec wide = valid_spec(buf.ptr);
  wide.swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
  wide.box_dim[0] = 128;
  const TensorMapStatus st = arch::sm90::encode_tiled(map, wide);
  EXPECT_TRUE(st.ok()) << st.message;
}

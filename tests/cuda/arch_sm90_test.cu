// Tests of the Hopper wrappers (tessel/arch/sm90.hpp, sm90_desc.hpp) and of the
// tensor-map builder (tessel/arch/sm90_tensor_map.hpp), against docs/hardware.md §7–§14
// and the golden atom layouts (tests/data/atom_layouts.tsv).
//
//  * Host only (run everywhere, also without a GPU): the §7.2/§7.3 ownership
//    formulas that the kernels use equal the TSV's TV layouts; the TMA image of
//    a box equals the wgmma smem atom of the same swizzle; descriptor bits; and
//    every tensor-map rule of §10.1 rejected with a message naming it.
//  * GPU (skipped with a message where no sm_90 device is present): wgmma SS
//    and RS against a host GEMM for every N, TMA load/store round trips in
//    every swizzle mode with out-of-bounds boxes, mbarrier phases, elect.sync,
//    setmaxnreg, cluster multicast loads and remote arrives, and the driver's
//    own verdict on the rejected tensor maps.
//
// Operand values are small integers in [-4, 4]: bf16 and f16 hold them exactly
// and every sum of K = 64 products is exact in f32, so results compare with ==.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tessel/arch/sm90.hpp"
#include "tessel/arch/sm90_tensor_map.hpp"
#include "tessel/host/calc.hpp"
#include "tessel/tessel.hpp"

using namespace tessel;
namespace sm90 = tessel::arch::sm90;
using sm90::GmmaMajor;
using sm90::GmmaSwizzle;
using sm90::WgmmaType;
using tessel::arch::sm90::TensorMapErrc;
using tessel::arch::sm90::TensorMapSpec;
using tessel::arch::sm90::TensorMapStatus;

#define CUDA_CHECK(expr)                                                       \
  do {                                                                         \
    const cudaError_t err_ = (expr);                                           \
    ASSERT_EQ(err_, cudaSuccess) << #expr << ": " << cudaGetErrorString(err_); \
  } while (0)

namespace {

// ================================================================ helpers

bool have_sm90(std::string& why) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    (void)cudaGetLastError();
    why = "no CUDA device on this machine: GPU test skipped (it runs on the device)";
    return false;
  }
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess || prop.major != 9) {
    why = std::string("device 0 is not an sm_90 GPU (") + prop.name + "): Hopper test skipped";
    return false;
  }
  return true;
}
#define REQUIRE_GPU()                           \
  do {                                          \
    std::string why_;                           \
    if (!have_sm90(why_)) GTEST_SKIP() << why_; \
  } while (0)

/// A device array, freed on scope exit.
template <class T>
struct DeviceArray {
  T* ptr = nullptr;
  std::size_t n = 0;
  explicit DeviceArray(std::size_t count) : n(count) {
    if (cudaMalloc(&ptr, n * sizeof(T)) != cudaSuccess) ptr = nullptr;
  }
  ~DeviceArray() { cudaFree(ptr); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  cudaError_t upload(const std::vector<T>& h) {
    return cudaMemcpy(ptr, h.data(), n * sizeof(T), cudaMemcpyHostToDevice);
  }
  cudaError_t fill_bytes(int byte) { return cudaMemset(ptr, byte, n * sizeof(T)); }
  cudaError_t download(std::vector<T>& h) const {
    h.resize(n);
    return cudaMemcpy(h.data(), ptr, n * sizeof(T), cudaMemcpyDeviceToHost);
  }
};

/// bf16 / f16 bit patterns of small integers (exact).
std::uint16_t bf16_bits(int v) {
  const float f = static_cast<float>(v);
  std::uint32_t u = 0;
  std::memcpy(&u, &f, sizeof u);
  return static_cast<std::uint16_t>(u >> 16);  // exact: the low mantissa bits are zero
}
std::uint16_t f16_bits(int v) {
  if (v == 0) return 0;
  const std::uint16_t sign = v < 0 ? 0x8000 : 0;
  const int a = v < 0 ? -v : v;
  int e = 0;
  while ((a >> (e + 1)) != 0) ++e;  // a = 1.m * 2^e
  const int mantissa = (a << (10 - e)) & 0x3FF;
  return static_cast<std::uint16_t>(sign | ((e + 15) << 10) | mantissa);
}
template <WgmmaType T>
std::uint16_t to_bits(int v) {
  return T == WgmmaType::bf16 ? bf16_bits(v) : f16_bits(v);
}

// ---------------------------------------------------------------- the golden TSV

/// tests/data/atom_layouts.tsv: the compile-time path, else the path relative
/// to the repository root (where the device machine runs the binary).
std::string atom_tsv_path() {
  for (const char* p : {TESSEL_ATOM_TSV, "tests/data/atom_layouts.tsv"}) {
    std::ifstream f(p);
    if (f) return p;
  }
  return {};
}

/// "instruction|role" -> layout, for every line of the TSV.
const std::map<std::string, SwizzledLayout>& golden_atoms() {
  static const std::map<std::string, SwizzledLayout> atoms = [] {
    std::map<std::string, SwizzledLayout> m;
    std::ifstream f(atom_tsv_path());
    std::string line;
    while (std::getline(f, line)) {
      std::istringstream fields(line);
      std::string instr, role, tile, layout;
      if (!std::getline(fields, instr, '\t') || !std::getline(fields, role, '\t') ||
          !std::getline(fields, tile, '\t') || !std::getline(fields, layout, '\t'))
        continue;
      calc::Literal lit;
      Error err;
      if (calc::parse_literal(layout, lit, err) && lit.kind == calc::Literal::kLayout)
        m[instr + "|" + role] = lit.layout;
    }
    return m;
  }();
  return atoms;
}

const SwizzledLayout* golden(const std::string& instr, const std::string& role) {
  const auto& m = golden_atoms();
  const auto it = m.find(instr + "|" + role);
  return it == m.end() ? nullptr : &it->second;
}

std::string smem_atom_name(GmmaMajor major, GmmaSwizzle sw) {
  const char* s = sw == GmmaSwizzle::none   ? "INTER"
                  : sw == GmmaSwizzle::sw32 ? "SW32"
                  : sw == GmmaSwizzle::sw64 ? "SW64"
                                            : "SW128";
  return std::string("gmma.smem.") + (major == GmmaMajor::k ? "K." : "MN.") + s + ".bf16";
}

// ---------------------------------------------------------------- ownership formulas (§7.2, §7.3)
//
// The kernels use these; SwizzledFormulasMatchGolden checks them against the TSV.
TESSEL_HD constexpr int acc_row(int t, int i) { return 16 * (t / 32) + (t % 32) / 4 + 8 * ((i >> 1) & 1); }
TESSEL_HD constexpr int acc_col(int t, int i) { return 8 * (i >> 2) + 2 * (t % 4) + (i & 1); }
TESSEL_HD constexpr int afrag_row(int t, int i) { return 16 * (t / 32) + (t % 32) / 4 + 8 * ((i >> 1) & 1); }
TESSEL_HD constexpr int afrag_col(int t, int i) { return 2 * (t % 4) + (i & 1) + 8 * (i >> 2); }

}  // namespace

// ================================================================ host-only tests

TEST(Sm90Golden, WgmmaFragmentFormulasMatchGolden) {
  ASSERT_FALSE(atom_tsv_path().empty()) << "atom_layouts.tsv not found";
  for (int n : {8, 64, 128, 256}) {
    const std::string instr = "wgmma.mma_async.sync.aligned.m64n" + std::to_string(n) + "k16.f32.bf16.bf16";
    const SwizzledLayout* c = golden(instr, "C");
    const SwizzledLayout* a = golden(instr, "A");
    ASSERT_NE(c, nullptr) << instr << " C";
    ASSERT_NE(a, nullptr) << instr << " A";
    for (int t = 0; t < 128; ++t) {
      for (int i = 0; i < n / 2; ++i) {
        const index_t idx = (*c)(index_t{t}, index_t{i});
        ASSERT_EQ(idx % 64, acc_row(t, i)) << "N=" << n << " t=" << t << " i=" << i;
        ASSERT_EQ(idx / 64, acc_col(t, i)) << "N=" << n << " t=" << t << " i=" << i;
      }
      for (int i = 0; i < 8; ++i) {
        const index_t idx = (*a)(index_t{t}, index_t{i});
        ASSERT_EQ(idx % 64, afrag_row(t, i)) << "N=" << n << " t=" << t << " i=" << i;
        ASSERT_EQ(idx / 64, afrag_col(t, i)) << "N=" << n << " t=" << t << " i=" << i;
      }
    }
  }
}

// §9: the smem image of a TMA box whose inner extent is the swizzle span is the
// wgmma atom of the same swizzle (K-major when the inner dimension is K,
// MN-major when it is M/N).  The image is computed as the TMA tests compute it.
TEST(Sm90Golden, TmaBoxImageIsTheWgmmaAtom) {
  ASSERT_FALSE(atom_tsv_path().empty()) << "atom_layouts.tsv not found";
  for (GmmaSwizzle sw : {GmmaSwizzle::sw32, GmmaSwizzle::sw64, GmmaSwizzle::sw128}) {
    const int b = sw == GmmaSwizzle::sw32 ? 1 : sw == GmmaSwizzle::sw64 ? 2 : 3;
    const int w = static_cast<int>(sm90::swizzle_span_bytes(sw)) / 2;  // elements per row
    const SwizzledLayout image = compose(Swizzle{b, 3, 3}, make_layout(make_shape(w, 8), make_stride(1, w)));
    const SwizzledLayout* kmaj = golden(smem_atom_name(GmmaMajor::k, sw), "SMEM");
    const SwizzledLayout* mnmaj = golden(smem_atom_name(GmmaMajor::mn, sw), "SMEM");
    ASSERT_NE(kmaj, nullptr);
    ASSERT_NE(mnmaj, nullptr);
    for (int row = 0; row < 8; ++row)
      for (int e = 0; e < w; ++e) {
        // K-major atom: (mn = row, k = e); MN-major atom: (mn = e, k = row).
        EXPECT_EQ((*kmaj)(index_t{row}, index_t{e}), image(index_t{e}, index_t{row})) << to_string(*kmaj);
        EXPECT_EQ((*mnmaj)(index_t{e}, index_t{row}), image(index_t{e}, index_t{row})) << to_string(*mnmaj);
      }
  }
}

// Descriptor bits (§8.1) and the dense-tile strides against the §8.3 table.
static_assert(sm90::make_smem_desc(0x400, 16, 1024, GmmaSwizzle::sw128) == 0x4000'0040'0001'0040ull);
static_assert(sm90::make_smem_desc(0x3FFF0, 0x3FFF0, 0x3FFF0, GmmaSwizzle::sw32, 7) ==
              ((0x3FFFull) | (0x3FFFull << 16) | (0x3FFFull << 32) | (7ull << 49) | (3ull << 62)));
static_assert(sm90::desc_advance(sm90::make_smem_desc(0x400, 16, 1024, GmmaSwizzle::sw128), 32) ==
              sm90::make_smem_desc(0x420, 16, 1024, GmmaSwizzle::sw128));
// The start-address field wraps inside its 14 bits rather than carrying into LBO.
static_assert(sm90::desc_advance(sm90::make_smem_desc(0x3FFF0, 16, 0, GmmaSwizzle::none), 16) ==
              sm90::make_smem_desc(0, 16, 0, GmmaSwizzle::none));
static_assert(sm90::decode_smem_desc(sm90::make_smem_desc(0x1230, 2048, 128, GmmaSwizzle::sw64, 5)).lbo_bytes == 2048);
static_assert(sm90::decode_smem_desc(sm90::make_smem_desc(0x1230, 2048, 128, GmmaSwizzle::sw64, 5)).start_addr ==
              0x1230);
static_assert(sm90::decode_smem_desc(sm90::make_smem_desc(0x1230, 2048, 128, GmmaSwizzle::sw64, 5)).base_offset == 5);
static_assert(sm90::decode_smem_desc(sm90::make_smem_desc(0x1230, 2048, 128, GmmaSwizzle::sw64, 5)).swizzle ==
              GmmaSwizzle::sw64);

namespace {
constexpr bool strides_are(GmmaMajor m, GmmaSwizzle s, std::uint32_t lbo, std::uint32_t sbo) {
  const sm90::DescStrides d = sm90::dense_tile_strides(m, s, 64, 2);
  return d.lbo_bytes == lbo && d.sbo_bytes == sbo;
}
}  // namespace
static_assert(strides_are(GmmaMajor::k, GmmaSwizzle::none, 1024, 128));
static_assert(strides_are(GmmaMajor::k, GmmaSwizzle::sw32, 16, 256));
static_assert(strides_are(GmmaMajor::k, GmmaSwizzle::sw64, 16, 512));
static_assert(strides_are(GmmaMajor::k, GmmaSwizzle::sw128, 16, 1024));
static_assert(strides_are(GmmaMajor::mn, GmmaSwizzle::none, 1024, 128));
static_assert(strides_are(GmmaMajor::mn, GmmaSwizzle::sw32, 256, 1024));
static_assert(strides_are(GmmaMajor::mn, GmmaSwizzle::sw64, 512, 1024));
static_assert(strides_are(GmmaMajor::mn, GmmaSwizzle::sw128, 1024, 1024));

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
  REQUIRE_GPU();
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

// ================================================================ wgmma

namespace {

constexpr int kK = 64;            // K of every test GEMM
constexpr int kKSteps = kK / 16;  // wgmma instructions per test

/// One operand in shared memory: its image, descriptor strides and the
/// start-address advance of each k16 step.
struct WgmmaArgs {
  const std::uint16_t* a_image;     // SS: A's shared-memory image
  const std::uint16_t* a_rowmajor;  // RS: A as 64 x kK row-major
  const std::uint16_t* b_image;
  std::uint32_t a_image_elems, b_image_elems;
  std::uint32_t a_lbo, a_sbo, b_lbo, b_sbo;
  GmmaSwizzle a_swizzle, b_swizzle;
  std::uint32_t a_koff[kKSteps], b_koff[kKSteps];
  const float* c;  // 64 x N row-major
  float* d;        // 64 x N row-major
  int accumulate;  // 1: D = C + op(A) B; 0: D = op(A) B (scale-d false on the first step)
};

template <WgmmaType T, int N, GmmaMajor MA, GmmaMajor MB, bool kRS, int kScaleA>
__global__ void __launch_bounds__(128) wgmma_kernel(WgmmaArgs args) {
  extern __shared__ std::uint8_t smem_raw[];
  // Operand tiles start on 1024-byte boundaries: the base offset of every
  // descriptor is then 0 and the element-unit swizzles of §9 hold.
  const std::uint32_t raw = sm90::smem_addr(smem_raw);
  auto* sa = reinterpret_cast<std::uint16_t*>(smem_raw + (((raw + 1023u) & ~1023u) - raw));
  std::uint16_t* sb = sa + (kRS ? 0 : args.a_image_elems);
  const int t = static_cast<int>(threadIdx.x);
  if constexpr (!kRS)
    for (std::uint32_t i = static_cast<std::uint32_t>(t); i < args.a_image_elems; i += 128) sa[i] = args.a_image[i];
  for (std::uint32_t i = static_cast<std::uint32_t>(t); i < args.b_image_elems; i += 128) sb[i] = args.b_image[i];
  // Generic stores, read by wgmma through descriptors (async proxy): §12.2.
  sm90::fence_proxy_async_shared_cta();
  __syncthreads();

  float d[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i) d[i] = args.c[acc_row(t, i) * N + acc_col(t, i)];
  std::uint32_t a[kKSteps][4] = {};
  if constexpr (kRS) {
#pragma unroll
    for (int s = 0; s < kKSteps; ++s)
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const std::uint32_t lo = args.a_rowmajor[afrag_row(t, 2 * j) * kK + 16 * s + afrag_col(t, 2 * j)];
        const std::uint32_t hi = args.a_rowmajor[afrag_row(t, 2 * j + 1) * kK + 16 * s + afrag_col(t, 2 * j + 1)];
        a[s][j] = lo | (hi << 16);
      }
  }
  const std::uint64_t desc_a = sm90::make_smem_desc(sm90::smem_addr(sa), args.a_lbo, args.a_sbo, args.a_swizzle);
  const std::uint64_t desc_b = sm90::make_smem_desc(sm90::smem_addr(sb), args.b_lbo, args.b_sbo, args.b_swizzle);

  sm90::register_fence(d);
#pragma unroll
  for (int s = 0; s < kKSteps; ++s) sm90::register_fence(a[s]);
  sm90::wgmma_fence();
#pragma unroll
  for (int s = 0; s < kKSteps; ++s) {
    const bool scale_d = args.accumulate != 0 || s > 0;
    const std::uint64_t db = sm90::desc_advance(desc_b, args.b_koff[s]);
    if constexpr (kRS)
      sm90::wgmma_rs<T, N, MB, kScaleA>(d, a[s], db, scale_d);
    else
      sm90::wgmma_ss<T, N, MA, MB, kScaleA>(d, sm90::desc_advance(desc_a, args.a_koff[s]), db, scale_d);
  }
  sm90::wgmma_commit_group();
  sm90::wgmma_wait_group<0>();
  sm90::register_fence(d);
#pragma unroll
  for (int s = 0; s < kKSteps; ++s) sm90::register_fence(a[s]);

#pragma unroll
  for (int i = 0; i < N / 2; ++i) args.d[acc_row(t, i) * N + acc_col(t, i)] = d[i];
}

/// The shared-memory image of an (mn x kK) operand with values vals[mn*kK + k],
/// laid out as tile_to_shape(golden atom, (mn, kK)), and its descriptor data.
struct HostOperand {
  std::vector<std::uint16_t> image;
  std::uint32_t lbo = 0, sbo = 0;
  GmmaSwizzle swizzle = GmmaSwizzle::none;
  std::uint32_t koff[kKSteps] = {};
  std::string error;
};

template <WgmmaType T>
HostOperand build_operand(GmmaMajor major, GmmaSwizzle sw, int mn, const std::vector<int>& vals) {
  HostOperand op;
  const SwizzledLayout* atom = golden(smem_atom_name(major, sw), "SMEM");
  if (atom == nullptr) {
    op.error = "no golden atom " + smem_atom_name(major, sw);
    return op;
  }
  const Result<SwizzledLayout> tiled = tile_to_shape(*atom, make_shape(mn, kK));
  if (!tiled.ok()) {
    op.error = "tile_to_shape(" + to_string(*atom) + ", (" + std::to_string(mn) + "," + std::to_string(kK) +
               ")): " + tiled.err.message();
    return op;
  }
  const SwizzledLayout tile = tiled.val;
  op.image.assign(static_cast<std::size_t>(mn) * kK, 0xFFFF);
  std::vector<int> hits(op.image.size(), 0);
  for (int r = 0; r < mn; ++r)
    for (int k = 0; k < kK; ++k) {
      const index_t off = tile(index_t{r}, index_t{k});
      if (off < 0 || off >= static_cast<index_t>(op.image.size()) || hits[static_cast<std::size_t>(off)]++ != 0) {
        op.error = "tile " + to_string(tile) + " is not a bijection onto the image";
        return op;
      }
      op.image[static_cast<std::size_t>(off)] = to_bits<T>(vals[static_cast<std::size_t>(r * kK + k)]);
    }
  const sm90::DescStrides st = sm90::dense_tile_strides(major, sw, static_cast<std::uint32_t>(mn), 2);
  op.lbo = st.lbo_bytes;
  op.sbo = st.sbo_bytes;
  op.swizzle = sw;
  // Each k16 step starts at the unswizzled offset of element (0, 16 s) (§8.1).
  for (int s = 0; s < kKSteps; ++s)
    op.koff[s] = static_cast<std::uint32_t>(2 * tile.layout(index_t{0}, index_t{16 * s}));
  return op;
}

std::vector<int> random_ints(std::size_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int> dist(-4, 4);
  std::vector<int> v(n);
  for (int& x : v) x = dist(rng);
  return v;
}

/// D = [C +] ScaleA * A * B on the GPU vs the host, exactly.  A is 64 x kK
/// (SS: stored with (major_a, sw_a)); B is N x kK as (n, k), stored with (MB, sw_b).
template <WgmmaType T, int N, GmmaMajor MA, GmmaMajor MB, bool kRS, int kScaleA = 1>
void run_wgmma(GmmaSwizzle sw_a, GmmaSwizzle sw_b, bool accumulate, unsigned seed) {
  SCOPED_TRACE(testing::Message() << (kRS ? "RS" : "SS") << (T == WgmmaType::bf16 ? " bf16" : " f16") << " N=" << N
                                  << " A " << (kRS ? std::string("registers") : smem_atom_name(MA, sw_a)) << " B "
                                  << smem_atom_name(MB, sw_b) << (accumulate ? " D=C+AB" : " D=AB")
                                  << (kScaleA < 0 ? " (A negated)" : ""));
  std::mt19937 rng(seed);
  const std::vector<int> a = random_ints(64 * kK, rng);
  const std::vector<int> b = random_ints(static_cast<std::size_t>(N) * kK, rng);
  const std::vector<int> c = random_ints(static_cast<std::size_t>(64) * N, rng);

  HostOperand ha;
  if (!kRS) {
    ha = build_operand<T>(MA, sw_a, 64, a);
    ASSERT_TRUE(ha.error.empty()) << ha.error;
    ASSERT_EQ(ha.image.size() * 2 % 1024, 0u);
  }
  const HostOperand hb = build_operand<T>(MB, sw_b, N, b);
  ASSERT_TRUE(hb.error.empty()) << hb.error;
  std::vector<std::uint16_t> a_rowmajor(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) a_rowmajor[i] = to_bits<T>(a[i]);
  std::vector<float> c_host(c.begin(), c.end());

  DeviceArray<std::uint16_t> d_a_image(kRS ? 1 : ha.image.size()), d_a_rowmajor(a_rowmajor.size()),
      d_b_image(hb.image.size());
  DeviceArray<float> d_c(c_host.size()), d_d(c_host.size());
  ASSERT_TRUE(d_a_image.ptr && d_a_rowmajor.ptr && d_b_image.ptr && d_c.ptr && d_d.ptr);
  if (!kRS) CUDA_CHECK(d_a_image.upload(ha.image));
  CUDA_CHECK(d_a_rowmajor.upload(a_rowmajor));
  CUDA_CHECK(d_b_image.upload(hb.image));
  CUDA_CHECK(d_c.upload(c_host));
  CUDA_CHECK(d_d.fill_bytes(0xFF));  // NaN: an element the kernel does not write shows

  WgmmaArgs args{};
  args.a_image = d_a_image.ptr;
  args.a_rowmajor = d_a_rowmajor.ptr;
  args.b_image = d_b_image.ptr;
  args.a_image_elems = static_cast<std::uint32_t>(kRS ? 0 : ha.image.size());
  args.b_image_elems = static_cast<std::uint32_t>(hb.image.size());
  args.a_lbo = ha.lbo;
  args.a_sbo = ha.sbo;
  args.a_swizzle = ha.swizzle;
  args.b_lbo = hb.lbo;
  args.b_sbo = hb.sbo;
  args.b_swizzle = hb.swizzle;
  for (int s = 0; s < kKSteps; ++s) {
    args.a_koff[s] = ha.koff[s];
    args.b_koff[s] = hb.koff[s];
  }
  args.c = d_c.ptr;
  args.d = d_d.ptr;
  args.accumulate = accumulate ? 1 : 0;

  const std::size_t smem = 1024 + 2 * (args.a_image_elems + args.b_image_elems);
  wgmma_kernel<T, N, MA, MB, kRS, kScaleA><<<1, 128, smem>>>(args);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> got;
  CUDA_CHECK(d_d.download(got));

  int mismatches = 0;
  for (int m = 0; m < 64; ++m)
    for (int n = 0; n < N; ++n) {
      int want = accumulate ? c[static_cast<std::size_t>(m * N + n)] : 0;
      for (int k = 0; k < kK; ++k)
        want += kScaleA * a[static_cast<std::size_t>(m * kK + k)] * b[static_cast<std::size_t>(n * kK + k)];
      const float g = got[static_cast<std::size_t>(m * N + n)];
      if (g != static_cast<float>(want) && mismatches++ < 5)
        ADD_FAILURE() << "D(" << m << "," << n << ") = " << g << ", expected " << want;
    }
  EXPECT_EQ(mismatches, 0) << "mismatching elements of the 64 x " << N << " result";
}

template <WgmmaType T, bool kRS, int... Is>
void run_every_n(std::integer_sequence<int, Is...>) {
  (run_wgmma<T, 8 * (Is + 1), GmmaMajor::k, GmmaMajor::k, kRS>(GmmaSwizzle::sw128, GmmaSwizzle::sw128, true,
                                                               1000u + static_cast<unsigned>(Is)),
   ...);
}

}  // namespace

// -------------------------------------------- RS: A from registers (§7.3), B K-major 128B swizzle
TEST(WgmmaRS, Bf16N8) {
  REQUIRE_GPU();
  run_wgmma<WgmmaType::bf16, 8, GmmaMajor::k, GmmaMajor::k, true>(GmmaSwizzle::sw128, GmmaSwizzle::sw128, true, 1);
}
TEST(WgmmaRS, Bf16N64) {
  REQUIRE_GPU();
  run_wgmma<WgmmaType::bf16, 64, GmmaMajor::k, GmmaMajor::k, true>(GmmaSwizzle::sw128, GmmaSwizzle::sw128, true, 2);
}
TEST(WgmmaRS, Bf16N128) {
  REQUIRE_GPU();
  run_wgmma<WgmmaType::bf16, 128, GmmaMajor::k, GmmaMajor::k, true>(GmmaSwizzle::sw128, GmmaSwizzle::sw128, true, 3);
}
TEST(WgmmaRS, Bf16N256) {
  REQUIRE_GPU();
  run_wgmma<WgmmaType::bf16, 256, GmmaMajor::k, GmmaMajor::k, true>(GmmaSwizzle::sw128, GmmaSwizzle::sw128, true, 4);
}
TEST(WgmmaRS, Bf16N64ScaleDFalseIgnoresC) {
  REQUIRE_GPU();
  run_wgmma<WgmmaType::bf16, 64, GmmaMajor::k, GmmaMajor::k, true>(GmmaSwizzle::sw128, GmmaSwizzle::sw128, false, 5);
}
TEST(WgmmaRS, Bf16N128BMnMajor64B) {
  REQUIRE_GPU();
  run_wgmma<WgmmaType::bf16, 128, GmmaMajor::k, GmmaMajor::mn, true>(GmmaSwizzle::sw128, GmmaSwizzle::sw64, true, 6);
}
TEST(WgmmaRS, F16N128) {
  REQUIRE_GPU();
  run_wgmma<WgmmaType::f16, 128, GmmaMajor::k, GmmaMajor::k, true>(GmmaSwizzle::sw128, GmmaSwizzle::sw128, true, 7);
}

// -------------------------------------------- SS: both operands through descriptors (§8)
TEST(WgmmaSS, Bf16N8KMajor128B) {
  REQUIRE_GPU();
  run_wgmma<WgmmaType::bf16, 8, GmmaMajor::k, GmmaMajor::k, false>(GmmaSwizzle::sw128, GmmaSwizzle::sw128, true, 11);
}
TEST(WgmmaSS, Bf16N64KMajor128B) {
  REQUIRE_GPU();
  run_wgmma<WgmmaType::bf16, 64, GmmaMajor::k, GmmaMajor::k, false>(GmmaSwizzle::sw128, GmmaSwizzle::sw128, true, 12);
}
TEST(WgmmaSS, Bf16N128KMajor128B) {
  REQUIRE_GPU();
  run_wgmma<WgmmaType::bf16, 128, GmmaMajor::k, GmmaMajor::k, false>(GmmaSwizzle::sw128, GmmaSwizzle::sw128, true, 13);
}
TEST(WgmmaSS, Bf16N256KMajor128B) {
  REQUIRE_GPU();
  run_wgmma<WgmmaType::bf16, 256, GmmaMajor::k, GmmaMajor::k, false>(GmmaSwizzle::sw128, GmmaSwizzle::sw128, true, 14);
}
TEST(WgmmaSS, Bf16N64EverySmemLayout) {
  // A and B in each of the 8 layouts of §8.4 (K- and MN-major x none/32B/64B/128B).
  REQUIRE_GPU();
  for (GmmaSwizzle sw : {GmmaSwizzle::none, GmmaSwizzle::sw32, GmmaSwizzle::sw64, GmmaSwizzle::sw128}) {
    run_wgmma<WgmmaType::bf16, 64, GmmaMajor::k, GmmaMajor::k, false>(sw, sw, true, 20);
    run_wgmma<WgmmaType::bf16, 64, GmmaMajor::mn, GmmaMajor::mn, false>(sw, sw, true, 21);
  }
}
TEST(WgmmaSS, Bf16N128KMajorNoSwizzle) {
  REQUIRE_GPU();
  run_wgmma<WgmmaType::bf16, 128, GmmaMajor::k, GmmaMajor::k, false>(GmmaSwizzle::none, GmmaSwizzle::none, true, 22);
}
TEST(WgmmaSS, Bf16N256MnMajor128BAcrossMnBlocks) {
  // B is four 64-element MN blocks wide: LBO (MN-major, swizzled) is used.
  REQUIRE_GPU();
  run_wgmma<WgmmaType::bf16, 256, GmmaMajor::k, GmmaMajor::mn, false>(GmmaSwizzle::sw128, GmmaSwizzle::sw128, true, 23);
}
TEST(WgmmaSS, Bf16N128MnMajor32BAnd64B) {
  REQUIRE_GPU();
  run_wgmma<WgmmaType::bf16, 128, GmmaMajor::mn, GmmaMajor::mn, false>(GmmaSwizzle::sw64, GmmaSwizzle::sw32, true, 24);
}
TEST(WgmmaSS, Bf16N256MnMajorNoSwizzle) {
  REQUIRE_GPU();
  run_wgmma<WgmmaType::bf16, 256, GmmaMajor::mn, GmmaMajor::mn, false>(GmmaSwizzle::none, GmmaSwizzle::none, true, 25);
}
TEST(WgmmaSS, Bf16N128ScaleDFalseIgnoresC) {
  REQUIRE_GPU();
  run_wgmma<WgmmaType::bf16, 128, GmmaMajor::k, GmmaMajor::k, false>(GmmaSwizzle::sw128, GmmaSwizzle::sw128, false, 26);
}
TEST(WgmmaSS, Bf16N64NegatedA) {
  REQUIRE_GPU();
  run_wgmma<WgmmaType::bf16, 64, GmmaMajor::k, GmmaMajor::k, false, -1>(GmmaSwizzle::sw128, GmmaSwizzle::sw128, true,
                                                                        27);
}
TEST(WgmmaSS, F16N128KMajor128B) {
  REQUIRE_GPU();
  run_wgmma<WgmmaType::f16, 128, GmmaMajor::k, GmmaMajor::k, false>(GmmaSwizzle::sw128, GmmaSwizzle::sw128, true, 28);
}
TEST(WgmmaSS, F16N64MnMajor128B) {
  REQUIRE_GPU();
  run_wgmma<WgmmaType::f16, 64, GmmaMajor::mn, GmmaMajor::mn, false>(GmmaSwizzle::sw128, GmmaSwizzle::sw128, true, 29);
}

// -------------------------------------------- every generated shape, both types, both forms
TEST(WgmmaEveryN, SsBf16) {
  REQUIRE_GPU();
  run_every_n<WgmmaType::bf16, false>(std::make_integer_sequence<int, 32>{});
}
TEST(WgmmaEveryN, RsBf16) {
  REQUIRE_GPU();
  run_every_n<WgmmaType::bf16, true>(std::make_integer_sequence<int, 32>{});
}
TEST(WgmmaEveryN, SsF16) {
  REQUIRE_GPU();
  run_every_n<WgmmaType::f16, false>(std::make_integer_sequence<int, 32>{});
}
TEST(WgmmaEveryN, RsF16) {
  REQUIRE_GPU();
  run_every_n<WgmmaType::f16, true>(std::make_integer_sequence<int, 32>{});
}

// ================================================================ TMA (§10)
//
// What the H200 did where the PTX ISA is silent (docs/hardware.md §10.2 and
// §16.14; tma_probe runs, 2026-11-22; see the TMA comment in tessel/arch/sm90.hpp):
//  * the innermost coordinate c0 times the element size must be a multiple of
//    16 bytes, for loads and stores ("illegal instruction" at c0 = 4 or 196
//    bf16; never at multiples of 8);
//  * stores must not start at a negative coordinate in any dimension
//    ("illegal instruction" at (0,-1), (-8,0), (-16,-5)); loads may;
//  * a store clips dimension 0 at 16-byte granularity: the 16-byte chunk
//    holding the last element of a row is written whole, so elements
//    [dim0, round_up(dim0 * 2 B, 16 B) / 2 B) of the row padding are written
//    (here 196..199 of the 2-D rows and 76..79 of the 3-D rows); loads zero-fill
//    exactly from dim0 on.
// Every case respects the first two; the expectations encode the third.

namespace {

constexpr std::uint16_t kSmemPoison = 0xBEEF;  // shared memory before a load: bytes the load must not touch
constexpr std::uint16_t kGmemPoison = 0xDEAD;  // the output tensor before stores
constexpr std::uint16_t kPadding = 0x7777;     // input row padding (never inside the tensor)
constexpr int kMaxPositions = 3;

struct TmaArgs {
  int rank;
  int npos;        // boxes loaded one after the other through one mbarrier
  int store_back;  // 1: TMA-store each loaded box to `out` at the same coordinates
  int coord[kMaxPositions][3];
  std::uint32_t box_bytes;    // the whole box, out-of-bounds part included
  std::uint32_t image_elems;  // shared-memory footprint of the box
  std::uint16_t* dump;        // npos x image_elems
  int* completed;             // per position: 1 when the load's mbarrier phase completed
};

/// try_wait in a bounded loop: a wrong transaction count fails the test
/// instead of hanging the GPU.
__device__ bool wait_bounded(std::uint32_t bar, std::uint32_t parity) {
  for (int i = 0; i < (1 << 20); ++i)
    if (sm90::mbarrier_try_wait_parity(bar, parity)) return true;
  return false;
}

/// For each position: poison the buffer, TMA-load the box (one mbarrier, the
/// parity flipping 0, 1, 0), dump the buffer, and (store_back) TMA-store it to
/// `out` at the same coordinates.
__global__ void __launch_bounds__(128)
    tma_round_trip(const __grid_constant__ CUtensorMap in, const __grid_constant__ CUtensorMap out, TmaArgs args) {
  __shared__ alignas(8) std::uint64_t bar_storage;
  extern __shared__ std::uint8_t smem_raw[];
  const std::uint32_t raw = sm90::smem_addr(smem_raw);
  auto* buf = reinterpret_cast<std::uint16_t*>(smem_raw + (((raw + 1023u) & ~1023u) - raw));
  const std::uint32_t dst = sm90::smem_addr(buf);
  const std::uint32_t bar = sm90::smem_addr(&bar_storage);
  const int t = static_cast<int>(threadIdx.x);
  if (t == 0) {
    sm90::prefetch_tensormap(&in);
    sm90::prefetch_tensormap(&out);
    sm90::mbarrier_init(bar, 1);
    sm90::fence_mbarrier_init();
  }
  __syncthreads();
  std::uint32_t phase = 0;
  for (int p = 0; p < args.npos; ++p) {
    for (std::uint32_t i = static_cast<std::uint32_t>(t); i < args.image_elems; i += 128) buf[i] = kSmemPoison;
    // Generic writes, then async-proxy writes of the same bytes with no
    // mbarrier handshake in between: §12.3.
    sm90::fence_proxy_async_shared_cta();
    __syncthreads();
    const int* c = args.coord[p];
    if (t < 32 && sm90::elect_one_sync()) {
      sm90::mbarrier_arrive_expect_tx(bar, args.box_bytes);
      if (args.rank == 2)
        sm90::tma_load(dst, &in, bar, c[0], c[1]);
      else
        sm90::tma_load(dst, &in, bar, c[0], c[1], c[2]);
    }
    const bool done = wait_bounded(bar, phase);
    phase ^= 1;
    if (t == 0) args.completed[p] = done ? 1 : 0;
    for (std::uint32_t i = static_cast<std::uint32_t>(t); i < args.image_elems; i += 128)
      args.dump[static_cast<std::size_t>(p) * args.image_elems + i] = buf[i];
    __syncthreads();
    // The box was written by the async proxy and is read by it again: no
    // proxy fence.  The store must have read it before the next poisoning.
    if (args.store_back != 0 && t < 32 && sm90::elect_one_sync()) {
      if (args.rank == 2)
        sm90::tma_store(&out, dst, c[0], c[1]);
      else
        sm90::tma_store(&out, dst, c[0], c[1], c[2]);
      sm90::bulk_commit_group();
      sm90::bulk_wait_group_read<0>();
      sm90::bulk_wait_group<0>();
    }
    __syncthreads();
  }
}

struct StoreArgs {
  int rank;
  int coord[3];
  int box[3];
  int pitch;      // elements from one box row to the next in shared memory
  int swizzle_b;  // B of the element-unit swizzle Sw<B,3,3>
};

/// Threads write a code into every box element at its swizzled place, then
/// one thread TMA-stores the box: the store's reading of the image is checked
/// independently of the load.
__global__ void __launch_bounds__(128) tma_store_from_threads(const __grid_constant__ CUtensorMap out, StoreArgs args) {
  extern __shared__ std::uint8_t smem_raw[];
  const std::uint32_t raw = sm90::smem_addr(smem_raw);
  auto* buf = reinterpret_cast<std::uint16_t*>(smem_raw + (((raw + 1023u) & ~1023u) - raw));
  const int t = static_cast<int>(threadIdx.x);
  const int n = args.box[0] * args.box[1] * args.box[2];
  const Swizzle sw{args.swizzle_b, 3, 3};
  for (int i = t; i < n; i += 128) {
    const int x = i % args.box[0], y = (i / args.box[0]) % args.box[1], z = i / (args.box[0] * args.box[1]);
    buf[sw((z * args.box[1] + y) * args.pitch + x)] = static_cast<std::uint16_t>(0x8000 | i);
  }
  // Generic writes read by a TMA store: fence, barrier, then one thread (§12.1).
  sm90::fence_proxy_async_shared_cta();
  __syncthreads();
  if (t < 32 && sm90::elect_one_sync()) {
    if (args.rank == 2)
      sm90::tma_store(&out, sm90::smem_addr(buf), args.coord[0], args.coord[1]);
    else
      sm90::tma_store(&out, sm90::smem_addr(buf), args.coord[0], args.coord[1], args.coord[2]);
    sm90::bulk_commit_group();
    sm90::bulk_wait_group<0>();
  }
}

/// A global bf16 tensor (rank 2 or 3) with padded rows.  The inner extents
/// (196, 76) are not multiples of 8 elements, so that a box starting on a
/// 16-byte-aligned coordinate can still cross the far end.
struct TensorShape {
  int rank;
  std::int64_t dim[3];
  std::int64_t stride[3];  // elements
  std::size_t elems() const { return static_cast<std::size_t>(stride[rank - 1] * dim[rank - 1]); }
  bool inside(std::int64_t x, std::int64_t y, std::int64_t z) const {
    return x >= 0 && x < dim[0] && y >= 0 && y < dim[1] && z >= 0 && z < (rank == 3 ? dim[2] : 1);
  }
  std::size_t offset(std::int64_t x, std::int64_t y, std::int64_t z) const {
    return static_cast<std::size_t>(x + y * stride[1] + (rank == 3 ? z * stride[2] : 0));
  }
  /// Whether a TMA store of a box element at (x, y, z) writes memory: inside
  /// in dimensions 1 and 2, and in dimension 0 below the 16-byte boundary
  /// after the row's last element (the padding up to it is written).
  bool store_writes(std::int64_t x, std::int64_t y, std::int64_t z) const {
    const std::int64_t dim0_chunks = (dim[0] * 2 + 15) / 16 * 8;  // elements, bf16
    return x >= 0 && x < dim0_chunks && y >= 0 && y < dim[1] && z >= 0 && z < (rank == 3 ? dim[2] : 1);
  }
  /// The value of an element: never 0 (the zero fill), never a poison.
  std::uint16_t code(std::int64_t x, std::int64_t y, std::int64_t z) const {
    return static_cast<std::uint16_t>(1 + x + dim[0] * (y + dim[1] * z));
  }
};
// 196 x 100 (rows of 392 B, 400 B apart) and 76 x 40 x 6 (rows 160 B apart, planes 6416 B apart).
constexpr TensorShape kTensor2{2, {196, 100, 1}, {1, 200, 0}};
constexpr TensorShape kTensor3{3, {76, 40, 6}, {1, 80, 3208}};

struct TmaCase {
  const TensorShape* tensor;
  int box[3];
  CUtensorMapSwizzle swizzle;
};
using Position = std::array<int, 3>;

int swizzle_b(CUtensorMapSwizzle s) {
  return s == CU_TENSOR_MAP_SWIZZLE_32B    ? 1
         : s == CU_TENSOR_MAP_SWIZZLE_64B  ? 2
         : s == CU_TENSOR_MAP_SWIZZLE_128B ? 3
                                           : 0;
}
const char* swizzle_name(CUtensorMapSwizzle s) {
  return s == CU_TENSOR_MAP_SWIZZLE_32B    ? "32B"
         : s == CU_TENSOR_MAP_SWIZZLE_64B  ? "64B"
         : s == CU_TENSOR_MAP_SWIZZLE_128B ? "128B"
                                           : "none";
}

/// Rows of the box in shared memory are `pitch` elements apart: the inner
/// extent without swizzle; a whole swizzle span with one, also when the inner
/// extent is narrower (§10.2, observed on the H200).
int image_pitch(const TmaCase& c) {
  const int b = swizzle_b(c.swizzle);
  return b == 0 ? c.box[0] : (16 << b) / 2;
}

/// The expected shared-memory image: element (x, y, z) of the box at
/// Sw<B,3,3>((z * box1 + y) * pitch + x), zero outside the tensor, poison in
/// the bytes the box does not cover.
std::vector<std::uint16_t> expected_image(const TmaCase& c, const Position& at) {
  const int pitch = image_pitch(c);
  const int rows = c.box[1] * c.box[2];
  const SwizzledLayout img =
      compose(Swizzle{swizzle_b(c.swizzle), 3, 3},
              make_layout(make_shape(c.box[0], c.box[1], c.box[2]), make_stride(1, pitch, pitch * c.box[1])));
  std::vector<std::uint16_t> e(static_cast<std::size_t>(rows * pitch), kSmemPoison);
  const TensorShape& ts = *c.tensor;
  for (int z = 0; z < c.box[2]; ++z)
    for (int y = 0; y < c.box[1]; ++y)
      for (int x = 0; x < c.box[0]; ++x) {
        const std::int64_t gx = at[0] + x, gy = at[1] + y, gz = at[2] + z;
        e[static_cast<std::size_t>(img(index_t{x}, index_t{y}, index_t{z}))] =
            ts.inside(gx, gy, gz) ? ts.code(gx, gy, gz) : std::uint16_t{0};
      }
  return e;
}

TensorMapSpec tma_spec(const TmaCase& c, const void* base) {
  TensorMapSpec s;
  s.dtype = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  s.rank = c.tensor->rank;
  s.global_address = base;
  for (int d = 0; d < s.rank; ++d) {
    s.global_dim[static_cast<std::size_t>(d)] = static_cast<std::uint64_t>(c.tensor->dim[d]);
    s.global_stride_bytes[static_cast<std::size_t>(d)] = static_cast<std::uint64_t>(2 * c.tensor->stride[d]);
    s.box_dim[static_cast<std::size_t>(d)] = static_cast<std::uint32_t>(c.box[d]);
  }
  s.swizzle = c.swizzle;
  return s;
}

int round_down8(int x) { return x >= 0 ? x / 8 * 8 : -((-x + 7) / 8 * 8); }

/// The round-trip positions: the origin, a box half past the far end in every
/// dimension (c0 rounded down to a 16-byte boundary), and an interior box
/// (the third use of the mbarrier, parity 0 again).
std::vector<Position> round_trip_positions(const TmaCase& c) {
  const TensorShape& ts = *c.tensor;
  Position far{}, inner{};
  for (int d = 0; d < ts.rank; ++d) {
    const int extent = static_cast<int>(ts.dim[d]);
    far[static_cast<std::size_t>(d)] = extent - c.box[d] / 2;
    inner[static_cast<std::size_t>(d)] = d == 0 ? 8 : 1;
  }
  far[0] = round_down8(far[0]);
  return {Position{0, 0, 0}, far, inner};
}

/// Loads at negative coordinates: before the origin in every dimension, and
/// in one dimension only.
std::vector<Position> negative_positions(const TmaCase& c) {
  const TensorShape& ts = *c.tensor;
  Position all{}, outer{}, inner{};
  for (int d = 0; d < ts.rank; ++d) all[static_cast<std::size_t>(d)] = -(c.box[d] / 2);
  all[0] = round_down8(all[0]);
  outer[1] = -1;
  inner[0] = -8;
  return {all, outer, inner};
}

/// Loads the box of case `c` at each position (checking every shared-memory
/// image), stores it back when `store_back` (checking the output tensor), and
/// stores a thread-written box at the second position when `store_back`.
void run_tma_case(const TmaCase& c, const std::vector<Position>& positions, bool store_back) {
  const TensorShape& ts = *c.tensor;
  SCOPED_TRACE(testing::Message() << ts.rank << "-D box (" << c.box[0] << "," << c.box[1] << "," << c.box[2]
                                  << ") swizzle " << swizzle_name(c.swizzle));
  ASSERT_LE(positions.size(), static_cast<std::size_t>(kMaxPositions));
  const int npos = static_cast<int>(positions.size());

  std::vector<std::uint16_t> in_host(ts.elems(), kPadding);
  for (std::int64_t z = 0; z < (ts.rank == 3 ? ts.dim[2] : 1); ++z)
    for (std::int64_t y = 0; y < ts.dim[1]; ++y)
      for (std::int64_t x = 0; x < ts.dim[0]; ++x) in_host[ts.offset(x, y, z)] = ts.code(x, y, z);
  const int pitch = image_pitch(c);
  const std::uint32_t image_elems = static_cast<std::uint32_t>(c.box[1] * c.box[2] * pitch);

  DeviceArray<std::uint16_t> d_in(ts.elems()), d_out(ts.elems()), d_out2(ts.elems()),
      d_dump(static_cast<std::size_t>(npos) * image_elems);
  DeviceArray<int> d_completed(static_cast<std::size_t>(npos));
  ASSERT_TRUE(d_in.ptr && d_out.ptr && d_out2.ptr && d_dump.ptr && d_completed.ptr);
  CUDA_CHECK(d_in.upload(in_host));
  const std::vector<std::uint16_t> poison(ts.elems(), kGmemPoison);
  CUDA_CHECK(d_out.upload(poison));
  CUDA_CHECK(d_out2.upload(poison));
  CUDA_CHECK(d_dump.fill_bytes(0x11));
  CUDA_CHECK(d_completed.fill_bytes(0));

  CUtensorMap in_map, out_map, out2_map;
  for (auto [map, ptr] :
       {std::pair{&in_map, d_in.ptr}, std::pair{&out_map, d_out.ptr}, std::pair{&out2_map, d_out2.ptr}}) {
    const TensorMapStatus st = arch::sm90::encode_tiled(*map, tma_spec(c, ptr));
    ASSERT_TRUE(st.ok()) << st.message;
  }

  TmaArgs args{};
  args.rank = ts.rank;
  args.npos = npos;
  args.store_back = store_back ? 1 : 0;
  for (int p = 0; p < npos; ++p)
    for (int d = 0; d < 3; ++d) args.coord[p][d] = positions[static_cast<std::size_t>(p)][static_cast<std::size_t>(d)];
  args.box_bytes = static_cast<std::uint32_t>(2 * c.box[0] * c.box[1] * c.box[2]);
  args.image_elems = image_elems;
  args.dump = d_dump.ptr;
  args.completed = d_completed.ptr;
  const std::size_t smem = 1024 + 2 * std::size_t{image_elems};
  tma_round_trip<<<1, 128, smem>>>(in_map, out_map, args);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());

  if (store_back) {
    StoreArgs sargs{};
    sargs.rank = ts.rank;
    for (int d = 0; d < 3; ++d) {
      sargs.coord[d] = positions[1][static_cast<std::size_t>(d)];
      sargs.box[d] = c.box[d];
    }
    sargs.pitch = pitch;
    sargs.swizzle_b = swizzle_b(c.swizzle);
    tma_store_from_threads<<<1, 128, smem>>>(out2_map, sargs);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
  }

  std::vector<int> completed;
  std::vector<std::uint16_t> dump, out_host, out2_host;
  CUDA_CHECK(d_completed.download(completed));
  CUDA_CHECK(d_dump.download(dump));
  CUDA_CHECK(d_out.download(out_host));
  CUDA_CHECK(d_out2.download(out2_host));

  // 1. Shared-memory image of every load (zero fill, swizzle, untouched padding).
  for (int p = 0; p < npos; ++p) {
    const Position& at = positions[static_cast<std::size_t>(p)];
    EXPECT_EQ(completed[static_cast<std::size_t>(p)], 1)
        << "load " << p << ": the mbarrier phase (expecting the whole box, " << args.box_bytes
        << " bytes) did not complete";
    const std::vector<std::uint16_t> want = expected_image(c, at);
    int bad = 0;
    for (std::uint32_t i = 0; i < image_elems; ++i) {
      const std::uint16_t g = dump[static_cast<std::size_t>(p) * image_elems + i];
      if (g != want[i] && bad++ < 5)
        ADD_FAILURE() << "load at (" << at[0] << "," << at[1] << "," << at[2] << "): smem element " << i << " (row "
                      << i / static_cast<std::uint32_t>(pitch) << ", slot " << i % static_cast<std::uint32_t>(pitch)
                      << ") = 0x" << std::hex << g << ", expected 0x" << want[i] << std::dec;
    }
    EXPECT_EQ(bad, 0) << "mismatching smem elements after the load at (" << at[0] << "," << at[1] << "," << at[2]
                      << ")";
  }

  // 2. Round trip: the output holds the input exactly on the union of the boxes
  //    inside the tensor, the loads' zero fill on the row padding up to the
  //    16-byte boundary (store_writes), and poison everywhere else (the rest
  //    of the padding included); without store_back it is untouched.
  // 3. Store from thread-written smem: codes exactly where box 1 is stored.
  std::vector<std::uint16_t> want_out(ts.elems(), kGmemPoison), want_out2(ts.elems(), kGmemPoison);
  for (int p = 0; store_back && p < npos; ++p) {
    const Position& at = positions[static_cast<std::size_t>(p)];
    for (int z = 0; z < c.box[2]; ++z)
      for (int y = 0; y < c.box[1]; ++y)
        for (int x = 0; x < c.box[0]; ++x) {
          const std::int64_t gx = at[0] + x, gy = at[1] + y, gz = at[2] + z;
          if (!ts.store_writes(gx, gy, gz)) continue;
          want_out[ts.offset(gx, gy, gz)] = ts.inside(gx, gy, gz) ? ts.code(gx, gy, gz) : std::uint16_t{0};
          if (p == 1)
            want_out2[ts.offset(gx, gy, gz)] = static_cast<std::uint16_t>(0x8000 | (x + c.box[0] * (y + c.box[1] * z)));
        }
  }
  for (int which = 0; which < 2; ++which) {
    const auto& got = which == 0 ? out_host : out2_host;
    const auto& want = which == 0 ? want_out : want_out2;
    const char* what = which == 0 ? "round trip" : "store from threads";
    int bad = 0;
    for (std::size_t i = 0; i < got.size(); ++i)
      if (got[i] != want[i] && bad++ < 5)
        ADD_FAILURE() << what << ": global element " << i << " = 0x" << std::hex << got[i] << ", expected 0x" << want[i]
                      << std::dec;
    EXPECT_EQ(bad, 0) << what << ": mismatching global elements";
  }
}

const TmaCase kCases2D[] = {
    {&kTensor2, {64, 32, 1}, CU_TENSOR_MAP_SWIZZLE_NONE}, {&kTensor2, {8, 16, 1}, CU_TENSOR_MAP_SWIZZLE_NONE},
    {&kTensor2, {16, 32, 1}, CU_TENSOR_MAP_SWIZZLE_32B},  {&kTensor2, {32, 32, 1}, CU_TENSOR_MAP_SWIZZLE_64B},
    {&kTensor2, {64, 32, 1}, CU_TENSOR_MAP_SWIZZLE_128B},
};
// 6 rows per plane: the swizzle phase runs on across planes (it acts on the
// linear shared-memory address).
const TmaCase kCases3D[] = {
    {&kTensor3, {32, 6, 4}, CU_TENSOR_MAP_SWIZZLE_NONE},
    {&kTensor3, {16, 6, 4}, CU_TENSOR_MAP_SWIZZLE_32B},
    {&kTensor3, {32, 6, 4}, CU_TENSOR_MAP_SWIZZLE_64B},
    {&kTensor3, {64, 6, 4}, CU_TENSOR_MAP_SWIZZLE_128B},
};
// §10.2: each box row still occupies a whole span (observed for 64 B rows
// with 128B swizzle); checked here for every swizzle and in 3-D.
const TmaCase kCasesNarrow[] = {
    {&kTensor2, {32, 32, 1}, CU_TENSOR_MAP_SWIZZLE_128B},
    {&kTensor2, {16, 16, 1}, CU_TENSOR_MAP_SWIZZLE_64B},
    {&kTensor2, {8, 16, 1}, CU_TENSOR_MAP_SWIZZLE_32B},
    {&kTensor3, {32, 6, 4}, CU_TENSOR_MAP_SWIZZLE_128B},
};

}  // namespace

TEST(Tma, Load2DStore2DEverySwizzle) {
  REQUIRE_GPU();
  for (const TmaCase& c : kCases2D) run_tma_case(c, round_trip_positions(c), true);
}

TEST(Tma, Load3DStore3DEverySwizzle) {
  REQUIRE_GPU();
  for (const TmaCase& c : kCases3D) run_tma_case(c, round_trip_positions(c), true);
}

TEST(Tma, InnerBoxNarrowerThanTheSwizzleSpan) {
  REQUIRE_GPU();
  for (const TmaCase& c : kCasesNarrow) run_tma_case(c, round_trip_positions(c), true);
}

// ================================================================ mbarrier, elect.sync, setmaxnreg

namespace {

/// 128 threads write a slot, arrive, wait for the phase, and check every slot
/// (release/acquire through the barrier), for several phases of one barrier.
__global__ void __launch_bounds__(128) mbarrier_phases(int* ok, int phases) {
  __shared__ alignas(8) std::uint64_t bar_storage;
  __shared__ int slots[128];
  const std::uint32_t bar = sm90::smem_addr(&bar_storage);
  const int t = static_cast<int>(threadIdx.x);
  if (t == 0) {
    sm90::mbarrier_init(bar, 128);
    sm90::fence_mbarrier_init();
  }
  __syncthreads();
  for (int p = 0; p < phases; ++p) {
    slots[t] = 1000 * p + t;
    sm90::mbarrier_arrive(bar);
    sm90::mbarrier_wait_parity(bar, static_cast<std::uint32_t>(p & 1));
    int good = 1;
    for (int j = 0; j < 128; ++j) good &= slots[j] == 1000 * p + j ? 1 : 0;
    ok[p * 128 + t] = good;
    __syncthreads();  // every check of phase p is done before phase p+1 writes
  }
}

/// Per lane: elected with the full mask; elected with lanes 5..31 only (-1:
/// lane not in the mask).
__global__ void elect_lanes(int* full, int* partial) {
  const int t = static_cast<int>(threadIdx.x);
  full[t] = sm90::elect_one_sync() ? 1 : 0;
  int p = -1;
  if (t % 32 >= 5) p = sm90::elect_one_sync(0xFFFFFFE0u) ? 1 : 0;
  partial[t] = p;
}

/// The §13 budget: 384 threads launched at 168 registers; the producer
/// warpgroup gives registers back (40), the two consumers take them (232).
__global__ void __launch_bounds__(384, 1) setmaxnreg_split(int* out) {
  const int wg = static_cast<int>(threadIdx.x) / 128;
  if (wg == 0)
    sm90::setmaxnreg_dec<40>();
  else
    sm90::setmaxnreg_inc<232>();
  out[threadIdx.x] = wg + 1;
}

}  // namespace

TEST(Mbarrier, ArriveAndWaitOverPhases) {
  REQUIRE_GPU();
  constexpr int kPhases = 5;
  DeviceArray<int> ok(kPhases * 128);
  ASSERT_NE(ok.ptr, nullptr);
  CUDA_CHECK(ok.fill_bytes(0xFF));
  mbarrier_phases<<<1, 128>>>(ok.ptr, kPhases);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<int> h;
  CUDA_CHECK(ok.download(h));
  for (int i = 0; i < kPhases * 128; ++i)
    ASSERT_EQ(h[static_cast<std::size_t>(i)], 1) << "phase " << i / 128 << " thread " << i % 128;
}

TEST(ElectSync, ExactlyOneLanePerWarp) {
  REQUIRE_GPU();
  DeviceArray<int> full(128), partial(128);
  ASSERT_TRUE(full.ptr && partial.ptr);
  CUDA_CHECK(full.fill_bytes(0x7F));
  CUDA_CHECK(partial.fill_bytes(0x7F));
  elect_lanes<<<1, 128>>>(full.ptr, partial.ptr);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<int> f, p;
  CUDA_CHECK(full.download(f));
  CUDA_CHECK(partial.download(p));
  for (int w = 0; w < 4; ++w) {
    int nf = 0, np = 0, lf = -1, lp = -1;
    for (int l = 0; l < 32; ++l) {
      const std::size_t i = static_cast<std::size_t>(32 * w + l);
      ASSERT_TRUE(f[i] == 0 || f[i] == 1) << "lane " << l << " not written";
      if (f[i] == 1) {
        ++nf;
        lf = l;
      }
      if (l < 5) {
        ASSERT_EQ(p[i], -1) << "lane " << l << " is outside the mask";
      } else {
        ASSERT_TRUE(p[i] == 0 || p[i] == 1) << "lane " << l << " not written";
        if (p[i] == 1) {
          ++np;
          lp = l;
        }
      }
    }
    EXPECT_EQ(nf, 1) << "warp " << w << ", full mask";
    EXPECT_EQ(np, 1) << "warp " << w << ", mask 0xffffffe0";
    if (w == 0)
      std::printf("elect.sync winners (not promised by the ISA): full mask lane %d, mask 0xffffffe0 lane %d\n", lf, lp);
  }
}

TEST(Setmaxnreg, ProducerGivesConsumersTake) {
  REQUIRE_GPU();
  cudaFuncAttributes attr{};
  CUDA_CHECK(cudaFuncGetAttributes(&attr, setmaxnreg_split));
  // The budget needs the kernel launched at >= 168 registers per thread
  // (128*40 + 256*232 <= 384 * launch count); ptxas decides that count.
  if (attr.numRegs * 384 < 128 * 40 + 256 * 232)
    GTEST_SKIP() << "setmaxnreg_split was compiled for " << attr.numRegs
                 << " registers per thread, too few for the 40/232/232 split";
  DeviceArray<int> out(384);
  ASSERT_NE(out.ptr, nullptr);
  CUDA_CHECK(out.fill_bytes(0));
  setmaxnreg_split<<<1, 384>>>(out.ptr);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<int> h;
  CUDA_CHECK(out.download(h));
  for (int i = 0; i < 384; ++i) ASSERT_EQ(h[static_cast<std::size_t>(i)], i / 128 + 1) << "thread " << i;
  std::printf("setmaxnreg_split: launched at %d registers per thread\n", attr.numRegs);
}

// ================================================================ clusters (§14)

/// Two clusters of 2 CTAs.  CTA r of cluster c loads rows [32r, 32r+32) of
/// the cluster's 64-row block with one multicast TMA load into both CTAs, so
/// each CTA must end up with the whole block; then each CTA arrives on its
/// own and on its peer's `empty` barrier (count 2), which completes only when
/// the peer's remote arrival came.
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(32)
    cluster_multicast(const __grid_constant__ CUtensorMap in, std::uint16_t* out, int* info) {
  __shared__ alignas(8) std::uint64_t bars[2];
  extern __shared__ std::uint8_t smem_raw[];
  const std::uint32_t raw = sm90::smem_addr(smem_raw);
  auto* buf = reinterpret_cast<std::uint16_t*>(smem_raw + (((raw + 1023u) & ~1023u) - raw));  // (64, 64)
  const std::uint32_t full = sm90::smem_addr(&bars[0]), empty = sm90::smem_addr(&bars[1]);
  const int t = static_cast<int>(threadIdx.x);
  const std::uint32_t rank = sm90::cluster_ctarank(), peer = rank ^ 1u;
  const int cluster = static_cast<int>(blockIdx.x) / 2;
  for (int i = t; i < 64 * 64; i += 32) buf[i] = 0xFFFF;
  sm90::fence_proxy_async_shared_cta();
  if (t == 0) {
    sm90::mbarrier_init(full, 1);
    sm90::mbarrier_init(empty, 2);
    sm90::fence_mbarrier_init();
  }
  sm90::cluster_sync();  // the peer's multicast and arrive find initialized barriers
  if (sm90::elect_one_sync()) {
    sm90::mbarrier_arrive_expect_tx(full, 64 * 64 * 2);  // both halves land here
    sm90::tma_load_multicast(sm90::smem_addr(buf + 32 * 64 * rank), &in, full, 0x3, 0,
                             cluster * 64 + 32 * static_cast<int>(rank));
  }
  const bool loaded = wait_bounded(full, 0);
  for (int i = t; i < 64 * 64; i += 32) out[blockIdx.x * 64 * 64 + i] = buf[i];
  __syncwarp();
  if (t == 0) {
    sm90::mbarrier_arrive(empty);
    sm90::mbarrier_arrive_cluster(sm90::mapa_shared(empty, peer));
  }
  const bool released = wait_bounded(empty, 0);
  if (t == 0) {
    info[3 * blockIdx.x + 0] = static_cast<int>(rank);
    info[3 * blockIdx.x + 1] = loaded ? 1 : 0;
    info[3 * blockIdx.x + 2] = released ? 1 : 0;
  }
  sm90::cluster_sync();  // no CTA leaves while its peer may still arrive on its barrier
}

TEST(Cluster, MulticastLoadAndRemoteArrive) {
  REQUIRE_GPU();
  constexpr int kRows = 128, kCols = 64;
  std::vector<std::uint16_t> h(kRows * kCols);
  for (int i = 0; i < kRows * kCols; ++i) h[static_cast<std::size_t>(i)] = static_cast<std::uint16_t>(i * 7 + 1);
  DeviceArray<std::uint16_t> in(h.size()), out(4 * 64 * 64);
  DeviceArray<int> info(12);
  ASSERT_NE(in.ptr, nullptr);
  ASSERT_NE(out.ptr, nullptr);
  ASSERT_NE(info.ptr, nullptr);
  CUDA_CHECK(in.upload(h));
  CUDA_CHECK(out.fill_bytes(0));
  CUDA_CHECK(info.fill_bytes(0xFF));
  TensorMapSpec spec;
  spec.dtype = CU_TENSOR_MAP_DATA_TYPE_UINT16;
  spec.rank = 2;
  spec.global_address = in.ptr;
  spec.global_dim = {kCols, kRows, 1, 1, 1};
  spec.global_stride_bytes = {0, kCols * 2, 0, 0, 0};
  spec.box_dim = {64, 32, 1, 1, 1};
  CUtensorMap map;
  const TensorMapStatus st = arch::sm90::encode_tiled(map, spec);
  ASSERT_TRUE(st.ok()) << st.message;
  const int smem = 64 * 64 * 2 + 1024;
  CUDA_CHECK(cudaFuncSetAttribute(cluster_multicast, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  cluster_multicast<<<4, 32, smem>>>(map, out.ptr, info.ptr);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::uint16_t> got;
  std::vector<int> inf;
  CUDA_CHECK(out.download(got));
  CUDA_CHECK(info.download(inf));
  for (int b = 0; b < 4; ++b) {
    EXPECT_EQ(inf[static_cast<std::size_t>(3 * b)], b % 2) << "CTA " << b << ": %cluster_ctarank";
    EXPECT_EQ(inf[static_cast<std::size_t>(3 * b + 1)], 1) << "CTA " << b << ": the multicast halves did not complete";
    EXPECT_EQ(inf[static_cast<std::size_t>(3 * b + 2)], 1) << "CTA " << b << ": the peer's remote arrive never came";
    int bad = 0;
    for (int i = 0; i < 64 * 64; ++i) {
      const std::uint16_t want = h[static_cast<std::size_t>((b / 2) * 64 * 64 + i)];
      const std::uint16_t g = got[static_cast<std::size_t>(b * 64 * 64 + i)];
      if (g != want && bad++ < 5)
        ADD_FAILURE() << "CTA " << b << " element (" << i / 64 << "," << i % 64 << "): " << g << ", want " << want;
    }
  }
}

// Last, so that a fault here cannot take the other GPU tests' context with it:
// loads whose box starts before the origin (zero fill; §10.2).  Loads only:
// stores at negative coordinates fault (see the TMA section's comment).
TEST(TmaNegativeCoordinates, LoadsZeroFill) {
  REQUIRE_GPU();
  for (const TmaCase& c : kCases2D) run_tma_case(c, negative_positions(c), false);
  for (const TmaCase& c : kCases3D) run_tma_case(c, negative_positions(c), false);
}

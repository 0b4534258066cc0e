// tessel/arch/sm90_tensor_map.hpp — building TMA tensor maps (CUtensorMap) on the
// host, with the rules of cuTensorMapEncodeTiled checked first (docs/hardware.md
// §10.1), so that bad input is reported as the rule it breaks instead of the
// driver's bare CUDA_ERROR_INVALID_VALUE.
//
// The driver function is fetched at run time through the CUDA runtime
// (cudaGetDriverEntryPointByVersion): a program that uses this header links
// the CUDA runtime only, never libcuda, and validate_tiled() needs neither a
// driver nor a GPU.  <cuda.h> is included for its types (CUtensorMap and the
// enums), <cudaTypedefs.h> for the function-pointer type.
//
// Usage:
//   TensorMapSpec s;                      // a row-major 200 x 100 bf16 matrix, rows 416 B apart
//   s.dtype = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
//   s.rank = 2;
//   s.global_address = ptr;
//   s.global_dim = {200, 100};            // dimension 0 is the contiguous one
//   s.global_stride_bytes = {0, 416};     // entry 0 ignored: dimension 0 is contiguous
//   s.box_dim = {64, 32};
//   s.swizzle = CU_TENSOR_MAP_SWIZZLE_128B;
//   CUtensorMap map;
//   TensorMapStatus st = encode_tiled(map, s);
//   if (!st.ok()) std::cerr << st.message << "\n";   // e.g. "box-inner-swizzle: ..."
#pragma once

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include <array>
#include <cstdint>
#include <string>

namespace tessel::arch::sm90 {

/// One code per rule of cuTensorMapEncodeTiled (§10.1 and the driver's
/// documentation), plus the failures that are not the input's fault.
enum class TensorMapErrc : std::uint8_t {
  ok = 0,
  rank,                // rank not in 1..5 (3..5 with interleave)
  dtype,               // not a CUtensorMapDataType tessel knows the size of
  address_alignment,   // global address not 16-byte aligned (32 with 32B interleave), or null
  map_alignment,       // the CUtensorMap object not 64-byte aligned
  global_dim,          // an extent not in 1..2^32
  global_stride,       // a byte stride not a multiple of 16 (32), or not below 2^40
  box_dim,             // a box extent not in 1..256
  box_inner_bytes,     // box_dim[0] * element size not a multiple of 16 bytes (no interleave)
  box_inner_swizzle,   // box_dim[0] * element size larger than the swizzle span
  element_stride,      // an element stride not in 1..8
  interleave_swizzle,  // 32B interleave without 32B swizzle
  oob_fill,            // NaN fill requested for a non-floating-point type
  enum_value,          // interleave / swizzle / L2 promotion / OOB fill not a known enumerator
  driver_unavailable,  // the runtime could not provide cuTensorMapEncodeTiled
  driver_rejected,     // the driver refused input that passed every check here
};

/// The keyword that starts each message (and names the rule).
inline const char* tensor_map_errc_keyword(TensorMapErrc e) {
  switch (e) {
    case TensorMapErrc::ok:
      return "ok";
    case TensorMapErrc::rank:
      return "rank";
    case TensorMapErrc::dtype:
      return "dtype";
    case TensorMapErrc::address_alignment:
      return "address-alignment";
    case TensorMapErrc::map_alignment:
      return "map-alignment";
    case TensorMapErrc::global_dim:
      return "global-dim";
    case TensorMapErrc::global_stride:
      return "global-stride";
    case TensorMapErrc::box_dim:
      return "box-dim";
    case TensorMapErrc::box_inner_bytes:
      return "box-inner-bytes";
    case TensorMapErrc::box_inner_swizzle:
      return "box-inner-swizzle";
    case TensorMapErrc::element_stride:
      return "element-stride";
    case TensorMapErrc::interleave_swizzle:
      return "interleave-swizzle";
    case TensorMapErrc::oob_fill:
      return "oob-fill";
    case TensorMapErrc::enum_value:
      return "enum-value";
    case TensorMapErrc::driver_unavailable:
      return "driver-unavailable";
    case TensorMapErrc::driver_rejected:
      return "driver-rejected";
  }
  return "unknown";
}

/// The outcome of validation or encoding: ok, or the broken rule and a
/// message that starts with its keyword and names the numbers involved.
struct TensorMapStatus {
  TensorMapErrc code = TensorMapErrc::ok;
  std::string message;
  /// The driver's result where the driver was called (CUDA_SUCCESS otherwise).
  CUresult driver_result = CUDA_SUCCESS;
  bool ok() const { return code == TensorMapErrc::ok; }
};

/// Everything cuTensorMapEncodeTiled takes, in one value.  Dimension 0 is the
/// innermost (contiguous) one.  Only the first `rank` entries of each array
/// are read.
struct TensorMapSpec {
  CUtensorMapDataType dtype = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  int rank = 2;
  const void* global_address = nullptr;
  std::array<std::uint64_t, 5> global_dim{};  // elements per dimension
  /// Byte stride of dimension d for d = 1 .. rank-1; entry 0 is ignored
  /// (dimension 0 is contiguous), so that index d always means dimension d.
  std::array<std::uint64_t, 5> global_stride_bytes{};
  std::array<std::uint32_t, 5> box_dim{};  // box extent in elements per dimension
  std::array<std::uint32_t, 5> element_strides{1, 1, 1, 1, 1};
  CUtensorMapInterleave interleave = CU_TENSOR_MAP_INTERLEAVE_NONE;
  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
  CUtensorMapL2promotion l2_promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
  CUtensorMapFloatOOBfill oob_fill = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
};

namespace detail {

/// Element size in bytes of a tensor-map data type; 0 for the types tessel
/// does not describe (the packed sub-byte ones, whose dimensions count
/// packed values) and for unknown values.
inline std::uint32_t tensor_map_elem_bytes(CUtensorMapDataType t) {
  switch (t) {
    case CU_TENSOR_MAP_DATA_TYPE_UINT8:
      return 1;
    case CU_TENSOR_MAP_DATA_TYPE_UINT16:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT16:
    case CU_TENSOR_MAP_DATA_TYPE_BFLOAT16:
      return 2;
    case CU_TENSOR_MAP_DATA_TYPE_UINT32:
    case CU_TENSOR_MAP_DATA_TYPE_INT32:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT32:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ:
    case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32:
    case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ:
      return 4;
    case CU_TENSOR_MAP_DATA_TYPE_UINT64:
    case CU_TENSOR_MAP_DATA_TYPE_INT64:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT64:
      return 8;
    default:
      return 0;
  }
}

inline bool tensor_map_is_float(CUtensorMapDataType t) {
  switch (t) {
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT16:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT32:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT64:
    case CU_TENSOR_MAP_DATA_TYPE_BFLOAT16:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ:
    case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32:
    case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ:
      return true;
    default:
      return false;
  }
}

/// The swizzle span in bytes (what box_dim[0] * element size may not exceed);
/// 0 for no swizzle, -1 for an unknown enumerator.
inline int tensor_map_swizzle_span(CUtensorMapSwizzle s) {
  switch (s) {
    case CU_TENSOR_MAP_SWIZZLE_NONE:
      return 0;
    case CU_TENSOR_MAP_SWIZZLE_32B:
      return 32;
    case CU_TENSOR_MAP_SWIZZLE_64B:
      return 64;
    case CU_TENSOR_MAP_SWIZZLE_128B:
    case CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B:
    case CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B_FLIP_8B:
    case CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B:
      return 128;
    default:
      return -1;
  }
}

inline TensorMapStatus tensor_map_error(TensorMapErrc code, const std::string& what) {
  return TensorMapStatus{code, std::string(tensor_map_errc_keyword(code)) + ": " + what, CUDA_SUCCESS};
}

inline std::string dim_name(int d) { return "dimension " + std::to_string(d); }

}  // namespace detail

/// Checks every rule of cuTensorMapEncodeTiled that can be checked without
/// the driver.  Pure host code: needs neither a GPU nor libcuda.
inline TensorMapStatus validate_tiled(const TensorMapSpec& s) {
  using detail::tensor_map_error;
  using E = TensorMapErrc;
  const bool interleaved = s.interleave != CU_TENSOR_MAP_INTERLEAVE_NONE;

  if (s.rank < 1 || s.rank > 5) return tensor_map_error(E::rank, "rank " + std::to_string(s.rank) + " is not in 1..5");
  if (interleaved && s.rank < 3)
    return tensor_map_error(E::rank,
                            "rank " + std::to_string(s.rank) + " is below 3, the least an interleaved map may have");

  const std::uint32_t esize = detail::tensor_map_elem_bytes(s.dtype);
  if (esize == 0)
    return tensor_map_error(E::dtype, "data type " + std::to_string(static_cast<int>(s.dtype)) +
                                          " has no element size tessel knows (packed sub-byte types are not "
                                          "described)");

  if (s.interleave != CU_TENSOR_MAP_INTERLEAVE_NONE && s.interleave != CU_TENSOR_MAP_INTERLEAVE_16B &&
      s.interleave != CU_TENSOR_MAP_INTERLEAVE_32B)
    return tensor_map_error(E::enum_value, "interleave " + std::to_string(static_cast<int>(s.interleave)) +
                                               " is not a CUtensorMapInterleave enumerator");
  const int span = detail::tensor_map_swizzle_span(s.swizzle);
  if (span < 0)
    return tensor_map_error(E::enum_value, "swizzle " + std::to_string(static_cast<int>(s.swizzle)) +
                                               " is not a CUtensorMapSwizzle enumerator");
  const int l2 = static_cast<int>(s.l2_promotion);
  if (l2 < static_cast<int>(CU_TENSOR_MAP_L2_PROMOTION_NONE) ||
      l2 > static_cast<int>(CU_TENSOR_MAP_L2_PROMOTION_L2_256B))
    return tensor_map_error(E::enum_value, "L2 promotion " + std::to_string(static_cast<int>(s.l2_promotion)) +
                                               " is not a CUtensorMapL2promotion enumerator");
  if (s.oob_fill != CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE &&
      s.oob_fill != CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA)
    return tensor_map_error(E::enum_value, "OOB fill " + std::to_string(static_cast<int>(s.oob_fill)) +
                                               " is not a CUtensorMapFloatOOBfill enumerator");

  const std::uintptr_t addr = reinterpret_cast<std::uintptr_t>(s.global_address);
  const std::uint64_t addr_align = s.interleave == CU_TENSOR_MAP_INTERLEAVE_32B ? 32 : 16;
  if (addr == 0) return tensor_map_error(E::address_alignment, "the global address is null");
  if (addr % addr_align != 0)
    return tensor_map_error(E::address_alignment, "global address " + std::to_string(addr) + " is not " +
                                                      std::to_string(addr_align) + "-byte aligned (it is " +
                                                      std::to_string(addr % addr_align) + " bytes past a multiple)");

  constexpr std::uint64_t kMaxDim = std::uint64_t{1} << 32;
  constexpr std::uint64_t kStrideLimit = std::uint64_t{1} << 40;
  for (int d = 0; d < s.rank; ++d) {
    const std::uint64_t n = s.global_dim[static_cast<std::size_t>(d)];
    if (n < 1 || n > kMaxDim)
      return tensor_map_error(E::global_dim,
                              "extent " + std::to_string(n) + " of " + detail::dim_name(d) + " is not in 1..2^32");
  }
  const std::uint64_t stride_align = s.interleave == CU_TENSOR_MAP_INTERLEAVE_32B ? 32 : 16;
  for (int d = 1; d < s.rank; ++d) {
    const std::uint64_t st = s.global_stride_bytes[static_cast<std::size_t>(d)];
    if (st % stride_align != 0 || st == 0)
      return tensor_map_error(E::global_stride, "stride " + std::to_string(st) + " bytes of " + detail::dim_name(d) +
                                                    " is not a positive multiple of " + std::to_string(stride_align));
    if (st >= kStrideLimit)
      return tensor_map_error(
          E::global_stride, "stride " + std::to_string(st) + " bytes of " + detail::dim_name(d) + " is not below 2^40");
  }

  for (int d = 0; d < s.rank; ++d) {
    const std::uint32_t b = s.box_dim[static_cast<std::size_t>(d)];
    if (b < 1 || b > 256)
      return tensor_map_error(E::box_dim,
                              "box extent " + std::to_string(b) + " of " + detail::dim_name(d) + " is not in 1..256");
  }
  const std::uint64_t inner_bytes = std::uint64_t{s.box_dim[0]} * esize;
  if (!interleaved && inner_bytes % 16 != 0)
    return tensor_map_error(E::box_inner_bytes, "the box's inner extent " + std::to_string(s.box_dim[0]) +
                                                    " elements x " + std::to_string(esize) + " bytes = " +
                                                    std::to_string(inner_bytes) + " bytes is not a multiple of 16");
  if (!interleaved && span > 0 && inner_bytes > static_cast<std::uint64_t>(span))
    return tensor_map_error(E::box_inner_swizzle,
                            "the box's inner extent " + std::to_string(s.box_dim[0]) + " elements x " +
                                std::to_string(esize) + " bytes = " + std::to_string(inner_bytes) +
                                " bytes exceeds the " + std::to_string(span) + "-byte span of the swizzle");

  for (int d = 0; d < s.rank; ++d) {
    const std::uint32_t e = s.element_strides[static_cast<std::size_t>(d)];
    if (e < 1 || e > 8)
      return tensor_map_error(E::element_stride,
                              "element stride " + std::to_string(e) + " of " + detail::dim_name(d) + " is not in 1..8");
  }
  if (s.interleave == CU_TENSOR_MAP_INTERLEAVE_32B && s.swizzle != CU_TENSOR_MAP_SWIZZLE_32B)
    return tensor_map_error(E::interleave_swizzle, "32-byte interleave requires the 32-byte swizzle");
  if (s.oob_fill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA && !detail::tensor_map_is_float(s.dtype))
    return tensor_map_error(E::oob_fill, "NaN out-of-bounds fill needs a floating-point data type, not type " +
                                             std::to_string(static_cast<int>(s.dtype)));
  return {};
}

namespace detail {

/// cuTensorMapEncodeTiled from the driver, looked up once through the CUDA
/// runtime (ABI version 12.0, the one that introduced it).  Null with a
/// reason when the runtime cannot provide it (no driver, too old a driver).
struct EncodeTiledEntry {
  PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
  std::string failure;
};
inline const EncodeTiledEntry& encode_tiled_entry() {
  static const EncodeTiledEntry entry = [] {
    EncodeTiledEntry e;
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult query = cudaDriverEntryPointSymbolNotFound;
    const cudaError_t err =
        cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &query);
    if (err != cudaSuccess || query != cudaDriverEntryPointSuccess || fn == nullptr) {
      e.failure = std::string("cudaGetDriverEntryPointByVersion(\"cuTensorMapEncodeTiled\", 12000) failed: ") +
                  cudaGetErrorString(err) + " (query result " + std::to_string(static_cast<int>(query)) + ")";
      // The failed query is also recorded as the runtime's last error; clear
      // it so that the caller's next cudaGetLastError() does not report it.
      (void)cudaGetLastError();
    } else {
      e.fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
    }
    return e;
  }();
  return entry;
}

/// Calls the driver without validating first: tests use it to confirm that
/// each rule validate_tiled() enforces is one the driver enforces too.
inline TensorMapStatus encode_tiled_unchecked(CUtensorMap& map, const TensorMapSpec& s) {
  const EncodeTiledEntry& entry = encode_tiled_entry();
  if (entry.fn == nullptr) return tensor_map_error(TensorMapErrc::driver_unavailable, entry.failure);
  const CUresult r = entry.fn(&map, s.dtype, static_cast<cuuint32_t>(s.rank), const_cast<void*>(s.global_address),
                              s.global_dim.data(), s.global_stride_bytes.data() + 1, s.box_dim.data(),
                              s.element_strides.data(), s.interleave, s.swizzle, s.l2_promotion, s.oob_fill);
  if (r != CUDA_SUCCESS) {
    TensorMapStatus st = tensor_map_error(TensorMapErrc::driver_rejected,
                                          "cuTensorMapEncodeTiled returned " + std::to_string(static_cast<int>(r)));
    st.driver_result = r;
    return st;
  }
  return {};
}

}  // namespace detail

/// Validates `s` (validate_tiled) and, if it passes, encodes it into `map`
/// through the driver.  `map` must be 64-byte aligned (CUtensorMap is declared
/// so; a copy in a byte buffer may not be).  On failure `map` is unspecified.
inline TensorMapStatus encode_tiled(CUtensorMap& map, const TensorMapSpec& s) {
  if (reinterpret_cast<std::uintptr_t>(&map) % 64 != 0)
    return detail::tensor_map_error(TensorMapErrc::map_alignment, "the CUtensorMap object is not 64-byte aligned");
  TensorMapStatus st = validate_tiled(s);
  if (!st.ok()) return st;
  return detail::encode_tiled_unchecked(map, s);
}

}  // namespace tessel::arch::sm90

// tessel._tessel's GEMM door (built where the extension is compiled with the
// CUDA kernel library, TESSEL_PYTHON_GEMM): tessel::gemm and tessel::attention
// on raw device pointers.
//
// The Python package (python/tessel/gemm.py) reads the tensors' pointers,
// shapes, strides and dtypes, works out the layouts, and calls _gemm with
// plain numbers: no DLPack capsule is made per call where the framework
// gives those numbers directly (PyTorch), which keeps the call a few
// microseconds over the C++ one.  Failures come back as values, (code,
// message), as the calculator's do; the package raises from them.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#include "tessel/host/attention.hpp"
#include "tessel/host/gemm.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using Result = std::pair<int, std::string>;  // (Status::Code, message)

Result fail(tessel::Status::Code code, std::string message) { return {static_cast<int>(code), std::move(message)}; }

/// call() (returning a tessel::Status) with the current device set to
/// `device` (and set back after) and the GIL released while it runs.
template <class Call>
Result on_device(int device, Call&& call) {
  int current = -1;
  if (cudaGetDevice(&current) != cudaSuccess) {
    (void)cudaGetLastError();
    return fail(tessel::Status::cuda_error, std::string("cannot read the current CUDA device"));
  }
  if (current != device && cudaSetDevice(device) != cudaSuccess) {
    (void)cudaGetLastError();
    return fail(tessel::Status::cuda_error, "cannot make CUDA device " + std::to_string(device) + " current");
  }
  tessel::Status s;
  {
    nb::gil_scoped_release unlocked;
    s = call();
  }
  if (current != device) (void)cudaSetDevice(current);
  return {static_cast<int>(s.code), s.message};
}

std::optional<tessel::DType> dtype_of(std::string_view s) { return tessel::parse_dtype(s); }

/// _gemm(...): the arguments of tessel::GemmArgs as numbers and names; a
/// batch of `batch` problems with the given element strides (batch 1: one).
Result gemm(std::string_view impl_name, std::int64_t m, std::int64_t n, std::int64_t k, std::string_view ab,
            std::string_view cd, std::string_view layout, std::uintptr_t a, std::int64_t lda, std::uintptr_t b,
            std::int64_t ldb, std::uintptr_t c, std::int64_t ldc, std::uintptr_t d, std::int64_t ldd, double alpha,
            double beta, std::string_view activation, std::string_view bias_kind, std::uintptr_t bias,
            std::uintptr_t aux, std::int64_t ldaux, std::int64_t batch, std::int64_t stride_a, std::int64_t stride_b,
            std::int64_t stride_c, std::int64_t stride_d, std::string_view fp8_scale, std::uintptr_t scale_a,
            std::uintptr_t scale_b, int device, std::uintptr_t stream) {
  // "tuned": auto with measured tuning (GemmTuning::tune), tessel.gemm(tune=True).
  const bool tune = impl_name == "tuned";
  const std::optional<tessel::GemmImpl> impl = tune ? tessel::GemmImpl::automatic : tessel::parse_gemm_impl(impl_name);
  if (!impl)
    return fail(tessel::Status::invalid_argument, "impl: unknown implementation '" + std::string(impl_name) + "'");
  // ab: A's and B's type, or their FP8 formats where they differ ("e4m3xe5m2").
  const auto ab_types = tessel::parse_input_types(ab);
  const std::optional<tessel::DType> cd_type = dtype_of(cd);
  if (!ab_types || !cd_type) return fail(tessel::Status::invalid_argument, "unknown element type");
  const std::optional<tessel::GemmLayout> l = tessel::parse_gemm_layout(layout);
  if (!l) return fail(tessel::Status::invalid_argument, "unknown layout '" + std::string(layout) + "'");
  tessel::GemmArgs g;
  g.m = m;
  g.n = n;
  g.k = k;
  g.ab_type = ab_types->first;
  g.b_type = ab_types->second;
  g.cd_type = *cd_type;
  g.layout = *l;
  g.a = reinterpret_cast<const void*>(a);
  g.lda = lda;
  g.b = reinterpret_cast<const void*>(b);
  g.ldb = ldb;
  g.c = reinterpret_cast<const void*>(c);
  g.ldc = ldc;
  g.d = reinterpret_cast<void*>(d);
  g.ldd = ldd;
  g.alpha = static_cast<float>(alpha);
  g.beta = static_cast<float>(beta);
  const std::optional<tessel::Activation> act = tessel::parse_activation(activation);
  if (!act) return fail(tessel::Status::invalid_argument, "unknown activation '" + std::string(activation) + "'");
  const std::optional<tessel::BiasKind> kind = tessel::parse_bias_kind(bias_kind);
  if (!kind) return fail(tessel::Status::invalid_argument, "unknown bias kind '" + std::string(bias_kind) + "'");
  g.epilogue.act = *act;
  g.epilogue.bias_kind = *kind;
  g.epilogue.bias = reinterpret_cast<const void*>(bias);
  g.epilogue.aux = reinterpret_cast<void*>(aux);
  g.epilogue.ldaux = ldaux;
  g.batch = batch;
  g.stride_a = stride_a;
  g.stride_b = stride_b;
  g.stride_c = stride_c;
  g.stride_d = stride_d;
  g.tuning.tune = tune;
  const std::optional<tessel::Fp8Scale> scale = tessel::parse_fp8_scale(fp8_scale);
  if (!scale) return fail(tessel::Status::invalid_argument, "unknown FP8 scale mode '" + std::string(fp8_scale) + "'");
  g.fp8_scale = *scale;
  g.fp8_scale_a = reinterpret_cast<const float*>(scale_a);
  g.fp8_scale_b = reinterpret_cast<const float*>(scale_b);
  return on_device(device, [&] { return tessel::gemm(*impl, g, reinterpret_cast<cudaStream_t>(stream)); });
}

/// _gemm_grouped(...): tessel::gemm_grouped over problems given as tuples
/// (m, n, k, a, lda, b, ldb, c, ldc, d, ldd, alpha, beta), then FP8 scales
/// (scale a, scale b) where `fp8_scale` is not "none", then the row count's
/// address where `masked`, sharing the types, the layout and the scale mode;
/// the GIL released during the call.
Result gemm_grouped(std::string_view ab, std::string_view cd, std::string_view layout, const nb::list& problems,
                    std::string_view fp8_scale, bool masked, int device, std::uintptr_t stream) {
  const auto ab_types = tessel::parse_input_types(ab);  // as _gemm's
  const std::optional<tessel::DType> cd_type = dtype_of(cd);
  if (!ab_types || !cd_type) return fail(tessel::Status::invalid_argument, "unknown element type");
  const std::optional<tessel::GemmLayout> l = tessel::parse_gemm_layout(layout);
  if (!l) return fail(tessel::Status::invalid_argument, "unknown layout '" + std::string(layout) + "'");
  const std::optional<tessel::Fp8Scale> scale = tessel::parse_fp8_scale(fp8_scale);
  if (!scale) return fail(tessel::Status::invalid_argument, "unknown FP8 scale mode '" + std::string(fp8_scale) + "'");
  const std::size_t scaled = *scale == tessel::Fp8Scale::none ? 13 : 15, fields = scaled + (masked ? 1 : 0);
  std::vector<tessel::GemmArgs> group;
  group.reserve(problems.size());
  for (nb::handle h : problems) {
    const nb::tuple t = nb::cast<nb::tuple>(h);
    if (t.size() != fields)
      return fail(tessel::Status::invalid_argument, "a problem is a tuple of " + std::to_string(fields) + " numbers");
    tessel::GemmArgs g;
    g.m = nb::cast<std::int64_t>(t[0]);
    g.n = nb::cast<std::int64_t>(t[1]);
    g.k = nb::cast<std::int64_t>(t[2]);
    g.ab_type = ab_types->first;
    g.b_type = ab_types->second;
    g.cd_type = *cd_type;
    g.layout = *l;
    g.a = reinterpret_cast<const void*>(nb::cast<std::uintptr_t>(t[3]));
    g.lda = nb::cast<std::int64_t>(t[4]);
    g.b = reinterpret_cast<const void*>(nb::cast<std::uintptr_t>(t[5]));
    g.ldb = nb::cast<std::int64_t>(t[6]);
    g.c = reinterpret_cast<const void*>(nb::cast<std::uintptr_t>(t[7]));
    g.ldc = nb::cast<std::int64_t>(t[8]);
    g.d = reinterpret_cast<void*>(nb::cast<std::uintptr_t>(t[9]));
    g.ldd = nb::cast<std::int64_t>(t[10]);
    g.alpha = static_cast<float>(nb::cast<double>(t[11]));
    g.beta = static_cast<float>(nb::cast<double>(t[12]));
    if (scaled == 15) {
      g.fp8_scale = *scale;
      g.fp8_scale_a = reinterpret_cast<const float*>(nb::cast<std::uintptr_t>(t[13]));
      g.fp8_scale_b = reinterpret_cast<const float*>(nb::cast<std::uintptr_t>(t[14]));
    }
    if (masked) g.m_device = reinterpret_cast<const int*>(nb::cast<std::uintptr_t>(t[scaled]));
    group.push_back(g);
  }
  return on_device(device, [&] {
    return tessel::gemm_grouped(group.data(), static_cast<int>(group.size()), reinterpret_cast<cudaStream_t>(stream));
  });
}

/// The host time of `calls` calls of tessel::gemm (ns each, the stream
/// synchronized after each call, outside the timed span): the C++ side of
/// the Python call's overhead (python -m tessel.bench --overhead).
std::vector<std::int64_t> time_cpp_calls(std::string_view impl_name, std::int64_t m, std::int64_t n, std::int64_t k,
                                         std::string_view ab, std::string_view cd, std::string_view layout,
                                         std::uintptr_t a, std::int64_t lda, std::uintptr_t b, std::int64_t ldb,
                                         std::uintptr_t d, std::int64_t ldd, int device, std::uintptr_t stream,
                                         int calls) {
  std::vector<std::int64_t> ns;
  const std::optional<tessel::GemmImpl> impl = tessel::parse_gemm_impl(impl_name);
  const std::optional<tessel::GemmLayout> l = tessel::parse_gemm_layout(layout);
  if (!impl || !l || !dtype_of(ab) || !dtype_of(cd) || cudaSetDevice(device) != cudaSuccess) return ns;
  tessel::GemmArgs g;
  g.m = m;
  g.n = n;
  g.k = k;
  g.ab_type = *dtype_of(ab);
  g.cd_type = *dtype_of(cd);
  g.layout = *l;
  g.a = reinterpret_cast<const void*>(a);
  g.lda = lda;
  g.b = reinterpret_cast<const void*>(b);
  g.ldb = ldb;
  g.d = reinterpret_cast<void*>(d);
  g.ldd = ldd;
  nb::gil_scoped_release unlocked;
  const auto s = reinterpret_cast<cudaStream_t>(stream);
  ns.reserve(static_cast<std::size_t>(calls));
  for (int i = 0; i < calls; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const tessel::Status st = tessel::gemm(*impl, g, s);
    const auto t1 = std::chrono::steady_clock::now();
    if (!st || cudaStreamSynchronize(s) != cudaSuccess) {
      ns.clear();
      break;
    }
    ns.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
  }
  return ns;
}

/// _attention(...): tessel::attention's arguments as numbers; each tensor's
/// strides (batch, head, row) in elements.
Result attention(std::string_view impl_name, std::string_view dtype, std::int64_t batch, std::int64_t heads_q,
                 std::int64_t heads_kv, std::int64_t seq_q, std::int64_t seq_kv, std::int64_t head_dim,
                 std::uintptr_t q, std::vector<std::int64_t> qs, std::uintptr_t k, std::vector<std::int64_t> ks,
                 std::uintptr_t v, std::vector<std::int64_t> vs, std::uintptr_t o, std::vector<std::int64_t> os,
                 std::uintptr_t lse, bool causal, double scale, std::uintptr_t cu_q, std::uintptr_t cu_kv,
                 std::int64_t max_q, std::int64_t max_kv, int device, std::uintptr_t stream) {
  const std::optional<tessel::AttentionImpl> impl = tessel::parse_attention_impl(impl_name);
  if (!impl)
    return fail(tessel::Status::invalid_argument, "impl: unknown attention step '" + std::string(impl_name) + "'");
  const std::optional<tessel::DType> t = dtype_of(dtype);
  if (!t) return fail(tessel::Status::invalid_argument, "dtype: unknown element type '" + std::string(dtype) + "'");
  for (const auto* st : {&qs, &ks, &vs, &os})
    if (st->size() != 3) return fail(tessel::Status::invalid_argument, "strides: three (batch, head, row) a tensor");
  tessel::AttentionArgs a;
  a.dtype = *t, a.batch = batch, a.heads_q = heads_q, a.heads_kv = heads_kv;
  a.seq_q = seq_q, a.seq_kv = seq_kv, a.head_dim = head_dim;
  const auto strides = [](const std::vector<std::int64_t>& s) { return tessel::AttentionStrides{s[0], s[1], s[2]}; };
  a.q = reinterpret_cast<const void*>(q), a.q_stride = strides(qs);
  a.k = reinterpret_cast<const void*>(k), a.k_stride = strides(ks);
  a.v = reinterpret_cast<const void*>(v), a.v_stride = strides(vs);
  a.o = reinterpret_cast<void*>(o), a.o_stride = strides(os);
  a.lse = reinterpret_cast<float*>(lse);
  a.causal = causal, a.scale = static_cast<float>(scale);
  a.cu_seqlens_q = reinterpret_cast<const int*>(cu_q), a.cu_seqlens_kv = reinterpret_cast<const int*>(cu_kv);
  a.max_seq_q = max_q, a.max_seq_kv = max_kv;
  return on_device(device, [&] { return tessel::attention(*impl, a, reinterpret_cast<cudaStream_t>(stream)); });
}

}  // namespace

void bind_gemm(nb::module_& m) {
  m.def("_time_cpp_calls", &time_cpp_calls, "impl"_a, "m"_a, "n"_a, "k"_a, "ab"_a, "cd"_a, "layout"_a, "a"_a, "lda"_a,
        "b"_a, "ldb"_a, "d"_a, "ldd"_a, "device"_a, "stream"_a, "calls"_a,
        "host ns of each of `calls` tessel::gemm calls from C++ (empty on any failure)");
  m.def(
      "_dlpack_info",
      [](nb::handle obj) -> nb::tuple {
        nb::ndarray<> t;
        if (!nb::try_cast(obj, t))
          return nb::make_tuple(
              false, "cannot be read as a DLPack tensor (" + std::string(nb::type_name(obj.type()).c_str()) + ")");
        nb::list shape, strides;
        for (std::size_t i = 0; i < t.ndim(); ++i) {
          shape.append(t.shape(i));
          strides.append(t.stride(i));
        }
        const nb::dlpack::dtype dt = t.dtype();
        nb::object name = nb::none();
        if (dt.lanes == 1 && dt.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Bfloat) && dt.bits == 16)
          name = nb::str("bf16");
        else if (dt.lanes == 1 && dt.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Float) && dt.bits == 16)
          name = nb::str("fp16");
        else if (dt.lanes == 1 && dt.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Float) && dt.bits == 32)
          name = nb::str("fp32");
        return nb::make_tuple(true, nb::make_tuple(reinterpret_cast<std::uintptr_t>(t.data()), shape, strides, name,
                                                   t.device_type(), t.device_id()));
      },
      "obj"_a, "(ok, (ptr, shape, strides, dtype name or None, DLPack device type, device id) or message)");
  m.def("_gemm", &gemm, "impl"_a, "m"_a, "n"_a, "k"_a, "ab"_a, "cd"_a, "layout"_a, "a"_a, "lda"_a, "b"_a, "ldb"_a,
        "c"_a, "ldc"_a, "d"_a, "ldd"_a, "alpha"_a, "beta"_a, "activation"_a, "bias_kind"_a, "bias"_a, "aux"_a,
        "ldaux"_a, "batch"_a, "stride_a"_a, "stride_b"_a, "stride_c"_a, "stride_d"_a, "fp8_scale"_a, "scale_a"_a,
        "scale_b"_a, "device"_a, "stream"_a,
        "(code, message): tessel::gemm on device pointers (0: success); the GIL is released during the call");
  m.def("_attention", &attention, "impl"_a, "dtype"_a, "batch"_a, "heads_q"_a, "heads_kv"_a, "seq_q"_a, "seq_kv"_a,
        "head_dim"_a, "q"_a, "q_strides"_a, "k"_a, "k_strides"_a, "v"_a, "v_strides"_a, "o"_a, "o_strides"_a, "lse"_a,
        "causal"_a, "scale"_a, "cu_seqlens_q"_a, "cu_seqlens_kv"_a, "max_seq_q"_a, "max_seq_kv"_a, "device"_a,
        "stream"_a,
        "(code, message): tessel::attention on device pointers (strides per batch, head and row); the GIL is "
        "released during the call");
  m.def("_gemm_grouped", &gemm_grouped, "ab"_a, "cd"_a, "layout"_a, "problems"_a, "fp8_scale"_a, "masked"_a, "device"_a,
        "stream"_a,
        "(code, message): tessel::gemm_grouped over (m, n, k, a, lda, b, ldb, c, ldc, d, ldd, alpha, beta[, scale a, "
        "scale b][, row count]) tuples");
  m.def(
      "_plan",
      [](std::int64_t mm, std::int64_t nn, std::int64_t kk, std::string_view ab, std::string_view cd, int device) {
        tessel::GemmArgs g;
        g.m = mm;
        g.n = nn;
        g.k = kk;
        g.ab_type = dtype_of(ab).value_or(tessel::DType::bf16);
        g.cd_type = dtype_of(cd).value_or(tessel::DType::bf16);
        g.lda = kk;
        g.ldb = nn;
        g.ldc = g.ldd = nn;
        int current = -1;
        if (cudaGetDevice(&current) == cudaSuccess && current != device) (void)cudaSetDevice(device);
        const tessel::GemmPlan p = tessel::gemm_plan(g);
        if (current >= 0 && current != device) (void)cudaSetDevice(current);
        (void)cudaGetLastError();
        return std::string(tessel::short_name(p.impl)) + ": " + p.why;
      },
      "m"_a, "n"_a, "k"_a, "ab"_a, "cd"_a, "device"_a,
      "what tessel.gemm(impl='auto') runs for an M x N x K problem with row-major operands (the plan's words)");
}

// `tessel bench attention`: the ladder's steps (tessel::attention) on one
// GPU under the protocol of docs/bench-protocol.md: each problem verified
// first (sampled query rows against an fp64 reference with the derived
// bound, O poisoned with NaN), then every step timed in one interleaved loop
// (warm-up, L2 flushed by reading before each launch, CUDA events, median),
// clock and power per row.  The vendor comparison (cuDNN and FlashAttention
// through torch) is `python -m tessel.bench attention`.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench.hpp"
#include "bench_gemm_device.hpp"
#include "bench_gemm_report.hpp"
#include "bench_gemm_timing.hpp"
#include "tessel/host/attention.hpp"

namespace tessel::bench {

namespace {

using namespace gemm_detail;

/// `cu`: packed sequences' offsets (cu_seqlens, batch + 1 of them; their
/// rows the same for queries and keys; seq_q = seq_kv = the total), else empty.
struct Problem {
  index_t batch, heads_q, heads_kv, seq_q, seq_kv, dim;
  bool causal;
  std::vector<int> cu;
  bool packed() const { return !cu.empty(); }
  /// Sequence b's query and key rows.
  index_t len_q(index_t b) const { return packed() ? cu[b + 1] - cu[b] : seq_q; }
  index_t len_kv(index_t b) const { return packed() ? cu[b + 1] - cu[b] : seq_kv; }
};

/// Query-key pairs one head of sequence b attends to.
double pairs_of(index_t lq, index_t lk, bool causal) {
  if (!causal) return static_cast<double>(lq) * static_cast<double>(lk);
  double pairs = 0;
  for (index_t i = 0; i < lq; ++i) pairs += static_cast<double>(std::clamp<index_t>(i + lk - lq + 1, 0, lk));
  return pairs;
}

/// Query-key pairs a call attends to, over every head and sequence.
double attended_pairs(const Problem& p) {
  if (!p.packed()) return pairs_of(p.seq_q, p.seq_kv, p.causal) * static_cast<double>(p.batch * p.heads_q);
  double pairs = 0;
  for (index_t b = 0; b < p.batch; ++b) pairs += pairs_of(p.len_q(b), p.len_kv(b), p.causal);
  return pairs * static_cast<double>(p.heads_q);
}

std::uint16_t to_bits(float x, DType t) {
  std::uint32_t u;
  std::memcpy(&u, &x, 4);
  if (t == DType::bf16) return static_cast<std::uint16_t>((u + 0x7fff + ((u >> 16) & 1)) >> 16);  // nearest even
  // f16 (the inputs are in [-1, 1]: normal or zero after rounding, no overflow)
  const float a = std::fabs(x);
  if (a < 0x1p-14f) return static_cast<std::uint16_t>((u >> 16) & 0x8000);
  int e;
  const float m = std::frexp(a, &e);                                                   // a = m 2^e, m in [0.5, 1)
  std::uint32_t mant = static_cast<std::uint32_t>(std::nearbyint(std::ldexp(m, 11)));  // 11 bits, nearest even
  if (mant == 2048) mant = 1024, ++e;
  const std::uint32_t bits = (static_cast<std::uint32_t>(e - 1 + 15) << 10) | (mant & 0x3ff);
  return static_cast<std::uint16_t>(((u >> 16) & 0x8000) | bits);
}

float from_bits(std::uint16_t b, DType t) {
  if (t == DType::bf16) {
    const std::uint32_t u = std::uint32_t{b} << 16;
    float x;
    std::memcpy(&x, &u, 4);
    return x;
  }
  const int e = (b >> 10) & 0x1f, m = b & 0x3ff;
  const float s = (b & 0x8000) ? -1.0f : 1.0f;
  if (e == 0) return s * std::ldexp(static_cast<float>(m), -24);
  if (e == 31) return m ? NAN : s * INFINITY;
  return s * std::ldexp(static_cast<float>(m + 1024), e - 25);
}

struct Verdict {
  bool ok = false;
  double max_err = 0, bound = 0;
  std::string note;
};

/// Sampled rows of O and lse against fp64 (the bound of docs/attention.md).
Verdict verify(const Problem& p, const AttentionArgs& a, const std::vector<std::uint16_t>& q,
               const std::vector<std::uint16_t>& k, const std::vector<std::uint16_t>& v,
               const std::vector<std::uint16_t>& o, const std::vector<float>& lse, int rows) {
  const DType t = a.dtype;
  const double u = t == DType::bf16 ? 0x1p-8 : 0x1p-11, d = static_cast<double>(p.dim);
  const double scale = attention_scale(a);
  Verdict r;
  index_t longest = 0;
  for (index_t b = 0; b < p.batch; ++b) longest = std::max(longest, p.len_kv(b));
  r.bound = (2 * u + 2 * d * 0x1p-24 * scale * d + 0x1p-24 * static_cast<double>(longest) + 1e-5);  // |x| <= 1
  std::mt19937_64 rng(p.seq_q * 131 + p.dim);
  const auto at = [&](const AttentionStrides& s, index_t b, index_t h, index_t i) {
    return b * s.batch + h * s.head + i * s.row;
  };
  std::vector<double> sc(static_cast<std::size_t>(p.seq_kv)), acc(static_cast<std::size_t>(p.dim));
  for (int n = 0; n < rows; ++n) {
    // Sequence b, its query row i; packed: rows `base` on of the one packed "batch" element.
    const index_t b = static_cast<index_t>(rng() % p.batch), h = static_cast<index_t>(rng() % p.heads_q);
    const index_t lq = p.len_q(b), lk = p.len_kv(b);
    const index_t i = n == 0 ? 0 : n == 1 ? lq - 1 : static_cast<index_t>(rng() % lq);
    const index_t bb = p.packed() ? 0 : b, base = p.packed() ? p.cu[b] : 0;
    const index_t hk = h / (p.heads_q / p.heads_kv);
    const index_t count = p.causal ? std::clamp<index_t>(i + lk - lq + 1, 0, lk) : lk;
    double m = -INFINITY;
    for (index_t j = 0; j < count; ++j) {
      double dot = 0;
      const index_t qo = at(a.q_stride, bb, h, base + i), ko = at(a.k_stride, bb, hk, base + j);
      for (index_t e = 0; e < p.dim; ++e) dot += double{from_bits(q[qo + e], t)} * from_bits(k[ko + e], t);
      sc[j] = scale * dot;
      m = std::max(m, sc[j]);
    }
    double l = 0;
    std::fill(acc.begin(), acc.end(), 0.0);
    for (index_t j = 0; j < count; ++j) {
      const double w = std::exp(sc[j] - m);
      l += w;
      const index_t vo = at(a.v_stride, bb, hk, base + j);
      for (index_t e = 0; e < p.dim; ++e) acc[e] += w * from_bits(v[vo + e], t);
    }
    const index_t oo = at(a.o_stride, bb, h, base + i);
    for (index_t e = 0; e < p.dim; ++e) {
      const double ref = count > 0 ? acc[e] / l : 0.0, got = from_bits(o[oo + e], t);
      const double err = std::isnan(got) ? INFINITY : std::fabs(got - ref);
      r.max_err = std::max(r.max_err, err);
    }
    const double ref_lse = count > 0 ? m + std::log(l) : -INFINITY;
    const double got_lse = lse[static_cast<std::size_t>((bb * p.heads_q + h) * p.seq_q + base + i)];
    if (!(std::isinf(ref_lse) ? got_lse == ref_lse : std::fabs(got_lse - ref_lse) <= 1e-3 * (1 + std::fabs(ref_lse))))
      r.note = "lse of row " + std::to_string(base + i) + " is " + std::to_string(got_lse) + ", reference " +
               std::to_string(ref_lse);
  }
  r.ok = r.note.empty() && r.max_err <= r.bound;
  if (r.note.empty() && !r.ok)
    r.note = "max error " + fmt("%.3g", r.max_err) + " above the bound " + fmt("%.3g", r.bound);
  return r;
}

const char* kColumns =
    "gpu,sm_count,commit,impl,repeat,batch,heads_q,heads_kv,seq_q,seq_kv,head_dim,causal,dtype,layout,verify,"
    "disposition,note,max_err,bound,median_ms,min_ms,p90_ms,tflops,ratio,sm_clock_mhz,power_w,timing";

std::string opt_num(const std::optional<double>& v) { return v ? fmt("%.6g", *v) : std::string(); }

std::string join_note(const std::string& a, const std::string& b) { return b.empty() ? a : a + "; " + b; }

}  // namespace

int run_attention_bench(const AttentionBenchOptions& opt) {
  int dev = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
    cudaGetLastError();
    std::cerr << "tessel bench attention: no CUDA device: it needs a GPU\n";
    return 4;
  }
  const DeviceInfo device = read_device(dev, prop);
  std::ofstream csv_file;
  std::ostream* csv = &std::cout;
  if (!opt.csv.empty() && opt.csv != "-") {
    csv_file.open(opt.csv);
    if (!csv_file) {
      std::cerr << "tessel bench attention: --csv: cannot write " << opt.csv << "\n";
      return 1;
    }
    csv = &csv_file;
  }
  *csv << kColumns << "\n";
  TimingPolicy pol;
  pol.warmup = opt.warmup, pol.iterations = opt.iterations;
  pol.flush_bytes =
      (std::max<std::size_t>(2 * static_cast<std::size_t>(device.l2_bytes), 64u << 20) + 15) & ~std::size_t{15};
  pol.flush_blocks = 8 * std::max(device.sm_count, 1);
  char pci_bus_id[32] = {};
  if (cudaDeviceGetPCIBusId(pci_bus_id, sizeof pci_bus_id, dev) != cudaSuccess) {
    cudaGetLastError();
    pci_bus_id[0] = '\0';
  }
  const NvmlDevice nvml(pci_bus_id, static_cast<unsigned>(dev));
  NvmlSampler sampler(nvml);
  pol.sampler = &sampler;
  std::cerr << "# " << device.gpu << ", " << device.sm_count << " SMs, tessel " << device.commit << "; verified on "
            << opt.verify_rows << " sampled query rows, then timed interleaved (L2 flushed by "
            << "reading " << (pol.flush_bytes >> 20) << " MiB); ratio = t(" << name(opt.impls.front())
            << ") / t(impl)\n";

  try {
    cudaStream_t stream = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    const std::unique_ptr<CUstream_st, cudaError_t (*)(cudaStream_t)> guard(stream, cudaStreamDestroy);
    DeviceBuffer flush(pol.flush_bytes, "L2 flush buffer"), sink(16, "L2 flush sink");
    pol.flush = flush.get();
    pol.flush_sink = sink.as<unsigned>();
    init_l2_flush(pol, stream);
    // Packed sequences (--lengths): one problem of their total rows, its offsets on the device.
    std::vector<int> cu;
    index_t longest = 0;
    if (!opt.lengths.empty()) cu.push_back(0);
    for (const index_t n : opt.lengths) {
      cu.push_back(cu.back() + static_cast<int>(n));  // main.cpp keeps the total within 2^30
      longest = std::max(longest, n);
    }
    const bool packed = !cu.empty();
    DeviceBuffer dcu(std::max<std::size_t>(cu.size(), 1) * sizeof(int), "cu_seqlens");
    if (packed) CUDA_CHECK(cudaMemcpy(dcu.get(), cu.data(), cu.size() * sizeof(int), cudaMemcpyHostToDevice));
    const std::vector<index_t> seqs = packed ? std::vector<index_t>{cu.back()} : opt.seqs;
    for (const index_t seq : seqs)
      for (const index_t dim : opt.dims)
        for (const bool causal : opt.causal) {
          const Problem p{packed ? static_cast<index_t>(cu.size()) - 1 : opt.batch,
                          opt.heads,
                          opt.kv_heads,
                          seq,
                          opt.seq_kv > 0 ? opt.seq_kv : seq,
                          dim,
                          causal,
                          cu};
          const index_t extent = packed ? 1 : p.batch;  // the tensors' batch extent
          const DType t = opt.dtype;
          AttentionArgs a;
          a.dtype = t, a.batch = p.batch, a.heads_q = p.heads_q, a.heads_kv = p.heads_kv;
          a.seq_q = p.seq_q, a.seq_kv = p.seq_kv, a.head_dim = dim, a.causal = causal;
          if (packed) {
            a.cu_seqlens_q = a.cu_seqlens_kv = dcu.as<int>();
            a.max_seq_q = a.max_seq_kv = longest;
          }
          const auto strides = [&](index_t heads, index_t rows) {
            return opt.seq_major ? AttentionStrides{rows * heads * dim, dim, heads * dim}
                                 : AttentionStrides{heads * rows * dim, rows * dim, dim};
          };
          a.q_stride = a.o_stride = strides(p.heads_q, p.seq_q);
          a.k_stride = a.v_stride = strides(p.heads_kv, p.seq_kv);
          const std::size_t nq = static_cast<std::size_t>(extent * p.heads_q * p.seq_q * dim);
          const std::size_t nkv = static_cast<std::size_t>(extent * p.heads_kv * p.seq_kv * dim);
          std::vector<std::uint16_t> hq(nq), hk(nkv), hv(nkv), ho;
          std::mt19937 rng(static_cast<unsigned>(seq * 7 + dim));
          std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
          for (auto* x : {&hq, &hk, &hv})
            for (std::uint16_t& e : *x) e = to_bits(unit(rng), t);
          DeviceBuffer dq(nq * 2, "Q"), dk(nkv * 2, "K"), dv(nkv * 2, "V"), dout(nq * 2, "O");
          const std::size_t nlse = static_cast<std::size_t>(extent * p.heads_q * p.seq_q);
          DeviceBuffer dlse(nlse * 4, "lse");
          CUDA_CHECK(cudaMemcpy(dq.get(), hq.data(), nq * 2, cudaMemcpyHostToDevice));
          CUDA_CHECK(cudaMemcpy(dk.get(), hk.data(), nkv * 2, cudaMemcpyHostToDevice));
          CUDA_CHECK(cudaMemcpy(dv.get(), hv.data(), nkv * 2, cudaMemcpyHostToDevice));
          a.q = dq.get(), a.k = dk.get(), a.v = dv.get(), a.o = dout.get(), a.lse = dlse.as<float>();
          const double flops = 4.0 * static_cast<double>(dim) * attended_pairs(p);
          const std::string packed_note =
              packed ? "packed: " + std::to_string(p.batch) + " sequences of " +
                           std::to_string(*std::min_element(opt.lengths.begin(), opt.lengths.end())) + "-" +
                           std::to_string(longest) + " rows"
                     : std::string();

          for (int rep = 1; rep <= opt.repeat; ++rep) {
            struct Row {
              AttentionImpl impl;
              std::string disposition, note;
              Verdict v;
              Timing time;
            };
            std::vector<Row> rows;
            std::vector<std::function<void()>> launches;
            std::vector<std::size_t> timed;
            for (const AttentionImpl impl : opt.impls) {
              Row r{impl, "", "", {}, {}};
              const Status st = attention_check(impl, a);
              if (!st) {
                r.disposition = "not_supported", r.note = st.message;
              } else {
                CUDA_CHECK(cudaMemsetAsync(dout.get(), 0xff, nq * 2, stream));
                CUDA_CHECK(cudaMemsetAsync(dlse.get(), 0xff, nlse * 4, stream));
                if (const Status s = attention(impl, a, stream); !s) throw BenchError(s.message);
                CUDA_CHECK(cudaStreamSynchronize(stream));
                ho.resize(nq);
                std::vector<float> hl(nlse);
                CUDA_CHECK(cudaMemcpy(ho.data(), dout.get(), nq * 2, cudaMemcpyDeviceToHost));
                CUDA_CHECK(cudaMemcpy(hl.data(), dlse.get(), nlse * 4, cudaMemcpyDeviceToHost));
                r.v = verify(p, a, hq, hk, hv, ho, hl, opt.verify_rows);
                r.disposition = r.v.ok ? "passed" : "incorrect", r.note = r.v.note;
                if (r.v.ok) {
                  timed.push_back(rows.size());
                  launches.push_back([&a, impl, stream] { (void)attention(impl, a, stream); });
                }
              }
              rows.push_back(r);
            }
            if (opt.verify_only) {
              launches.clear();
              timed.clear();
            }
            const std::vector<Timing> times = time_interleaved(launches, pol, stream, static_cast<std::size_t>(rep));
            for (std::size_t j = 0; j < timed.size(); ++j) rows[timed[j]].time = times[j];
            const double base = rows.front().time.median_ms;
            for (const Row& r : rows) {
              const bool has_time = r.time.launches > 0;
              *csv << csv_field(device.gpu) << ',' << device.sm_count << ',' << device.commit << ',' << name(r.impl)
                   << ',' << rep << ',' << p.batch << ',' << p.heads_q << ',' << p.heads_kv << ',' << p.seq_q << ','
                   << p.seq_kv << ',' << dim << ',' << (causal ? 1 : 0) << ',' << tessel::name(t) << ','
                   << (opt.seq_major ? "bshd" : "bhsd") << ",sampled" << opt.verify_rows << ',' << r.disposition << ','
                   << csv_field(packed ? join_note(packed_note, r.note) : r.note) << ',' << fmt("%.6g", r.v.max_err)
                   << ',' << fmt("%.6g", r.v.bound) << ',';
              if (has_time)
                *csv << fmt("%.6g", r.time.median_ms) << ',' << fmt("%.6g", r.time.min_ms) << ','
                     << fmt("%.6g", r.time.p90_ms) << ',' << fmt("%.6g", flops / r.time.median_ms / 1e9) << ','
                     << (base > 0 ? fmt("%.6g", base / r.time.median_ms) : std::string()) << ',';
              else
                *csv << ",,,,,";
              *csv << opt_num(r.time.sm_clock_mhz) << ',' << opt_num(r.time.power_w) << ",interleaved\n";
              std::cerr << name(r.impl) << " b" << p.batch << " h" << p.heads_q << "/" << p.heads_kv << " " << p.seq_q
                        << "x" << p.seq_kv << (packed ? " packed" : "") << " d" << dim << (causal ? " causal" : "")
                        << ": " << r.disposition;
              if (has_time)
                std::cerr << "  " << fmt("%.4g", r.time.median_ms) << " ms  "
                          << fmt("%.1f", flops / r.time.median_ms / 1e9) << " TFLOP/s";
              std::cerr << (r.note.empty() ? "" : "  (" + r.note + ")") << "\n";
            }
            csv->flush();
          }
        }
  } catch (const BenchError& e) {
    std::cerr << "tessel bench attention: " << e.what() << "\n";
    return 3;
  }
  return 0;
}

}  // namespace tessel::bench

// `tessel bench gemm`: the GEMM ladder's steps against cuBLASLt, measured in
// the same run on the same inputs (docs/bench-protocol.md):
//
//   per problem  fill A, B (and C) with random data; compute an fp64
//                reference on the device; run cuBLASLt and every step once on
//                a poisoned D and verify it (tier 1: bit-exact on small
//                integers; tier 2: error bound on uniform [-1,1] data);
//   per repeat   time cuBLASLt, then every step that passed: warm-up, then at
//                least --iterations launches and 200 ms, L2 flushed before
//                every timed launch (--flush read|memset), CUDA events,
//                median / min / p90, mean SM clock and board power (NVML).
//
// Argument parsing and the CSV/JSON writers are host code in
// bench_gemm_args.cpp (unit-tested without a GPU).  The part that needs one is
// this file, the driver (outputs, protocol, the loop over problems, the
// summary), and the pieces it drives:
//   bench_gemm_device.hpp  errors, device buffers, one problem's buffers
//   bench_gemm_verify.cu   random inputs, the fp64 reference, the comparison
//   bench_gemm_cublas.cu   the cuBLASLt reference runner
//   bench_gemm_timing.hpp  warm-up, timed launches, clock and power
//   bench_gemm_flush.cu    the L2 flush (a read kernel, or a memset)
//   nvml_sampler.hpp       NVML at run time, sampled in a background thread
//   bench_gemm_report.cu   the device's description, progress lines, CSV rows
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench.hpp"
#include "bench_gemm_cublas.hpp"
#include "bench_gemm_device.hpp"
#include "bench_gemm_report.hpp"
#include "bench_gemm_timing.hpp"
#include "bench_gemm_verify.hpp"
#include "tessel/host/gemm.hpp"
#include "tessel/host/jit.hpp"

namespace tessel::bench {

using namespace gemm_detail;  // the runner's pieces (bench_gemm_*.hpp)

namespace {

/// The problem's buffers as tessel::gemm's arguments: plan_args's call with
/// the buffers' addresses.
GemmArgs tessel_args(const ProblemData& d, GemmTuning tuning) {
  GemmArgs g = plan_args(d.p, tuning);
  g.fp8_scale_a = d.scale_a.as<float>();
  g.fp8_scale_b = d.scale_b.as<float>();
  g.a = d.a.get();
  g.lda = d.lda();
  g.b = d.b.get();
  g.c = d.c.get();  // null when beta == 0
  g.d = d.d_tessel.get();
  g.epilogue.bias = d.bias.get();  // null without a bias
  return g;
}

/// `args` without its epilogue: the plain GEMM of an unfused row.
GemmArgs without_epilogue(GemmArgs args) {
  args.epilogue = GemmEpilogue{};
  return args;
}

/// A group's problems as tessel::gemm_grouped's arguments (empty when `d`
/// is not a group): problem g at its offsets, each with its own B.
std::vector<GemmArgs> tessel_group(const ProblemData& d, GemmTuning tuning) {
  std::vector<GemmArgs> v;
  if (!d.grouped()) return v;
  const GemmArgs base = tessel_args(d, tuning);
  const std::size_t in = elem_bytes(d.p.in), out = elem_bytes(d.p.out);
  for (const SubProblem& sp : d.subs) {
    GemmArgs g = base;
    g.m = sp.m;
    g.a = d.a.as<char>() + sp.a_off * in;
    g.lda = d.lda(sp.m);
    g.b = d.b.as<char>() + sp.b_off * in;
    g.c = d.c.get() != nullptr ? d.c.as<char>() + sp.d_off * out : nullptr;
    g.d = d.d_tessel.as<char>() + sp.d_off * out;
    if (g.fp8_scale != Fp8Scale::none) g.fp8_scale_a += sp.sa_off, g.fp8_scale_b += sp.sb_off;  // each expert's own
    v.push_back(g);
  }
  return v;
}

/// The state of one problem's implementations between verification and timing.
struct ImplState {
  std::string impl;              // "k09", "k13:unfused"
  std::optional<GemmImpl> step;  // nullopt for cuBLAS
  bool unfused = false;          // the plain GEMM, then gemm_epilogue_apply (an epilogue's second row per step)
  std::string disposition;       // passed, incorrect, not_supported, unverified, error
  std::string note;
  std::optional<double> max_err;
  bool plain = false;  // the plain GEMM alone (an epilogue's third row per step: the cost of the epilogue)
  bool tune = false;   // `tuned`: auto with measured tuning (GemmTuning::tune), tuned during verification
};

/// k13's epilogue path at tuning `t` in the plan's words (gemm_plan.hpp,
/// k13_epilogue_path): the compiler is looked for only where `t` asks for
/// run-time compilation.
std::string epilogue_path_name(const GemmTuning& t, const GemmArgs& args) {
  const bool aux = args.epilogue.aux != nullptr;
  const bool ready = k13_wants_jit(t, args.beta, aux) && !jit_compiler().empty();
  return name(k13_epilogue_path(t, args.beta, aux, ready));
}

}  // namespace

int run_gemm_bench(const GemmBenchOptions& opt) {
  // ---------------------------------------------------------------- the device
  int count = 0;
  const cudaError_t ce = cudaGetDeviceCount(&count);
  if (ce != cudaSuccess || count == 0) {
    std::cerr << "tessel bench gemm: no CUDA device: tessel bench gemm needs a GPU ("
              << (ce != cudaSuccess ? cudaGetErrorString(ce) : "no device found") << ")\n";
    return 4;
  }
  int dev = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
    std::cerr << "tessel bench gemm: no CUDA device: tessel bench gemm needs a GPU (cudaGetDeviceProperties failed)\n";
    return 4;
  }
  const DeviceInfo device = read_device(dev, prop);

  // ---------------------------------------------------------------- outputs
  std::ofstream csv_file, json_file;
  std::ostream* csv = &std::cout;
  const bool csv_to_stdout = opt.csv.empty() || opt.csv == "-";
  if (!csv_to_stdout) {
    csv_file.open(opt.csv);
    if (!csv_file) {
      std::cerr << "tessel bench gemm: --csv: cannot write " << opt.csv << "\n";
      return 1;
    }
    csv = &csv_file;
  }
  if (!opt.json.empty() && opt.json != "-") {
    json_file.open(opt.json);
    if (!json_file) {
      std::cerr << "tessel bench gemm: --json: cannot write " << opt.json << "\n";
      return 1;
    }
  }
  // Standard output carries the CSV or the JSON when asked to; the summary then goes to stderr.
  std::ostream& summary_out = csv_to_stdout || opt.json == "-" ? std::cerr : std::cout;

  // ---------------------------------------------------------------- protocol
  constexpr std::size_t kWorkspaceBytes = 32u << 20;
  TimingPolicy pol;
  pol.warmup = opt.warmup;
  pol.iterations = opt.iterations;
  pol.timed_ms = opt.timed_ms;
  pol.flush_mode = opt.flush;
  // A multiple of 16 bytes: the read kernel loads 16 at a time.
  pol.flush_bytes =
      (std::max<std::size_t>(2 * static_cast<std::size_t>(device.l2_bytes), 64u << 20) + 15) & ~std::size_t{15};
  pol.flush_blocks = 8 * std::max(device.sm_count, 1);
  ProtocolInfo proto;
  proto.warmup_min_launches = opt.warmup;
  proto.timed_min_launches = opt.iterations;
  proto.timed_min_ms = opt.timed_ms;
  proto.flush_bytes = static_cast<std::int64_t>(pol.flush_bytes);
  proto.l2_flush = flush_name(opt.flush);
  proto.timing = order_name(opt.order);
  proto.heat_ms = opt.heat_ms;
  const std::string flush_mib = std::to_string(pol.flush_bytes >> 20) + " MiB (>= 2x L2)";
  proto.l2_policy =
      opt.flush == L2Flush::read
          ? "flush: read: a kernel reads " + flush_mib +
                " (16-byte loads) before every timed launch, outside the timed region; one input set"
          : "flush: memset: cudaMemsetAsync of " + flush_mib +
                " before every timed launch, outside the timed region (its dirty lines are written back during the "
                "timed launch); one input set";

  // Clock and power through NVML, found by the CUDA device's PCI bus id (NVML
  // numbers devices its own way); without NVML the columns stay empty.
  char pci_bus_id[32] = {};
  if (cudaDeviceGetPCIBusId(pci_bus_id, sizeof pci_bus_id, dev) != cudaSuccess) {
    cudaGetLastError();
    pci_bus_id[0] = '\0';  // NVML's device `dev` then: right unless CUDA_VISIBLE_DEVICES reorders
  }
  const NvmlDevice nvml(pci_bus_id, static_cast<unsigned>(dev));
  NvmlSampler sampler(nvml);
  pol.sampler = &sampler;
  proto.clock_power =
      nvml.available()
          ? nvml.description() +
                ": means of samples every 5 ms over each row's timed loop (the flushes between the launches included, "
                "the warm-up not); "
                "SM clock nvmlDeviceGetClockInfo(NVML_CLOCK_SM), power nvmlDeviceGetPowerUsage (on recent GPUs "
                "itself a 1 s average)"
          : nvml.description();
  proto.verify = verify_name(opt.verify);
  proto.repeat = opt.repeat;
  proto.reference =
      "cublasLtMatmul, first result of cublasLtMatmulAlgoGetHeuristic, 32 MiB workspace, CUBLAS_COMPUTE_32F "
      "(fp32 inputs: plain fp32, no TF32), fp32 scale, same buffers; ratio = t_cublas_median / t_impl_median";

  std::cerr << "# " << device.gpu << ", " << device.sm_count << " SMs, sm_" << device.cc_major << device.cc_minor
            << ", SM clock " << device.sm_clock_khz / 1000 << " MHz, memory clock " << device.mem_clock_khz / 1000
            << " MHz, L2 " << (device.l2_bytes >> 20) << " MiB, " << (device.memory_bytes >> 30) << " GiB, driver "
            << (device.driver_version.empty() ? "?" : device.driver_version) << " (CUDA " << device.driver
            << "), runtime " << device.runtime << ", tessel " << device.commit << "\n"
            << (opt.order == TimingOrder::none
                    ? std::string("# --order none: every row verified, nothing timed")
                    : "# warm-up >= " + std::to_string(opt.warmup) +
                          " launches and 25 ms; timed >= " + std::to_string(opt.iterations) + " launches and " +
                          std::to_string(opt.timed_ms) + " ms; median (min, p90 in the CSV)" +
                          (opt.heat_ms > 0 ? "; heat: " + std::to_string(opt.heat_ms) +
                                                 " ms of untimed launches before each problem's first loop"
                                           : std::string()))
            << "; L2: " << proto.l2_policy << "\n"
            << "# clock and power: " << proto.clock_power << "\n"
            << "# verify " << proto.verify << "; cuBLAS: " << proto.reference << "\n";
  if (opt.order != TimingOrder::none && (opt.warmup < 10 || opt.iterations < 50))
    std::cerr << "# note: --warmup " << opt.warmup << " / --iterations " << opt.iterations
              << " are below the protocol's 10 / 50: these numbers are not publishable\n";

  // With an epilogue every step has two more rows, unfused and plain (the problems of a run share the epilogue).
  const bool with_epilogue = !opt.problems.empty() && opt.problems.front().epilogue != BenchEpilogue{};
  const std::size_t rows_per_repeat =
      opt.steps.size() * (with_epilogue ? 3 : 1) + (opt.cublas_rows ? 1 : 0) + (opt.tuned ? 1 : 0);
  Reporter rep(device, *csv, opt.problems.size() * static_cast<std::size_t>(opt.repeat) * rows_per_repeat);
  std::string fatal;

  try {
    cudaStream_t stream = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    const std::unique_ptr<CUstream_st, cudaError_t (*)(cudaStream_t)> stream_guard(stream, cudaStreamDestroy);
    cublasLtHandle_t lt = nullptr;
    CUBLAS_CHECK(cublasLtCreate(&lt));
    const std::unique_ptr<cublasLtContext, cublasStatus_t (*)(cublasLtHandle_t)> lt_guard(lt, cublasLtDestroy);
    DeviceBuffer flush(pol.flush_bytes, "L2 flush buffer");
    DeviceBuffer flush_sink(16, "L2 flush sink");
    DeviceBuffer workspace(kWorkspaceBytes, "cuBLAS workspace");
    pol.flush = flush.get();
    pol.flush_sink = flush_sink.as<unsigned>();
    init_l2_flush(pol, stream);
    const int sms = device.sm_count;
    const bool verifying = opt.verify != VerifyTier::none;

    for (std::size_t pi = 0; pi < opt.problems.size(); ++pi) {
      const GemmProblem& p = opt.problems[pi];
      const std::size_t rows_before = rep.emitted();
      std::cerr << "problem " << pi + 1 << "/" << opt.problems.size() << ": " << p.group << " " << shape_name(p) << " "
                << input_type_name(p.in, p.in_b) << "->" << tessel::name(p.out) << " " << tessel::name(p.layout)
                << " alpha=" << p.alpha << " beta=" << p.beta << "\n";
      // Rows not yet emitted when a problem fails with a CUDA error.
      auto emit_error_rows = [&](const std::string& why) {
        std::size_t done = rep.emitted() - rows_before;
        for (int r = 1; r <= opt.repeat; ++r) {
          std::vector<std::string> impls;
          if (opt.cublas_rows) impls.push_back("cublas");
          for (GemmImpl g : opt.steps) {
            impls.push_back(short_name(g));
            if (with_epilogue) {
              impls.push_back(std::string(short_name(g)) + ":unfused");
              impls.push_back(std::string(short_name(g)) + ":plain");
            }
          }
          if (opt.tuned) impls.push_back("tuned");
          for (const std::string& impl : impls) {
            if (done > 0) {
              --done;
              continue;
            }
            GemmBenchRow row;
            row.impl = impl;
            row.repeat = r;
            row.problem = p;
            row.verify = proto.verify;
            row.l2_flush = proto.l2_flush;
            row.timing = proto.timing;
            row.heat_ms = proto.heat_ms;
            row.disposition = "error";
            row.note = why;
            rep.start(impl, p, r);
            rep.finish(row);
          }
        }
      };
      try {
        ProblemData data(p, verifying);
        fill_inputs(data, opt.verify == VerifyTier::tier1, sms, stream);
        if (verifying) {
          const auto t0 = std::chrono::steady_clock::now();
          launch_reference(data, stream);
          CUDA_CHECK(cudaStreamSynchronize(stream));
          std::cerr << "  reference (fp64): "
                    << fmt("%.2f", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count())
                    << " s\n";
        }

        // ---- verification: cuBLAS first (tier 2 compares each step with it)
        const std::size_t d_bytes = data.d_elems * elem_bytes(p.out);
        CublasGemm cublas(lt, data, workspace.get(), kWorkspaceBytes, opt.cublas_fp32_reduction);
        ImplState cub{"cublas", std::nullopt, false, "", "", std::nullopt};
        const GemmArgs args = tessel_args(data, opt.tuning);
        const GemmArgs plain_args = without_epilogue(args);
        GemmArgs tuned_args = args;
        tuned_args.tuning.tune = true;
        GemmArgs cublas_epilogue = args;  // tessel's epilogue over cuBLASLt's D, where cuBLASLt has none
        cublas_epilogue.d = data.d_cublas.get();
        // cuBLASLt, with its epilogue or followed by tessel's.
        const auto run_cublas = [&] {
          cublas.run(stream);
          if (!cublas.fused())
            if (Status s = gemm_epilogue_apply(cublas_epilogue, stream); !s)
              throw BenchError("gemm_epilogue_apply after cuBLASLt failed: " + s.message);
        };
        // A step's row: tessel::gemm with the epilogue, or (unfused) the plain GEMM then
        // gemm_epilogue_apply, or (plain) the plain GEMM alone.
        const std::vector<GemmArgs> group = tessel_group(data, opt.tuning);
        const auto run_step = [&](const ImplState& st) -> Status {
          if (!group.empty()) return gemm_grouped(group.data(), static_cast<int>(group.size()), stream);
          if (st.plain) return gemm(*st.step, plain_args, stream);
          if (st.tune) return gemm(*st.step, tuned_args, stream);
          if (!st.unfused) return gemm(*st.step, args, stream);
          if (Status s = gemm(*st.step, plain_args, stream); !s) return s;
          return gemm_epilogue_apply(args, stream);
        };
        if (!cublas.supported()) {
          cub.disposition = "not_supported";
          cub.note = cublas.reason();
        } else {
          CUDA_CHECK(cudaMemsetAsync(data.d_cublas.get(), 0xFF, d_bytes, stream));  // NaN in every float type
          run_cublas();
          CUDA_CHECK(cudaStreamSynchronize(stream));
          if (verifying) {
            const Verdict v = verify_output(data, data.d_cublas, opt.verify, sms, stream);
            cub.disposition = v.passed ? "passed" : "incorrect";
            cub.note = v.note;
            cub.max_err = v.max_err;
          } else {
            cub.disposition = "unverified";
          }
        }
        if (!cublas.epilogue_note().empty())
          cub.note = cub.note.empty() ? cublas.epilogue_note() : cublas.epilogue_note() + "; " + cub.note;
        std::cerr << "  verify cublas: " << cub.disposition;
        if (cub.max_err) std::cerr << ", max err " << fmt("%.3g", *cub.max_err);
        if (!cub.note.empty()) std::cerr << " [" << cub.note << "]";
        std::cerr << "\n";

        std::vector<ImplState> steps;
        // A group runs through tessel::gemm_grouped (rows auto and k13);
        // everything else through tessel::gemm with the row's step.
        const auto check_step = [&](const ImplState& st) -> Status {
          if (group.empty())
            return gemm_check(*st.step, st.unfused || st.plain ? plain_args : st.tune ? tuned_args : args);
          if (*st.step != GemmImpl::automatic && *st.step != GemmImpl::k13_wgmma_in_flight)
            return Status::failure(Status::unsupported,
                                   "a group runs through tessel::gemm_grouped: rows auto and k13 only");
          return gemm_grouped_check(group.data(), static_cast<int>(group.size()));
        };
        if (!cublas.note().empty()) cub.note = cub.note.empty() ? cublas.note() : cub.note + "; " + cublas.note();
        std::vector<ImplState> todo;
        for (GemmImpl g : opt.steps) {
          todo.push_back(ImplState{short_name(g), g, false, "", "", std::nullopt});
          if (with_epilogue) {
            todo.push_back(ImplState{std::string(short_name(g)) + ":unfused", g, true, "", "", std::nullopt});
            todo.push_back(ImplState{std::string(short_name(g)) + ":plain", g, false, "", "", std::nullopt});
            todo.back().plain = true;
          }
        }
        if (opt.tuned) {
          todo.push_back(ImplState{"tuned", GemmImpl::automatic, false, "", "", std::nullopt});
          todo.back().tune = true;
        }
        for (ImplState st : todo) {
          if (Status chk = check_step(st); !chk) {
            st.disposition = "not_supported";
            st.note = std::string(to_string(chk.code)) + ": " + chk.message;
          } else {
            CUDA_CHECK(cudaMemsetAsync(data.d_tessel.get(), 0xFF, d_bytes, stream));
            const Status run = run_step(st);
            const cudaError_t sync = cudaStreamSynchronize(stream);
            if (!run) {
              st.disposition = run.code == Status::cuda_error ? "error" : "not_supported";
              st.note = std::string(to_string(run.code)) + ": " + run.message;
            } else if (sync != cudaSuccess) {
              st.disposition = "error";
              st.note = std::string("kernel failed: ") + cudaGetErrorName(sync) + ": " + cudaGetErrorString(sync);
              cudaGetLastError();
              // A sticky error (illegal address, ...) breaks the context for good.
              check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize after a failed kernel");
            } else if (st.plain) {
              // D without the epilogue cannot match the reference; the :unfused
              // row just before ran the same GEMM and verified it with the epilogue.
              st.disposition = steps.back().disposition;
            } else if (verifying) {
              const Verdict v = verify_output(data, data.d_tessel, opt.verify, sms, stream);
              st.max_err = v.max_err;
              st.disposition = v.passed ? "passed" : "incorrect";
              st.note = v.note;
              // Tier 2: not more than twice cuBLAS's error on the same inputs,
              // where the error is at least 1/32 of the bound: below that both
              // are far inside it and the ratio only says which summation order
              // each chose (docs/bench-protocol.md; fp32 at 1536^3: 0.0022 for
              // every fp32 step, the K-ordered sum, against 0.0006 for cuBLAS).
              constexpr double kRatioFloor = 1.0 / 32;
              if (v.passed && opt.verify == VerifyTier::tier2 && cub.disposition == "passed" && cub.max_err &&
                  *cub.max_err > 0 && v.max_err >= kRatioFloor && v.max_err > 2.0 * *cub.max_err) {
                st.disposition = "incorrect";
                st.note =
                    "max normalized error " + fmt("%.3g", v.max_err) + " > 2x cuBLAS's " + fmt("%.3g", *cub.max_err);
              }
            } else {
              st.disposition = "unverified";
            }
            // What `auto` (or k13) ran, for the note column: "k13 tile 128x192 splits 1".
            const GemmArgs& ran = st.unfused || st.plain ? plain_args : st.tune ? tuned_args : args;
            if (!group.empty() && st.note.empty())
              st.note = gemm_plan_grouped(group.data(), static_cast<int>(group.size())).why;
            if (*st.step == GemmImpl::automatic && st.note.empty()) st.note = gemm_plan(ran).why;
            if (*st.step == GemmImpl::k13_wgmma_in_flight && st.note.empty() && args.batch > 1) {
              // k13's batched width (rule 8): the plan of a tuned call, which
              // rule 11 (k15 batched, for untuned calls only) leaves to k13.
              GemmArgs k13_args = args;
              if (k13_args.tuning.splits == 0) k13_args.tuning.splits = 1;
              st.note = gemm_plan(k13_args).why;
            }
            if (*st.step == GemmImpl::k13_wgmma_in_flight && st.note.empty()) {
              // What the named step runs (k13_tuning), not the plan's choice between steps.
              const GemmTuning t =
                  k13_tuning(ran.tuning, ran.m, ran.n, ran.k, device.sm_count, rows_whole_lines(ran.lda),
                             ran.epilogue.active(), rows_whole_lines(ran.ldb));
              st.note = "k13 tile " + std::string(t.tile_m == 64 ? "64" : "128") + "x" + std::to_string(t.tile_n) +
                        " splits " + std::to_string(t.splits) + (t.swap_ab == SwapAB::on ? " swapped" : "") +
                        (args.tuning.raster_group != 0 ? " group " + std::to_string(t.raster_group) : "") +
                        (args.tuning.stages != 0 ? " stages " + std::to_string(args.tuning.stages) : "") +
                        (!with_epilogue || st.unfused ? "" : " " + epilogue_path_name(t, args));
            }
            if (st.unfused && !st.note.empty()) st.note += "; then gemm_epilogue_apply";
            if (st.plain)
              st.note += std::string(st.note.empty() ? "" : "; ") +
                         "no epilogue (the :unfused row's GEMM, verified there with its epilogue)";
            if (*st.step == GemmImpl::k14_cluster_multicast && st.note.empty()) {
              const GemmTuning t = k14_tile(args.m, args.n, args.k, device.sm_count, args.tuning);
              st.note = "k14 tile " + std::string(t.tile_m == 64 ? "64" : "128") + "x" +
                        (t.cluster == 4 ? "128 cluster 2x2" : std::to_string(t.tile_n) + " cluster 2x1") +
                        (t.cluster_share == ClusterShare::a ? " sharing A" : "");  // check_k14
            }
          }
          std::cerr << "  verify " << st.impl << ": " << st.disposition;
          if (st.max_err) std::cerr << ", max err " << fmt("%.3g", *st.max_err);
          if (!st.note.empty()) std::cerr << " [" << st.note << "]";
          std::cerr << "\n";
          steps.push_back(st);
        }

        // ---- timing, per repeat
        // --order none: the rows carry the verification only.
        const auto timed = [&opt](const std::string& disp) {
          return opt.order != TimingOrder::none && (disp == "passed" || disp == "unverified");
        };
        // One step's launch for a timing or heating loop: a failing call
        // ends the run with the step's message.
        const auto launch_of = [&run_step](const ImplState& st, const char* doing) {
          return [&st, &run_step, doing] {
            if (Status s = run_step(st); !s)
              throw BenchError(std::string("tessel::gemm(") + st.impl + ") failed while " + doing + ": " + s.message);
          };
        };
        // The heat: what repeat 1 times first (cuBLASLt, else the first
        // step that passed) runs untimed for heat_ms, so that the first loop
        // after the verification does not run on a cooler card.
        if (opt.heat_ms > 0) {
          if (timed(cub.disposition)) {
            heat_up(run_cublas, pol, stream, opt.heat_ms);
          } else {
            for (const ImplState& st : steps)
              if (timed(st.disposition)) {
                heat_up(launch_of(st, "heating"), pol, stream, opt.heat_ms);
                break;
              }
          }
        }
        for (int r = 1; r <= opt.repeat; ++r) {
          // Everything of this repeat is timed first, then written.  The order
          // alternates between repeats (cuBLAS first in odd ones, last in even
          // ones): what runs last runs on a hotter card, up to 5 % slower on an
          // H100 at its power cap (docs/bench-protocol.md §3).
          std::optional<Timing> tc;
          std::vector<std::optional<Timing>> ts(steps.size());
          const auto time_cublas = [&] {
            if (timed(cub.disposition)) tc = time_launches(run_cublas, pol, stream);
          };
          const auto time_steps = [&] {
            for (std::size_t i = 0; i < steps.size(); ++i) {
              const ImplState& st = steps[i];
              if (!timed(st.disposition)) continue;
              ts[i] = time_launches(launch_of(st, "timing"), pol, stream);
            }
          };
          if (opt.order == TimingOrder::interleaved) {
            // One loop for all (time_interleaved); the first of each round
            // rotates, and so does the first of repeat r.
            std::vector<std::function<void()>> launches;
            std::vector<std::optional<Timing>*> into;
            if (timed(cub.disposition)) {
              launches.emplace_back(run_cublas);
              into.push_back(&tc);
            }
            for (std::size_t i = 0; i < steps.size(); ++i) {
              const ImplState& st = steps[i];
              if (!timed(st.disposition)) continue;
              launches.emplace_back(launch_of(st, "timing"));
              into.push_back(&ts[i]);
            }
            const std::vector<Timing> got =
                time_interleaved(launches, pol, stream, launches.empty() ? 0 : static_cast<std::size_t>(r - 1));
            for (std::size_t j = 0; j < got.size(); ++j) *into[j] = got[j];
          } else if (r % 2 == 1) {
            time_cublas();
            time_steps();
          } else {
            time_steps();
            time_cublas();
          }
          auto base_row = [&](const ImplState& st) {
            GemmBenchRow row;
            row.impl = st.impl;
            row.repeat = r;
            row.problem = p;
            row.verify = proto.verify;
            row.l2_flush = proto.l2_flush;
            row.timing = proto.timing;
            row.heat_ms = proto.heat_ms;
            row.disposition = st.disposition;
            row.note = st.note;
            row.max_err = st.max_err;
            row.cublas_max_err = cub.max_err;
            row.cublas_disposition = cub.disposition;
            row.cublas_reference = opt.cublas_fp32_reduction ? "cublas_fp32" : "cublas";
            row.cublas_reduction = cublas.reduction();
            if (tc) {
              row.cublas_median_ms = tc->median_ms;
              row.cublas_tflops = tflops(p, tc->median_ms);
              row.cublas_gbytes_per_s = gemm_gbytes_per_s(p, tc->median_ms);
              row.cublas_sm_clock_mhz = tc->sm_clock_mhz;
              row.cublas_power_w = tc->power_w;
            }
            return row;
          };
          if (opt.cublas_rows) {
            rep.start("cublas", p, r);
            GemmBenchRow row = base_row(cub);
            if (tc) {
              row.median_ms = tc->median_ms;
              row.min_ms = tc->min_ms;
              row.p90_ms = tc->p90_ms;
              row.tflops = tflops(p, tc->median_ms);
              row.gbytes_per_s = row.cublas_gbytes_per_s;
              row.sm_clock_mhz = tc->sm_clock_mhz;
              row.power_w = tc->power_w;
              row.ratio = 1.0;
            }
            rep.finish(row);
          }
          for (std::size_t i = 0; i < steps.size(); ++i) {
            const ImplState& st = steps[i];
            rep.start(st.impl, p, r);
            GemmBenchRow row = base_row(st);
            if (ts[i]) {
              const Timing& t = *ts[i];
              row.median_ms = t.median_ms;
              row.min_ms = t.min_ms;
              row.p90_ms = t.p90_ms;
              row.tflops = tflops(p, t.median_ms);
              row.gbytes_per_s = gemm_gbytes_per_s(p, t.median_ms);
              row.sm_clock_mhz = t.sm_clock_mhz;
              row.power_w = t.power_w;
              if (tc) row.ratio = tc->median_ms / t.median_ms;
            }
            rep.finish(row);
          }
        }
      } catch (const BenchError& e) {
        std::cerr << (rep.line_open() ? "\n" : "") << "  error: " << e.what() << "\n";
        cudaGetLastError();
        emit_error_rows(e.what());
        // Out of memory or a bad launch leaves the context usable; an illegal
        // address and the like do not (every later call fails): stop then.
        const cudaError_t health = cudaDeviceSynchronize();
        if (health != cudaSuccess) {
          fatal = std::string("the CUDA context is broken (") + cudaGetErrorString(health) +
                  "): stopped after problem " + std::to_string(pi + 1) + " of " + std::to_string(opt.problems.size());
          break;
        }
      }
    }
  } catch (const BenchError& e) {
    fatal = e.what();
  }

  // ---------------------------------------------------------------- summary
  // Per problem group too where the problems have several (a random suite's a64, a8, odd).
  bool groups = false;
  for (const GemmProblem& p : opt.problems) groups = groups || p.group != opt.problems.front().group;
  const std::vector<ImplSummary> summary = summarize(rep.rows(), groups);
  summary_out << "summary: t_cublas / t_impl over the problems that passed (geometric mean of the repeats)\n";
  if (const std::string f = reference_failures(rep.rows()); !f.empty()) summary_out << "  " << f << "\n";
  for (const ImplSummary& s : summary) {
    summary_out << "  " << s.impl << (s.group == "all" ? std::string() : " [" + s.group + "]") << ": ";
    if (s.problems == 0)
      summary_out << "no passed problem with a cuBLAS time (" << s.rows << " rows)\n";
    else
      summary_out << "geomean " << fmt("%.3f", s.geomean_ratio) << ", min " << fmt("%.3f", s.min_ratio) << " over "
                  << s.problems << " problems; below 0.95: " << fmt("%.1f", 100 * s.below_095)
                  << " %, below 0.85: " << fmt("%.1f", 100 * s.below_085) << " %\n";
  }
  if (!opt.json.empty()) {
    std::ostream& js = opt.json == "-" ? std::cout : json_file;
    write_json(js, device, proto, rep.rows(), summary, fatal);
    js.flush();
    if (!js) {
      std::cerr << "tessel bench gemm: --json: write failed\n";
      return 1;
    }
  }
  if (opt.tuning.jit != GemmJit::off) {
    const JitStats js = jit_stats();
    std::cerr << "tessel bench gemm: jit: " << js.compiled << " compiled, " << js.disk_hits << " from the disk cache ("
              << jit_cache_dir() << "), " << js.memory_hits << " calls reusing a loaded kernel, " << js.fallbacks
              << " fallbacks to the ahead-of-time path";
    if (const std::string m = jit_last_message(); !m.empty()) std::cerr << "; last: " << m;
    std::cerr << "\n";
  }
  if (!fatal.empty()) {
    std::cerr << "tessel bench gemm: " << fatal << "\n";
    return 3;
  }
  return 0;
}

}  // namespace tessel::bench

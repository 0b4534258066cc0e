// The model's own choice (tessel::model_choice, include/tessel/gemm_model.hpp) scored against tuning logs:
// for each 16-bit problem below kModelMaxFlops whose every configuration a TESSEL_TUNE_LOG holds (one line per
// timed configuration: key, choice, median us, launches), the logged time of the model's choice over the
// fastest logged time (the regret), and the measured over predicted time of every logged configuration.
// No GPU and no CUDA: the model is plain host arithmetic, so a change to its constants is scored in
// seconds, on timings of every configuration, before any A/B of two builds.
//
//   g++ -std=c++20 -O2 -Iinclude bench/lab/model_on_log.cpp -o /tmp/model_on_log
//   /tmp/model_on_log LOG... [--rows] [--flops LO:HI]
//
// Prints per problem (with --rows) M, N, K, the model's choice, its logged and predicted µs and the
// fastest logged configuration; then per log the problems scored, the geometric-mean regret and the
// share within 2 %.  A choice the log never timed is counted apart ("untimed").  --flops scores the problems
// of 2 M N K in [LO, HI) instead of below kModelMaxFlops: what the model would choose where the rules decide.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include "tessel/gemm_model.hpp"

int main(int argc, char** argv) {
  using namespace tessel;
  bool rows = false;
  double lo = 0.0, hi = kModelMaxFlops;
  for (int i = 1; i < argc; ++i) {
    rows = rows || std::string(argv[i]) == "--rows";
    if (std::string(argv[i]) == "--flops" && i + 1 < argc) std::sscanf(argv[i + 1], "%lf:%lf", &lo, &hi);
  }
  const std::regex shape(";(\\d+)x(\\d+)x(\\d+);ld=(\\d+),(\\d+),(\\d+),(\\d+);");
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--rows") continue;
    if (std::string(argv[i]) == "--flops") {
      ++i;
      continue;
    }
    std::ifstream in(argv[i]);
    if (!in) {
      std::fprintf(stderr, "cannot read %s\n", argv[i]);
      return 1;
    }
    // key -> (the problem, configuration -> logged us)
    std::map<std::string, std::pair<PlanProblem, std::map<std::string, double>>> problems;
    for (std::string line; std::getline(in, line);) {
      std::stringstream ss(line);
      std::string key, choice, us;
      std::getline(ss, key, '\t');
      std::getline(ss, choice, '\t');
      std::getline(ss, us, '\t');
      std::smatch m;
      if (us.empty() || !std::regex_search(key, m, shape) || key.find("bf16->bf16") == std::string::npos ||
          key.find("beta=0") == std::string::npos || key.find("epi=none") == std::string::npos)
        continue;
      auto& [p, times] = problems[key];
      p.m = std::stoll(m[1]), p.n = std::stoll(m[2]), p.k = std::stoll(m[3]);
      p.lda = std::stoll(m[4]), p.ldb = std::stoll(m[5]);
      p.d_tma = std::stoll(m[7]) % 8 == 0;  // D's rows TMA can store
      p.a_k_major = key.find(";A:k,") != std::string::npos;
      const double t = std::stod(us);
      auto [it, fresh] = times.emplace(choice, t);
      if (!fresh && t < it->second) it->second = t;
    }
    int scored = 0, within2 = 0, untimed = 0;
    double log_regret = 0.0;
    for (const auto& [key, entry] : problems) {
      const auto& [p, times] = entry;
      const double flops = 2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k);
      if (flops < lo || flops >= hi) continue;
      GemmCandidate c;
      double predicted = 0.0;
      if (!model_choice(p, 132, c, predicted)) continue;
      std::string name = candidate_name(c);
      auto it = times.find(name);
      if (it == times.end() && c.splits == 1) it = times.find(name.substr(0, name.find(":s1")));
      auto best = times.begin();
      for (auto t = times.begin(); t != times.end(); ++t)
        if (t->second < best->second) best = t;
      if (it == times.end()) {
        ++untimed;
        continue;
      }
      const double regret = it->second / best->second;
      ++scored, within2 += regret <= 1.02, log_regret += std::log(regret);
      if (rows)
        std::printf("%lld x %lld x %lld  model %-20s %8.1f us (predicted %6.1f)  best %-20s %8.1f us  %.3f\n",
                    static_cast<long long>(p.m), static_cast<long long>(p.n), static_cast<long long>(p.k),
                    name.c_str(), it->second, predicted, best->first.c_str(), best->second, regret);
    }
    std::printf("%s: %d problems of [%.0e, %.0e) flops scored, regret %.4f (geomean), %.0f %% within 2 %%; %d untimed\n",
                argv[i], scored, lo, hi, scored ? std::exp(log_regret / scored) : NAN,
                scored ? 100.0 * within2 / scored : 0.0, untimed);
  }
  return 0;
}

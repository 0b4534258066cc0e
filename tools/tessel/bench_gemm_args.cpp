// `tessel bench gemm`: argument parsing, suite reading, CSV/JSON writing
// (host C++ only; see bench_gemm_args.hpp).
#include "bench_gemm_args.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cfloat>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <istream>
#include <iterator>
#include <map>
#include <ostream>
#include <sstream>
#include <tuple>
#include <utility>

namespace tessel::bench {
namespace {

// Limits that keep a typo from asking for millions of problems.
constexpr std::int64_t kMaxExtent = 2147483647;  // one M, N or K
constexpr std::size_t kMaxValuesPerFlag = 4096;  // values of one --m/--n/--k
constexpr std::size_t kMaxProblems = 100000;     // the whole problem list

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  std::size_t pos = 0;
  while (true) {
    const std::size_t end = s.find(sep, pos);
    parts.push_back(s.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos));
    if (end == std::string_view::npos) break;
    pos = end + 1;
  }
  return parts;
}

std::string quoted(std::string_view s) {
  // Appended piecewise: gcc 12's -Wrestrict misfires on "'" + std::string(s) + "'"
  // once this function is compiled out of line.
  std::string q;
  q.reserve(s.size() + 2);
  q += '\'';
  q += s;
  q += '\'';
  return q;
}

/// A decimal integer >= 1 and <= kMaxExtent; digits only (no sign, no spaces inside).
bool parse_positive(std::string_view text, std::int64_t& v) {
  text = trim(text);
  if (text.empty()) return false;
  v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
    if (v > kMaxExtent) return false;
  }
  return v >= 1;
}

/// Why `text` is not a positive integer, for the error message.
std::string not_positive(std::string_view flag, std::string_view text) {
  const std::string_view t = trim(text);
  std::string why = "is not a positive integer";
  if (!t.empty() && t[0] == '-')
    why = "is negative (extents must be at least 1)";
  else if (!t.empty() && t.find_first_not_of('0') == std::string_view::npos)
    why = "is zero (extents must be at least 1)";
  else if (!t.empty() && t.find_first_not_of("0123456789") == std::string_view::npos)
    why = "is too large (at most " + std::to_string(kMaxExtent) + ")";
  return std::string(flag) + ": " + quoted(t) + " " + why;
}

/// One of `names`' words (trimmed, any case) into `out`; else `error` names the flag and `choices`.
template <class E>
bool parse_word(std::string_view text, std::string_view flag,
                std::initializer_list<std::pair<std::string_view, E>> names, std::string_view choices, E& out,
                std::string& error) {
  const std::string who = lower(trim(text));
  for (const auto& [word, value] : names)
    if (who == word) {
      out = value;
      return true;
    }
  error = std::string(flag) + ": " + quoted(who) + " is not " + std::string(choices);
  return false;
}

/// A non-negative count (for --iterations and friends).
bool parse_count(std::string_view text, std::string_view flag, int lo, int hi, int& out, std::string& error) {
  const std::string_view t = trim(text);
  long long v = 0;
  bool ok = !t.empty() && t.size() <= 9;
  for (char c : t) ok = ok && c >= '0' && c <= '9';
  if (ok) {
    for (char c : t) v = v * 10 + (c - '0');
    ok = v >= lo && v <= hi;
  }
  if (!ok) {
    error = std::string(flag) + ": " + quoted(t) + " is not an integer from " + std::to_string(lo) + " to " +
            std::to_string(hi);
    return false;
  }
  out = static_cast<int>(v);
  return true;
}

/// A finite scale factor, rounded to fp32 (GemmArgs holds float alpha/beta;
/// the reference must use the value the kernel sees).
bool parse_scale(std::string_view text, std::string_view flag, double& out, std::string& error) {
  const std::string t(trim(text));
  char* end = nullptr;
  errno = 0;
  const double v = t.empty() ? 0.0 : std::strtod(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size() || errno == ERANGE || !std::isfinite(v) || std::fabs(v) > FLT_MAX) {
    error = std::string(flag) + ": " + quoted(t) + " is not a finite number";
    return false;
  }
  out = static_cast<double>(static_cast<float>(v));
  return true;
}

}  // namespace

std::string input_type_name(DType in, const std::optional<DType>& in_b) {
  return in_b && *in_b != in ? std::string(tessel::name(in)) + "x" + tessel::name(*in_b) : tessel::name(in);
}

bool parse_input_type(std::string_view text, std::string_view flag, DType& in, std::optional<DType>& in_b,
                      std::string& error) {
  const std::string_view t = trim(text);
  const auto types = parse_input_types(t);
  if (!types) {
    error = std::string(flag) + ": " + quoted(t) +
            " is not a type (bf16, fp16, fp32, e4m3 or e5m2; or where A's and B's differ, their FP8 formats: "
            "e4m3xe5m2, e5m2xe4m3)";
    return false;
  }
  in = types->first;
  in_b = types->second != types->first ? std::optional<DType>(types->second) : std::nullopt;
  return true;
}

namespace {

bool parse_output_type(std::string_view text, std::string_view flag, DType& out, std::string& error) {
  const std::optional<DType> t = parse_dtype(trim(text));
  if (!t || is_fp8(*t)) {
    error = std::string(flag) + ": " + quoted(trim(text)) + " is not an output type (bf16, fp16 or fp32" +
            (t ? "; FP8 is an input type)" : ")");
    return false;
  }
  out = *t;
  return true;
}

/// One --layout value: layouts separated by ';', or `all`.  Appends distinct ones.
bool parse_layout_list(std::string_view text, std::string_view flag, std::vector<GemmLayout>& out, std::string& error) {
  for (std::string_view part : split(text, ';')) {
    part = trim(part);
    if (lower(part) == "all") {
      for (GemmLayout l : kAllGemmLayouts)
        if (std::find(out.begin(), out.end(), l) == out.end()) out.push_back(l);
      continue;
    }
    std::optional<GemmLayout> l = parse_gemm_layout(part);
    if (!l) l = parse_blas_layout(part);
    if (!l) {
      error = std::string(flag) + ": " + quoted(part) +
              " is not a layout (A:k,B:n  A:k,B:k  A:m,B:n  A:m,B:k, the short forms kn kk mn mk, BLAS's "
              "nn nt tn tt, or all; separate several with ';')";
      return false;
    }
    if (std::find(out.begin(), out.end(), *l) == out.end()) out.push_back(*l);
  }
  return true;
}

std::string fmt_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

/// The shortest decimal that reads back as the same float (alpha, beta).
std::string fmt_scale(double v) {
  char buf[64];
  for (int prec = 6; prec <= 9; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (static_cast<float>(std::strtod(buf, nullptr)) == static_cast<float>(v)) break;
  }
  return buf;
}

std::string fmt_opt(const std::optional<double>& v) { return v ? fmt_number(*v) : std::string(); }

std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}
std::string json_opt(const std::optional<double>& v) { return v ? json_number(*v) : std::string("null"); }

}  // namespace

bool split_csv_line(std::string_view line, std::vector<std::string>& fields) {
  fields.clear();
  std::string cur;
  bool in_quotes = false, was_quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (in_quotes) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
        cur += '"', ++i;
      else if (c == '"')
        in_quotes = false;
      else
        cur += c;
    } else if (c == '"' && std::string(trim(cur)).empty()) {
      in_quotes = was_quoted = true;
      cur.clear();
    } else if (c == ',') {
      fields.push_back(was_quoted ? cur : std::string(trim(cur)));
      cur.clear();
      was_quoted = false;
    } else {
      cur += c;
    }
  }
  if (in_quotes) return false;
  fields.push_back(was_quoted ? cur : std::string(trim(cur)));
  return true;
}

std::optional<GemmLayout> parse_blas_layout(std::string_view s) {
  const std::string t = lower(trim(s));
  if (t.size() != 2 || (t[0] != 'n' && t[0] != 't') || (t[1] != 'n' && t[1] != 't')) return std::nullopt;
  // Column-major A (M x K) untransposed has M contiguous; transposed, K.
  // Column-major B (K x N) untransposed has K contiguous; transposed, N.
  return GemmLayout{t[0] == 't' ? MajorA::k : MajorA::m, t[1] == 't' ? MajorB::n : MajorB::k};
}

// ------------------------------------------------------------------ names

const char* verify_name(VerifyTier v) {
  switch (v) {
    case VerifyTier::tier1:
      return "tier1";
    case VerifyTier::tier2:
      return "tier2";
    case VerifyTier::none:
      return "none";
  }
  return "unknown";
}

const char* flush_name(L2Flush f) { return f == L2Flush::memset ? "memset" : "read"; }
const char* order_name(TimingOrder o) {
  switch (o) {
    case TimingOrder::blocks:
      return "blocks";
    case TimingOrder::none:
      return "none";
    case TimingOrder::interleaved:
      break;
  }
  return "interleaved";
}

std::optional<BenchEpilogue> parse_bench_epilogue(std::string_view name, bool row) {
  struct Known {
    const char* name;
    Activation act;
    bool bias;
  };
  static constexpr Known kKnown[] = {
      {"none", Activation::none, false},
      {"bias", Activation::none, true},
      {"relu", Activation::relu, false},
      {"bias_relu", Activation::relu, true},
      // gelu is the erf GELU everywhere (torch.nn.functional.gelu, tessel.gemm); the tanh form is named.
      {"gelu", Activation::gelu_erf, false},
      {"bias_gelu", Activation::gelu_erf, true},
      {"gelu_erf", Activation::gelu_erf, false},
      {"bias_gelu_erf", Activation::gelu_erf, true},
      {"gelu_tanh", Activation::gelu_tanh, false},
      {"bias_gelu_tanh", Activation::gelu_tanh, true},
      {"silu", Activation::silu, false},
      {"bias_silu", Activation::silu, true},
  };
  for (const Known& k : kKnown)
    if (name == k.name) return BenchEpilogue{k.act, k.bias ? (row ? BiasKind::row : BiasKind::col) : BiasKind::none};
  return std::nullopt;
}

std::string epilogue_name(const BenchEpilogue& e) {
  // The explicit names (gelu_erf, gelu_tanh), so that a CSV never leaves the GELU to the reader.
  std::string act = e.act == Activation::none ? "" : tessel::name(e.act);
  std::string n = e.bias == BiasKind::none ? act : act.empty() ? "bias" : "bias_" + act;
  if (n.empty()) n = "none";
  return e.bias == BiasKind::row ? n + "@row" : n;
}

std::string shape_name(const GemmProblem& p) {
  const std::string nk = std::to_string(p.n) + "x" + std::to_string(p.k);
  if (!p.group_m.empty()) {
    std::string ms;
    for (std::int64_t m : p.group_m) {
      if (!ms.empty()) ms += ',';
      ms += std::to_string(m);
    }
    return "[" + ms + "]x" + nk;
  }
  const std::string one = std::to_string(p.m) + "x" + nk;
  return p.batch > 1 ? std::to_string(p.batch) + "x(" + one + ")" : one;
}

std::int64_t gemm_problem_count(const GemmProblem& p) {
  return p.group_m.empty() ? p.batch : static_cast<std::int64_t>(p.group_m.size());
}

double gemm_flops(const GemmProblem& p) {
  // A group's m is the sum of its M; a batch multiplies one problem's flops.
  const double batch = p.group_m.empty() ? static_cast<double>(p.batch) : 1.0;
  return 2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k) * batch;
}

// ------------------------------------------------------------------ options

bool parse_extent_list(std::string_view text, std::string_view flag, std::vector<std::int64_t>& out,
                       std::string& error) {
  out.clear();
  if (trim(text).empty()) {
    error = std::string(flag) + ": empty (give a size such as 4096, a list 1024,2048 or a range 1024:8192:1024)";
    return false;
  }
  auto add = [&](std::int64_t v) {
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
    return out.size() <= kMaxValuesPerFlag;
  };
  for (std::string_view entry : split(text, ',')) {
    entry = trim(entry);
    if (entry.empty()) {
      error = std::string(flag) + ": empty entry in " + quoted(trim(text));
      return false;
    }
    const std::vector<std::string_view> r = split(entry, ':');
    if (r.size() == 1) {
      std::int64_t v = 0;
      if (!parse_positive(entry, v)) {
        error = not_positive(flag, entry);
        return false;
      }
      if (!add(v)) break;
      continue;
    }
    if (r.size() != 3) {
      error = std::string(flag) + ": range " + quoted(entry) + " must be start:stop:step (e.g. 1024:8192:1024)";
      return false;
    }
    std::int64_t start = 0, stop = 0, step = 0;
    const char* names[3] = {"start", "stop", "step"};
    std::int64_t* vals[3] = {&start, &stop, &step};
    for (int i = 0; i < 3; ++i) {
      const std::string_view part = trim(r[static_cast<std::size_t>(i)]);
      if (!parse_positive(part, *vals[i])) {
        if (i == 2 && !part.empty() && part.find_first_not_of('0') == std::string_view::npos)
          error = std::string(flag) + ": range " + quoted(entry) + " has step 0 (the step must be at least 1)";
        else
          error =
              std::string(flag) + ": range " + quoted(entry) + ": " + names[i] + " " + not_positive("", part).substr(2);
        return false;
      }
    }
    if (start > stop) {
      error = std::string(flag) + ": range " + quoted(entry) + " has start > stop";
      return false;
    }
    bool within = true;
    for (std::int64_t v = start; v <= stop && within; v += step) {
      within = add(v);
      if (stop - v < step) break;  // no overflow past stop
    }
    if (!within) break;
  }
  if (out.size() > kMaxValuesPerFlag) {
    error = std::string(flag) + ": more than " + std::to_string(kMaxValuesPerFlag) + " values";
    return false;
  }
  return true;
}

std::string tier1_problem_error(const GemmProblem& p) {
  // |A|,|B| <= 4: every product is at most 16, every partial sum of K of them
  // at most 16K; alpha*sum + beta*C must stay an exact fp32 integer.
  if (p.alpha != std::floor(p.alpha) || p.beta != std::floor(p.beta))
    return "tier 1 needs integer alpha and beta (got alpha=" + fmt_scale(p.alpha) + ", beta=" + fmt_scale(p.beta) + ")";
  // A bias (--epilogue bias...) adds one more integer in [-4, 4].
  const double worst = 16.0 * static_cast<double>(p.k) * std::fabs(p.alpha) + 4.0 * std::fabs(p.beta) +
                       (p.epilogue.bias != BiasKind::none ? 4.0 : 0.0);
  if (16.0 * static_cast<double>(p.k) >= 16777216.0 || worst >= 16777216.0)
    return "tier 1 is exact only while 16*K*|alpha| + 4*|beta| < 2^24 (K=" + std::to_string(p.k) +
           ", alpha=" + fmt_scale(p.alpha) + ", beta=" + fmt_scale(p.beta) + "); use --verify tier2";
  return {};
}

bool read_suite(std::istream& in, std::string_view source, const SuiteDefaults& defaults, std::vector<GemmProblem>& out,
                std::string& error) {
  std::string line;
  std::vector<std::string> fields;
  std::map<std::string, std::size_t> col;  // column name -> index
  std::size_t ncols = 0, line_no = 0, rows = 0;
  auto fail = [&](const std::string& msg) {
    error = std::string(source) + " line " + std::to_string(line_no) + ": " + msg;
    return false;
  };
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::string_view t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    if (!split_csv_line(line, fields)) return fail("unterminated quote");
    if (col.empty()) {  // the header
      for (std::size_t i = 0; i < fields.size(); ++i) {
        const std::string name = lower(trim(fields[i]));
        if (!name.empty() && !col.emplace(name, i).second) return fail("column " + quoted(name) + " appears twice");
      }
      for (const char* need : {"group", "m", "n", "k"})
        if (!col.count(need))
          return fail(std::string("the header must name the columns group,m,n,k (missing ") + need + ")");
      ncols = fields.size();
      continue;
    }
    if (fields.size() != ncols)
      return fail(std::to_string(fields.size()) + " fields, the header has " + std::to_string(ncols));
    auto cell = [&](const char* name) -> std::string {
      const auto it = col.find(name);
      return it == col.end() ? std::string() : fields[it->second];
    };
    GemmProblem p;
    p.group = cell("group");
    if (p.group.empty()) p.group = "suite";
    std::int64_t* ext[3] = {&p.m, &p.n, &p.k};
    const char* ext_names[3] = {"m", "n", "k"};
    for (int i = 0; i < 3; ++i)
      if (!parse_positive(cell(ext_names[i]), *ext[i])) return fail(not_positive(ext_names[i], cell(ext_names[i])));
    std::string err;
    p.in = defaults.in;
    p.in_b = defaults.in_b;
    if (!cell("dtype").empty() && !parse_input_type(cell("dtype"), "dtype", p.in, p.in_b, err)) return fail(err);
    p.out = defaults.out.value_or(default_out_type(p.in));
    if (!cell("out_dtype").empty() && !parse_output_type(cell("out_dtype"), "out_dtype", p.out, err)) return fail(err);
    p.alpha = defaults.alpha;
    p.beta = defaults.beta;
    if (!cell("alpha").empty() && !parse_scale(cell("alpha"), "alpha", p.alpha, err)) return fail(err);
    if (!cell("beta").empty() && !parse_scale(cell("beta"), "beta", p.beta, err)) return fail(err);
    std::vector<GemmLayout> layouts;
    if (!cell("layout").empty()) {
      if (!parse_layout_list(cell("layout"), "layout", layouts, err)) return fail(err);
    } else {
      layouts = defaults.layouts;
    }
    for (GemmLayout l : layouts) {
      p.layout = l;
      out.push_back(p);
    }
    ++rows;
    if (out.size() > kMaxProblems) return fail("more than " + std::to_string(kMaxProblems) + " problems");
  }
  if (in.bad()) {
    error = std::string(source) + ": read error";
    return false;
  }
  if (col.empty()) {
    error = std::string(source) + ": empty (expected a header group,m,n,k and one row per problem)";
    return false;
  }
  if (rows == 0) {
    error = std::string(source) + ": no problems after the header";
    return false;
  }
  return true;
}

std::string suite_row(const GemmProblem& p) {
  // The scales are floats (the GEMM's): the shortest text that reads back as the same float.
  const auto scale = [](double v) {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, static_cast<float>(v));
    return std::string(buf, r.ptr);
  };
  return p.group + ',' + std::to_string(p.m) + ',' + std::to_string(p.n) + ',' + std::to_string(p.k) + ',' +
         input_type_name(p.in, p.in_b) + ',' + name(p.out) + ",\"" + name(p.layout) + "\"," + scale(p.alpha) + ',' +
         scale(p.beta);
}

const char* swap_ab_name(SwapAB s) { return s == SwapAB::on ? "on" : s == SwapAB::off ? "off" : "plan"; }

GemmArgs plan_args(const GemmProblem& p, const GemmTuning& tuning) {
  // Each operand its own 4 GiB-aligned stand-in region: distinct, aligned, never dereferenced.
  const auto at = [](std::uintptr_t region) { return reinterpret_cast<void*>(region << 32); };
  GemmArgs g;
  g.tuning = tuning;
  g.m = p.m;
  g.n = p.n;
  g.k = p.k;
  g.ab_type = p.in;
  g.b_type = p.in_b;
  g.cd_type = p.out;
  g.fp8_fast_accum = p.fp8_fast_accum;
  g.fp8_promote_every = p.fp8_promote_every;
  g.fp8_scale = p.fp8_scale;
  if (p.fp8_scale != Fp8Scale::none) {
    g.fp8_scale_a = static_cast<const float*>(at(6));
    g.fp8_scale_b = static_cast<const float*>(at(7));
  }
  g.layout = p.layout;
  g.a = at(1);
  g.lda = p.layout.a == MajorA::k ? p.k : p.m;
  g.b = at(2);
  g.ldb = p.layout.b == MajorB::n ? p.n : p.k;
  g.c = p.beta != 0.0 ? at(3) : nullptr;
  g.ldc = p.n;
  g.d = at(4);
  g.ldd = p.n;
  g.alpha = static_cast<float>(p.alpha);
  g.beta = static_cast<float>(p.beta);
  g.epilogue.act = p.epilogue.act;
  g.epilogue.bias_kind = p.epilogue.bias;
  if (p.epilogue.bias != BiasKind::none) g.epilogue.bias = at(5);
  if (p.batch > 1) {  // packed: each stride is one matrix
    g.batch = p.batch;
    g.stride_a = p.m * p.k;
    g.stride_b = p.k * p.n;
    g.stride_c = g.stride_d = p.m * p.n;
  }
  return g;
}

const char* extent_group(std::int64_t m, std::int64_t n, std::int64_t k) {
  if (m % 64 == 0 && n % 64 == 0 && k % 64 == 0) return "a64";
  if (m % 8 == 0 && n % 8 == 0 && k % 8 == 0) return "a8";
  return "odd";
}

std::vector<GemmProblem> random_problems(std::uint64_t seed, int count, const SuiteDefaults& defaults) {
  std::uint64_t state = seed;
  const auto next = [&state] {  // splitmix64
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  const auto uniform = [&next] { return static_cast<double>(next() >> 11) * 0x1.0p-53; };
  const auto extent = [&](double lo, double hi) {
    const double x = std::exp(std::log(lo) + uniform() * (std::log(hi) - std::log(lo)));
    auto v = static_cast<std::int64_t>(std::floor(x + 0.5));
    v = std::clamp<std::int64_t>(v, static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi));
    const double r = uniform();
    const std::int64_t q = r < 0.6 ? 64 : r < 0.85 ? 8 : 1;
    if (q > 1 && v >= q) v = (v + q / 2) / q * q;
    return v;
  };
  std::vector<GemmProblem> out;
  constexpr double kMaxFlops = 2.0 * 8192.0 * 8192.0 * 8192.0;
  for (int i = 0; i < count; ++i) {
    GemmProblem p;
    do {
      p.m = extent(1, 16384);
      p.n = extent(256, 16384);
      p.k = extent(256, 16384);
    } while (2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k) > kMaxFlops);
    p.group = extent_group(p.m, p.n, p.k);
    p.in = defaults.in;
    p.in_b = defaults.in_b;
    p.out = defaults.out.value_or(default_out_type(p.in));
    p.alpha = defaults.alpha;
    p.beta = defaults.beta;
    for (GemmLayout l : defaults.layouts) {
      p.layout = l;
      out.push_back(p);
    }
  }
  return out;
}

bool parse_gemm_bench_args(const GemmBenchArgs& a, GemmBenchOptions& o, std::string& error) {
  o = GemmBenchOptions{};
  // Protocol settings.
  const std::string verify = a.verify.empty() ? "tier2" : lower(trim(a.verify));
  if (verify == "tier1")
    o.verify = VerifyTier::tier1;
  else if (verify == "tier2")
    o.verify = VerifyTier::tier2;
  else if (verify == "none")
    o.verify = VerifyTier::none;
  else {
    error = "--verify: " + quoted(trim(a.verify)) + " is not tier1, tier2 or none";
    return false;
  }
  const std::string flush = a.flush.empty() ? "read" : lower(trim(a.flush));
  if (flush == "read")
    o.flush = L2Flush::read;
  else if (flush == "memset")
    o.flush = L2Flush::memset;
  else {
    error = "--flush: " + quoted(trim(a.flush)) + " is not read or memset";
    return false;
  }
  const std::string order = a.order.empty() ? "interleaved" : lower(trim(a.order));
  if (order == "interleaved")
    o.order = TimingOrder::interleaved;
  else if (order == "blocks")
    o.order = TimingOrder::blocks;
  else if (order == "none")
    o.order = TimingOrder::none;
  else {
    error = "--order: " + quoted(trim(a.order)) + " is not interleaved, blocks or none";
    return false;
  }
  const std::string bias = a.bias.empty() ? "col" : lower(trim(a.bias));
  if (bias != "col" && bias != "row") {
    error = "--bias: " + quoted(trim(a.bias)) + " is not row or col";
    return false;
  }
  BenchEpilogue epilogue;
  if (!a.epilogue.empty()) {
    const std::optional<BenchEpilogue> e = parse_bench_epilogue(lower(trim(a.epilogue)), bias == "row");
    if (!e) {
      error = "--epilogue: " + quoted(trim(a.epilogue)) +
              " is not none, bias, relu, bias_relu, gelu, bias_gelu (the erf GELU), gelu_erf, bias_gelu_erf, "
              "gelu_tanh, bias_gelu_tanh, silu or bias_silu";
      return false;
    }
    epilogue = *e;
  }
  if (!a.bias.empty() && epilogue.bias == BiasKind::none) {
    error = "--bias: " + quoted(trim(a.bias)) + " needs an --epilogue with a bias (bias, bias_relu, bias_gelu, ...)";
    return false;
  }
  if (o.verify == VerifyTier::tier1 && epilogue.act != Activation::none && epilogue.act != Activation::relu) {
    error = "--verify tier1: --epilogue " + epilogue_name(epilogue) +
            " is not exact on integers (tier 1 takes none, bias, relu and bias_relu; tier2 the others)";
    return false;
  }
  if (!a.iterations.empty() && !parse_count(a.iterations, "--iterations", 1, 1000000, o.iterations, error))
    return false;
  if (!a.warmup.empty() && !parse_count(a.warmup, "--warmup", 0, 1000000, o.warmup, error)) return false;
  // At least the protocol's 200 ms; longer loops average the clock's swing
  // at the power cap (about 1 s a period on an H100: docs/bench-protocol.md §3).
  if (!a.min_ms.empty() && !parse_count(a.min_ms, "--min-ms", 200, 600000, o.timed_ms, error)) return false;
  // The heat: a problem's first timed loop follows its verification, on a
  // card below its working temperature, and in blocks order ran ~2 % faster
  // than later loops at the power cap (docs/bench-protocol.md §3).  Untimed
  // launches of that first implementation bring the card to its working
  // point first.  Interleaved loops share one clock: no heat by
  // default.
  o.heat_ms = o.order == TimingOrder::blocks ? o.timed_ms : 0;
  if (!a.heat_ms.empty()) {
    if (o.order == TimingOrder::none) {
      error = "--heat-ms: --order none times nothing";
      return false;
    }
    if (!parse_count(a.heat_ms, "--heat-ms", 0, 600000, o.heat_ms, error)) return false;
  }
  if (!a.repeat.empty() && !parse_count(a.repeat, "--repeat", 1, 100, o.repeat, error)) return false;
  if (!a.tile_n.empty()) {
    if (!parse_count(a.tile_n, "--tile-n", 16, 256, o.tuning.tile_n, error)) return false;
    const int w = o.tuning.tile_n;
    if (w != 16 && w != 32 && w != 64 && w != 128 && w != 192 && w != 256 && !swapped_only_width(w) &&
        !swapped_wide_width(w)) {
      error = "--tile-n: " + quoted(trim(a.tile_n)) +
              " is not 16, 32, 64, 128, 192 or 256 (or swapped 48, or a multiple of 16 from 80 to 256)";
      return false;
    }
  }
  if (!a.swap_ab.empty()) {
    const std::string swap = lower(trim(a.swap_ab));
    if (swap == "on")
      o.tuning.swap_ab = SwapAB::on;
    else if (swap == "off")
      o.tuning.swap_ab = SwapAB::off;
    else {
      error = "--swap-ab: " + quoted(trim(a.swap_ab)) + " is not on or off";
      return false;
    }
  }
  if (!a.tile_m.empty()) {
    if (!parse_count(a.tile_m, "--tile-m", 64, 128, o.tuning.tile_m, error)) return false;
    if (o.tuning.tile_m != 64 && o.tuning.tile_m != 128) {
      error = "--tile-m: " + quoted(trim(a.tile_m)) + " is not 64 or 128";
      return false;
    }
    if (o.tuning.tile_m == 64 && !swapped_only_width(o.tuning.tile_n) &&
        (o.tuning.tile_n > 128 ||
         (o.tuning.swap_ab == SwapAB::off && o.tuning.tile_n != 0 && o.tuning.tile_n != 128))) {
      error =
          "--tile-m: 64-row tiles are 64 x 16, 32 or 64 swapped and 64 x 128 unswapped (with --swap-ab off, --tile-n "
          "128 or none)";
      return false;
    }
  }
  // The pairs k13 refuses (check_k13_tuning), refused here once instead of per problem.
  if ((o.tuning.tile_n == 16 || o.tuning.tile_n == 32) && o.tuning.swap_ab == SwapAB::off) {
    error = "--tile-n: " + std::to_string(o.tuning.tile_n) +
            " is a swapped tile's width; it needs --swap-ab on (or "
            "no --swap-ab), not off";
    return false;
  }
  if (o.tuning.tile_n == 48 && (o.tuning.swap_ab != SwapAB::on || o.tuning.tile_m != 64)) {
    error = "--tile-n: 48 is a swapped one-warpgroup width: it needs --swap-ab on and --tile-m 64";
    return false;
  }
  const int w = o.tuning.tile_n;
  if (o.tuning.swap_ab == SwapAB::on && w > 64 && o.tuning.tile_m == 64 && !swapped_only_width(w)) {
    error = "--tile-n: with --swap-ab on and --tile-m 64 the tile's width along M is 16, 32, 48, 64, 80 or 96 (got " +
            std::to_string(w) + ")";
    return false;
  }
  // Run-time compiled epilogues (GemmJit; main.cpp fills this from --jit and TESSEL_JIT).
  if (!a.jit.empty()) {
    const std::string j = lower(trim(a.jit));
    if (j == "on" || j == "1")
      o.tuning.jit = GemmJit::on;
    else if (j == "always")
      o.tuning.jit = GemmJit::always;
    else if (j == "off" || j == "0")
      o.tuning.jit = GemmJit::off;
    else {
      error = "--jit / TESSEL_JIT: " + quoted(trim(a.jit)) + " is not on (1), always or off (0)";
      return false;
    }
  }
  // More splits than a problem's k-tiles are reported per problem (not_supported).
  if (!a.splits.empty() && !parse_count(a.splits, "--splits", 1, 64, o.tuning.splits, error)) return false;
  if (a.split_tail && a.splits.empty()) {
    error = "--split-tail: give --splits S too (the tail's tiles are split S ways)";
    return false;
  }
  o.tuning.split_tail = a.split_tail;
  if (!a.split_sum.empty() &&
      !parse_word(a.split_sum, "--split-sum", {{"last", SplitSum::last_unit}, {"kernel", SplitSum::second_kernel}},
                  "last (each tile's last unit) or kernel (a second kernel)", o.tuning.split_sum, error))
    return false;
  if (!a.stages.empty() && !parse_count(a.stages, "--stages", 1, 64, o.tuning.stages, error)) return false;
  int promote_every = 0;
  if (!a.fp8_promote_every.empty() &&
      !parse_count(a.fp8_promote_every, "--fp8-promote-every", 1, 64, promote_every, error))
    return false;
  if (a.fp8_fast_accum && promote_every != 0) {
    error = "--fp8-promote-every: not with --fp8-fast-accum (fast accumulation promotes nothing)";
    return false;
  }
  Fp8Scale fp8_scale = Fp8Scale::none;
  if (!a.scale.empty()) {
    const auto s = parse_fp8_scale(trim(a.scale));
    if (!s) {
      error = "--scale: " + quoted(trim(a.scale)) + " is not none, tensor, channel or block";
      return false;
    }
    fp8_scale = *s;
  }
  if (fp8_scale == Fp8Scale::block && (a.fp8_fast_accum || promote_every > 1)) {
    error = "--scale block: block scales promote every k-tile (not with --fp8-fast-accum or --fp8-promote-every > 1)";
    return false;
  }
  if (!a.cluster.empty()) {
    if (!parse_count(a.cluster, "--cluster", 1, 4, o.tuning.cluster, error)) return false;
    if (o.tuning.cluster == 3) {
      error = "--cluster: " + quoted(trim(a.cluster)) +
              " is not 1 (k13's split K in global memory), 2 (k14's pairs) or 4 (2 x 2)";
      return false;
    }
  }
  if (!a.cluster_share.empty() &&
      !parse_word(a.cluster_share, "--cluster-share", {{"a", ClusterShare::a}, {"b", ClusterShare::b}},
                  "a (pairs of N-neighbours sharing A) or b (M-neighbours)", o.tuning.cluster_share, error))
    return false;
  if (!a.raster_group.empty() && !parse_count(a.raster_group, "--raster-group", 1, 65536, o.tuning.raster_group, error))
    return false;

  // Types, layouts, scales.
  SuiteDefaults d;
  if (!a.dtype.empty() && !parse_input_type(a.dtype, "--dtype", d.in, d.in_b, error)) return false;
  if (!a.out_dtype.empty()) {
    DType t{};
    if (!parse_output_type(a.out_dtype, "--out-dtype", t, error)) return false;
    d.out = t;
  }
  if (!a.layouts.empty()) {
    d.layouts.clear();
    for (const std::string& l : a.layouts)
      if (!parse_layout_list(l, "--layout", d.layouts, error)) return false;
  } else if (is_fp8(d.in)) {
    d.layouts = {GemmLayout{MajorA::k, MajorB::k}};  // the one FP8 layout wgmma and cuBLASLt read
  }
  if (!a.alpha.empty() && !parse_scale(a.alpha, "--alpha", d.alpha, error)) return false;
  if (!a.beta.empty() && !parse_scale(a.beta, "--beta", d.beta, error)) return false;

  // The reference: cuBLASLt's first heuristic algorithm, or the first one
  // that reduces in fp32 (no split K, or split K summed in the compute type).
  const std::string ref = lower(trim(a.reference));
  if (ref == "cublas_fp32") {
    o.cublas_fp32_reduction = true;
  } else if (!ref.empty() && ref != "cublas") {
    error = "--reference: " + quoted(trim(a.reference)) +
            " is not cublas (cuBLASLt's first heuristic algorithm) or cublas_fp32 (the first that reduces in fp32)";
    return false;
  }

  // Implementations.
  bool all_requested = false;
  if (a.impls.empty()) {
    o.steps = {kBestGemmImpl};  // the best step
    o.cublas_rows = true;
  }
  for (const std::string& list : a.impls) {
    for (std::string_view name : split(list, ',')) {
      name = trim(name);
      const std::string l = lower(name);
      std::vector<GemmImpl> add;
      if (l == "all") {
        // The ladder of the input type: k01..k13 for bf16/fp16, f01..f12 for fp32
        // (the problems are read below; a suite mixing both gets both).
        all_requested = true;
        o.cublas_rows = true;
      } else if (l == "cublas") {
        o.cublas_rows = true;
      } else if (l == "tuned") {
        o.tuned = true;
      } else if (const std::optional<GemmImpl> g = parse_gemm_impl(name)) {  // case ignored
        add.push_back(*g);
      } else {
        error = "--impl: unknown implementation " + quoted(name) +
                " (k01..k15, f01..f12, long names such as k04_mma_sync, auto, tuned, cublas, or all)";
        return false;
      }
      for (GemmImpl g : add)
        if (std::find(o.steps.begin(), o.steps.end(), g) == o.steps.end()) o.steps.push_back(g);
    }
  }

  // Outputs.
  o.csv = a.csv;
  o.json = a.json;
  if (o.json == "-" && (o.csv.empty() || o.csv == "-")) {
    error = "--json -: standard output already carries the CSV (give --csv FILE too)";
    return false;
  }

  // Problems.
  std::int64_t batch = 1;
  if (!a.batch.empty()) {
    int b = 0;
    if (!parse_count(a.batch, "--batch", 1, 65535, b, error)) return false;
    batch = b;
  }
  const bool grouped = !a.group_m.empty() || !a.grouped.empty();
  if (grouped && batch > 1) {
    error = "--batch: a group (--group-m, --grouped) is not batched: give one or the other";
    return false;
  }
  if (grouped && !a.suite.empty()) {
    error = "--suite: a suite's rows are single problems: --group-m and --grouped are command-line problems";
    return false;
  }
  if (!a.grouped.empty()) {
    if (lower(trim(a.grouped)) != "moe") {
      error = "--grouped: " + quoted(trim(a.grouped)) + " is not a known group (moe)";
      return false;
    }
    if (!a.group_m.empty() || !a.m.empty() || !a.n.empty() || !a.k.empty()) {
      error = "--grouped moe is M 64,128,256,512,768,1024,1536,2048 x N 4096 x K 7168: give no --m/--n/--k/--group-m";
      return false;
    }
  }
  if (grouped) {
    // One row per layout: the group's problems, their M from the list.
    std::vector<std::int64_t> ms, ns, ks;
    if (!a.grouped.empty()) {
      ms = {64, 128, 256, 512, 768, 1024, 1536, 2048};
      ns = {4096};
      ks = {7168};
    } else {
      if (!a.m.empty()) {
        error = "--m: a group's M are --group-m's (give --group-m, --n and --k)";
        return false;
      }
      if (!parse_extent_list(a.group_m, "--group-m", ms, error)) return false;
      for (const auto& [flag, text, values] : {std::tuple{"--n", &a.n, &ns}, std::tuple{"--k", &a.k, &ks}}) {
        if (text->empty()) {
          error = std::string(flag) + " is required with --group-m";
          return false;
        }
        if (!parse_extent_list(*text, flag, *values, error)) return false;
        if (values->size() != 1) {
          error = std::string(flag) + ": a group has one N and one K (got " + std::to_string(values->size()) + ")";
          return false;
        }
      }
    }
    for (GemmLayout l : d.layouts) {
      GemmProblem p;
      p.group = "grouped";
      p.group_m = ms;
      p.m = 0;
      for (std::int64_t m : ms) p.m += m;
      p.n = ns[0], p.k = ks[0];
      p.in = d.in;
      p.in_b = d.in_b;
      p.out = d.out.value_or(default_out_type(d.in));
      p.layout = l;
      p.alpha = d.alpha;
      p.beta = d.beta;
      o.problems.push_back(p);
    }
  }
  const bool have_extent = !a.m.empty() || !a.n.empty() || !a.k.empty();
  if (grouped) {
    // the problems are made above
  } else if (!a.suite.empty()) {
    if (have_extent) {
      error = "--suite replaces --m/--n/--k: give one or the other";
      return false;
    }
    if (a.suite.rfind("random:", 0) == 0) {
      // random:SEED:COUNT
      const std::string_view spec = std::string_view(a.suite).substr(7);
      const std::size_t colon = spec.find(':');
      std::uint64_t seed = 0;
      std::int64_t count = 0;
      const std::string_view seed_text = spec.substr(0, colon == std::string_view::npos ? 0 : colon);
      bool seed_ok = !seed_text.empty() && seed_text.size() <= 18;
      for (char c : seed_text) {
        seed_ok = seed_ok && c >= '0' && c <= '9';
        seed = seed * 10 + static_cast<std::uint64_t>(c - '0');
      }
      if (colon == std::string_view::npos || !seed_ok || !parse_positive(spec.substr(colon + 1), count) ||
          count > 100000) {
        error = "--suite " + quoted(a.suite) +
                ": random suites are random:SEED:COUNT (SEED an integer >= 0, COUNT 1..100000)";
        return false;
      }
      o.problems = random_problems(seed, static_cast<int>(count), d);
      o.suite = a.suite;
    } else {
      std::ifstream f(a.suite);
      if (!f) {
        error = "--suite: cannot read " + a.suite;
        return false;
      }
      if (!read_suite(f, a.suite, d, o.problems, error)) {
        error = "--suite: " + error;
        return false;
      }
      o.suite = a.suite;
    }
    if (!a.m_max.empty()) {
      // A study of one range of M over a suite (random:SEED:COUNT keeps its draws' order).
      std::int64_t m_max = 0;
      if (!parse_positive(a.m_max, m_max)) {
        error = "--m-max: " + quoted(trim(a.m_max)) + " is not an integer from 1 to " + std::to_string(kMaxExtent);
        return false;
      }
      std::erase_if(o.problems, [&](const GemmProblem& p) { return p.m > m_max; });
      if (o.problems.empty()) {
        error = "--m-max " + std::to_string(m_max) + ": no problem of --suite " + quoted(a.suite) +
                " has M <= " + std::to_string(m_max);
        return false;
      }
    }
  } else {
    if (!a.m_max.empty()) {
      error = "--m-max keeps a --suite's problems with small M: give --suite (with --m, list the M wanted)";
      return false;
    }
    // A bad value is reported before a missing flag: `--m 0` alone says what is wrong with 0.
    std::vector<std::int64_t> ms, ns, ks;
    for (const auto& [flag, text, values] :
         {std::tuple{"--m", &a.m, &ms}, std::tuple{"--n", &a.n, &ns}, std::tuple{"--k", &a.k, &ks}})
      if (!text->empty() && !parse_extent_list(*text, flag, *values, error)) return false;
    for (const auto& [flag, text] : {std::pair{"--m", &a.m}, std::pair{"--n", &a.n}, std::pair{"--k", &a.k}})
      if (text->empty()) {
        error = std::string(flag) + " is required (give --m, --n and --k, or --suite FILE)";
        return false;
      }
    if (ms.size() * ns.size() * ks.size() * d.layouts.size() > kMaxProblems) {
      error = "--m/--n/--k: the product is more than " + std::to_string(kMaxProblems) + " problems";
      return false;
    }
    for (std::int64_t m : ms)
      for (std::int64_t n : ns)
        for (std::int64_t k : ks)
          for (GemmLayout l : d.layouts) {
            GemmProblem p;
            p.group = "cli";
            p.m = m, p.n = n, p.k = k;
            p.in = d.in;
            p.in_b = d.in_b;
            p.out = d.out.value_or(default_out_type(d.in));
            p.layout = l;
            p.alpha = d.alpha;
            p.beta = d.beta;
            o.problems.push_back(p);
          }
  }
  if (epilogue != BenchEpilogue{} && (batch > 1 || grouped)) {
    error =
        "--epilogue: a fused epilogue takes single problems (tessel::gemm refuses it with a batch or a group): "
        "not with --batch, --group-m or --grouped";
    return false;
  }
  for (GemmProblem& p : o.problems) {
    p.epilogue = epilogue;
    p.batch = batch;
    p.fp8_fast_accum = a.fp8_fast_accum;
    p.fp8_promote_every = promote_every;
    p.fp8_scale = fp8_scale;
    if (batch > 1) p.group = p.group == "cli" ? "batched" : p.group;
  }
  for (const GemmProblem& p : o.problems)
    if (p.fp8_scale != Fp8Scale::none && !is_fp8(p.in)) {
      error = std::string("--scale ") + name(p.fp8_scale) + ": scales are for FP8 inputs (--dtype e4m3 or e5m2; got " +
              name(p.in) + ")";
      return false;
    }
  for (const GemmProblem& p : o.problems)
    if (p.fp8_scale != Fp8Scale::none && p.batch > 1) {
      // tessel::gemm takes a strided batch's scales as alpha only (each problem of a group has its own).
      error = std::string("--scale ") + name(p.fp8_scale) +
              ": scales in memory are benched on single problems and groups, not with --batch";
      return false;
    }
  for (const GemmProblem& p : o.problems)
    if (p.in == DType::f32 && p.out != DType::f32) {
      error = "--out-dtype: fp32 inputs take fp32 C and D (the fp32 ladder f01..f12 and cuBLAS's fp32 GEMM); got " +
              std::string(name(p.out));
      return false;
    }
  if (all_requested) {
    // `all` stands where it was given: the ladders come first, in ladder order,
    // then whatever else was named (no repeats).
    std::vector<GemmImpl> ladder;
    const bool any16 =
        std::any_of(o.problems.begin(), o.problems.end(), [](const GemmProblem& p) { return p.in != DType::f32; });
    const bool any32 =
        std::any_of(o.problems.begin(), o.problems.end(), [](const GemmProblem& p) { return p.in == DType::f32; });
    if (any16) ladder.insert(ladder.end(), std::begin(kAllGemmImpls), std::end(kAllGemmImpls));
    if (any32) ladder.insert(ladder.end(), std::begin(kFp32GemmImpls), std::end(kFp32GemmImpls));
    for (GemmImpl g : o.steps)
      if (std::find(ladder.begin(), ladder.end(), g) == ladder.end()) ladder.push_back(g);
    o.steps = ladder;
  }
  if (o.verify == VerifyTier::tier1)
    for (const GemmProblem& p : o.problems)
      if (std::string why = tier1_problem_error(p); !why.empty()) {
        error = "--verify tier1: " + shape_name(p) + ": " + why;
        return false;
      }
  return true;
}

std::int64_t gemm_operand_bytes(const GemmProblem& p) {
  const std::int64_t in = size_bytes(p.in), out = size_bytes(p.out);
  const std::int64_t a = p.m * p.k * in, b = p.k * p.n * in, d = p.m * p.n * out;
  const std::int64_t one = a + b + d + (p.beta != 0.0 ? d : 0);  // C has D's shape and type
  if (!p.group_m.empty())                                        // stacked A and D (m = sum of M), one B per problem
    return one + b * (static_cast<std::int64_t>(p.group_m.size()) - 1);
  return one * p.batch;
}

double gemm_gbytes_per_s(const GemmProblem& p, double ms) {
  if (!(ms > 0)) return 0;
  return static_cast<double>(gemm_operand_bytes(p)) / (ms * 1e-3) / 1e9;
}

// ------------------------------------------------------------------ results

std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string r = "\"";
  for (char c : s) {
    if (c == '"') r += '"';
    r += c;
  }
  return r + "\"";
}

std::string csv_header() {
  return "gpu,sm_count,commit,impl,group,repeat,m,n,k,dtype,out_dtype,layout,alpha,beta,verify,disposition,note,"
         "max_err,cublas_max_err,cublas_disposition,median_ms,min_ms,p90_ms,tflops,cublas_median_ms,cublas_tflops,"
         "ratio,gbytes_per_s,cublas_gbytes_per_s,l2_flush,sm_clock_mhz,power_w,cublas_sm_clock_mhz,cublas_power_w,"
         "timing,epilogue,batch,group_m,heat_ms,cublas_reference,cublas_reduction";
}

namespace {
/// A group's M list, ';'-separated (a CSV cell without quotes); "" when not grouped.
std::string group_list(const GemmProblem& p) {
  std::string s;
  for (std::int64_t m : p.group_m) {
    if (!s.empty()) s += ';';
    s += std::to_string(m);
  }
  return s;
}
}  // namespace

std::string csv_row(const DeviceInfo& dev, const GemmBenchRow& r) {
  const GemmProblem& p = r.problem;
  const std::string cells[] = {csv_field(dev.gpu),
                               std::to_string(dev.sm_count),
                               csv_field(dev.commit),
                               csv_field(r.impl),
                               csv_field(p.group),
                               std::to_string(r.repeat),
                               std::to_string(p.m),
                               std::to_string(p.n),
                               std::to_string(p.k),
                               input_type_name(p.in, p.in_b),
                               tessel::name(p.out),
                               csv_field(tessel::name(p.layout)),
                               fmt_scale(p.alpha),
                               fmt_scale(p.beta),
                               csv_field(r.verify),
                               csv_field(r.disposition),
                               csv_field(r.note),
                               fmt_opt(r.max_err),
                               fmt_opt(r.cublas_max_err),
                               csv_field(r.cublas_disposition),
                               fmt_opt(r.median_ms),
                               fmt_opt(r.min_ms),
                               fmt_opt(r.p90_ms),
                               fmt_opt(r.tflops),
                               fmt_opt(r.cublas_median_ms),
                               fmt_opt(r.cublas_tflops),
                               fmt_opt(r.ratio),
                               fmt_opt(r.gbytes_per_s),
                               fmt_opt(r.cublas_gbytes_per_s),
                               csv_field(r.l2_flush),
                               fmt_opt(r.sm_clock_mhz),
                               fmt_opt(r.power_w),
                               fmt_opt(r.cublas_sm_clock_mhz),
                               fmt_opt(r.cublas_power_w),
                               csv_field(r.timing),
                               csv_field(epilogue_name(p.epilogue)),
                               std::to_string(p.batch),
                               csv_field(group_list(p)),
                               std::to_string(r.heat_ms),
                               csv_field(r.cublas_reference),
                               csv_field(r.cublas_reduction)};
  std::string line;
  for (const std::string& c : cells) {
    if (&c != &cells[0]) line += ',';
    line += c;
  }
  return line;
}

namespace {
/// What tells one problem from another in the summaries (its repeats share it).
std::string problem_key(const GemmProblem& p) {
  return p.group + "|" + shape_name(p) + "|" + input_type_name(p.in, p.in_b) + "|" + tessel::name(p.out) + "|" +
         tessel::name(p.layout) + "|" + fmt_scale(p.alpha) + "|" + fmt_scale(p.beta) + "|" + epilogue_name(p.epilogue);
}
}  // namespace

std::string reference_failures(const std::vector<GemmBenchRow>& rows) {
  std::map<std::string, std::string> problems;  // problem -> its reference's reduction when it failed ("" if passed)
  for (const GemmBenchRow& r : rows) {
    const GemmProblem& p = r.problem;
    const std::string key = problem_key(p);
    auto [it, fresh] = problems.try_emplace(key);
    if (r.cublas_disposition == "incorrect") it->second = r.cublas_reduction.empty() ? "?" : r.cublas_reduction;
  }
  int failed = 0;
  std::string how;
  for (const auto& [key, reduction] : problems)
    if (!reduction.empty()) {
      how += (failed++ ? ", " : "") + reduction;
    }
  if (failed == 0) return "";
  return "cuBLASLt failed verification on " + std::to_string(failed) + " of " + std::to_string(problems.size()) +
         " problems (reductions: " + how + "): left out of the ratios";
}

std::vector<ImplSummary> summarize(const std::vector<GemmBenchRow>& rows, bool by_group) {
  struct Acc {
    ImplSummary s;
    std::vector<std::string> keys;                      // problems in first-seen order
    std::map<std::string, std::vector<double>> ratios;  // problem -> ratios of its passed repeats
  };
  std::vector<Acc> accs;
  // Indices, not iterators: a new accumulator moves the others.
  const auto acc_of = [&accs](const std::string& impl, const std::string& group) -> std::size_t {
    for (std::size_t i = 0; i < accs.size(); ++i)
      if (accs[i].s.impl == impl && accs[i].s.group == group) return i;
    accs.push_back({});
    accs.back().s.impl = impl;
    accs.back().s.group = group;
    return accs.size() - 1;
  };
  for (const GemmBenchRow& r : rows) {
    if (r.impl == "cublas") continue;
    std::vector<std::size_t> into{acc_of(r.impl, "all")};
    if (by_group) into.push_back(acc_of(r.impl, r.problem.group));
    for (std::size_t i : into) ++accs[i].s.rows;
    // "unverified" rows exist only in a --verify none run (the protocol block says so).
    if ((r.disposition != "passed" && r.disposition != "unverified") || !r.ratio || !(*r.ratio > 0) ||
        !std::isfinite(*r.ratio))
      continue;
    const GemmProblem& p = r.problem;
    const std::string key = problem_key(p);
    for (std::size_t i : into) {
      auto [pos, fresh] = accs[i].ratios.try_emplace(key);
      if (fresh) accs[i].keys.push_back(key);
      pos->second.push_back(*r.ratio);
    }
  }
  std::vector<ImplSummary> out;
  for (Acc& a : accs) {
    double log_sum = 0, min_ratio = 0;
    int below_095 = 0, below_085 = 0;
    for (const std::string& key : a.keys) {
      double l = 0;
      for (double v : a.ratios[key]) l += std::log(v);
      l /= static_cast<double>(a.ratios[key].size());  // geometric mean of the repeats
      log_sum += l;
      min_ratio = a.s.problems == 0 ? std::exp(l) : std::min(min_ratio, std::exp(l));
      below_095 += std::exp(l) < 0.95;
      below_085 += std::exp(l) < 0.85;
      ++a.s.problems;
    }
    if (a.s.problems > 0) {
      a.s.geomean_ratio = std::exp(log_sum / a.s.problems);
      a.s.min_ratio = min_ratio;
      a.s.below_095 = static_cast<double>(below_095) / a.s.problems;
      a.s.below_085 = static_cast<double>(below_085) / a.s.problems;
    }
    out.push_back(a.s);
  }
  // Each implementation's "all" first, then its groups in first-seen order.
  std::map<std::string, std::size_t> first;
  for (const ImplSummary& x : out) first.try_emplace(x.impl, first.size());
  std::stable_sort(out.begin(), out.end(), [&](const ImplSummary& x, const ImplSummary& y) {
    const std::size_t rx = first[x.impl], ry = first[y.impl];
    return rx != ry ? rx < ry : (x.group == "all") > (y.group == "all");
  });
  return out;
}

std::string json_string(std::string_view s) {
  std::string r = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        r += "\\\"";
        break;
      case '\\':
        r += "\\\\";
        break;
      case '\n':
        r += "\\n";
        break;
      case '\r':
        r += "\\r";
        break;
      case '\t':
        r += "\\t";
        break;
      default:
        if (u < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", u);
          r += buf;
        } else {
          r += c;  // UTF-8 passes through
        }
    }
  }
  return r + "\"";
}

void write_json(std::ostream& out, const DeviceInfo& d, const ProtocolInfo& p, const std::vector<GemmBenchRow>& rows,
                const std::vector<ImplSummary>& summary, const std::string& error) {
  out << "{\n  \"device\": {"
      << "\"gpu\": " << json_string(d.gpu) << ", \"sm_count\": " << d.sm_count
      << ", \"compute_capability\": " << json_string(std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor))
      << ", \"sm_clock_khz\": " << d.sm_clock_khz << ", \"mem_clock_khz\": " << d.mem_clock_khz
      << ", \"driver_version\": " << json_string(d.driver_version) << ", \"driver\": " << d.driver
      << ", \"runtime\": " << d.runtime << ", \"l2_bytes\": " << d.l2_bytes << ", \"memory_bytes\": " << d.memory_bytes
      << ", \"commit\": " << json_string(d.commit) << "},\n";
  out << "  \"protocol\": {"
      << "\"warmup_min_launches\": " << p.warmup_min_launches << ", \"warmup_min_ms\": " << json_number(p.warmup_min_ms)
      << ", \"timed_min_launches\": " << p.timed_min_launches << ", \"timed_min_ms\": " << json_number(p.timed_min_ms)
      << ", \"statistic\": " << json_string(p.statistic) << ", \"l2_flush\": " << json_string(p.l2_flush)
      << ", \"timing\": " << json_string(p.timing) << ", \"heat_ms\": " << p.heat_ms
      << ", \"l2_policy\": " << json_string(p.l2_policy) << ", \"flush_bytes\": " << p.flush_bytes
      << ", \"clock_power\": " << json_string(p.clock_power) << ", \"verify\": " << json_string(p.verify)
      << ", \"repeat\": " << p.repeat << ", \"reference\": " << json_string(p.reference) << "},\n";
  out << "  \"rows\": [";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const GemmBenchRow& r = rows[i];
    const GemmProblem& q = r.problem;
    out << (i ? ",\n    " : "\n    ") << "{\"gpu\": " << json_string(d.gpu) << ", \"sm_count\": " << d.sm_count
        << ", \"commit\": " << json_string(d.commit) << ", \"impl\": " << json_string(r.impl)
        << ", \"group\": " << json_string(q.group) << ", \"repeat\": " << r.repeat << ", \"m\": " << q.m
        << ", \"n\": " << q.n << ", \"k\": " << q.k << ", \"dtype\": " << json_string(input_type_name(q.in, q.in_b))
        << ", \"out_dtype\": " << json_string(tessel::name(q.out))
        << ", \"layout\": " << json_string(tessel::name(q.layout)) << ", \"alpha\": " << json_number(q.alpha)
        << ", \"beta\": " << json_number(q.beta) << ", \"verify\": " << json_string(r.verify)
        << ", \"disposition\": " << json_string(r.disposition) << ", \"note\": " << json_string(r.note)
        << ", \"max_err\": " << json_opt(r.max_err) << ", \"cublas_max_err\": " << json_opt(r.cublas_max_err)
        << ", \"cublas_disposition\": " << json_string(r.cublas_disposition)
        << ", \"median_ms\": " << json_opt(r.median_ms) << ", \"min_ms\": " << json_opt(r.min_ms)
        << ", \"p90_ms\": " << json_opt(r.p90_ms) << ", \"tflops\": " << json_opt(r.tflops)
        << ", \"cublas_median_ms\": " << json_opt(r.cublas_median_ms)
        << ", \"cublas_tflops\": " << json_opt(r.cublas_tflops) << ", \"ratio\": " << json_opt(r.ratio)
        << ", \"gbytes_per_s\": " << json_opt(r.gbytes_per_s)
        << ", \"cublas_gbytes_per_s\": " << json_opt(r.cublas_gbytes_per_s)
        << ", \"l2_flush\": " << json_string(r.l2_flush) << ", \"sm_clock_mhz\": " << json_opt(r.sm_clock_mhz)
        << ", \"power_w\": " << json_opt(r.power_w) << ", \"cublas_sm_clock_mhz\": " << json_opt(r.cublas_sm_clock_mhz)
        << ", \"cublas_power_w\": " << json_opt(r.cublas_power_w) << ", \"timing\": " << json_string(r.timing)
        << ", \"epilogue\": " << json_string(epilogue_name(q.epilogue)) << ", \"batch\": " << q.batch
        << ", \"group_m\": " << json_string(group_list(q)) << ", \"heat_ms\": " << r.heat_ms
        << ", \"cublas_reference\": " << json_string(r.cublas_reference)
        << ", \"cublas_reduction\": " << json_string(r.cublas_reduction) << "}";
  }
  out << (rows.empty() ? "],\n" : "\n  ],\n");
  out << "  \"summary\": [";
  for (std::size_t i = 0; i < summary.size(); ++i) {
    const ImplSummary& s = summary[i];
    out << (i ? ", " : "") << "{\"impl\": " << json_string(s.impl) << ", \"problems\": " << s.problems
        << ", \"rows\": " << s.rows << ", \"geomean_ratio\": " << (s.problems ? json_number(s.geomean_ratio) : "null")
        << ", \"min_ratio\": " << (s.problems ? json_number(s.min_ratio) : "null")
        << ", \"group\": " << json_string(s.group)
        << ", \"below_095\": " << (s.problems ? json_number(s.below_095) : "null")
        << ", \"below_085\": " << (s.problems ? json_number(s.below_085) : "null") << "}";
  }
  out << "]";
  if (!error.empty()) out << ",\n  \"error\": " << json_string(error);
  out << "\n}\n";
}

}  // namespace tessel::bench

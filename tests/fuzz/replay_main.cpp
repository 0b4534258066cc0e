// A main() for the fuzz targets when they are built without libFuzzer (any
// compiler, the ordinary build).  CTest runs it so that what the fuzzers
// check is also checked on every test run:
//   FILE or DIR     each file (each file of DIR) is one input: the regression
//                   inputs in tests/fuzz/regressions/ (every input that once
//                   broke tessel stays a test);
//   --lines FILE    each line of FILE, up to a TAB, is one input: the golden
//                   files' expressions;
//   --random N SEED N pseudo-random inputs of 1 to 256 bytes (for the
//                   structure-aware target, whose bytes are choices).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {
void run(const std::string& input) {
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
}
bool read_file(const std::filesystem::path& p, std::string& out) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return false;
  out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return true;
}
}  // namespace

int main(int argc, char** argv) {
  std::size_t count = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--lines" && i + 1 < argc) {
      std::ifstream in(argv[++i], std::ios::binary);
      if (!in) {
        std::fprintf(stderr, "cannot read %s\n", argv[i]);
        return 1;
      }
      for (std::string line; std::getline(in, line); ++count) run(line.substr(0, line.find('\t')));
    } else if (arg == "--random" && i + 2 < argc) {
      const long n = std::strtol(argv[i + 1], nullptr, 10);
      std::mt19937_64 rng(std::strtoull(argv[i + 2], nullptr, 10));
      i += 2;
      for (long k = 0; k < n; ++k, ++count) {
        std::string input(1 + rng() % 256, '\0');
        for (char& c : input) c = static_cast<char>(rng());
        run(input);
      }
    } else if (std::filesystem::is_directory(arg)) {
      for (const auto& e : std::filesystem::directory_iterator(arg)) {
        std::string data;
        if (e.is_regular_file() && read_file(e.path(), data)) {
          run(data);
          ++count;
        }
      }
    } else {
      std::string data;
      if (!read_file(arg, data)) {
        std::fprintf(stderr, "cannot read %s (usage: %s [FILE|DIR|--lines FILE|--random N SEED]...)\n", arg.c_str(),
                     argv[0]);
        return 1;
      }
      run(data);
      ++count;
    }
  }
  if (count == 0) {
    std::fprintf(stderr, "no inputs\n");
    return 2;
  }
  std::printf("%zu inputs replayed, every check held\n", count);
  return 0;
}

// The on-disk cache of measured tuning (tune_cache.hpp).
#include "src/jit/tune_cache.hpp"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace tessel::tune {

namespace {

using jit::join;

bool is_entry_name(const std::string& n) {
  if (n.size() != 16 + 5 || n.compare(16, 5, ".tune") != 0) return false;
  return std::all_of(n.begin(), n.begin() + 16,
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

bool is_temp_name(const std::string& n) {
  return n.size() > 10 && n[0] == '.' && n.compare(n.size() - 4, 4, ".tmp") == 0 &&
         n.find(".tune.") != std::string::npos;
}

/// The entry files of `dir` (and publish()'s stray temporaries where
/// `temporaries`), sorted; a missing directory has none.
bool names_in(const std::string& dir, bool temporaries, std::vector<std::string>& names, std::string& error) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) {
    if (errno == ENOENT) return true;
    error = "cannot read " + dir + ": " + std::strerror(errno);
    return false;
  }
  while (const dirent* e = ::readdir(d)) {
    const std::string n = e->d_name;
    if (is_entry_name(n) || (temporaries && is_temp_name(n))) names.push_back(n);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return true;
}

/// The value after "<field> " on a line that must start so; false otherwise.
bool field(std::string_view line, std::string_view name, std::string_view& value) {
  if (line.size() <= name.size() || line.substr(0, name.size()) != name || line[name.size()] != ' ') return false;
  value = line.substr(name.size() + 1);
  return true;
}

}  // namespace

std::string resolve_dir(const jit::EnvFn& env) {
  const auto get = [&](const char* n) -> std::string {
    const char* v = env(n);
    return v == nullptr ? std::string() : std::string(v);
  };
  if (std::string d = get("TESSEL_TUNE_CACHE"); !d.empty()) return d;
  if (std::string d = get("TESSEL_CACHE_DIR"); !d.empty()) return join(d, "tune");
  if (std::string x = get("XDG_CACHE_HOME"); !x.empty()) return join(x, "tessel/tune");
  if (std::string h = get("HOME"); !h.empty()) return join(h, ".cache/tessel/tune");
  return "";
}

std::string file_name(std::string_view key) {
  jit::Fnv1a h;
  h.add(key);
  return jit::hex64(h.h) + ".tune";
}

std::string serialize(const Entry& e) {
  std::ostringstream o;
  o.precision(6);
  o << kMagic << "\nkey " << e.key << "\nchoice " << e.choice << "\nmedian_us " << e.median_us << "\ntimed " << e.timed
    << "\n";
  return o.str();
}

const char* name(Found f) {
  switch (f) {
    case Found::hit:
      return "hit";
    case Found::miss:
      return "miss";
    case Found::corrupt:
      return "corrupt";
    case Found::foreign:
      return "foreign";
  }
  return "unknown";
}

Found parse(std::string_view text, std::string_view key, Entry& out, std::string& why) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    if (nl == std::string_view::npos) {
      why = "the last line has no end (a truncated file)";
      return Found::corrupt;
    }
    lines.push_back(text.substr(0, nl));
    text.remove_prefix(nl + 1);
  }
  if (lines.empty()) {
    why = "empty file";
    return Found::corrupt;
  }
  if (lines[0] != kMagic) {
    if (lines[0].substr(0, 12) == "tessel-tune ") {
      why = "written by another format version (" + std::string(lines[0]) + ")";
      return Found::foreign;
    }
    why = "not a tuning cache file (its first line is not '" + std::string(kMagic) + "')";
    return Found::corrupt;
  }
  std::string_view k, choice, us, timed;
  if (lines.size() != 5 || !field(lines[1], "key", k) || !field(lines[2], "choice", choice) ||
      !field(lines[3], "median_us", us) || !field(lines[4], "timed", timed)) {
    why = "expected the lines key, choice, median_us and timed after the first";
    return Found::corrupt;
  }
  if (k != key) {
    why = "it holds another problem's key (a hash collision, or a file renamed by hand)";
    return Found::foreign;
  }
  const std::string us_text(us), timed_text(timed);
  char* end = nullptr;
  errno = 0;
  const double median = std::strtod(us_text.c_str(), &end);
  if (end == us_text.c_str() || *end != '\0' || errno != 0 || !(median >= 0)) {
    why = "median_us is not a number";
    return Found::corrupt;
  }
  errno = 0;
  const long n = std::strtol(timed_text.c_str(), &end, 10);
  if (end == timed_text.c_str() || *end != '\0' || errno != 0 || n < 1 || n > 100000) {
    why = "timed is not a count";
    return Found::corrupt;
  }
  if (choice.empty()) {
    why = "no choice";
    return Found::corrupt;
  }
  out = Entry{std::string(k), std::string(choice), median, static_cast<int>(n)};
  return Found::hit;
}

Found load(const std::string& dir, std::string_view key, Entry& out, std::string& why) {
  if (dir.empty()) return Found::miss;
  std::string text;
  if (!jit::read_file(join(dir, file_name(key)), text)) return Found::miss;
  return parse(text, key, out, why);
}

bool store(const std::string& dir, const Entry& e, std::string& error) {
  if (dir.empty()) {
    error = "no cache directory (TESSEL_TUNE_CACHE, TESSEL_CACHE_DIR, XDG_CACHE_HOME and HOME are unset)";
    return false;
  }
  if (e.key.find('\n') != std::string::npos || e.choice.find('\n') != std::string::npos) {
    error = "a key or choice with a line break";
    return false;
  }
  if (!jit::make_dirs(dir, error)) return false;
  return jit::publish(dir, file_name(e.key), serialize(e), error);
}

bool list(const std::string& dir, std::vector<Entry>& out, int& skipped, std::string& error) {
  out.clear();
  skipped = 0;
  std::vector<std::string> names;
  if (!names_in(dir, false, names, error)) return false;
  for (const std::string& n : names) {
    std::string text, why;
    Entry e;
    // A file names its own key on its second line: parse against that, then
    // check that the name is the key's hash.
    const bool read = jit::read_file(join(dir, n), text);
    const std::size_t at = text.find("\nkey ");
    const std::size_t nl = at == std::string::npos ? at : text.find('\n', at + 5);
    const std::string key = nl == std::string::npos ? std::string() : text.substr(at + 5, nl - at - 5);
    if (read && !key.empty() && file_name(key) == n && parse(text, key, e, why) == Found::hit)
      out.push_back(e);
    else
      ++skipped;
  }
  return true;
}

bool clear(const std::string& dir, int& removed, std::string& error) {
  removed = 0;
  std::vector<std::string> names;
  if (!names_in(dir, true, names, error)) return false;
  for (const std::string& n : names) {
    if (::unlink(join(dir, n).c_str()) != 0) {
      error = "cannot remove " + join(dir, n) + ": " + std::strerror(errno);
      return false;
    }
    ++removed;
  }
  ::rmdir(dir.c_str());  // only if empty
  return true;
}

}  // namespace tessel::tune

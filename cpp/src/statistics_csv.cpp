// Fast path of the statistics-dump reader: see opdiff/statistics_csv.hpp.
#include "opdiff/statistics_csv.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <charconv>
#include <set>
#include <utility>

#include "opdiff/file_descriptor.hpp"
#include "opdiff/thread_pool.hpp"

namespace opdiff {
namespace {

constexpr std::string_view kHeader =
    "Input/Output,Index,Data Size,Data Type,Format,Shape,Max Value,Min Value,Avg Value,Count,Nan Count,"
    "Negative Inf Count,Positive Inf Count";
constexpr size_t kCells = 13;

bool whole(std::string_view cell, uint64_t& value) {
  if (cell.empty() || cell.size() > 18) return false;  // 18 digits cannot overflow 64 bits
  for (char c : cell) {
    if (c < '0' || c > '9') return false;
  }
  auto result = std::from_chars(cell.data(), cell.data() + cell.size(), value);
  return result.ec == std::errc() && result.ptr == cell.data() + cell.size();
}

// What std::ostream writes for a double, and nothing that Python's float() would read otherwise.
bool number(std::string_view cell, double& value) {
  if (cell.empty()) return false;
  for (char c : cell) {
    bool allowed = (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E' || c == 'i' ||
                   c == 'n' || c == 'f' || c == 'a';
    if (!allowed) return false;
  }
  if (cell.front() == '+') return false;  // from_chars does not take it; the full reader does
  auto result = std::from_chars(cell.data(), cell.data() + cell.size(), value);
  return result.ec == std::errc() && result.ptr == cell.data() + cell.size();
}

bool dims(std::string_view cell, std::vector<int64_t>& shape) {
  if (cell == "-") return true;
  size_t start = 0;
  while (true) {
    size_t end = cell.find('x', start);
    uint64_t dim = 0;
    if (!whole(cell.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start), dim)) return false;
    shape.push_back(static_cast<int64_t>(dim));
    if (end == std::string_view::npos) return true;
    start = end + 1;
  }
}

bool parse_line(std::string_view line, StatisticsLine& out) {
  std::string_view cells[kCells];
  size_t count = 0, start = 0;
  while (true) {
    size_t end = line.find(',', start);
    if (count == kCells) return false;
    cells[count++] = line.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  if (count != kCells) return false;
  if (cells[0] == "Input") {
    out.input = true;
  } else if (cells[0] != "Output") {
    return false;
  }
  if (!whole(cells[1], out.index) || !whole(cells[2], out.data_size) || !dims(cells[5], out.shape)) return false;
  if (!number(cells[6], out.max) || !number(cells[7], out.min) || !number(cells[8], out.mean)) return false;
  if (!whole(cells[9], out.count) || !whole(cells[10], out.nan) || !whole(cells[11], out.neg_inf) ||
      !whole(cells[12], out.pos_inf)) {
    return false;
  }
  uint64_t elements = 1;
  for (int64_t dim : out.shape) {
    if (dim != 0 && elements > UINT64_MAX / static_cast<uint64_t>(dim)) return false;
    elements *= static_cast<uint64_t>(dim);
  }
  out.data_type = std::string(cells[3]);
  out.format = std::string(cells[4]);
  return elements == out.count;
}

std::optional<std::string> read_small_file(const std::string& path) {
  const FileDescriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) return std::nullopt;
  std::string text;
  char buffer[1 << 16];
  while (true) {
    ssize_t got = ::read(file.fd, buffer, sizeof buffer);
    if (got < 0) return std::nullopt;
    if (got == 0) break;
    text.append(buffer, static_cast<size_t>(got));
    // A regular file reads short only at its end: no second call just to see 0 (most files are a few hundred bytes).
    if (static_cast<size_t>(got) < sizeof buffer) break;
  }
  return text;
}

}  // namespace

std::optional<std::vector<StatisticsLine>> parse_regular_statistics(std::string_view text) {
  std::vector<StatisticsLine> lines;
  std::set<std::pair<bool, uint64_t>> seen;
  size_t start = 0;
  bool header = true;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    std::string_view line = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    start = end == std::string_view::npos ? text.size() : end + 1;
    if (header) {
      if (line != kHeader) return std::nullopt;
      header = false;
      continue;
    }
    if (line.empty()) continue;
    // Control characters and non-ASCII bytes: the full reader splits lines on more than '\n'
    // (str.splitlines: '\r', '\v', '\f', U+2028, ...), so such a file is left to it.
    for (char c : line) {
      auto byte = static_cast<unsigned char>(c);
      if (byte < 0x20 || byte >= 0x7f) return std::nullopt;
    }
    StatisticsLine parsed;
    if (!parse_line(line, parsed) || !seen.emplace(parsed.input, parsed.index).second) return std::nullopt;
    lines.push_back(std::move(parsed));
  }
  if (header) return std::nullopt;  // empty
  return lines;
}

std::vector<std::optional<std::vector<StatisticsLine>>> read_regular_statistics(const std::vector<std::string>& paths,
                                                                                 size_t threads) {
  std::vector<std::optional<std::vector<StatisticsLine>>> results(paths.size());
  default_thread_pool().parallel_for(paths.size(), threads, [&](size_t i, size_t) {
    std::optional<std::string> text = read_small_file(paths[i]);
    if (text) results[i] = parse_regular_statistics(*text);
  });
  return results;
}

}  // namespace opdiff

// Statistics dumps (docs/reference/device-files.md §2.1): the fast path for reading many of them.
// Only files in the device's regular form are parsed here; any file with an irregular line (or
// one that cannot be read) is left to the full reader in Python (opdiff.dumps.statistics), which
// says what is wrong with it. The two agree on every regular file (tests/test_statistics_files.py).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opdiff {

struct StatisticsLine {
  bool input = false;  // "Input" (else "Output")
  uint64_t index = 0;
  uint64_t data_size = 0;
  std::string data_type;  // the DT_* name as written
  std::string format;
  std::vector<int64_t> shape;  // stored dims; empty for "-"
  double max = 0, min = 0, mean = 0;
  uint64_t count = 0, nan = 0, neg_inf = 0, pos_inf = 0;
};

// The lines of a whole statistics CSV in the regular form: the exact header, then lines of 13
// cells (Input/Output, whole numbers, dims joined by 'x' or '-', plain decimal or inf/nan
// numbers), Count equal to the product of the Shape, no (role, index) twice, printable ASCII only;
// blank lines skipped. std::nullopt for anything else.
std::optional<std::vector<StatisticsLine>> parse_regular_statistics(std::string_view text);

// Each file read and parsed as above, on up to `threads` threads (0 = all); std::nullopt where a
// file cannot be read or is not regular.
std::vector<std::optional<std::vector<StatisticsLine>>> read_regular_statistics(const std::vector<std::string>& paths,
                                                                                 size_t threads);

}  // namespace opdiff

// Recently opened files by path, so a golden output that feeds several consumers is opened once.
#pragma once

#include <cstdint>
#include <exception>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "opdiff/tensor_file.hpp"

namespace opdiff {

// Thread-safe. A file that cannot be opened is remembered with its error. An open file keeps its
// bytes (a buffer, or a mapping), and every page a comparison touched stays resident until the file is dropped: the
// cache therefore holds at most `budget_bytes` of files and never a file larger than that
// (reopening a big file costs a header parse; its bytes come back from the page cache).
class TensorFileCache {
 public:
  // 16 MiB by default: 60 dumps of 64K fp32 elements. Held files are memory of ours (a small file
  // is read whole), and a larger budget only gave the reads more fresh memory to fault in.
  static constexpr size_t kDefaultCapacity = 256;
  static constexpr uint64_t kDefaultBudgetBytes = uint64_t{16} << 20;
  explicit TensorFileCache(size_t capacity = kDefaultCapacity, uint64_t budget_bytes = kDefaultBudgetBytes)
      : capacity_(capacity), budget_(budget_bytes) {}

  // The file at `path`, opened now or earlier; throws the DumpFormatError of its opening.
  std::shared_ptr<const TensorFile> get(const std::string& path);

  size_t files() const;
  uint64_t bytes() const;

 private:
  struct Entry {
    std::shared_ptr<const TensorFile> file;
    std::exception_ptr error;
    uint64_t bytes = 0;
    std::list<std::string>::iterator position;  // in order_, newest first
  };

  void evict_locked();

  const size_t capacity_;
  const uint64_t budget_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Entry> entries_;
  std::list<std::string> order_;
  uint64_t bytes_ = 0;
};

}  // namespace opdiff

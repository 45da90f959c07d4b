// Reads the files a comparison will map next into the page cache, on a thread of its own, so that
// on a cold disk the compare threads find their pages there instead of each waiting on its own
// page faults' reads. What it reads, `cat` would: the same sequential read() into one scratch
// buffer, which keeps the disk busy at its streaming rate. Pages already in the page cache are not
// read again (mincore), so a warm run pays only the check.
//
// It stays within `window_bytes` of the consumer: the files from the one the comparison is at
// (advance()) up to that many bytes on. Reading further ahead would, on a dump larger than memory,
// evict pages read ahead before the comparison reaches them, and read them twice.
//
// It steps aside for good once it is a whole window ahead of the comparison with pages it had to
// read from the disk (a warm data set, only checked, never makes it): the disk then serves faster
// than the compare threads use it, they are the bottleneck, and its copies would only take CPU time
// from them (docs/benchmarks.md, "Cold: the disk and the read-ahead"). While the disk is the
// bottleneck the comparison keeps up with it and the window never fills.
//
// Only a hint: a file that cannot be opened or read is passed over in silence (the comparison's own
// open says what is wrong with it), and what it reads changes no result. So is a file whose page
// cache this process cannot see: since Linux 5.2, mincore() reports a file's cached pages only to
// its owner or to those who may write it, and reading a warm file blind would copy it for nothing.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace opdiff {

inline constexpr uint64_t kReadAheadDefaultWindowBytes = 256ull << 20;

// Files up to kReadWholeFileBytes are passed over: FileBytes reads them whole when it opens them,
// in one read that the kernel's own read-ahead serves, so only mapped files wait on page faults.
class ReadAhead {
 public:
  // `paths` in the order the comparison reaches them; `stops[k]` is the first path of position k
  // (non-decreasing), what advance(k) means. A path may appear more than once: it is read once.
  ReadAhead(std::vector<std::string> paths, std::vector<size_t> stops,
            uint64_t window_bytes = kReadAheadDefaultWindowBytes);
  ~ReadAhead() { stop(); }
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;

  // The comparison has reached position `position`: read up to the window past its first path.
  void advance(size_t position);
  // Stops the thread after the read in flight and waits for it (again: nothing).
  void stop();
  // Waits until the thread has read (or passed over) everything it may read now; for tests.
  void settle();

  uint64_t bytes_read() const;      // read from the disk into the page cache
  uint64_t bytes_resident() const;  // found in the page cache already
  size_t files_passed_over() const; // small, unreadable or repeated files
  bool stepped_aside() const;       // it stopped early: a window ahead, the compare threads the bottleneck

 private:
  void run();
  // Reads what is not resident of paths_[k]; returns the bytes the window counts for it.
  uint64_t read_file(size_t k, std::byte* scratch);
  // Waits until bytes [offset, offset + length) of paths_[k] fit the window; false when the thread
  // stops or the comparison has moved past the file.
  bool wait_for_window(size_t k, uint64_t offset, uint64_t length);

  std::vector<std::string> paths_;
  std::vector<size_t> stops_;
  uint64_t window_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  size_t consumer_path_ = 0;  // first path of the consumer's position
  size_t next_path_ = 0;      // the path the thread reads or will read next
  // before_[k]: the bytes the window counts for paths_[0..k), known for k <= next_path_
  std::vector<uint64_t> before_;
  bool waiting_ = false;  // the thread waits for the consumer to advance
  bool done_ = false;     // the thread has passed the last path, or stopped
  bool stopping_ = false;
  bool stepped_aside_ = false;
  uint64_t bytes_read_ = 0, bytes_resident_ = 0;
  size_t passed_over_ = 0;
  std::thread thread_;
};

}  // namespace opdiff

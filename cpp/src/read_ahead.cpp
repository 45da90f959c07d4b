#include "opdiff/read_ahead.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <unordered_set>

#include "opdiff/file_bytes.hpp"
#include "opdiff/file_descriptor.hpp"

namespace opdiff {
namespace {

// One read: large enough that the disk streams (cat reads 128 KiB at a time and the kernel's own
// read-ahead grows past that), small enough that stopping waits little.
constexpr uint64_t kChunkBytes = 4ull << 20;

// A mapping used only to ask mincore() which pages are cached: never touched, so it maps nothing.
struct ResidencyMap {
  void* address = MAP_FAILED;
  uint64_t size = 0;
  ResidencyMap(int fd, uint64_t bytes) : size(bytes) {
    address = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  }
  ~ResidencyMap() {
    if (address != MAP_FAILED) ::munmap(address, size);
  }
  ResidencyMap(const ResidencyMap&) = delete;
  ResidencyMap& operator=(const ResidencyMap&) = delete;

  // Whether [offset, offset + length) is in the page cache, judged by five of its pages (its
  // first, last and three between): asking for every page of a warm multi-GB dump costs a tenth of
  // a second. A chunk misjudged resident is only read by the comparison's own faults, as without this.
  bool resident(uint64_t offset, uint64_t length) const {
    if (address == MAP_FAILED) return false;
    const auto page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
    const uint64_t last = (length - 1) / page;
    for (uint64_t quarter = 0; quarter <= 4; ++quarter) {
      unsigned char bits = 0;
      const uint64_t at = offset + last * quarter / 4 * page;
      if (::mincore(static_cast<std::byte*>(address) + at, 1, &bits) != 0 || (bits & 1) == 0) return false;
    }
    return true;
  }
};

// Whether mincore() shows this process the file's page cache (see the header).
bool cache_visible(const std::string& path, const struct stat& info) {
  return info.st_uid == ::geteuid() || ::access(path.c_str(), W_OK) == 0;
}

}  // namespace

ReadAhead::ReadAhead(std::vector<std::string> paths, std::vector<size_t> stops, uint64_t window_bytes)
    : paths_(std::move(paths)),
      stops_(std::move(stops)),
      window_(std::max(window_bytes, kChunkBytes)),
      before_(paths_.size() + 1, 0) {
  thread_ = std::thread([this] { run(); });
}

void ReadAhead::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ReadAhead::advance(size_t position) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const size_t first = std::min(position < stops_.size() ? stops_[position] : paths_.size(), paths_.size());
    if (first <= consumer_path_) return;  // not a step forward: nothing changes for the thread
    consumer_path_ = first;
    waiting_ = false;  // until the thread has looked again (settle() waits for that)
  }
  changed_.notify_all();
}

void ReadAhead::settle() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return waiting_ || done_; });
}

uint64_t ReadAhead::bytes_read() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return bytes_read_;
}

uint64_t ReadAhead::bytes_resident() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return bytes_resident_;
}

bool ReadAhead::stepped_aside() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stepped_aside_;
}

size_t ReadAhead::files_passed_over() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return passed_over_;
}

void ReadAhead::run() {
  const auto scratch = std::make_unique<std::byte[]>(kChunkBytes);
  std::unordered_set<std::string> seen;
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_ && !stepped_aside_ && next_path_ < paths_.size()) {
    const size_t k = next_path_;
    if (consumer_path_ > k) {  // the comparison is past this file: its own reads have it
      before_[k + 1] = before_[k];
      next_path_ = k + 1;
      continue;
    }
    const bool first_time = seen.insert(paths_[k]).second;
    lock.unlock();
    const uint64_t counted = first_time ? read_file(k, scratch.get()) : 0;
    lock.lock();
    if (counted == 0) ++passed_over_;
    before_[k + 1] = before_[k] + counted;
    next_path_ = k + 1;
  }
  done_ = true;
  lock.unlock();
  changed_.notify_all();
}

uint64_t ReadAhead::read_file(size_t k, std::byte* scratch) {
  const std::string& path = paths_[k];
  struct stat info {};  // stat first: most dumps of a network are small, and need no descriptor
  if (::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return 0;
  const auto size = static_cast<uint64_t>(info.st_size);
  if (size <= kReadWholeFileBytes || !cache_visible(path, info)) return 0;
  const FileDescriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) return 0;
  ::posix_fadvise(file.fd, 0, 0, POSIX_FADV_SEQUENTIAL);  // a larger read-ahead window for our reads
  const ResidencyMap residency(file.fd, size);
  for (uint64_t offset = 0; offset < size; offset += kChunkBytes) {
    const uint64_t length = std::min(kChunkBytes, size - offset);
    if (!wait_for_window(k, offset, length)) break;
    if (residency.resident(offset, length)) {
      std::lock_guard<std::mutex> lock(mutex_);
      bytes_resident_ += length;
      continue;
    }
    if (read_at(file.fd, scratch, length, offset) != static_cast<int64_t>(length)) break;  // its open will say why
    std::lock_guard<std::mutex> lock(mutex_);
    bytes_read_ += length;
  }
  return size;
}

bool ReadAhead::wait_for_window(size_t k, uint64_t offset, uint64_t length) {
  std::unique_lock<std::mutex> lock(mutex_);
  const auto fits = [&] {
    return stopping_ || consumer_path_ > k || before_[k] - before_[consumer_path_] + offset + length <= window_;
  };
  while (!fits()) {
    // A window ahead, with pages it had to read (the kernel's own read-ahead, set off by its reads,
    // brings some of the rest): the comparison is the bottleneck, see the header.
    if (bytes_read_ > 0) {
      stepped_aside_ = true;
      return false;
    }
    waiting_ = true;
    changed_.notify_all();  // settle() may be waiting for this
    changed_.wait(lock);
  }
  waiting_ = false;
  return !stopping_ && consumer_path_ <= k;
}

}  // namespace opdiff

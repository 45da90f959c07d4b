// Buffers for files read whole (FileBytes) and for the metric engine's gather scratch, recycled: a
// network's thousands of small dumps would otherwise each take fresh memory from the system, and
// the first write to every fresh page is a page fault (a quarter of the kernel time of a 2,000-op
// comparison). Freed buffers are kept, up to a budget, and handed out again for about the same size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

namespace opdiff {

// A buffer of `capacity` bytes taken from the pool; it goes back to the pool when it dies.
class ReadBuffer {
 public:
  ReadBuffer() = default;
  explicit ReadBuffer(uint64_t size);  // at least `size` bytes
  ~ReadBuffer();
  ReadBuffer(ReadBuffer&& other) noexcept = default;
  ReadBuffer& operator=(ReadBuffer&& other) noexcept;
  ReadBuffer(const ReadBuffer&) = delete;
  ReadBuffer& operator=(const ReadBuffer&) = delete;

  std::byte* data() const { return data_.get(); }
  uint64_t capacity() const { return capacity_; }
  explicit operator bool() const { return data_ != nullptr; }

 private:
  std::unique_ptr<std::byte[]> data_;
  uint64_t capacity_ = 0;
};

// The size class of a request: rounded up to an eighth of its power of two (at most 12.5% more),
// so that files of nearly the same size share buffers.
uint64_t read_buffer_capacity(uint64_t size);

class ReadBufferPool {
 public:
  explicit ReadBufferPool(uint64_t budget_bytes) : budget_(budget_bytes) {}

  // A kept buffer of `capacity` bytes, or an empty pointer.
  std::unique_ptr<std::byte[]> take(uint64_t capacity);
  // Keeps `data` for reuse while the pool holds less than its budget; frees it otherwise.
  void give_back(std::unique_ptr<std::byte[]> data, uint64_t capacity) noexcept;
  uint64_t kept_bytes() const;

 private:
  mutable std::mutex mutex_;
  std::multimap<uint64_t, std::unique_ptr<std::byte[]>> kept_;  // capacity -> buffer
  uint64_t kept_bytes_ = 0;
  uint64_t budget_;
};

// The process's pool (32 MiB of kept buffers at most).
ReadBufferPool& read_buffer_pool();

}  // namespace opdiff

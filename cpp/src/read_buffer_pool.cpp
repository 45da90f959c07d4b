#include "opdiff/read_buffer_pool.hpp"

#include <new>
#include <utility>

namespace opdiff {

uint64_t read_buffer_capacity(uint64_t size) {
  if (size <= 4096) return 4096;
  uint64_t power = 1;
  while (power < size) power <<= 1;
  const uint64_t step = power / 16;  // the power of two below `size` is power / 2: an eighth of it
  return (size + step - 1) / step * step;
}

ReadBuffer::ReadBuffer(uint64_t size) : capacity_(read_buffer_capacity(size)) {
  data_ = read_buffer_pool().take(capacity_);
  if (!data_) data_.reset(new std::byte[capacity_]);
}

ReadBuffer::~ReadBuffer() {
  if (data_) read_buffer_pool().give_back(std::move(data_), capacity_);
}

ReadBuffer& ReadBuffer::operator=(ReadBuffer&& other) noexcept {
  if (this != &other) {
    if (data_) read_buffer_pool().give_back(std::move(data_), capacity_);
    data_ = std::move(other.data_);
    capacity_ = std::exchange(other.capacity_, 0);
  }
  return *this;
}

std::unique_ptr<std::byte[]> ReadBufferPool::take(uint64_t capacity) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = kept_.find(capacity);
  if (found == kept_.end()) return nullptr;
  auto data = std::move(found->second);
  kept_.erase(found);
  kept_bytes_ -= capacity;
  return data;
}

void ReadBufferPool::give_back(std::unique_ptr<std::byte[]> data, uint64_t capacity) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  if (kept_bytes_ + capacity > budget_) return;  // `data` is freed on the way out
  try {
    kept_.emplace(capacity, std::move(data));
    kept_bytes_ += capacity;
  } catch (const std::bad_alloc&) {  // no room to keep it: it is freed instead (called from destructors)
  }
}

uint64_t ReadBufferPool::kept_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return kept_bytes_;
}

ReadBufferPool& read_buffer_pool() {
  // Never destroyed: a buffer may die after static destructors have run (a Python object freed
  // late at exit), and must still find its pool.
  static ReadBufferPool* const pool = new ReadBufferPool(32ull << 20);
  return *pool;
}

}  // namespace opdiff

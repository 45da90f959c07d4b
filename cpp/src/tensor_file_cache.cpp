#include "opdiff/tensor_file_cache.hpp"

#include <utility>

#include "opdiff/dump_error.hpp"

namespace opdiff {

std::shared_ptr<const TensorFile> TensorFileCache::get(const std::string& path) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = entries_.find(path);
    if (found != entries_.end()) {
      order_.splice(order_.begin(), order_, found->second.position);
      if (found->second.error) std::rethrow_exception(found->second.error);
      return found->second.file;
    }
  }
  // Opened outside the lock: other threads keep using the cache meanwhile.
  Entry entry;
  try {
    entry.file = open_tensor_file(path);
    entry.bytes = entry.file->contents ? entry.file->contents->bytes().size : 0;
  } catch (const DumpFormatError&) {
    entry.error = std::current_exception();
  }
  if (entry.bytes <= budget_) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (entries_.find(path) == entries_.end()) {
      order_.push_front(path);
      entry.position = order_.begin();
      bytes_ += entry.bytes;
      entries_.emplace(path, entry);
      evict_locked();
    }
  }
  if (entry.error) std::rethrow_exception(entry.error);
  return entry.file;
}

void TensorFileCache::evict_locked() {
  while (!order_.empty() && (entries_.size() > capacity_ || bytes_ > budget_)) {
    auto oldest = entries_.find(order_.back());
    bytes_ -= oldest->second.bytes;
    entries_.erase(oldest);
    order_.pop_back();
  }
}

size_t TensorFileCache::files() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

uint64_t TensorFileCache::bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return bytes_;
}

}  // namespace opdiff

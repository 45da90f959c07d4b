// A whole file's bytes, read-only, for as long as the object lives. Files up to
// kReadWholeFileBytes are read into a (recycled) buffer; larger ones are mapped and unmapped when
// the object dies.
//
// Why both: a network's thousands of small dumps cost more mapped than copied. Each mapping takes
// page faults, and its unmapping stops every core the process runs on to flush their TLBs. Mapping
// and unmapping also serialise the compare threads on the process's address-space lock. Together
// that took a quarter of a 2,000-op comparison and kept two threads at 1.3x one. Copying costs by
// the byte (about 50 us per 256 KiB here) and mapping by the file, so a larger file is mapped: it
// is then streamed with flat memory (release()), and the dumps the engine opens ahead of time
// (engine/tensor_engine.py) hold at most 1 MiB each.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "opdiff/byte_span.hpp"
#include "opdiff/read_buffer_pool.hpp"
#include "opdiff/truncation_guard.hpp"

namespace opdiff {

inline constexpr uint64_t kReadWholeFileBytes = 1 << 20;

// Reads `length` bytes at `offset` of `fd` into `out`, retrying interrupted and short reads. Returns
// how many it read (fewer only at the end of the file), or -1 with errno set when a read fails.
int64_t read_at(int fd, std::byte* out, uint64_t length, uint64_t offset);

class FileBytes {
 public:
  // Throws DumpFormatError (naming the path) when the file cannot be opened, read or mapped.
  explicit FileBytes(const std::string& path);
  ~FileBytes();
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;

  ByteSpan bytes() const { return {static_cast<const std::byte*>(address_), size_}; }
  // Drops the pages of `range` (inside bytes()) of a mapped file from this process's resident set.
  // They stay in the page cache and come back on the next access, so this is safe while other
  // threads read them; long streaming reads call it to keep memory bounded whatever the file size.
  // A file read whole keeps its buffer.
  void release(ByteSpan range) const;
  const std::string& path() const { return path_; }
  // Whether the bytes are a mapping (release() gives pages back), not a buffer read whole.
  bool mapped() const { return guard_ != nullptr; }
  // Whether the file shrank on disk since it was opened. For a mapping, bytes read from the lost
  // pages were zeros; a file read whole is intact in memory, but it changed under us all the same.
  // Either way what was read from it must be discarded.
  bool truncated() const;

 private:
  void read_whole(int fd);
  void map(int fd);

  std::string path_;
  const void* address_ = nullptr;
  uint64_t size_ = 0;
  uint64_t device_ = 0, inode_ = 0;  // which file was opened, to tell truncation from replacement
  ReadBuffer buffer_;                // the bytes of a file read whole
  std::unique_ptr<TruncationGuard> guard_;  // a mapped file only
};

}  // namespace opdiff

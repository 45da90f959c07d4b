// A whole file mapped read-only into memory, unmapped when the object dies.
#pragma once

#include <memory>
#include <string>

#include "opdiff/byte_span.hpp"
#include "opdiff/truncation_guard.hpp"

namespace opdiff {

class MappedFile {
 public:
  // Throws DumpFormatError (naming the path) when the file cannot be opened or mapped.
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  ByteSpan bytes() const { return {static_cast<const std::byte*>(address_), size_}; }
  // Drops the pages of `range` (inside bytes()) from this process's resident set. They stay in
  // the page cache and come back on the next access, so this is safe while other threads read
  // them; long streaming reads call it to keep memory bounded whatever the file size.
  void release(ByteSpan range) const;
  const std::string& path() const { return path_; }
  // Whether the file shrank under the mapping since it was opened: bytes read from the lost
  // pages were zeros, so whatever was read from it must be discarded.
  bool truncated() const;

 private:
  std::string path_;
  void* address_ = nullptr;
  uint64_t size_ = 0;
  uint64_t device_ = 0, inode_ = 0;  // which file the mapping shows, to tell truncation from replacement
  std::unique_ptr<TruncationGuard> guard_;
};

}  // namespace opdiff

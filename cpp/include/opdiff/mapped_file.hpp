// A whole file mapped read-only into memory, unmapped when the object dies.
#pragma once

#include <string>

#include "opdiff/byte_span.hpp"

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

 private:
  std::string path_;
  void* address_ = nullptr;
  uint64_t size_ = 0;
};

}  // namespace opdiff

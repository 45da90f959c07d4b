#include "opdiff/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "opdiff/dump_error.hpp"

namespace opdiff {
namespace {

// Closes the descriptor on every path out of the constructor; the mapping outlives it.
struct FileDescriptor {
  int fd;
  ~FileDescriptor() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

MappedFile::MappedFile(const std::string& path) : path_(path) {
  FileDescriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) throw DumpFormatError(path, std::string("cannot open: ") + std::strerror(errno));
  struct stat info {};
  if (::fstat(file.fd, &info) != 0) throw DumpFormatError(path, std::string("cannot stat: ") + std::strerror(errno));
  if (!S_ISREG(info.st_mode)) throw DumpFormatError(path, "not a regular file");
  size_ = static_cast<uint64_t>(info.st_size);
  if (size_ == 0) return;  // mmap rejects length 0; an empty span is the honest view
  void* address = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, file.fd, 0);
  if (address == MAP_FAILED) throw DumpFormatError(path, std::string("cannot map: ") + std::strerror(errno));
  address_ = address;
  // Tensors are read front to back: let the kernel read ahead and drop pages behind us.
  ::madvise(address_, size_, MADV_SEQUENTIAL);
}

void MappedFile::release(ByteSpan range) const {
  if (!address_ || range.empty()) return;
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto base = reinterpret_cast<uintptr_t>(address_);
  // Whole pages only: round the start down (still inside the mapping) and the end up.
  uintptr_t start = reinterpret_cast<uintptr_t>(range.data) & ~(page - 1);
  uintptr_t end = reinterpret_cast<uintptr_t>(range.data) + range.size;
  end = std::min<uintptr_t>((end + page - 1) & ~(page - 1), (base + size_ + page - 1) & ~(page - 1));
  if (start < base || end <= start) return;
  ::madvise(reinterpret_cast<void*>(start), end - start, MADV_DONTNEED);
}

MappedFile::~MappedFile() {
  if (address_) ::munmap(address_, size_);
}

}  // namespace opdiff

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
  device_ = static_cast<uint64_t>(info.st_dev);
  inode_ = static_cast<uint64_t>(info.st_ino);
  if (size_ == 0) return;  // mmap rejects length 0; an empty span is the honest view
  void* address = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, file.fd, 0);
  if (address == MAP_FAILED) throw DumpFormatError(path, std::string("cannot map: ") + std::strerror(errno));
  address_ = address;
  guard_ = std::make_unique<TruncationGuard>(address_, size_);
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

bool MappedFile::truncated() const {
  if (guard_ && guard_->tripped()) return true;
  // Lost whole pages fault (the guard); the tail of the last page past the new end reads zeros
  // without a fault, so the size on disk is compared too. A file replaced under its name (a new
  // inode) leaves our mapping intact.
  struct stat info {};
  return ::stat(path_.c_str(), &info) == 0 && static_cast<uint64_t>(info.st_dev) == device_ &&
         static_cast<uint64_t>(info.st_ino) == inode_ && static_cast<uint64_t>(info.st_size) < size_;
}

MappedFile::~MappedFile() {
  guard_.reset();  // before the range can be reused by another mapping
  if (address_) ::munmap(address_, size_);
}

}  // namespace opdiff

#include "opdiff/file_bytes.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "opdiff/dump_error.hpp"
#include "opdiff/file_descriptor.hpp"

namespace opdiff {

FileBytes::FileBytes(const std::string& path) : path_(path) {
  // Closed on every path out of the constructor; a mapping outlives it.
  FileDescriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) throw DumpFormatError(path, std::string("cannot open: ") + std::strerror(errno));
  struct stat info {};
  if (::fstat(file.fd, &info) != 0) throw DumpFormatError(path, std::string("cannot stat: ") + std::strerror(errno));
  if (!S_ISREG(info.st_mode)) throw DumpFormatError(path, "not a regular file");
  size_ = static_cast<uint64_t>(info.st_size);
  device_ = static_cast<uint64_t>(info.st_dev);
  inode_ = static_cast<uint64_t>(info.st_ino);
  if (size_ == 0) return;  // an empty span is the honest view (and mmap rejects length 0)
  if (size_ <= kReadWholeFileBytes)
    read_whole(file.fd);
  else
    map(file.fd);
}

int64_t read_at(int fd, std::byte* out, uint64_t length, uint64_t offset) {
  uint64_t done = 0;
  while (done < length) {
    const ssize_t got = ::pread(fd, out + done, length - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return -1;
    if (got == 0) break;  // the end of the file
    done += static_cast<uint64_t>(got);
  }
  return static_cast<int64_t>(done);
}

void FileBytes::read_whole(int fd) {
  buffer_ = ReadBuffer(size_);
  const int64_t got = read_at(fd, buffer_.data(), size_, 0);
  if (got < 0) throw DumpFormatError(path_, std::string("cannot read: ") + std::strerror(errno));
  if (static_cast<uint64_t>(got) < size_) throw DumpFormatError(path_, kFileShrankProblem);
  address_ = buffer_.data();
}

void FileBytes::map(int fd) {
  void* address = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
  if (address == MAP_FAILED) throw DumpFormatError(path_, std::string("cannot map: ") + std::strerror(errno));
  address_ = address;
  guard_ = std::make_unique<TruncationGuard>(address_, size_);
  // Tensors are read front to back: let the kernel read ahead and drop pages behind us.
  ::madvise(address, size_, MADV_SEQUENTIAL);
}

void FileBytes::release(ByteSpan range) const {
  if (!guard_ || range.empty()) return;  // only a mapping gives pages back
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto base = reinterpret_cast<uintptr_t>(address_);
  // Whole pages only: round the start down (still inside the mapping) and the end up.
  uintptr_t start = reinterpret_cast<uintptr_t>(range.data) & ~(page - 1);
  uintptr_t end = reinterpret_cast<uintptr_t>(range.data) + range.size;
  end = std::min<uintptr_t>((end + page - 1) & ~(page - 1), (base + size_ + page - 1) & ~(page - 1));
  if (start < base || end <= start) return;
  ::madvise(reinterpret_cast<void*>(start), end - start, MADV_DONTNEED);
}

bool FileBytes::truncated() const {
  if (guard_ && guard_->tripped()) return true;
  // Lost whole pages fault (the guard); the tail of the last page past the new end reads zeros
  // without a fault, and a file read whole loses nothing in memory, so the size on disk is
  // compared. A file replaced under its name (a new inode) leaves what we hold intact.
  struct stat info {};
  return ::stat(path_.c_str(), &info) == 0 && static_cast<uint64_t>(info.st_dev) == device_ &&
         static_cast<uint64_t>(info.st_ino) == inode_ && static_cast<uint64_t>(info.st_size) < size_;
}

FileBytes::~FileBytes() {
  if (!guard_) return;  // a file read whole: its buffer goes back to the pool
  guard_.reset();  // before the range can be reused by another mapping
  ::munmap(const_cast<void*>(address_), size_);
}

}  // namespace opdiff

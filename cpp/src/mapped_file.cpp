#include "opdiff/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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

MappedFile::~MappedFile() {
  if (address_) ::munmap(address_, size_);
}

}  // namespace opdiff

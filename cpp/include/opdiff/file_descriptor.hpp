// An open file descriptor, closed when it goes out of scope (on every path out, exceptions too).
#pragma once

#include <unistd.h>

namespace opdiff {

struct FileDescriptor {
  int fd = -1;  // negative: the open failed (errno says why), nothing to close

  explicit FileDescriptor(int opened) : fd(opened) {}
  ~FileDescriptor() {
    if (fd >= 0) ::close(fd);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
};

}  // namespace opdiff

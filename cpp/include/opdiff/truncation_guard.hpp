// Surviving a mapped file that shrinks while it is read. When another process truncates a file
// opdiff has mapped, touching a page past the new end raises SIGBUS, which kills the process. A
// guarded range turns that fault into a page of zeros plus a flag; readers check the flag after
// reading and report the file as changed on disk, so one bad file never takes the run down.
#pragma once

#include <cstddef>
#include <cstdint>

namespace opdiff {

class TruncationGuard {
 public:
  // Guards [address, address + size). Faults elsewhere go to the handler installed before ours
  // (Python's faulthandler, a fuzzer's, or the default action). Ranges beyond kSlots live guards
  // are left unguarded.
  TruncationGuard(const void* address, uint64_t size);
  ~TruncationGuard();
  TruncationGuard(const TruncationGuard&) = delete;
  TruncationGuard& operator=(const TruncationGuard&) = delete;

  // Whether a page of the range was lost (and replaced by zeros) since the guard was made.
  bool tripped() const;

  static constexpr size_t kSlots = 4096;

 private:
  size_t slot_ = kSlots;  // kSlots: not guarded
};

}  // namespace opdiff

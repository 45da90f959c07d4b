#include "opdiff/truncation_guard.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <mutex>

namespace opdiff {
namespace {

// A fixed table the signal handler can scan without locks or allocation.
struct Slot {
  std::atomic<uintptr_t> start{0};
  std::atomic<uintptr_t> end{0};
  std::atomic<bool> tripped{false};
};

Slot g_slots[TruncationGuard::kSlots];
constexpr uintptr_t kClaimed = 1;  // a slot being filled in (no mapping starts at address 1)
uintptr_t g_page_size = 4096;
struct sigaction g_previous {};
std::mutex g_install_mutex;

void forward(int signal_number, siginfo_t* info, void* context) {
  if (g_previous.sa_flags & SA_SIGINFO) {
    if (g_previous.sa_sigaction) g_previous.sa_sigaction(signal_number, info, context);
    return;
  }
  if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
    g_previous.sa_handler(signal_number);
    return;
  }
  // Default action: restore it; returning re-runs the faulting access, which then kills the
  // process as it would have without us (ignoring SIGBUS would loop forever instead).
  ::signal(signal_number, SIG_DFL);
}

void on_sigbus(int signal_number, siginfo_t* info, void* context) {
  const auto address = reinterpret_cast<uintptr_t>(info->si_addr);
  for (auto& slot : g_slots) {
    const uintptr_t start = slot.start.load(std::memory_order_acquire);
    if (start <= kClaimed || address < start || address >= slot.end.load(std::memory_order_acquire)) continue;
    // mmap is a plain system call here: async-signal-safe in practice on Linux.
    void* page = reinterpret_cast<void*>(address & ~(g_page_size - 1));
    if (::mmap(page, g_page_size, PROT_READ, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) != MAP_FAILED) {
      slot.tripped.store(true, std::memory_order_release);
      return;
    }
  }
  forward(signal_number, info, context);
}

// (Re)installs the handler when someone else's replaced it (e.g. faulthandler enabled later),
// keeping theirs to forward to.
void ensure_handler() {
  std::lock_guard<std::mutex> lock(g_install_mutex);
  struct sigaction current {};
  ::sigaction(SIGBUS, nullptr, &current);
  if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == on_sigbus) return;
  g_page_size = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  struct sigaction ours {};
  ours.sa_sigaction = on_sigbus;
  ours.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&ours.sa_mask);
  if (::sigaction(SIGBUS, &ours, &g_previous) != 0) g_previous = current;
}

}  // namespace

TruncationGuard::TruncationGuard(const void* address, uint64_t size) {
  if (!address || size == 0) return;
  ensure_handler();
  const auto start = reinterpret_cast<uintptr_t>(address);
  for (size_t i = 0; i < kSlots; ++i) {
    uintptr_t expected = 0;
    if (!g_slots[i].start.compare_exchange_strong(expected, kClaimed, std::memory_order_acq_rel)) continue;
    // Claimed: fill it in, then publish the start, which makes the handler look at it.
    g_slots[i].tripped.store(false, std::memory_order_relaxed);
    g_slots[i].end.store(start + size, std::memory_order_relaxed);
    g_slots[i].start.store(start, std::memory_order_release);
    slot_ = i;
    return;
  }
}

TruncationGuard::~TruncationGuard() {
  if (slot_ < kSlots) g_slots[slot_].start.store(0, std::memory_order_release);
}

bool TruncationGuard::tripped() const {
  return slot_ < kSlots && g_slots[slot_].tripped.load(std::memory_order_acquire);
}

}  // namespace opdiff

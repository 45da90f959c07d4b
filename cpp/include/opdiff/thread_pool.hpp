// A small fixed pool of worker threads running indexed tasks with dynamic scheduling.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace opdiff {

class ThreadPool {
 public:
  explicit ThreadPool(size_t threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  size_t size() const { return workers_.size() + 1; }  // the calling thread works too

  // Runs task(i, worker) for every i in [0, count) on at most `max_workers` threads (the caller
  // included, 0 = all) and returns when all are done. Tasks are handed out one at a time as
  // threads become free. `worker` is in [0, max_workers) and identifies per-thread scratch.
  // The first exception thrown by a task is rethrown here after the others finish.
  void parallel_for(size_t count, size_t max_workers, const std::function<void(size_t, size_t)>& task);

 private:
  struct Job;
  void worker_loop(size_t worker);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  Job* job_ = nullptr;
  size_t generation_ = 0;
  bool stopping_ = false;
  std::mutex run_mutex_;  // one parallel_for at a time
};

// The process-wide pool, sized to the machine, created on first use.
ThreadPool& default_thread_pool();

}  // namespace opdiff

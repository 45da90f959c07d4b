// A small fixed pool of worker threads running batches of indexed tasks with dynamic scheduling.
// Several batches may run at once (one per caller, or nested: a task that starts its own batch);
// idle workers, and callers waiting on a batch, help whichever batch still has tasks to hand out.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace opdiff {

class ThreadPool {
  struct Job;

 public:
  using Task = std::function<void(size_t index, size_t worker)>;
  using Clock = std::chrono::steady_clock;

  // A started batch. Its tasks run on the pool's workers; wait() (or help_until) makes the calling
  // thread work too. Destroying a batch that was not waited for cancels it and waits for the
  // tasks already running, so a task never outlives what its batch refers to.
  class Batch {
   public:
    Batch(Batch&&) noexcept = default;
    Batch& operator=(Batch&&) = delete;
    Batch(const Batch&) = delete;
    ~Batch();

    // Runs tasks on this thread (this batch's, then any other open one's) until this batch is done
    // or `until` passes; returns whether it is done. Once done, rethrows the first task error.
    bool help_until(Clock::time_point until);
    void wait() { help_until(Clock::time_point::max()); }
    // Hands out no more tasks; those running finish.
    void cancel();

   private:
    friend class ThreadPool;
    Batch(ThreadPool& pool, std::shared_ptr<Job> job) : pool_(&pool), job_(std::move(job)) {}
    ThreadPool* pool_;
    std::shared_ptr<Job> job_;
  };

  explicit ThreadPool(size_t threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  size_t size() const { return workers_.size() + 1; }  // the waiting thread works too

  // Starts task(i, worker) for every i in [0, count) on at most `max_workers` threads at once (0 =
  // size()) and returns at once. Tasks are handed out one at a time as threads become free;
  // `worker` is in [0, max_workers) and identifies per-thread scratch. The first exception thrown
  // by a task stops the handing out and is rethrown by wait().
  Batch start(size_t count, size_t max_workers, Task task);

  // start() and wait(): returns when every task is done.
  void parallel_for(size_t count, size_t max_workers, Task task) { start(count, max_workers, std::move(task)).wait(); }

 private:
  void worker_loop();
  std::shared_ptr<Job> take_open_job();                             // mutex_ held
  void run_joined(const std::shared_ptr<Job>& job, std::unique_lock<std::mutex>& lock);  // mutex_ held

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;  // a batch was started, or the pool stops
  std::condition_variable progress_;  // a batch started, or some batch's last running task finished
  std::deque<std::shared_ptr<Job>> open_;  // batches that may still have tasks to hand out
  bool stopping_ = false;
};

// The process-wide pool, sized to the machine, created on first use.
ThreadPool& default_thread_pool();

}  // namespace opdiff

#include "opdiff/thread_pool.hpp"

#include <atomic>
#include <algorithm>
#include <exception>
#include <memory>

#include <unistd.h>

namespace opdiff {

struct ThreadPool::Job {
  const std::function<void(size_t, size_t)>* task;
  size_t count;
  size_t helpers;  // workers (besides the caller) allowed to join
  std::atomic<size_t> next{0};
  std::atomic<size_t> joined{0};
  size_t active = 0;  // guarded by mutex_
  std::exception_ptr error;
  std::mutex error_mutex;

  void run(size_t worker) {
    for (size_t i = next.fetch_add(1); i < count; i = next.fetch_add(1)) {
      try {
        (*task)(i, worker);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        next.store(count);  // stop handing out work
      }
    }
  }
};

ThreadPool::ThreadPool(size_t threads) {
  for (size_t i = 1; i < threads; ++i) workers_.emplace_back([this, i] { worker_loop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& thread : workers_) thread.join();
}

void ThreadPool::worker_loop(size_t /*index*/) {
  size_t seen = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
    if (stopping_) return;
    seen = generation_;
    Job* job = job_;
    const size_t slot = job->joined.fetch_add(1) + 1;  // worker ids 1.. in joining order
    if (slot > job->helpers) {  // not needed for this job; let the caller know we looked
      done_.notify_all();
      continue;
    }
    ++job->active;
    lock.unlock();
    job->run(slot);
    lock.lock();
    if (--job->active == 0) done_.notify_all();
  }
}

void ThreadPool::parallel_for(size_t count, size_t max_workers, const std::function<void(size_t, size_t)>& task) {
  if (count == 0) return;
  if (max_workers == 0 || max_workers > size()) max_workers = size();
  if (max_workers > count) max_workers = count;
  std::lock_guard<std::mutex> run_lock(run_mutex_);
  Job job;
  job.task = &task;
  job.count = count;
  job.helpers = max_workers - 1;
  if (job.helpers > 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = &job;
    ++generation_;
    wake_.notify_all();
  }
  job.run(0);
  if (job.helpers > 0) {
    std::unique_lock<std::mutex> lock(mutex_);
    // Workers that have not joined yet will see `next == count` and leave at once, but they may
    // still touch `job`: wait until every worker has looked at this generation.
    done_.wait(lock, [&] { return job.active == 0 && job.joined.load() >= workers_.size(); });
    job_ = nullptr;
  }
  if (job.error) std::rethrow_exception(job.error);
}

ThreadPool& default_thread_pool() {
  static std::mutex mutex;
  static std::unique_ptr<ThreadPool> pool;
  static pid_t owner = 0;
  std::lock_guard<std::mutex> lock(mutex);
  if (!pool || owner != getpid()) {
    // A forked child inherits the pool object but not its threads: joining them would hang, so
    // the child abandons that object and starts a pool of its own.
    if (pool) pool.release();
    pool = std::make_unique<ThreadPool>(std::max(1u, std::thread::hardware_concurrency()));
    owner = getpid();
  }
  return *pool;
}

}  // namespace opdiff

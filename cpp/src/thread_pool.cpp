#include "opdiff/thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>

#include <unistd.h>

namespace opdiff {

struct ThreadPool::Job {
  Task task;
  size_t count = 0;
  size_t max_workers = 1;
  std::atomic<size_t> next{0};
  size_t joined = 0;  // threads that took a worker slot (guarded by the pool's mutex)
  size_t active = 0;  // of those, still running tasks (guarded by the pool's mutex)
  std::exception_ptr error;
  std::mutex error_mutex;

  bool open() const { return joined < max_workers && next.load() < count; }
  bool finished() const { return next.load() >= count && active == 0; }

  void run(size_t worker) {
    for (size_t i = next.fetch_add(1); i < count; i = next.fetch_add(1)) {
      try {
        task(i, worker);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        next.store(count);  // stop handing out work
      }
    }
  }
};

ThreadPool::ThreadPool(size_t threads) {
  for (size_t i = 1; i < threads; ++i) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& thread : workers_) thread.join();
}

std::shared_ptr<ThreadPool::Job> ThreadPool::take_open_job() {
  // Oldest first: a nested batch waits behind its parent's remaining tasks, which are work too.
  for (auto it = open_.begin(); it != open_.end();) {
    if ((*it)->open()) return *it;
    it = open_.erase(it);  // fully handed out or fully staffed: no one needs to look at it again
  }
  return nullptr;
}

void ThreadPool::run_joined(const std::shared_ptr<Job>& job, std::unique_lock<std::mutex>& lock) {
  const size_t slot = job->joined++;
  ++job->active;
  lock.unlock();
  job->run(slot);
  lock.lock();
  if (--job->active == 0) progress_.notify_all();
}

void ThreadPool::worker_loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    std::shared_ptr<Job> job;
    wake_.wait(lock, [&] { return stopping_ || (job = take_open_job()) != nullptr; });
    if (stopping_) return;
    run_joined(job, lock);
  }
}

ThreadPool::Batch ThreadPool::start(size_t count, size_t max_workers, Task task) {
  auto job = std::make_shared<Job>();
  job->task = std::move(task);
  job->count = count;
  job->max_workers = max_workers == 0 ? size() : std::min(max_workers, size());
  if (count > 0) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      open_.push_back(job);
    }
    progress_.notify_all();  // threads waiting on another batch may help this one
    // The waiting thread takes a slot too, so one fewer worker is needed.
    const size_t helpers = std::min(job->max_workers, count) - 1;
    if (helpers >= workers_.size()) {
      wake_.notify_all();
    } else {
      for (size_t k = 0; k < helpers; ++k) wake_.notify_one();
    }
  }
  return Batch(*this, std::move(job));
}

bool ThreadPool::Batch::help_until(Clock::time_point until) {
  std::unique_lock<std::mutex> lock(pool_->mutex_);
  while (!job_->finished()) {
    // Work rather than wait: on this batch while it has tasks, then on any other batch (a nested
    // one that this batch's running tasks wait for, say).
    std::shared_ptr<Job> other = job_->open() ? job_ : pool_->take_open_job();
    if (other) {
      pool_->run_joined(other, lock);
      continue;
    }
    if (Clock::now() >= until) return false;
    pool_->progress_.wait_until(lock, until);
  }
  lock.unlock();
  if (job_->error) std::rethrow_exception(job_->error);
  return true;
}

void ThreadPool::Batch::cancel() { job_->next.store(job_->count); }

ThreadPool::Batch::~Batch() {
  if (!job_) return;  // moved from
  cancel();
  std::unique_lock<std::mutex> lock(pool_->mutex_);
  pool_->progress_.wait(lock, [&] { return job_->finished(); });
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

// Files opened in the background on the core's pool. The comparison engine opens the next ops'
// dumps while it turns the last ones into rows: a small dump's bytes are read whole when it opens
// (FileBytes), and that copy belongs on a worker, not on the interpreter's thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "opdiff/tensor_file.hpp"
#include "opdiff/thread_pool.hpp"

namespace opdiff {

// One path's outcome: the open file, or the DumpFormatError message that says why not.
struct OpenedFile {
  std::shared_ptr<const TensorFile> file;  // null when it could not be opened
  std::string error;
};

class FileOpening {
 public:
  FileOpening(std::vector<std::string> paths, ThreadPool& pool);

  // See ThreadPool::Batch: work on the batch (and others) until it is done or `until` passes.
  bool help_until(ThreadPool::Clock::time_point until) { return batch_.help_until(until); }
  void wait() { batch_.wait(); }
  void cancel() { batch_.cancel(); }
  size_t size() const { return state_->paths.size(); }
  // Once done: one outcome per path, in order (a cancelled opening leaves the files it never
  // started without file and error).
  const std::vector<OpenedFile>& results() const { return state_->results; }

 private:
  struct State {
    std::vector<std::string> paths;
    std::vector<OpenedFile> results;
  };
  static ThreadPool::Batch start(const std::shared_ptr<State>& state, ThreadPool& pool);

  std::shared_ptr<State> state_;  // shared with the running tasks
  ThreadPool::Batch batch_;
};

}  // namespace opdiff

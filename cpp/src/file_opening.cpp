#include "opdiff/file_opening.hpp"

#include <utility>

#include "opdiff/dump_error.hpp"

namespace opdiff {

FileOpening::FileOpening(std::vector<std::string> paths, ThreadPool& pool)
    : state_(std::make_shared<State>(State{std::move(paths), {}})), batch_(start(state_, pool)) {}

ThreadPool::Batch FileOpening::start(const std::shared_ptr<State>& state, ThreadPool& pool) {
  state->results.resize(state->paths.size());
  return pool.start(state->paths.size(), 0, [state](size_t i, size_t) {
    OpenedFile& out = state->results[i];
    try {
      out.file = open_tensor_file(state->paths[i]);
    } catch (const DumpFormatError& error) {  // a bad file is an outcome; anything else stops the batch
      out.error = error.what();
    }
  });
}

}  // namespace opdiff

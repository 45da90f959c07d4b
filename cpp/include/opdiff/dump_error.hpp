// The one error type of file parsing: which file, and what is wrong with it.
#pragma once

#include <stdexcept>
#include <string>

namespace opdiff {

class DumpFormatError : public std::runtime_error {
 public:
  DumpFormatError(const std::string& path, const std::string& problem)
      : std::runtime_error(path.empty() ? problem : path + ": " + problem), path_(path), problem_(problem) {}
  const std::string& path() const { return path_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string path_;
  std::string problem_;
};

// The problem of a file that got shorter on disk while opdiff held it (read whole or mapped).
inline constexpr const char* kFileShrankProblem = "the file shrank while it was being read (truncated by another process?)";

// Parsers below the file level report problems without knowing the path; the file reader adds it.
class ParseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The bytes are not framed as the form being tried (so another form may still fit them).
class FramingError : public ParseError {
 public:
  using ParseError::ParseError;
};

}  // namespace opdiff

#include "trial_runner/line_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <utility>

#include "trial_runner/rank_prefix.h"

namespace tuner::runner {

LineReader::LineReader(std::string path, size_t max_line)
    : path_(std::move(path)), max_line_(max_line) {}

LineReader::~LineReader() {
  if (fd_ >= 0) close(fd_);
}

void LineReader::ReadAvailable(const LineHandler& on_line) {
  if (fd_ < 0) fd_ = open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) return;
  char buffer[64 * 1024];
  for (;;) {
    ssize_t n = pread(fd_, buffer, sizeof(buffer), offset_);
    if (n <= 0) return;
    int64_t base = offset_;
    offset_ += n;
    Consume(std::string_view(buffer, static_cast<size_t>(n)), base, on_line);
  }
}

void LineReader::Finish(const LineHandler& on_line) {
  ReadAvailable(on_line);
  line_end_ = offset_;
  if (!partial_.empty() && !overlong_) on_line(partial_);
  partial_.clear();
  overlong_ = false;
}

void LineReader::Consume(std::string_view chunk, int64_t base,
                         const LineHandler& on_line) {
  size_t start = 0;
  while (!chunk.empty()) {
    size_t newline = chunk.find('\n');
    std::string_view piece = chunk.substr(0, newline);
    if (!overlong_) {
      partial_.append(piece);
      if (partial_.size() > max_line_) Compact();
    }
    if (newline == std::string_view::npos) return;
    line_end_ = base + static_cast<int64_t>(start + newline + 1);
    if (!overlong_) on_line(partial_);
    partial_.clear();
    overlong_ = false;
    chunk.remove_prefix(newline + 1);
    start += newline + 1;
  }
}

void LineReader::Compact() {
  size_t start = LastRedrawStart(partial_);
  size_t prefix = partial_.size() - StripRankPrefix(partial_).text.size();
  if (start > prefix) partial_.erase(prefix, start - prefix);
  if (partial_.size() > max_line_) {
    overlong_ = true;
    partial_.clear();
  }
}

}  // namespace tuner::runner

#include "trial_runner/output/line_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

#include "trial_runner/output/rank_prefix.h"

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
    if (overlong_) piece = AfterRedraw(piece);
    partial_.append(piece);
    if (partial_.size() > max_line_) Compact();
    if (newline == std::string_view::npos) return;
    line_end_ = base + static_cast<int64_t>(start + newline + 1);
    if (!overlong_) on_line(partial_);
    partial_.clear();
    overlong_ = false;
    chunk.remove_prefix(newline + 1);
    start += newline + 1;
  }
}

std::string_view LineReader::AfterRedraw(std::string_view piece) {
  size_t start = LastRedrawStart(piece);
  if (start == 0) {  // only blanks may follow its carriage returns, if any
    size_t cr = piece.rfind('\r');
    if (cr == std::string_view::npos) return {};
    start = cr + 1;
  }
  overlong_ = false;  // a redraw hides the overlong text before it
  return piece.substr(start);
}

void LineReader::Compact() {
  size_t prefix = partial_.size() - StripRankPrefix(partial_).text.size();
  size_t start = LastRedrawStart(partial_);
  if (start > prefix) partial_.erase(prefix, start - prefix);
  // Blank text after the visible text: only what follows its last carriage
  // return can still show (a run of redraws not yet followed by text).
  size_t last = partial_.find_last_not_of(" \t\n\r\v\f");
  size_t visible_end =
      std::max(prefix, last == std::string::npos ? 0 : last + 1);
  size_t cr = partial_.rfind('\r');
  if (cr != std::string::npos && cr >= visible_end)
    partial_.replace(visible_end, cr - visible_end, "");
  if (partial_.size() > max_line_) {
    overlong_ = true;  // until a carriage return or the newline
    partial_.resize(prefix);
  }
}

}  // namespace tuner::runner

#include "trial_runner/processes/shim/capped_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace tuner::shim {

namespace {

constexpr size_t kMaxKeptLine = 64 * 1024;
constexpr size_t kKeptTail = 64 * 1024;

bool MayCarryMetrics(std::string_view line) {
  return line.find('{') != std::string_view::npos ||
         line.find('=') != std::string_view::npos ||
         line.find("*****") != std::string_view::npos;
}

}  // namespace

CappedLog::CappedLog(const std::string& path, int64_t cap, Kind kind)
    : cap_(cap), kind_(kind) {
  fd_ = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

CappedLog::~CappedLog() { Close(); }

void CappedLog::WriteRaw(std::string_view bytes) {
  while (!bytes.empty() && fd_ >= 0) {
    ssize_t n = write(fd_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // disk full: the trial goes on, its log does not
    written_ += n;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
}

void CappedLog::Write(std::string_view bytes) {
  while (!bytes.empty()) {
    if (!capped_) {
      bool fits = written_ + static_cast<int64_t>(bytes.size()) <= cap_;
      if (cap_ <= 0 || fits) {
        WriteRaw(bytes);
        at_line_start_ = bytes.back() == '\n';
        return;
      }
      if (kind_ == Kind::kStderr) {
        // What still fits is written; the rest goes to the tail, mid-line
        // or not (a progress bar is one long line).
        auto room = static_cast<size_t>(std::max<int64_t>(0, cap_ - written_));
        WriteRaw(bytes.substr(0, room));
        if (room > 0) at_line_start_ = bytes[room - 1] == '\n';
        bytes.remove_prefix(room);
        capped_ = true;
        return KeepTail(bytes);
      }
      if (!at_line_start_) {
        // Finish the line under way (at most kMaxKeptLine more bytes)
        // before keeping lines selectively.
        size_t newline = bytes.find('\n');
        size_t piece =
            newline == std::string_view::npos ? bytes.size() : newline + 1;
        if (finishing_ + piece <= kMaxKeptLine) {
          WriteRaw(bytes.substr(0, piece));
          finishing_ += piece;
          if (newline == std::string_view::npos) return;
          at_line_start_ = true;
          bytes.remove_prefix(piece);
          continue;
        }
        // Too long: end it here; the rest of it is dropped below.
        WriteRaw("\n");
        at_line_start_ = true;
        overlong_ = true;
      }
      capped_ = true;
      continue;
    }
    if (kind_ == Kind::kStderr) return KeepTail(bytes);
    size_t newline = bytes.find('\n');
    std::string_view piece = bytes.substr(0, newline);
    if (!overlong_ && line_.size() + piece.size() <= kMaxKeptLine) {
      line_.append(piece);
    } else {
      dropped_ += static_cast<int64_t>(line_.size() + piece.size());
      line_.clear();
      overlong_ = true;
    }
    if (newline == std::string_view::npos) return;
    if (!overlong_) EndLine(line_);
    line_.clear();
    overlong_ = false;
    bytes.remove_prefix(newline + 1);
  }
}

void CappedLog::KeepTail(std::string_view bytes) {
  if (!noted_) {
    noted_ = true;
    WriteRaw(std::string(at_line_start_ ? "" : "\n") +
             "[tuner: log cap reached; its last 64 KiB are added when the "
             "trial ends]\n");
  }
  dropped_ += static_cast<int64_t>(bytes.size());
  if (bytes.size() >= kKeptTail) {
    tail_.assign(bytes.substr(bytes.size() - kKeptTail));
    return;
  }
  size_t excess = tail_.size() + bytes.size();
  if (excess > kKeptTail) tail_.erase(0, excess - kKeptTail);
  tail_.append(bytes);
}

void CappedLog::EndLine(std::string_view line) {
  bool room = written_ + static_cast<int64_t>(line.size()) + 1 <= 2 * cap_;
  if (room && MayCarryMetrics(line)) {
    WriteRaw(line);
    WriteRaw("\n");
    return;
  }
  dropped_ += static_cast<int64_t>(line.size()) + 1;
  if (!room && !full_noted_) {
    full_noted_ = true;
    WriteRaw("[tuner: twice the log cap reached; nothing more is kept]\n");
  }
  if (!noted_) {
    noted_ = true;
    WriteRaw(
        "[tuner: log cap reached; only lines that may carry metrics are "
        "kept from here on]\n");
  }
}

void CappedLog::Close() {
  if (fd_ < 0) return;
  if (!line_.empty() && !overlong_) {
    bool room = written_ + static_cast<int64_t>(line_.size()) <= 2 * cap_;
    if (cap_ <= 0 || (room && MayCarryMetrics(line_))) WriteRaw(line_);
  }
  line_.clear();
  if (!tail_.empty()) {
    // What is kept of it is not dropped.
    dropped_ -= static_cast<int64_t>(tail_.size());
    WriteRaw("\n[tuner: log cap reached; " + std::to_string(dropped_) +
             " bytes dropped; the last " + std::to_string(tail_.size()) +
             " bytes follow]\n");
    WriteRaw(tail_);
    tail_.clear();
    dropped_ = 0;
  }
  if (dropped_ > 0) {
    std::string note = "\n[tuner: " + std::to_string(dropped_) +
                       " bytes of output dropped past the log cap]\n";
    WriteRaw(note);
  }
  close(fd_);
  fd_ = -1;
}

}  // namespace tuner::shim

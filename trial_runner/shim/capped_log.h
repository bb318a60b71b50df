// CappedLog: a log file that stops growing past its cap, except for the
// lines a metric parser could want.
#ifndef TUNER_TRIAL_RUNNER_SHIM_CAPPED_LOG_H_
#define TUNER_TRIAL_RUNNER_SHIM_CAPPED_LOG_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace tuner::shim {

// Appends what a trial writes to `path`. Past `cap` bytes (0: no cap) only
// lines that may carry metrics are kept (those holding '{', '=' or a
// "*****" block header, and the block's "  key = value" lines), at most 64
// KiB each; a note says how much was dropped. Memory: one line.
class CappedLog {
 public:
  CappedLog(const std::string& path, int64_t cap);
  ~CappedLog();
  CappedLog(const CappedLog&) = delete;
  CappedLog& operator=(const CappedLog&) = delete;

  bool ok() const { return fd_ >= 0; }
  void Write(std::string_view bytes);
  void Close();  // flushes a last partial line

 private:
  void WriteRaw(std::string_view bytes);
  void EndLine(std::string_view line);

  int fd_ = -1;
  int64_t cap_;
  int64_t written_ = 0;
  int64_t dropped_ = 0;
  bool noted_ = false;
  bool capped_ = false;        // past the cap: line by line
  bool at_line_start_ = true;  // the file ends with a newline
  std::string line_;           // past the cap: the line being collected
  bool overlong_ = false;
};

}  // namespace tuner::shim

#endif  // TUNER_TRIAL_RUNNER_SHIM_CAPPED_LOG_H_

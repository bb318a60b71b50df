// CappedLog: a log file that stops growing past its cap, except for the
// lines a metric parser could want.
#ifndef TUNER_TRIAL_RUNNER_PROCESSES_SHIM_CAPPED_LOG_H_
#define TUNER_TRIAL_RUNNER_PROCESSES_SHIM_CAPPED_LOG_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace tuner::shim {

// Appends what a trial writes to `path`, and bounds the file:
// - kStdout: past `cap` bytes (0: no cap) only lines that may carry metrics
//   are kept (those holding '{', '=' or a "*****" block header, and the
//   block's "  key = value" lines), at most 64 KiB each, until the file
//   holds 2 x `cap`; then nothing more.
// - kStderr (never read for metrics): nothing past `cap`, except the last
//   64 KiB of what was written, kept in memory and appended at Close(), so
//   the error a trial ends with survives.
// Notes in the file say what was dropped. Memory: one line, or the tail.
class CappedLog {
 public:
  enum class Kind { kStdout, kStderr };
  CappedLog(const std::string& path, int64_t cap, Kind kind = Kind::kStdout);
  ~CappedLog();
  CappedLog(const CappedLog&) = delete;
  CappedLog& operator=(const CappedLog&) = delete;

  bool ok() const { return fd_ >= 0; }
  void Write(std::string_view bytes);
  void Close();  // flushes a last partial line

 private:
  void WriteRaw(std::string_view bytes);
  void EndLine(std::string_view line);
  void KeepTail(std::string_view bytes);

  int fd_ = -1;
  int64_t cap_;
  Kind kind_;
  int64_t written_ = 0;
  int64_t dropped_ = 0;
  bool noted_ = false;
  bool full_noted_ = false;    // kStdout: 2 x cap reached
  bool capped_ = false;        // past the cap: line by line
  bool at_line_start_ = true;  // the file ends with a newline
  std::string line_;           // past the cap: the line being collected
  bool overlong_ = false;
  size_t finishing_ = 0;  // kStdout: bytes of the line under way at the cap
  std::string tail_;      // kStderr past the cap: the last bytes written
};

}  // namespace tuner::shim

#endif  // TUNER_TRIAL_RUNNER_PROCESSES_SHIM_CAPPED_LOG_H_

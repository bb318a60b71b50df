// Reads the lines appended to a file since the last read.
#ifndef TUNER_TRIAL_RUNNER_OUTPUT_LINE_READER_H_
#define TUNER_TRIAL_RUNNER_OUTPUT_LINE_READER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace tuner::runner {

// Follows a file another process appends to, in bounded memory (about
// `max_line` bytes plus one read): a line redrawn with carriage returns (a
// progress bar, then a dict) keeps only its rank prefix and what follows
// its last redraw, which is all that VisibleText (rank_prefix.h) reads of
// it, however long the line is; a run of carriage returns with no text
// after it yet is kept as one. Text longer than `max_line` bytes between
// two redraws is dropped: the line is delivered from the next carriage
// return on, or not at all if its newline comes first. Not thread-safe.
class LineReader {
 public:
  using LineHandler = std::function<void(std::string_view line)>;

  LineReader(std::string path, size_t max_line);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // Delivers every complete line appended since the last call.
  void ReadAvailable(const LineHandler& on_line);
  // Reads to the end and also delivers a final line without a newline.
  void Finish(const LineHandler& on_line);
  // Bytes consumed from the file so far.
  int64_t offset() const { return offset_; }
  // Starts reading at `offset` (output before it was handled elsewhere).
  void Seek(int64_t offset) { offset_ = offset; }
  const std::string& path() const { return path_; }
  // During a LineHandler call: the file offset just past that line.
  int64_t line_end() const { return line_end_; }

 private:
  void Consume(std::string_view chunk, int64_t base,
               const LineHandler& on_line);
  // partial_ is over max_line_: drops what a redraw hid, else all of it
  // but the rank prefix (overlong_ until the next carriage return).
  void Compact();
  // While overlong_: what of `piece` follows its last redraw (clearing
  // overlong_), or nothing if it has no carriage return.
  std::string_view AfterRedraw(std::string_view piece);

  std::string path_;
  size_t max_line_;
  int fd_ = -1;
  int64_t offset_ = 0;
  int64_t line_end_ = 0;
  std::string partial_;
  bool overlong_ = false;  // dropping text that exceeded max_line_
};

}  // namespace tuner::runner

#endif  // TUNER_TRIAL_RUNNER_OUTPUT_LINE_READER_H_

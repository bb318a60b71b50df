// The output boundary of the verbs that print text for people: whatever
// they write, from the database or from a server, passes through the one
// sanitiser (Printable, tuner/base/one_line.h) on its way to stdout.
#ifndef TUNER_TUNER_TEXT_PRINTABLE_STREAM_H_
#define TUNER_TUNER_TEXT_PRINTABLE_STREAM_H_

#include <sys/types.h>

#include <cstdio>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

namespace tuner {

// `text` of a listing in `format` as it may reach a terminal: csv keeps
// TAB, CR and LF (its cells and records) and shows other controls as U+FFFD,
// as CsvShown does; every other format (table, args, command, json, yaml)
// keeps LF and escapes the rest (\x1b), as OneLine does. JSON already
// escapes every control character, so it passes unchanged.
std::string PrintableFor(std::string_view format, std::string_view text);

// Passes what is written through PrintableFor(format) to `target`. A line
// is held until its LF, a flush or the end, so that no character is cut in
// two; a failed write of `target` fails this stream.
class PrintableStreamBuf : public std::streambuf {
 public:
  PrintableStreamBuf(std::streambuf* target, std::string format);
  ~PrintableStreamBuf() override;

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  // Writes pending_ up to `end`; false when `target_` took less.
  bool Emit(size_t end);

  std::streambuf* target_;
  std::string format_;
  std::string pending_;
  bool failed_ = false;
};

// An ostream over PrintableStreamBuf: `PrintableStream out(std::cout,
// "table")`, then write to `out` as to std::cout.
class PrintableStream : public std::ostream {
 public:
  PrintableStream(std::ostream& target, std::string format);

 private:
  PrintableStreamBuf buf_;
};

// For as long as it lives, the process's `stderr` (glibc lets a program
// set it, and std::cerr, which writes through it) is a stream that passes
// every message through PrintableFor("table") to file descriptor 2,
// unbuffered: an error that quotes a name, a path or a server's answer
// never writes an escape sequence. A logger made before keeps the original
// stream (its colours). One per process, made first thing in main().
class PrintableStderr {
 public:
  PrintableStderr();
  ~PrintableStderr();
  PrintableStderr(const PrintableStderr&) = delete;
  PrintableStderr& operator=(const PrintableStderr&) = delete;

 private:
  // Writes to file descriptor 2, whole.
  class FdBuf : public std::streambuf {
   protected:
    int_type overflow(int_type c) override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;
  };
  static ssize_t Write(void* self, const char* data, size_t size);

  FdBuf fd_;
  PrintableStreamBuf shown_;
  std::FILE* original_;
  std::streambuf* original_cerr_;
  std::FILE* file_ = nullptr;
};

}  // namespace tuner

#endif  // TUNER_TUNER_TEXT_PRINTABLE_STREAM_H_

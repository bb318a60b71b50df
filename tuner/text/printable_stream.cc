#include "tuner/text/printable_stream.h"

#include <unistd.h>

#include <cerrno>
#include <iostream>

#include "tuner/base/one_line.h"

namespace tuner {

namespace {

// The length of `text` without a UTF-8 lead byte (and its continuations)
// at its end whose sequence is not complete yet: a C1 control or a bidi
// override cut in two would pass unseen.
size_t WholeCharacters(std::string_view text) {
  size_t n = text.size();
  for (size_t back = 1; back <= 3 && back <= n; ++back) {
    auto c = static_cast<unsigned char>(text[n - back]);
    if ((c & 0xc0) == 0x80) continue;  // a continuation byte
    size_t length = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
    return length > back ? n - back : n;
  }
  return n;
}

}  // namespace

std::string PrintableFor(std::string_view format, std::string_view text) {
  if (format == "csv")
    return Printable(text, "\t\r\n", ControlShown::kReplaced);
  return Printable(text, "\n", ControlShown::kEscaped);
}

PrintableStreamBuf::PrintableStreamBuf(std::streambuf* target,
                                       std::string format)
    : target_(target), format_(std::move(format)) {}

PrintableStreamBuf::~PrintableStreamBuf() {
  if (Emit(pending_.size())) target_->pubsync();
}

bool PrintableStreamBuf::Emit(size_t end) {
  if (end == 0) return !failed_;
  std::string shown =
      PrintableFor(format_, std::string_view(pending_).substr(0, end));
  pending_.erase(0, end);
  if (failed_) return false;
  auto size = static_cast<std::streamsize>(shown.size());
  failed_ = target_ == nullptr || target_->sputn(shown.data(), size) != size;
  return !failed_;
}

PrintableStreamBuf::int_type PrintableStreamBuf::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) {
    return traits_type::not_eof(c);
  }
  char ch = traits_type::to_char_type(c);
  return xsputn(&ch, 1) == 1 ? c : traits_type::eof();
}

std::streamsize PrintableStreamBuf::xsputn(const char* s, std::streamsize n) {
  pending_.append(s, static_cast<size_t>(n));
  size_t line_end = pending_.rfind('\n');
  if (line_end != std::string::npos && !Emit(line_end + 1)) return 0;
  return n;
}

int PrintableStreamBuf::sync() {
  if (!Emit(WholeCharacters(pending_))) return -1;
  return target_->pubsync();
}

PrintableStream::PrintableStream(std::ostream& target, std::string format)
    : std::ostream(nullptr), buf_(target.rdbuf(), std::move(format)) {
  rdbuf(&buf_);
}

PrintableStderr::FdBuf::int_type PrintableStderr::FdBuf::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) {
    return traits_type::not_eof(c);
  }
  char ch = traits_type::to_char_type(c);
  return xsputn(&ch, 1) == 1 ? c : traits_type::eof();
}

std::streamsize PrintableStderr::FdBuf::xsputn(const char* s,
                                               std::streamsize n) {
  std::streamsize done = 0;
  while (done < n) {
    ssize_t wrote = ::write(STDERR_FILENO, s + done, n - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) break;
    done += wrote;
  }
  return done;
}

ssize_t PrintableStderr::Write(void* self, const char* data, size_t size) {
  auto* stream = static_cast<PrintableStderr*>(self);
  stream->shown_.sputn(data, static_cast<std::streamsize>(size));
  stream->shown_.pubsync();  // a prompt without LF shows at once
  return static_cast<ssize_t>(size);
}

PrintableStderr::PrintableStderr()
    : shown_(&fd_, "table"),
      original_(stderr),
      original_cerr_(std::cerr.rdbuf()) {
  std::fflush(stderr);
  file_ = fopencookie(this, "w", {nullptr, &Write, nullptr, nullptr});
  if (file_ == nullptr) return;
  std::setvbuf(file_, nullptr, _IONBF, 0);
  stderr = file_;
  std::cerr.rdbuf(&shown_);
}

PrintableStderr::~PrintableStderr() {
  if (file_ == nullptr) return;
  std::cerr.rdbuf(original_cerr_);
  stderr = original_;
  std::fclose(file_);
}

}  // namespace tuner

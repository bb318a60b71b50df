#include "trial_runner/failure_line.h"

#include <cctype>

#include "core/text.h"
#include "trial_runner/rank_prefix.h"
#include "trial_runner/utf8_text.h"

namespace tuner::runner {

namespace {

constexpr std::string_view kEllipsis = "\xE2\x80\xA6";  // …

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)); }

bool Contains(std::string_view text, std::string_view needle) {
  return text.find(needle) != std::string_view::npos;
}

// ESC [ parameters intermediates final: a colour or cursor sequence.
size_t EscapeLength(std::string_view s) {
  if (s.size() < 2 || s[1] != '[') return 1;
  size_t i = 2;
  while (i < s.size() && s[i] >= 0x20 && s[i] <= 0x3F) ++i;
  return i < s.size() && s[i] >= 0x40 && s[i] <= 0x7E ? i + 1 : i;
}

// Bytewise on valid UTF-8: a multi-byte character has no byte below 0x80,
// so only ASCII controls and escapes are touched.
std::string Clean(std::string_view raw) {
  std::string valid = ValidUtf8(raw);
  std::string_view text = valid;
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    if (text.front() == '\x1b') {
      text.remove_prefix(EscapeLength(text));
      continue;
    }
    unsigned char c = static_cast<unsigned char>(text.front());
    out += c < 0x20 || c == 0x7F ? ' ' : text.front();
    text.remove_prefix(1);
  }
  return out;
}

// `x.py:7: UserWarning: text`, as Python's warnings module prints it.
bool IsWarning(std::string_view text) {
  size_t warning = text.find("Warning: ");
  if (warning == std::string_view::npos) return false;
  size_t colon = text.rfind(": ", warning);
  if (colon == std::string_view::npos) return false;
  for (char c : text.substr(colon + 2, warning - colon - 2)) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  std::string_view before = text.substr(0, colon);
  size_t digits = before.size();
  while (digits > 0 &&
         std::isdigit(static_cast<unsigned char>(before[digits - 1])))
    --digits;
  return digits < before.size() && digits > 0 && before[digits - 1] == ':';
}

bool IsProgressBar(std::string_view text) {
  return Contains(text, "%|") || text.ends_with("it/s]") ||
         text.ends_with("s/it]");
}

bool IsTorchrunNoise(std::string_view text) {
  for (std::string_view needle :
       {"torch.distributed.run", "torch/distributed/run.py",
        "torch.distributed.elastic", "torch/distributed/elastic",
        "Setting OMP_NUM_THREADS environment variable"}) {
    if (Contains(text, needle)) return true;
  }
  return false;
}

// `WARNING:__main__:`: a Python log record without a message (torchrun's
// banner follows it on the next lines).
bool IsEmptyLogRecord(std::string_view text) {
  for (std::string_view level : {"DEBUG:", "INFO:", "WARNING:", "ERROR:"}) {
    if (text.starts_with(level) && text.ends_with(':') &&
        text.find(' ') == std::string_view::npos)
      return true;
  }
  return false;
}

bool HasText(std::string_view text) {
  for (char c : text)
    if (std::isalnum(static_cast<unsigned char>(c))) return true;
  return false;
}

// Where a traceback's frames start: their indented source lines follow.
bool StartsFrames(std::string_view text) {
  std::string_view trimmed = core::TrimSpace(text);
  return (!text.empty() && IsSpace(text.front()) &&
          trimmed.starts_with("File \"")) ||
         trimmed.starts_with("Traceback (most recent call last)") ||
         IsWarning(trimmed);
}

bool IsChainNote(std::string_view text) {
  return text.starts_with("During handling of the above exception") ||
         text.starts_with("The above exception was the direct cause");
}

// torchrun's summary names a signal that killed a rank, which printed
// nothing: `  traceback : Signal 9 (SIGKILL) received by PID 4243`.
std::string_view SummarySignal(std::string_view summary) {
  constexpr std::string_view kKey = "traceback : ";
  size_t at = summary.find(kKey);
  if (at == std::string_view::npos) return {};
  std::string_view value = summary.substr(at + kKey.size());
  value = value.substr(0, value.find('\n'));
  return value.starts_with("Signal ") ? value : std::string_view();
}

// The last line that says something, before cleaning.
std::string_view LastLine(std::string_view output) {
  std::string_view last;
  bool in_frames = false;  // indented lines are a frame's or warning's source
  size_t start = 0;
  while (start < output.size()) {
    size_t end = output.find('\n', start);
    if (end == std::string_view::npos) end = output.size();
    std::string_view text = VisibleText(output.substr(start, end - start)).text;
    start = end + 1;
    while (!text.empty() && IsSpace(text.back())) text.remove_suffix(1);
    if (in_frames && !text.empty() && IsSpace(text.front())) continue;
    in_frames = false;
    if (StartsFrames(text)) {
      in_frames = true;
      continue;
    }
    std::string_view trimmed = core::TrimSpace(text);
    if (!HasText(trimmed) || IsChainNote(trimmed) || IsProgressBar(trimmed) ||
        IsTorchrunNoise(trimmed) || IsEmptyLogRecord(trimmed)) {
      continue;
    }
    last = trimmed;
  }
  return last;
}

}  // namespace

std::string PrintableLine(std::string_view text, size_t max_bytes) {
  std::string clean = Clean(text);
  std::string_view line = core::TrimSpace(clean);
  if (line.size() <= max_bytes) return std::string(line);
  if (max_bytes < kEllipsis.size()) return "";
  size_t cut = max_bytes - kEllipsis.size();
  while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80)
    --cut;
  return std::string(core::TrimSpace(line.substr(0, cut))) +
         std::string(kEllipsis);
}

std::string LastMeaningfulLine(std::string_view output, size_t max_bytes) {
  // torchrun's summary of a failed rank comes after the rank's own error.
  std::string_view summary;
  if (size_t at = output.rfind("ChildFailedError");
      at != std::string_view::npos) {
    size_t line_start = output.rfind('\n', at);
    size_t cut = line_start == std::string_view::npos ? 0 : line_start + 1;
    summary = output.substr(cut);
    output = output.substr(0, cut);
  }
  std::string_view last = LastLine(output);
  if (last.empty()) last = SummarySignal(summary);
  return PrintableLine(last, max_bytes);
}

}  // namespace tuner::runner

#include "trial_runner/output/failure_line.h"

#include <algorithm>
#include <cctype>

#include "core/printable.h"
#include "core/text.h"
#include "trial_runner/output/rank_prefix.h"
#include "util/utf8_text.h"

namespace tuner::runner {

namespace {

constexpr std::string_view kEllipsis = "\xE2\x80\xA6";  // …

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)); }

bool Contains(std::string_view text, std::string_view needle) {
  return text.find(needle) != std::string_view::npos;
}

// The length in bytes of the character that starts at text[i] (valid
// UTF-8).
size_t CharLength(std::string_view text, size_t i) {
  auto lead = static_cast<unsigned char>(text[i]);
  size_t n = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
  return std::min(n, text.size() - i);
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
  std::string valid = util::ValidUtf8(text);
  std::replace(valid.begin(), valid.end(), '\t', ' ');
  std::string_view line = core::TrimSpace(valid);
  std::string shown = core::Printable(line);
  if (shown.size() <= max_bytes) return shown;
  if (max_bytes < kEllipsis.size()) return "";
  // Whole characters as Printable shows them, so a cut never splits a
  // character or its `\x1b`.
  std::string cut;
  for (size_t i = 0; i < line.size();) {
    size_t n = CharLength(line, i);
    std::string next = core::Printable(line.substr(i, n));
    if (cut.size() + next.size() + kEllipsis.size() > max_bytes) break;
    cut += next;
    i += n;
  }
  return std::string(core::TrimSpace(cut)) + std::string(kEllipsis);
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

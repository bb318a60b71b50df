#include "trial_runner/output/metric_stream.h"

#include <re2/re2.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <vector>

#include "trial_runner/output/metric_parser.h"
#include "trial_runner/output/python_dict.h"
#include "trial_runner/output/rank_prefix.h"
#include "util/utf8_text.h"

namespace tuner::runner {

namespace {

std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

std::string_view TrimLeft(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  return s;
}

// "***** eval metrics *****" (any split name).
bool IsBlockHeader(std::string_view line) {
  line = TrimRight(line);
  constexpr std::string_view kStars = "***** ";
  constexpr std::string_view kEnd = " metrics *****";
  if (!line.starts_with(kStars) || !line.ends_with(kEnd)) return false;
  std::string_view name =
      line.substr(kStars.size(), line.size() - kStars.size() - kEnd.size());
  if (name.empty()) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// "  eval_f1 = 0.9181": two leading spaces, a key, " = ". Keys may hold
// spaces: GaudiTrainer's "  max_memory_allocated (GB) = 12.34" sorts
// before train_loss.
using BlockEntry = std::pair<std::string, std::optional<double>>;
std::optional<BlockEntry> BlockLine(std::string_view line) {
  if (!line.starts_with("  ")) return std::nullopt;
  line = TrimRight(TrimLeft(line));
  size_t eq = line.find(" = ");
  eq = eq == std::string_view::npos ? line.find('=') : eq + 1;
  if (eq == std::string_view::npos || eq == 0) return std::nullopt;
  std::string_view key = TrimRight(line.substr(0, eq));
  if (key.empty()) return std::nullopt;
  return BlockEntry{std::string(key),
                    ParseBlockValue(TrimLeft(line.substr(eq + 1)))};
}

std::optional<double> LeadingNumber(std::string_view text, size_t& used) {
  double value = 0;
  auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc()) return std::nullopt;
  used = static_cast<size_t>(end - text.data());
  return value;
}

// H:MM:SS.cc (hours may exceed 24 and have any number of digits).
std::optional<double> Runtime(std::string_view text) {
  size_t first = text.find(':');
  size_t second = text.find(':', first + 1);
  if (first == std::string_view::npos || second == std::string_view::npos)
    return std::nullopt;
  size_t used = 0;
  auto h = LeadingNumber(text.substr(0, first), used);
  if (!h || used != first) return std::nullopt;
  auto m = LeadingNumber(text.substr(first + 1, second - first - 1), used);
  if (!m || used != second - first - 1) return std::nullopt;
  std::string_view rest = text.substr(second + 1);
  auto s = LeadingNumber(rest, used);
  if (!s || used != rest.size()) return std::nullopt;
  return *h * 3600 + *m * 60 + *s;
}

}  // namespace

std::optional<double> ParseBlockValue(std::string_view text) {
  text = TrimRight(TrimLeft(text));
  if (auto number = ParseNumber(text)) return number;
  if (auto seconds = Runtime(text)) return seconds;
  for (std::string_view unit : {"MB", "GF"}) {
    if (!text.ends_with(unit)) continue;
    return ParseNumber(text.substr(0, text.size() - unit.size()));
  }
  return std::nullopt;
}

core::Status CheckMetricRegex(const std::string& regex) {
  RE2 compiled(regex, RE2::Quiet);
  if (!compiled.ok())
    return core::InvalidArgument("does not compile: " + compiled.error());
  int groups = compiled.NumberOfCapturingGroups();
  if (groups < 1 || groups > 2) {
    return core::InvalidArgument(
        "needs 1 group (the objective's value) or 2 (a name and a value), "
        "has " +
        std::to_string(groups));
  }
  return core::Status::Ok();
}

MetricStream::MetricStream(const MetricFormat& format) : format_(format) {
  if (format_.extra == MetricFormat::Extra::kKatib) {
    // Katib's default filter, and the non-finite values a script prints
    // (Python's nan and inf, C's -nan): a diverged trial reports them.
    format_.regex = R"(([\w|-]+)\s*=\s*([+-]?(?:Infinity|inf|Inf|nan|NaN)\b|)"
                    R"([+-]?\d*(?:\.\d+)?(?:[Ee][+-]?\d+)?))";
  }
  bool katib = format_.extra == MetricFormat::Extra::kKatib;
  if (katib || (format_.extra == MetricFormat::Extra::kRegex &&
                CheckMetricRegex(format_.regex).ok())) {
    regex_ = std::make_unique<RE2>(format_.regex, RE2::Quiet);
  }
}

MetricStream::~MetricStream() = default;

void MetricStream::Feed(std::string_view line, const Emit& emit) {
  if (!format_.enabled) return;
  // Every name a report carries comes from here: valid UTF-8 from now on.
  std::string valid;
  if (!util::IsValidUtf8(line)) {
    valid = util::ValidUtf8(line);
    line = valid;
  }
  // A terminal shows what follows the last carriage return (progress bars
  // redrawn in place, then the dict line). Ranks other than 0 print what
  // rank 0 prints, or their own shard's values: only rank 0 reports, and
  // their lines do not interrupt its metrics block.
  RankedLine visible = VisibleText(line);
  if (visible.rank.value_or(0) != 0) return;
  line = visible.text;
  if (FeedBlock(line, emit)) return;
  if (auto metrics = ParseMetricLine(line); metrics && !metrics->empty()) {
    emit(std::move(*metrics));
    return;
  }
  if (auto metrics = Extra(line); metrics && !metrics->empty())
    emit(std::move(*metrics));
}

bool MetricStream::FeedBlock(std::string_view line, const Emit& emit) {
  if (in_block_) {
    if (auto entry = BlockLine(line)) {
      if (entry->second) block_.emplace_back(entry->first, *entry->second);
      return true;
    }
    Finish(emit);
  }
  if (!IsBlockHeader(line)) return false;
  in_block_ = true;
  return true;
}

void MetricStream::Finish(const Emit& emit) {
  if (!in_block_) return;
  in_block_ = false;
  if (!block_.empty()) emit(std::move(block_));
  block_.clear();
}

std::optional<core::Metrics> MetricStream::Extra(std::string_view line) const {
  if (!regex_ || line.size() > kMaxMetricLineBytes) return std::nullopt;
  core::Metrics metrics;
  bool named = format_.extra == MetricFormat::Extra::kKatib ||
               regex_->NumberOfCapturingGroups() == 2;
  // RE2 runs in time linear in the line, whatever the pattern.
  std::vector<re2::StringPiece> groups(1 + regex_->NumberOfCapturingGroups());
  re2::StringPiece text(line.data(), line.size());
  size_t at = 0;
  while (at <= line.size() &&
         regex_->Match(text, at, line.size(), RE2::UNANCHORED, groups.data(),
                       static_cast<int>(groups.size()))) {
    std::string_view value_text(groups[named ? 2 : 1].data(),
                                groups[named ? 2 : 1].size());
    std::string name = named ? std::string(groups[1].data(), groups[1].size())
                             : format_.objective;
    auto value = ParseNumber(value_text);
    if (value && !name.empty()) metrics.emplace_back(name, *value);
    size_t end =
        static_cast<size_t>(groups[0].data() - line.data()) + groups[0].size();
    at = end > at ? end : at + 1;  // an empty match: step past it
  }
  return metrics;
}

}  // namespace tuner::runner

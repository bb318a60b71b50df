#include "tuner/config/config_values.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <set>

#include "core/text.h"
#include "tuner/base/one_line.h"
#include "tuner/config/config_loader.h"

namespace tuner::config {

namespace {

std::string Describe(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "nothing";
  if (node.IsMap()) return "a mapping";
  if (node.IsSequence()) return "a list";
  return "'" + node.Scalar() + "'";
}

bool IsPlainScalar(const YAML::Node& node) {
  return node.IsScalar() && node.Tag() != "!";
}

// Text that becomes a command-line word or an environment value cannot
// hold a NUL ("a\0b" would reach the trial as "a").
void RefuseNul(const YAML::Node& node, const Path& path) {
  if (node.Scalar().find('\0') != std::string::npos) {
    Fail(node, path, "holds a NUL character, which no argument can carry");
  }
}

// A parameter's value is printed in tables and on terminals: no control
// character (C0, DEL, C1) in it.
void RefuseControl(const YAML::Node& node, const Path& path,
                   const std::string& what) {
  if (HasControl(node.Scalar())) {
    Fail(node, path, what + " holds a control character");
  }
}

}  // namespace

void Fail(const YAML::Node& node, const Path& path,
          const std::string& message) {
  int line = 1;
  if (node.IsDefined() && node.Mark().line >= 0) line = node.Mark().line + 1;
  throw LoadError(std::to_string(line) + ": " +
                  (path.str().empty() ? "" : path.str() + ": ") + message);
}

void Reader::Map(const YAML::Node& node, const Path& path) const {
  if (!node.IsMap())
    Fail(node, path, "expected a mapping, got " + Describe(node));
  // yaml-cpp keeps both of two equal keys, and node[key] finds the first.
  std::set<std::string> seen;
  for (const auto& entry : node) {
    if (!entry.first.IsScalar()) {
      Fail(entry.first, path,
           "keys must be text, got " + Describe(entry.first));
    }
    if (!seen.insert(entry.first.Scalar()).second) {
      Fail(entry.first, path / entry.first.Scalar(), "duplicate key");
    }
  }
}

void Reader::Keys(const YAML::Node& node, const Path& path,
                  const std::vector<std::string>& allowed) const {
  for (const auto& entry : node) {
    std::string key = entry.first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) {
      continue;
    }
    std::string hint = DidYouMean(key, allowed);
    Fail(entry.first, path / key,
         "unknown key" +
             (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
  }
}

YAML::Node Reader::Required(const YAML::Node& node, const Path& path,
                            const std::string& key) const {
  YAML::Node value = node[key];
  if (!value.IsDefined() || value.IsNull()) Fail(node, path / key, "required");
  return value;
}

std::string Reader::String(const YAML::Node& node, const Path& path) const {
  if (!node.IsScalar())
    Fail(node, path, "expected text, got " + Describe(node));
  RefuseNul(node, path);
  return node.Scalar();
}

std::string Reader::Label(const YAML::Node& node, const Path& path) const {
  std::string text = String(node, path);
  RefuseControl(node, path, "the name");
  return text;
}

double Reader::Number(const YAML::Node& node, const Path& path) const {
  double value = 0;
  if (!node.IsScalar() || !YAML::convert<double>::decode(node, value) ||
      std::isnan(value)) {
    Fail(node, path, "expected a number, got " + Describe(node));
  }
  if (!std::isfinite(value)) {
    Fail(node, path, "expected a finite number, got " + Describe(node));
  }
  if (!core::IsDecimalNumber(node.Scalar())) {
    Fail(node, path,
         "expected " + std::string(core::kDecimalNumberRule) + ", got " +
             Describe(node));
  }
  return value;
}

int64_t Reader::Int(const YAML::Node& node, const Path& path) const {
  return Int(node, path, std::numeric_limits<int64_t>::min(),
             std::numeric_limits<int64_t>::max());
}

int64_t Reader::Int(const YAML::Node& node, const Path& path, int64_t low,
                    int64_t high) const {
  if (!node.IsScalar()) {
    Fail(node, path, "expected an integer, got " + Describe(node));
  }
  const std::string& text = node.Scalar();
  if (!core::IsDecimalInteger(text)) {
    Fail(node, path,
         "expected " + std::string(core::kDecimalIntegerRule) + ", got " +
             Describe(node));
  }
  int64_t value = 0;
  auto read = std::from_chars(text.data(), text.data() + text.size(), value);
  // Digits past int64_t's range are past one of the bounds.
  bool past = read.ec != std::errc();
  if (past ? text.starts_with('-') : value < low)
    Fail(node, path, "must be >= " + std::to_string(low));
  if (past || value > high)
    Fail(node, path, "must be <= " + std::to_string(high));
  return value;
}

bool Reader::Bool(const YAML::Node& node, const Path& path) const {
  bool value = false;
  if (!IsPlainScalar(node) || !YAML::convert<bool>::decode(node, value)) {
    std::string quoted =
        node.IsScalar() && !IsPlainScalar(node) ? " (quoted: a string)" : "";
    Fail(node, path, "expected true or false, got " + Describe(node) + quoted);
  }
  return value;
}

std::chrono::milliseconds Reader::Duration(const YAML::Node& node,
                                           const Path& path) const {
  std::string text = String(node, path);
  double scale = 1000;
  for (auto [suffix, factor] : {std::pair<const char*, double>{"ms", 1},
                                {"s", 1000},
                                {"m", 60000},
                                {"h", 3600000}}) {
    std::string s(suffix);
    if (text.size() > s.size() && text.ends_with(s)) {
      text.resize(text.size() - s.size());
      scale = factor;
      break;
    }
  }
  double amount = 0;
  auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), amount);
  if (!core::IsDecimalNumber(text) || ec != std::errc() ||
      end != text.data() + text.size() || !(amount > 0)) {
    Fail(node, path,
         "expected a duration such as 90, 90s, 10m or 2h, got " +
             Describe(node));
  }
  // Compared as doubles: inf and 1e300 must not reach the integer cast.
  double ms = amount * scale;
  if (!(ms >= static_cast<double>(kMinDuration.count()) &&
        ms <= static_cast<double>(kMaxDuration.count()))) {
    Fail(node, path, "must be between 1ms and 30 days, got " + Describe(node));
  }
  return std::chrono::milliseconds(std::llround(ms));
}

std::vector<core::ParamValue> Reader::Values(const YAML::Node& node,
                                             const Path& path) const {
  if (!node.IsSequence())
    Fail(node, path, "expected a list, got " + Describe(node));
  std::vector<core::ParamValue> values;
  for (const auto& item : node) {
    if (!item.IsScalar()) Fail(item, path, "values must be scalars");
    RefuseNul(item, path);
    RefuseControl(item, path, "a value");
    const std::string& text = item.Scalar();
    int64_t i = 0;
    double d = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), i);
    if (!IsPlainScalar(item)) {
      values.emplace_back(text);
    } else if (core::IsDecimalInteger(text) && ec == std::errc() &&
               end == text.data() + text.size()) {
      values.emplace_back(i);
    } else if (YAML::convert<double>::decode(item, d) && !std::isnan(d)) {
      // .inf reached the command as "inf" but was stored as null.
      if (!std::isfinite(d)) Fail(item, path, "values must be finite");
      // "010" or "01.5" read as a number only by a rule the file does not
      // show (YAML 1.1's octal): text, passed to the trial as written.
      if (core::IsDecimalNumber(text)) {
        values.emplace_back(d);
      } else {
        values.emplace_back(text);
      }
    } else if (text == "true" || text == "false") {
      values.emplace_back(text == "true");
    } else {
      values.emplace_back(text);
    }
  }
  return values;
}

void Reader::FailChoice(const YAML::Node& node, const Path& path,
                        const std::string& text,
                        const std::vector<std::string>& names) const {
  std::string list;
  for (const auto& name : names) list += (list.empty() ? "" : " | ") + name;
  std::string hint = DidYouMean(text, names);
  Fail(node, path,
       "'" + text + "' is not one of " + list +
           (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
}

bool IsIdentifier(const std::string& text) {
  if (text.empty() || std::isdigit(static_cast<unsigned char>(text[0]))) {
    return false;
  }
  return std::all_of(text.begin(), text.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_';
  });
}

bool IsName(const std::string& text) {
  if (text.empty() || text.size() > 128 || text[0] == '.' || text[0] == '-')
    return false;
  return std::all_of(text.begin(), text.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '-' || c == '.';
  });
}

size_t EditDistance(std::string_view a, std::string_view b) {
  constexpr size_t kMaxLength = 64;
  a = a.substr(0, kMaxLength);
  b = b.substr(0, kMaxLength);
  const size_t columns = b.size() + 1;
  // d[i][j]: the distance between a's first i letters and b's first j.
  std::vector<size_t> d((a.size() + 1) * columns);
  auto at = [&](size_t i, size_t j) -> size_t& { return d[i * columns + j]; };
  for (size_t i = 0; i <= a.size(); ++i) at(i, 0) = i;
  for (size_t j = 0; j <= b.size(); ++j) at(0, j) = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t change = a[i - 1] == b[j - 1] ? 0 : 1;
      at(i, j) = std::min(
          {at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + change});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        at(i, j) = std::min(at(i, j), at(i - 2, j - 2) + 1);
      }
    }
  }
  return at(a.size(), b.size());
}

}  // namespace tuner::config

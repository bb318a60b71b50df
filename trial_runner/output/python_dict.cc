#include "trial_runner/output/python_dict.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

namespace tuner::runner {

namespace {

// A recursive-descent reader over `text_`; every method leaves pos_ after
// what it consumed, or returns false/nullopt on malformed input.
class DictReader {
 public:
  explicit DictReader(std::string_view text) : text_(text) {}

  std::optional<core::Metrics> ReadDict();

 private:
  // A value: nullopt if malformed, NaN-free optional<double> inside when the
  // value is numeric, empty inner optional when it is valid but not numeric.
  std::optional<std::optional<double>> ReadValue(int depth);
  std::optional<std::string> ReadString();
  std::optional<std::optional<double>> ReadCall(int depth);
  bool SkipBracketed(int depth);
  std::string_view ReadBareWord();
  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(Byte(pos_))) ++pos_;
  }
  bool Consume(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) return ++pos_, true;
    return false;
  }
  bool AtEnd() const { return pos_ >= text_.size(); }
  unsigned char Byte(size_t at) const { return text_[at]; }

  std::string_view text_;
  size_t pos_ = 0;
};

constexpr int kMaxDepth = 16;

// A string literal's body (between its quotes, escapes as written) as text.
// It is rewritten as a JSON string and decoded by nlohmann (\uXXXX with
// surrogate pairs, \n, \\, \"): Python's \' and \xHH become JSON's, a bare
// " and a raw control character are escaped. What JSON cannot read (\U,
// \N{...}) is kept as written rather than guessed at.
std::string DecodeLiteral(std::string_view body) {
  std::string json = "\"";
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c == '"') {
      json += "\\\"";
    } else if (static_cast<unsigned char>(c) < 0x20) {  // raw: JSON forbids
      json += "\\u00";
      json += "0123456789abcdef"[c >> 4];
      json += "0123456789abcdef"[c & 0xF];
    } else if (c != '\\' || i + 1 == body.size()) {
      json += c;
    } else if (char next = body[++i]; next == '\'') {
      json += '\'';
    } else if (next == 'x') {
      json += "\\u00";
    } else {
      json += '\\';
      json += next;
    }
  }
  json += '"';
  auto decoded = nlohmann::json::parse(json, nullptr, false);
  return decoded.is_string() ? decoded.get<std::string>() : std::string(body);
}

std::optional<core::Metrics> DictReader::ReadDict() {
  if (!Consume('{')) return std::nullopt;
  core::Metrics metrics;
  if (Consume('}')) return metrics;
  do {
    SkipSpace();
    auto key = ReadString();
    if (!key || !Consume(':')) return std::nullopt;
    auto value = ReadValue(0);
    if (!value) return std::nullopt;
    if (*value) metrics.emplace_back(std::move(*key), **value);
  } while (Consume(','));
  if (!Consume('}')) return std::nullopt;
  SkipSpace();
  if (!AtEnd()) return std::nullopt;
  return metrics;
}

std::optional<std::string> DictReader::ReadString() {
  if (AtEnd() || (text_[pos_] != '\'' && text_[pos_] != '"')) {
    return std::nullopt;
  }
  char quote = text_[pos_++];
  std::string body;  // escapes as written
  while (!AtEnd()) {
    char c = text_[pos_++];
    if (c == quote) return DecodeLiteral(body);
    body.push_back(c);
    if (c == '\\') {
      if (AtEnd()) return std::nullopt;
      body.push_back(text_[pos_++]);
    }
  }
  return std::nullopt;  // unterminated, e.g. a truncated line
}

std::string_view DictReader::ReadBareWord() {
  size_t start = pos_;
  while (!AtEnd()) {
    unsigned char c = Byte(pos_);
    if (!(std::isalnum(c) || c == '.' || c == '_' || c == '-' || c == '+')) {
      break;
    }
    ++pos_;
  }
  return text_.substr(start, pos_ - start);
}

bool DictReader::SkipBracketed(int depth) {
  if (depth > kMaxDepth) return false;
  char open = text_[pos_++];
  char close = open == '[' ? ']' : open == '{' ? '}' : ')';
  for (;;) {
    SkipSpace();
    if (AtEnd()) return false;
    char c = text_[pos_];
    if (c == close) return ++pos_, true;
    if (c == '\'' || c == '"') {
      if (!ReadString()) return false;
    } else if (c == '[' || c == '{' || c == '(') {
      if (!SkipBracketed(depth + 1)) return false;
    } else if (c == ']' || c == '}' || c == ')') {
      return false;
    } else {
      ++pos_;
    }
  }
}

// np.float64(0.5), tensor(0.25, device='cuda:0'): the first argument.
std::optional<std::optional<double>> DictReader::ReadCall(int depth) {
  ++pos_;  // '('
  auto first = ReadValue(depth + 1);
  if (!first) return std::nullopt;
  while (Consume(',')) {
    SkipSpace();
    size_t mark = pos_;
    std::string_view word = ReadBareWord();  // a keyword argument's name
    if (word.empty() || !Consume('=')) pos_ = mark;
    if (!ReadValue(depth + 1)) return std::nullopt;
  }
  if (!Consume(')')) return std::nullopt;
  return first;
}

std::optional<std::optional<double>> DictReader::ReadValue(int depth) {
  if (depth > kMaxDepth) return std::nullopt;
  SkipSpace();
  if (AtEnd()) return std::nullopt;
  char c = text_[pos_];
  if (c == '\'' || c == '"') {
    auto text = ReadString();
    if (!text) return std::nullopt;
    return ParseNumber(*text);
  }
  if (c == '[' || c == '{' || c == '(') {
    if (!SkipBracketed(depth)) return std::nullopt;
    return std::optional<double>();
  }
  std::string_view word = ReadBareWord();
  if (word.empty()) return std::nullopt;
  SkipSpace();
  if (!AtEnd() && text_[pos_] == '(') return ReadCall(depth);
  if (auto number = ParseNumber(word)) return number;
  if (word == "True" || word == "False" || word == "None" || word == "true" ||
      word == "false" || word == "null") {
    return std::optional<double>();
  }
  return std::nullopt;
}

}  // namespace

std::optional<double> ParseNumber(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text[0]))) {
    text.remove_prefix(1);
  }
  while (!text.empty() &&
         std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  bool negative = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  if (text.empty() || text[0] == '-' || text[0] == '+') return std::nullopt;
  double value = 0;
  if (text == "Infinity" || text == "inf" || text == "Inf") {
    value = std::numeric_limits<double>::infinity();
  } else if (text == "NaN" || text == "nan") {
    value = std::numeric_limits<double>::quiet_NaN();
  } else {
    auto [end, ec] =
        std::from_chars(text.data(), text.data() + text.size(), value);
    if (end != text.data() + text.size()) return std::nullopt;
    // Past double's range, as Python reads it: 1e400 is inf, 1e-400 is 0.
    if (ec == std::errc::result_out_of_range) {
      value = std::strtod(std::string(text).c_str(), nullptr);
    } else if (ec != std::errc() || std::isnan(value) || std::isinf(value)) {
      return std::nullopt;
    }
  }
  return negative ? -value : value;
}

std::optional<core::Metrics> ParsePythonDict(std::string_view text) {
  return DictReader(text).ReadDict();
}

}  // namespace tuner::runner

// Helpers of the API handlers: responses, status codes, targets, tokens.
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/text.h"
#include "tuner/server/api.h"

namespace tuner::server {

namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// %XX escapes; '+' is a space in a query. nullopt on a bad escape or a NUL.
std::optional<std::string> Decode(std::string_view text, bool query) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '+' && query) {
      out += ' ';
    } else if (c == '%') {
      if (i + 2 >= text.size()) return std::nullopt;
      int hi = HexDigit(text[i + 1]), lo = HexDigit(text[i + 2]);
      if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) return std::nullopt;
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

std::vector<std::string_view> Split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t at; (at = text.find(sep, start)) != std::string_view::npos;) {
    parts.push_back(text.substr(start, at - start));
    start = at + 1;
  }
  parts.push_back(text.substr(start));
  return parts;
}

}  // namespace

Response JsonResponse(int status, const std::string& body) {
  Response r;
  r.status = status;
  r.body = body;
  return r;
}

Response ErrorResponse(int status, const std::string& message) {
  nlohmann::json body = {{"error", message}};
  return JsonResponse(status, body.dump() + "\n");
}

Response ErrorResponse(const core::Error& error) {
  return ErrorResponse(HttpStatus(error), error.message);
}

int HttpStatus(const core::Error& error) {
  switch (error.code) {
    case core::ErrorCode::kInvalidArgument:
      return 400;
    case core::ErrorCode::kNotFound:
      return 404;
    case core::ErrorCode::kAlreadyExists:
      return 409;
    case core::ErrorCode::kUnavailable:
      return 503;
    default:
      return 500;
  }
}

std::optional<
    std::pair<std::vector<std::string>, std::map<std::string, std::string>>>
ParseTarget(const std::string& target) {
  if (target.empty() || target[0] != '/') return std::nullopt;
  std::string_view view(target);
  size_t question = view.find('?');
  std::string_view path = view.substr(0, question);
  std::vector<std::string> segments;
  for (auto part : Split(path.substr(1), '/')) {
    if (part.empty()) continue;
    auto decoded = Decode(part, false);
    if (!decoded || *decoded == ".." || *decoded == "." ||
        decoded->find('/') != std::string::npos) {
      return std::nullopt;
    }
    segments.push_back(*decoded);
  }
  std::map<std::string, std::string> query;
  if (question != std::string_view::npos) {
    for (auto pair : Split(view.substr(question + 1), '&')) {
      if (pair.empty()) continue;
      size_t eq = pair.find('=');
      auto key = Decode(pair.substr(0, eq), true);
      auto value =
          Decode(eq == std::string_view::npos ? "" : pair.substr(eq + 1), true);
      // A parameter given twice is ambiguous: refused, not one of them.
      if (!key || !value || !query.emplace(*key, *value).second) {
        return std::nullopt;
      }
    }
  }
  return std::make_pair(segments, query);
}

std::optional<int64_t> IntegerIn(const std::string& text, int64_t low,
                                 int64_t high) {
  int64_t value = 0;
  if (text.size() > 19 || !core::IsDecimalInteger(text)) return std::nullopt;
  auto [end, error] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || value < low || value > high) return std::nullopt;
  return value;
}

std::optional<double> NumberIn(const std::string& text, double low,
                               double high) {
  double value = 0;
  if (!core::IsDecimalNumber(text)) return std::nullopt;
  auto [end, error] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || !(value >= low && value <= high))
    return std::nullopt;
  return value;
}

bool ConstantTimeEquals(const std::string& a, const std::string& b) {
  // Every byte of the longer one is compared, whatever the contents.
  size_t n = std::max(a.size(), b.size());
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < n; ++i) {
    unsigned char x = i < a.size() ? a[i] : 0;
    unsigned char y = i < b.size() ? b[i] : 0;
    diff |= x ^ y;
  }
  return diff == 0;
}

}  // namespace tuner::server

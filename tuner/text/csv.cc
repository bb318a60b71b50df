#include "tuner/text/csv.h"

#include "core/param_value.h"

namespace tuner {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

bool IsC0OrDel(unsigned char c) {
  return (c < 0x20 && c != '\t' && c != '\r' && c != '\n') || c == 0x7F;
}

// U+0080..U+009F in UTF-8: C2 80..C2 9F.
bool IsC1At(std::string_view text, size_t i) {
  return static_cast<unsigned char>(text[i]) == 0xC2 && i + 1 < text.size() &&
         static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
         static_cast<unsigned char>(text[i + 1]) <= 0x9F;
}

}  // namespace

std::string CsvShown(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (IsC0OrDel(static_cast<unsigned char>(text[i]))) {
      out += kReplacement;
    } else if (IsC1At(text, i)) {
      out += kReplacement;
      ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string CsvField(std::string_view raw) {
  std::string text = CsvShown(raw);
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string CsvRecord(const std::vector<std::string>& fields) {
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ',';
    out += CsvField(fields[i]);
  }
  return out + "\r\n";
}

std::string CsvNumber(const std::optional<double>& value) {
  return value ? core::FormatDouble(*value) : "";
}

}  // namespace tuner

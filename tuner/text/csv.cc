#include "tuner/text/csv.h"

#include "core/param_value.h"

namespace tuner {

std::string CsvField(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) {
    return std::string(text);
  }
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

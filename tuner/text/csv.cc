#include "tuner/text/csv.h"

#include <charconv>

#include "core/param_value.h"
#include "tuner/base/one_line.h"

namespace tuner {

namespace {

// Whether all of `text` is one number as CsvNumber or a param writes it.
bool IsNumber(std::string_view text) {
  double value = 0;
  const char* end = text.data() + text.size();
  auto [stop, error] = std::from_chars(text.data(), end, value);
  return error == std::errc() && stop == end;
}

// What a spreadsheet takes for the start of a formula.
bool StartsFormula(std::string_view text) {
  return !text.empty() &&
         std::string_view("=+-@\t\r").find(text.front()) !=
             std::string_view::npos &&
         !IsNumber(text);
}

}  // namespace

std::string CsvShown(std::string_view text) {
  return Printable(text, "\t\r\n", ControlShown::kReplaced);
}

std::string CsvField(std::string_view raw) {
  std::string text = CsvShown(raw);
  if (StartsFormula(text)) text.insert(0, "'");
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

CsvColumnNames::CsvColumnNames(std::vector<std::string> fixed,
                               std::string prefix)
    : fixed_(fixed.begin(), fixed.end()),
      prefix_(std::move(prefix)),
      taken_(fixed.begin(), fixed.end()) {}

std::string CsvColumnNames::Column(std::string_view name) {
  std::string column = CsvShown(name);
  if (column.empty() || fixed_.count(column) > 0 ||
      column.starts_with(prefix_)) {
    column.insert(0, prefix_);
  }
  std::string unique = column;
  for (int n = 2; !taken_.insert(unique).second; ++n) {
    unique = column + "#" + std::to_string(n);
  }
  return unique;
}

}  // namespace tuner

// CSV as RFC 4180 writes it: fields separated by commas, records ended by
// CRLF, a field quoted (its quotes doubled) when it holds a comma, a quote,
// CR or LF, so any text a trial stored stays in its own cell.
#ifndef TUNER_TUNER_TEXT_CSV_H_
#define TUNER_TUNER_TEXT_CSV_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tuner {

// One field, quoted when it must be.
std::string CsvField(std::string_view text);

// One record: the fields, each through CsvField, then CRLF.
std::string CsvRecord(const std::vector<std::string>& fields);

// A number for a cell: shortest round-trip form, "nan", "inf" or "-inf"
// (pandas reads all of them as floats); empty when absent.
std::string CsvNumber(const std::optional<double>& value);

}  // namespace tuner

#endif  // TUNER_TUNER_TEXT_CSV_H_

// CSV as RFC 4180 writes it: fields separated by commas, records ended by
// CRLF, a field quoted (its quotes doubled) when it holds a comma, a quote,
// CR or LF, so any text a trial stored stays in its own cell; control
// characters other than TAB, CR and LF are shown as U+FFFD (CsvShown).
#ifndef TUNER_TUNER_TEXT_CSV_H_
#define TUNER_TUNER_TEXT_CSV_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tuner {

// `text` with each control character a terminal could act on (C0 but TAB,
// CR and LF; DEL; C1, U+0080..U+009F) replaced by U+FFFD, so that viewing
// a CSV file (`cat`, `less -R`) never runs an escape sequence a trial
// printed. JSON escapes them instead (\u001b).
std::string CsvShown(std::string_view text);

// One field, through CsvShown, quoted when it must be.
std::string CsvField(std::string_view text);

// One record: the fields, each through CsvField, then CRLF.
std::string CsvRecord(const std::vector<std::string>& fields);

// A number for a cell: shortest round-trip form, "nan", "inf" or "-inf"
// (pandas reads all of them as floats); empty when absent.
std::string CsvNumber(const std::optional<double>& value);

}  // namespace tuner

#endif  // TUNER_TUNER_TEXT_CSV_H_

// CSV as RFC 4180 writes it: fields separated by commas, records ended by
// CRLF, a field quoted (its quotes doubled) when it holds a comma, a quote,
// CR or LF, so any text a trial stored stays in its own cell; control
// characters other than TAB, CR and LF are shown as U+FFFD (CsvShown); a
// text field a spreadsheet would run as a formula gets a leading '.
#ifndef TUNER_TUNER_TEXT_CSV_H_
#define TUNER_TUNER_TEXT_CSV_H_

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace tuner {

// `text` through the one sanitiser (Printable, tuner/base/one_line.h),
// keeping TAB, CR and LF and replacing every other control character a
// terminal could act on (C0, DEL, C1, bidirectional overrides) by U+FFFD,
// so that viewing a CSV file (`cat`, `less -R`) never runs an escape
// sequence a trial printed. JSON escapes them instead (\u001b).
std::string CsvShown(std::string_view text);

// One field: through CsvShown; with a leading ' when it starts with '=',
// '+', '-', '@', TAB or CR and is not a number ("-0.5", "-inf" stay as
// they are), so that a spreadsheet shows it as text instead of running it;
// quoted when it must be.
std::string CsvField(std::string_view text);

// One record: the fields, each through CsvField, then CRLF.
std::string CsvRecord(const std::vector<std::string>& fields);

// A number for a cell: shortest round-trip form, "nan", "inf" or "-inf"
// (pandas reads all of them as floats); empty when absent.
std::string CsvNumber(const std::optional<double>& value);

// Names the columns of one CSV header so that each is unique and says
// which is which: the fixed columns keep their names; a column named after
// data (a metric) keeps its name unless that is empty, one of the fixed
// names or starts with `prefix`, in which case it is `prefix` + name; a
// name still taken (two that show alike) gets "#2", "#3", ... appended.
class CsvColumnNames {
 public:
  CsvColumnNames(std::vector<std::string> fixed, std::string prefix);
  // The column for data named `name` (as CsvShown shows it), now taken.
  std::string Column(std::string_view name);

 private:
  std::set<std::string> fixed_;
  std::string prefix_;
  std::set<std::string> taken_;
};

}  // namespace tuner

#endif  // TUNER_TUNER_TEXT_CSV_H_

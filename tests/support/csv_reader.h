// A small RFC 4180 reader for the tests that parse what `tuner ... --format
// csv` writes: quoted fields may hold commas, doubled quotes, CR and LF.
#ifndef TUNER_TESTS_SUPPORT_CSV_READER_H_
#define TUNER_TESTS_SUPPORT_CSV_READER_H_

#include <string>
#include <vector>

namespace tuner::testing {

using CsvRows = std::vector<std::vector<std::string>>;

// The records of `text`, each ended by CRLF (a bare LF is accepted too).
// A quote inside an unquoted field, or an unclosed quote, makes the result
// empty: the writer must never produce either.
inline CsvRows ParseCsv(const std::string& text) {
  CsvRows rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false;  // inside "..."
  bool was_quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c != '"') {
        field += c;
      } else if (i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else {
        quoted = false;
      }
    } else if (c == '"') {
      if (!field.empty() || was_quoted) return {};
      quoted = was_quoted = true;
    } else if (c == ',') {
      row.push_back(field);
      field.clear();
      was_quoted = false;
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      continue;  // the LF ends the record
    } else if (c == '\n') {
      row.push_back(field);
      rows.push_back(row);
      row.clear();
      field.clear();
      was_quoted = false;
    } else {
      if (was_quoted) return {};
      field += c;
    }
  }
  if (quoted || !row.empty() || !field.empty()) return {};  // unterminated
  return rows;
}

}  // namespace tuner::testing

#endif  // TUNER_TESTS_SUPPORT_CSV_READER_H_

#include "tuner/text/table_progress.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "tuner/base/one_line.h"
#include "tuner/base/params_text.h"
#include "tuner/text/line_progress.h"
#include "tuner/text/terminal.h"

namespace tuner {

namespace {

constexpr int kGap = 2;
constexpr int kMinParamsColumns = 12;
constexpr auto kRedrawPeriod = std::chrono::milliseconds(100);

// One column of the table: its cells (header first), how it aligns, the
// most columns it may take, and whether it is shown.
struct Column {
  std::vector<std::string> cells;
  bool right = false;
  int cap = 0;  // 0: no cap (the last column takes what is left)
  int width = 0;
  bool shown = true;
};

std::string Pad(const std::string& text, int width, bool right) {
  std::string cell = FitColumns(text, width);
  std::string fill(std::max(0, width - DisplayColumns(cell)), ' ');
  return right ? fill + cell : cell + fill;
}

int WidthOf(const Column& column) {
  int width = 0;
  for (const auto& cell : column.cells)
    width = std::max(width, DisplayColumns(cell));
  return column.cap > 0 ? std::min(width, column.cap) : width;
}

// Hides columns, least useful first, until the line fits: the last
// decision, then the params (the last column, cut to what is left, but
// kept only with kMinParamsColumns), then time.
void FitToWidth(std::array<Column, 5>& table, int columns) {
  if (columns <= 0) return;
  auto fixed = [&] {
    int sum = 0;
    for (size_t i = 0; i + 1 < table.size(); ++i)
      if (table[i].shown) sum += table[i].width + kGap;
    return sum;
  };
  if (fixed() + kMinParamsColumns > columns) table[3].shown = false;
  if (fixed() + kMinParamsColumns > columns) table[4].shown = false;
  if (fixed() - kGap > columns) table[1].shown = false;
}

}  // namespace

std::vector<std::string> TableProgress::TableLines(int columns) const {
  std::array<Column, 5> table{{{{"trial"}, true, 7},
                               {{OneLine(time_attr_)}, true, 10},
                               {{OneLine(metric_)}, true, 12},
                               {{"last decision"}, false, 32},
                               {{"params"}, false, 0}}};
  for (const auto& [id, row] : rows_) {
    table[0].cells.push_back(std::to_string(id));
    table[1].cells.push_back(row.time);
    table[2].cells.push_back(row.value);
    table[3].cells.push_back(row.decision);
    table[4].cells.push_back(row.params);
  }
  for (auto& column : table) column.width = WidthOf(column);
  FitToWidth(table, columns);
  std::vector<std::string> lines;
  for (size_t r = 0; r < table[0].cells.size(); ++r) {
    std::string line;
    for (const auto& column : table) {
      if (!column.shown) continue;
      if (!line.empty()) line += std::string(kGap, ' ');
      line += Pad(column.cells[r], column.width, column.right);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    lines.push_back(FitColumns(OneLine(line), columns));
  }
  lines.front() = "\033[1m" + lines.front() + "\033[0m";  // the header
  return lines;
}

void TableProgress::Redraw(const SweepCounts& c, const std::string& permanent) {
  int columns = columns_();
  std::string out;
  if (drawn_lines_ > 0) out += fmt::format("\033[{}A\033[J", drawn_lines_);
  if (!permanent.empty()) out += FitColumns(OneLine(permanent), columns) + "\n";
  std::vector<std::string> lines;
  if (!rows_.empty()) lines = TableLines(columns);
  lines.push_back(FitColumns(DescribeCounts(c), columns));
  for (const auto& line : lines) out += line + "\n";
  drawn_lines_ = static_cast<int>(lines.size());
  WriteProgress(out_, out, &broken_);
  last_draw_ = clock_.Now();
}

void TableProgress::TrialStarted(const TrialEvent& event,
                                 const SweepCounts& c) {
  Row row;
  row.params = FormatParams(*event.params);
  rows_[event.trial] = row;
  paused_rows_.erase(event.trial);  // promoted
  Redraw(c, "");
}

void TableProgress::TrialReported(const TrialEvent& event, double time,
                                  double value, const core::Decision& decision,
                                  const SweepCounts& c) {
  Row& row = rows_[event.trial];
  row.time = core::FormatDouble(time);
  row.value = fmt::format("{:.6g}", value);
  std::string verdict = DescribeDecision(decision);
  if (!verdict.empty()) row.decision = verdict;
  if (clock_.Now() - last_draw_ >= kRedrawPeriod) Redraw(c, "");
}

void TableProgress::TrialEnded(const TrialEvent& event,
                               core::TrialStatus status,
                               const std::string& reason,
                               const SweepCounts& c) {
  // A paused trial that ends without running again ends with the row of
  // its pause.
  auto found = rows_.find(event.trial);
  auto paused = paused_rows_.find(event.trial);
  Row row = found != rows_.end()           ? found->second
            : paused != paused_rows_.end() ? paused->second
                                           : Row{};
  if (paused != paused_rows_.end()) paused_rows_.erase(paused);
  if (found != rows_.end()) rows_.erase(found);
  if (status == core::TrialStatus::kPaused) paused_rows_[event.trial] = row;
  std::string line = fmt::format(
      "trial {:>4} {:<9} {}={} {}={}{}  {}", event.trial,
      core::ToString(status), time_attr_, row.time, metric_, row.value,
      reason.empty() ? "" : " (" + reason + ")", row.params);
  Redraw(c, line);
}

void TableProgress::SweepEnded(const std::string& outcome,
                               const SweepCounts& c) {
  Redraw(c, "");
  WriteProgress(out_,
                FitColumns(DescribeOutcome(outcome, c), columns_()) + "\n",
                &broken_);
}

}  // namespace tuner

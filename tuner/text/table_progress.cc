#include "tuner/text/table_progress.h"

#include <fmt/format.h>

#include "tuner/base/params_text.h"
#include "tuner/text/line_progress.h"

namespace tuner {

void TableProgress::Redraw(const SweepCounts& c, const std::string& permanent) {
  if (drawn_lines_ > 0) fmt::print(out_, "\033[{}A\033[J", drawn_lines_);
  if (!permanent.empty()) fmt::print(out_, "{}\n", permanent);
  drawn_lines_ = 0;
  if (!rows_.empty()) {
    fmt::print(out_, "\033[1m{:>7}  {:>9}  {:>12}  {:<28}  {}\033[0m\n",
               "trial", time_attr_, metric_, "last decision", "params");
    ++drawn_lines_;
    for (const auto& [id, row] : rows_) {
      fmt::print(out_, "{:>7}  {:>9}  {:>12}  {:<28}  {}\n", id, row.time,
                 row.value, row.decision, row.params);
      ++drawn_lines_;
    }
  }
  fmt::print(out_, "{}\n", DescribeCounts(c));
  ++drawn_lines_;
  std::fflush(out_);
  last_draw_ = std::chrono::steady_clock::now();
}

void TableProgress::TrialStarted(const TrialEvent& event,
                                 const SweepCounts& c) {
  Row row;
  row.params = FormatParams(*event.params);
  rows_[event.trial] = row;
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
  if (std::chrono::steady_clock::now() - last_draw_ >
      std::chrono::milliseconds(100)) {
    Redraw(c, "");
  }
}

void TableProgress::TrialEnded(const TrialEvent& event,
                               core::TrialStatus status,
                               const std::string& reason,
                               const SweepCounts& c) {
  const Row& row = rows_[event.trial];
  std::string line = fmt::format(
      "trial {:>4} {:<9} {}={} {}={}{}  {}", event.trial,
      core::ToString(status), time_attr_, row.time, metric_, row.value,
      reason.empty() ? "" : " (" + reason + ")", row.params);
  rows_.erase(event.trial);
  Redraw(c, line);
}

void TableProgress::SweepEnded(const std::string& outcome,
                               const SweepCounts& c) {
  Redraw(c, "");
  fmt::print(out_, "sweep {}: {} completed, {} stopped early, {} failed\n",
             outcome, c.completed, c.stopped, c.failed);
  std::fflush(out_);
}

}  // namespace tuner

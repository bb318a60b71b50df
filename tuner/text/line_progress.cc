#include "tuner/text/line_progress.h"

#include <fmt/format.h>

#include "tuner/base/one_line.h"
#include "tuner/base/params_text.h"

namespace tuner {

std::string DescribeDecision(const core::Decision& decision) {
  if (decision.rungs.empty()) {
    return decision.action == core::Action::kContinue
               ? ""
               : std::string(core::ToString(decision.action));
  }
  const core::RungDecision& rung = decision.rungs.back();
  return fmt::format("rung {}: rank {} of {}, {}",
                     core::FormatDouble(rung.milestone), rung.rank, rung.n,
                     core::ToString(decision.action));
}

std::string DescribeCounts(const SweepCounts& c) {
  return fmt::format(
      "{}/{} started, {} running, {} completed, {} stopped, {} failed",
      c.started, c.total, c.running, c.completed, c.stopped, c.failed);
}

std::string DescribeOutcome(const std::string& outcome, const SweepCounts& c) {
  return fmt::format("sweep {}: {} completed, {} stopped early, {} failed",
                     outcome, c.completed, c.stopped, c.failed);
}

void WriteProgress(std::FILE* out, std::string_view text, bool* broken) {
  if (*broken) return;
  // fwrite, not fmt::print: that throws on a failed write.
  bool written = std::fwrite(text.data(), 1, text.size(), out) == text.size();
  if (!written || std::fflush(out) != 0) {
    *broken = true;
    std::clearerr(out);
  }
}

void LineProgress::Print(const std::string& line) {
  WriteProgress(out_, OneLine(line) + "\n", &broken_);
}

void LineProgress::TrialStarted(const TrialEvent& event, const SweepCounts&) {
  last_.try_emplace(event.trial);
  if (paused_.erase(event.trial) > 0) {
    Print(fmt::format("trial {} promoted (attempt {})", event.trial,
                      event.attempt));
    return;
  }
  Print(fmt::format(
      "trial {} started{}: {}", event.trial,
      event.attempt > 1 ? fmt::format(" (attempt {})", event.attempt) : "",
      FormatParams(*event.params)));
}

void LineProgress::TrialReported(const TrialEvent& event, double time,
                                 double value, const core::Decision& decision,
                                 const SweepCounts&) {
  LastReport& last = last_[event.trial];
  last.time = core::FormatDouble(time);
  last.value = fmt::format("{:.6g}", value);
  if (std::string verdict = DescribeDecision(decision); !verdict.empty())
    last.decision = verdict;
}

void LineProgress::TrialEnded(const TrialEvent& event, core::TrialStatus status,
                              const std::string& reason, const SweepCounts& c) {
  LastReport last = last_[event.trial];
  // A paused trial keeps its last report for the line that ends it, should
  // it end without running again.
  if (status == core::TrialStatus::kPaused) {
    paused_.insert(event.trial);
  } else {
    last_.erase(event.trial);
    paused_.erase(event.trial);
  }
  // The sweep's reason names the rung already when one decided.
  std::string why = reason.empty() ? last.decision : reason;
  Print(fmt::format("trial {} {}: {}={} {}={}{} [{}]", event.trial,
                    core::ToString(status), time_attr_, last.time, metric_,
                    last.value, why.empty() ? "" : " (" + why + ")",
                    DescribeCounts(c)));
}

void LineProgress::SweepEnded(const std::string& outcome,
                              const SweepCounts& c) {
  Print(DescribeOutcome(outcome, c));
}

void QuietProgress::SweepEnded(const std::string& outcome,
                               const SweepCounts& c) {
  WriteProgress(out_, DescribeOutcome(outcome, c) + "\n", &broken_);
}

}  // namespace tuner

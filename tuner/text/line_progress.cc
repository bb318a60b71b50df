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

void LineProgress::TrialStarted(const TrialEvent& event, const SweepCounts&) {
  fmt::print(
      out_, "trial {} started{}: {}\n", event.trial,
      event.attempt > 1 ? fmt::format(" (attempt {})", event.attempt) : "",
      FormatParams(*event.params));
  std::fflush(out_);
}

void LineProgress::TrialReported(const TrialEvent& event, double time,
                                 double value, const core::Decision& decision,
                                 const SweepCounts&) {
  std::string verdict = DescribeDecision(decision);
  fmt::print(out_, "trial {} {}={} {}={:.6g}{}\n", event.trial, time_attr_,
             core::FormatDouble(time), metric_, value,
             verdict.empty() ? "" : " (" + verdict + ")");
  std::fflush(out_);
}

void LineProgress::TrialEnded(const TrialEvent& event, core::TrialStatus status,
                              const std::string& reason, const SweepCounts& c) {
  fmt::print(out_, "trial {} {}{} [{}]\n", event.trial, core::ToString(status),
             reason.empty() ? "" : ": " + reason, DescribeCounts(c));
  std::fflush(out_);
}

void LineProgress::SweepEnded(const std::string& outcome,
                              const SweepCounts& c) {
  fmt::print(out_, "sweep {}: {} completed, {} stopped early, {} failed\n",
             outcome, c.completed, c.stopped, c.failed);
  std::fflush(out_);
}

}  // namespace tuner

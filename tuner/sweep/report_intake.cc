#include "tuner/sweep/report_intake.h"

#include <spdlog/spdlog.h>

#include <cmath>
#include <iterator>

#include "core/param_value.h"

namespace tuner {

void SeenKeys::Add(const core::Metrics& metrics) {
  for (const auto& [name, value] : metrics) {
    if (keys_.size() == kMax && name >= *keys_.rbegin()) {
      more_ |= !keys_.count(name);
      continue;
    }
    keys_.insert(name);
    if (keys_.size() > kMax) {
      keys_.erase(std::prev(keys_.end()));
      more_ = true;
    }
  }
}

std::string SeenKeys::Text() const {
  std::string text;
  for (const auto& name : keys_) text += (text.empty() ? "" : ", ") + name;
  if (more_) text += ", ... (more than " + std::to_string(kMax) + ")";
  return text;
}

std::optional<storage::ReportRecord> ReportIntake::Take(
    core::Metrics metrics, int64_t offset, int attempt,
    const std::function<double(double)>& snap) {
  std::optional<double> value = core::FindMetric(metrics, metric_);
  std::optional<double> time;
  if (time_attr_ != "report") {
    time = core::FindMetric(metrics, time_attr_);
    if (time && !std::isfinite(*time)) {
      if (!warned_time_) {
        warned_time_ = true;
        spdlog::warn(
            "trial {}: a report with {} = {} is not a report (ignored; "
            "warned once per trial)",
            trial_, time_attr_, core::FormatDouble(*time));
      }
      return std::nullopt;
    }
  }
  if (value) ++attempt_reports_;
  if (time_attr_ == "report" && value) time = attempt_reports_;
  if (time) time = snap(*time);
  if (Repeated(time)) return std::nullopt;
  seen_keys_.Add(metrics);
  return storage::ReportRecord{trial_,  0,     time, value, std::move(metrics),
                               attempt, offset};
}

bool ReportIntake::Repeated(std::optional<double> time) const {
  if (!replay_until_) return false;
  if (time) return *time <= *replay_until_;
  // A line without the objective while a retry repeats its reports was
  // stored by an earlier attempt (and a tuner adopting this attempt counts
  // its reports from the stored ones).
  return time_attr_ == "report" && attempt_reports_ < *replay_until_;
}

void ReportIntake::Withhold(storage::ReportRecord report, bool judged) {
  if (!warned_flood_) {
    warned_flood_ = true;
    spdlog::warn(
        "trial {} reports faster than {} a second: storing that many, every "
        "report a decision was taken on, and the newest when it ends",
        trial_, core::FormatDouble(ReportThrottle::kPerSecond));
  }
  Stored(judged);
  withheld_.push_back({std::move(report), judged});
}

void ReportIntake::Stored(bool judged) {
  std::erase_if(withheld_, [judged](const WithheldReport& w) {
    return judged || !w.judged;
  });
}

std::vector<WithheldReport> ReportIntake::TakeWithheld() {
  std::vector<WithheldReport> withheld = std::move(withheld_);
  withheld_.clear();
  return withheld;
}

void ReportIntake::NewAttempt(std::optional<double> last_time) {
  replay_until_ = last_time;
  attempt_reports_ = 0;
}

void ReportIntake::Resume(int64_t attempt_reports,
                          std::optional<double> replay_until) {
  attempt_reports_ = attempt_reports;
  replay_until_ = replay_until;
}

}  // namespace tuner

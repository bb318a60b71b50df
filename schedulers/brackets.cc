#include "schedulers/brackets.h"

#include <algorithm>
#include <cmath>

namespace tuner::schedulers {

namespace {

// How far float rounding may move a time near `mark`.
double Slack(double mark) { return 1e-9 * std::max(1.0, std::abs(mark)); }

}  // namespace

bool Reached(double time, double milestone) {
  return time >= milestone - Slack(milestone);
}

bool NearMark(double time, double mark) {
  double tolerance = 0.01 * std::min(1.0, std::abs(mark));
  return std::abs(time - mark) <= tolerance + Slack(mark);
}

std::vector<double> BaseMilestones(const core::SchedulerSpec& spec) {
  std::vector<double> milestones;
  double max_t = spec.max_t.value_or(0);
  for (double m = spec.grace_period;
       !Reached(m, max_t) && milestones.size() < kMaxRungs;
       m *= spec.reduction_factor) {
    milestones.push_back(m);
  }
  return milestones;
}

std::vector<Bracket> PlanBrackets(const core::SchedulerSpec& spec) {
  std::vector<double> base = BaseMilestones(spec);
  auto s_max = static_cast<int>(base.size());  // halvings of bracket 0
  int count = std::clamp(spec.brackets, 1, s_max + 1);
  std::vector<Bracket> brackets(count);
  for (int b = 0; b < count; ++b) {
    int s = s_max - b;
    brackets[b].milestones.assign(base.begin() + b, base.end());
    double n = (s_max + 1.0) / (s + 1.0) * std::pow(spec.reduction_factor, s);
    n = std::min(std::ceil(n - 1e-9), static_cast<double>(kMaxBracketTrials));
    brackets[b].trials = static_cast<int64_t>(n);
  }
  return brackets;
}

std::vector<Bracket> HyperbandBrackets(const core::SchedulerSpec& spec) {
  core::SchedulerSpec all = spec;
  if (all.brackets <= 0) all.brackets = 1 << 20;  // clamped to the levels
  return PlanBrackets(all);
}

int BracketOf(const std::vector<Bracket>& brackets, uint64_t seed,
              int64_t index) {
  if (brackets.size() <= 1) return 0;
  double total = 0;
  for (const auto& b : brackets) total += static_cast<double>(b.trials);
  constexpr double kGolden = 0.6180339887498949;
  double phase = static_cast<double>(seed % 1000003) / 1000003.0;
  double u = std::fmod(phase + static_cast<double>(index) * kGolden, 1.0);
  double edge = 0;
  for (size_t b = 0; b < brackets.size(); ++b) {
    edge += static_cast<double>(brackets[b].trials) / total;
    if (u < edge) return static_cast<int>(b);
  }
  return static_cast<int>(brackets.size()) - 1;
}

}  // namespace tuner::schedulers

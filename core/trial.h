// Trial identity, status and the decisions a scheduler takes on reports.
#ifndef TUNER_CORE_TRIAL_H_
#define TUNER_CORE_TRIAL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/param_value.h"

namespace tuner::core {

// Unique within a database; also the name of the trial's directory.
using TrialId = int64_t;

enum class TrialStatus {
  kPending,
  kRunning,
  kPaused,  // waiting at a rung for a promotion
  kCompleted,
  kStopped,
  kFailed
};

inline std::string_view ToString(TrialStatus status) {
  switch (status) {
    case TrialStatus::kPending:
      return "pending";
    case TrialStatus::kRunning:
      return "running";
    case TrialStatus::kPaused:
      return "paused";
    case TrialStatus::kCompleted:
      return "completed";
    case TrialStatus::kStopped:
      return "stopped";
    case TrialStatus::kFailed:
      return "failed";
  }
  return "unknown";
}

// Every status, in the order of a trial's life.
inline constexpr TrialStatus kTrialStatuses[] = {
    TrialStatus::kPending,   TrialStatus::kRunning, TrialStatus::kPaused,
    TrialStatus::kCompleted, TrialStatus::kStopped, TrialStatus::kFailed};

inline std::optional<TrialStatus> ParseTrialStatus(std::string_view text) {
  for (auto s : kTrialStatuses) {
    if (ToString(s) == text) return s;
  }
  return std::nullopt;
}

// Where an experiment's sweep stands, as stored: running while a tuner (or
// the service) runs it or until a resume finds nobody does; then finished
// (its budget spent or every trial ended), interrupted (stopped by a signal,
// a stop request or a lost tuner: a resume continues it) or failed (the sweep
// failed; the stored reason says why).
enum class ExperimentStatus { kRunning, kFinished, kInterrupted, kFailed };

inline std::string_view ToString(ExperimentStatus status) {
  switch (status) {
    case ExperimentStatus::kRunning:
      return "running";
    case ExperimentStatus::kFinished:
      return "finished";
    case ExperimentStatus::kInterrupted:
      return "interrupted";
    case ExperimentStatus::kFailed:
      return "failed";
  }
  return "unknown";
}

// Every status, running first.
inline constexpr ExperimentStatus kExperimentStatuses[] = {
    ExperimentStatus::kRunning, ExperimentStatus::kFinished,
    ExperimentStatus::kInterrupted, ExperimentStatus::kFailed};

inline std::optional<ExperimentStatus> ParseExperimentStatus(
    std::string_view text) {
  for (auto s : kExperimentStatuses) {
    if (ToString(s) == text) return s;
  }
  return std::nullopt;
}

// Whether larger or smaller objective values are better.
enum class Mode { kMax, kMin };

inline std::string_view ToString(Mode mode) {
  return mode == Mode::kMax ? "max" : "min";
}

// Whether `value` is better than `than` in `mode` (strictly; false when
// either is NaN).
inline bool Better(double value, double than, Mode mode) {
  return mode == Mode::kMax ? value > than : value < than;
}

// What happens to a trial after one of its reports was judged.
enum class Action {
  kContinue,  // keep training
  kStop,      // stop it now: it lost at a rung (or reported a non-finite value)
  kComplete,  // it reached max_t: it is done
  kPause,     // it reached a rung: stop it for now, it may be promoted later
};

inline std::string_view ToString(Action action) {
  switch (action) {
    case Action::kContinue:
      return "continue";
    case Action::kStop:
      return "stop";
    case Action::kComplete:
      return "complete";
    case Action::kPause:
      return "pause";
  }
  return "unknown";
}

// What a rung record says happened to the trial there.
enum class RungVerdict {
  kContinue,  // it ranked well enough and goes on (stopping type)
  kStop,      // it lost there
  kPause,     // it was recorded there and paused (promotion type)
  kPromote,   // it was promoted out of the rung it paused at
};

inline std::string_view ToString(RungVerdict verdict) {
  switch (verdict) {
    case RungVerdict::kContinue:
      return "continue";
    case RungVerdict::kStop:
      return "stop";
    case RungVerdict::kPause:
      return "pause";
    case RungVerdict::kPromote:
      return "promote";
  }
  return "unknown";
}

inline std::optional<RungVerdict> ParseRungVerdict(std::string_view text) {
  for (auto v : {RungVerdict::kContinue, RungVerdict::kStop,
                 RungVerdict::kPause, RungVerdict::kPromote}) {
    if (ToString(v) == text) return v;
  }
  return std::nullopt;
}

// The judgement of one trial at one rung: its value was ranked `rank` (1 is
// best) among the `n` values recorded at that rung, its own included.
struct RungDecision {
  int bracket = 0;       // the trial's bracket (0 = the most aggressive)
  int rung = 0;          // index of the rung within its bracket, 0 = lowest
  double milestone = 0;  // the rung's resource level in time_attr units
  double value = 0;      // the objective as reported (not sign-flipped)
  int64_t rank = 0;
  int64_t n = 0;
  RungVerdict verdict = RungVerdict::kStop;

  bool continues() const { return verdict == RungVerdict::kContinue; }
};

// Why rung `d` stopped (or, `paused`, paused) a trial, as stored and shown:
// "rung 3: rank 5 of 9", "paused at rung 3: rank 5 of 9". A resumed sweep
// rebuilds its trials' reasons with it from the stored decisions.
inline std::string RungReason(const RungDecision& d, bool paused) {
  return std::string(paused ? "paused at rung " : "rung ") +
         FormatDouble(d.milestone) + ": rank " + std::to_string(d.rank) +
         " of " + std::to_string(d.n);
}

// The outcome of one report: the action, and one RungDecision per rung the
// report reached (lowest first; none when it crossed no rung).
struct Decision {
  Action action = Action::kContinue;
  std::vector<RungDecision> rungs;
};

}  // namespace tuner::core

#endif  // TUNER_CORE_TRIAL_H_

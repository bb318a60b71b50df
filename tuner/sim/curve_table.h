// A table of learning curves to replay in simulated time (`tuner
// simulate --table`): one training run per JSON line, with its config and
// what it reported at each step and how long that step took.
#ifndef TUNER_TUNER_SIM_CURVE_TABLE_H_
#define TUNER_TUNER_SIM_CURVE_TABLE_H_

#include <cstdint>
#include <istream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/metrics.h"
#include "core/result.h"

namespace tuner::sim {

// One report of a run, and the simulated seconds the step before it took.
struct CurveStep {
  core::Metrics metrics;  // every numeric field but `seconds`; null: NaN
  double seconds = 0;
};

struct CurveRow {
  std::string id;                // the line's "id", else "line N"
  nlohmann::json config;         // an object: what a search space maps onto
  std::vector<CurveStep> steps;  // at least one; time_attr increasing
  bool diverged = false;         // the run died (its trial exits with status 1)
  // The run was stopped before its end (a replayed experiment's trial its
  // scheduler stopped): a trial that replays it to the end needed reports
  // the table does not have.
  bool truncated = false;
};

struct CurveTable {
  std::string source;  // the file, for messages
  std::vector<CurveRow> rows;
};

// At most this many bytes in one line of a table.
inline constexpr size_t kMaxTableLine = 64 << 20;
// The most simulated seconds one run of a table may take (its steps'
// seconds summed) and one simulation may last: about 31.7 years, far
// inside the simulated clock's range (292 years of nanoseconds).
inline constexpr double kMaxSimulatedSeconds = 1e9;

// The step at which the summed seconds of `steps` pass
// kMaxSimulatedSeconds (or stop being a finite number >= 0); none when they
// do not.
std::optional<size_t> StepPastTimeBound(const std::vector<CurveStep>& steps);
// Why: "the steps' seconds add up to more than 1e+09 (...)".
std::string TimeBoundMessage();

// At most this many levels of nesting in a line (the NAS table has 5).
inline constexpr int kMaxTableDepth = 64;

// Reads a table: JSON lines {"id"?, "config": {...}, "curve": [{TIME_ATTR:
// number, "seconds": number >= 0, metric: number | null, ...}, ...],
// "diverged"?: bool}. Blank lines are skipped. Each step must carry
// `time_attr` (finite, increasing along the curve; under `report` it may
// be left out: the step's number) and `seconds`, their sum at most
// kMaxSimulatedSeconds. Errors name the file,
// line and field; a path that is not a regular file is refused.
core::Result<CurveTable> ReadCurveTable(std::istream& in,
                                        const std::string& source,
                                        const std::string& time_attr);
core::Result<CurveTable> ReadCurveTableFile(const std::string& path,
                                            const std::string& time_attr);

}  // namespace tuner::sim

#endif  // TUNER_TUNER_SIM_CURVE_TABLE_H_

// Which row of a curve table a simulated trial replays.
#ifndef TUNER_TUNER_SIM_ROW_PICKER_H_
#define TUNER_TUNER_SIM_ROW_PICKER_H_

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <unordered_map>
#include <vector>

#include "core/param_value.h"
#include "core/result.h"
#include "core/search_space.h"
#include "tuner/sim/curve_table.h"

namespace tuner::sim {

// With an empty search space, trial i (its index, from 0) replays row
// perm[i] of a permutation the seed decides: rows are drawn uniformly
// without replacement. With parameters, a trial replays the row nearest to
// its parameters: rows whose choice/grid parameters differ are out; the
// distance sums the squared differences of the numeric parameters, each
// divided by its range (in log space for loguniform and lograndint); ties
// go to one of the nearest rows at random (the seed and the index decide).
// Where the searcher chose among the rows' own configurations (Candidates,
// see Searcher::RestrictTo), a trial replays the first row with exactly its
// params that no other trial replays.
class RowPicker {
 public:
  // `table` and `space` must outlive the picker (it keeps pointers).
  // Fails when the space is empty and `num_trials` exceeds the rows, or a
  // parameter names a config key no row has (of the right type).
  static core::Result<RowPicker> Make(const CurveTable& table,
                                      const core::SearchSpace& space,
                                      int64_t num_trials, uint64_t seed);
  // The params of each row under the space (numbers as the param's type,
  // integers rounded; choices as the value they equal), for a searcher to
  // choose among; a row the space does not hold (a key missing, a value
  // that is not a number, outside [low, high], or no choice has) is left
  // out. Switches Pick to exact matches first.
  std::vector<core::Params> Candidates();
  // The row for the trial with `index` and `params`; fails when no row
  // matches its choice parameters. The same trial gets the same row.
  core::Result<size_t> Pick(int64_t index, const core::Params& params);

 private:
  RowPicker(const CurveTable& table, const core::SearchSpace& space,
            uint64_t seed)
      : table_(&table), space_(&space), seed_(seed) {}
  // The row's distance to `params`; negative when it cannot match.
  double Distance(const CurveRow& row, const core::Params& params) const;
  std::optional<core::Params> ParamsOf(const CurveRow& row) const;
  core::Result<size_t> Nearest(int64_t index, const core::Params& params) const;

  const CurveTable* table_;
  const core::SearchSpace* space_;
  uint64_t seed_;
  std::vector<size_t> permutation_;  // empty space only
  // Candidates(): the untaken rows by their params; the rows taken by index.
  std::map<core::Params, std::deque<size_t>> free_rows_;
  std::unordered_map<int64_t, size_t> picked_;
};

}  // namespace tuner::sim

#endif  // TUNER_TUNER_SIM_ROW_PICKER_H_

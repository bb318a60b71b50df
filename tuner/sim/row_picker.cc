#include "tuner/sim/row_picker.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>

namespace tuner::sim {

namespace {

bool IsCategorical(const core::ParamSpec& spec) {
  return spec.distribution == core::Distribution::kChoice ||
         spec.distribution == core::Distribution::kGrid;
}

bool IsLog(const core::ParamSpec& spec) {
  return spec.distribution == core::Distribution::kLogUniform ||
         spec.distribution == core::Distribution::kLogRandInt;
}

bool Same(const nlohmann::json& cell, const core::ParamValue& value) {
  if (const auto* b = std::get_if<bool>(&value))
    return cell.is_boolean() && cell.get<bool>() == *b;
  if (const auto* s = std::get_if<std::string>(&value))
    return cell.is_string() && cell.get<std::string>() == *s;
  if (!cell.is_number()) return false;
  double number = std::holds_alternative<int64_t>(value)
                      ? static_cast<double>(std::get<int64_t>(value))
                      : std::get<double>(value);
  return cell.get<double>() == number;
}

std::optional<double> AsNumber(const core::ParamValue& value) {
  if (const auto* i = std::get_if<int64_t>(&value))
    return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&value)) return *d;
  return std::nullopt;
}

const core::ParamValue* Find(const core::Params& params,
                             const std::string& name) {
  for (const auto& [key, value] : params) {
    if (key == name) return &value;
  }
  return nullptr;
}

bool RowHas(const CurveRow& row, const core::ParamSpec& spec) {
  auto cell = row.config.find(spec.name);
  if (cell == row.config.end()) return false;
  if (IsCategorical(spec)) {
    return std::any_of(
        spec.values.begin(), spec.values.end(),
        [&](const core::ParamValue& v) { return Same(*cell, v); });
  }
  return cell->is_number() && std::isfinite(cell->get<double>());
}

}  // namespace

core::Result<RowPicker> RowPicker::Make(const CurveTable& table,
                                        const core::SearchSpace& space,
                                        int64_t num_trials, uint64_t seed) {
  RowPicker picker(table, space, seed);
  size_t rows = table.rows.size();
  if (space.params.empty()) {
    if (num_trials > static_cast<int64_t>(rows)) {
      return core::InvalidArgument(
          "num_trials " + std::to_string(num_trials) + " exceeds the " +
          std::to_string(rows) + " rows of " + table.source +
          " (search_space: {} draws rows without replacement)");
    }
    picker.permutation_.resize(rows);
    std::iota(picker.permutation_.begin(), picker.permutation_.end(), 0);
    std::mt19937_64 random(seed);
    std::shuffle(picker.permutation_.begin(), picker.permutation_.end(),
                 random);
    return picker;
  }
  for (const auto& spec : space.params) {
    bool any = std::any_of(table.rows.begin(), table.rows.end(),
                           [&](const CurveRow& r) { return RowHas(r, spec); });
    if (!any) {
      std::string want = IsCategorical(spec) ? "one of its values" : "a number";
      return core::InvalidArgument(
          "search_space." + spec.name + ": no row of " + table.source +
          " has config." + spec.name + " (" + want + ")");
    }
    if (!IsLog(spec)) continue;
    for (const auto& row : table.rows) {
      auto cell = row.config.find(spec.name);
      if (cell == row.config.end() || !cell->is_number() ||
          cell->get<double>() > 0) {
        continue;
      }
      return core::InvalidArgument(
          table.source + ": row " + row.id + ": config." + spec.name + " is " +
          cell->dump() + ", but search_space." + spec.name +
          " is log-scaled: its rows need values > 0");
    }
  }
  return picker;
}

double RowPicker::Distance(const CurveRow& row,
                           const core::Params& params) const {
  double sum = 0;
  for (const auto& spec : space_->params) {
    const core::ParamValue* value = Find(params, spec.name);
    if (!value) continue;  // a condition left it out
    auto cell = row.config.find(spec.name);
    if (cell == row.config.end()) return -1;
    if (IsCategorical(spec)) {
      if (!Same(*cell, *value)) return -1;
      continue;
    }
    auto x = AsNumber(*value);
    if (!x || !cell->is_number()) return -1;
    double r = cell->get<double>();
    double d = 0;
    if (IsLog(spec) && *x > 0 && r > 0) {
      d = (std::log(*x) - std::log(r)) /
          (std::log(spec.high) - std::log(spec.low));
    } else {
      d = (*x - r) / (spec.high - spec.low);
    }
    if (!std::isfinite(d)) return -1;
    sum += d * d;
  }
  return sum;
}

std::optional<core::Params> RowPicker::ParamsOf(const CurveRow& row) const {
  core::Params params;
  for (const auto& spec : space_->params) {
    auto cell = row.config.find(spec.name);
    if (cell == row.config.end()) {
      if (spec.when) continue;  // a condition may leave it out
      return std::nullopt;
    }
    if (IsCategorical(spec)) {
      auto value = std::find_if(
          spec.values.begin(), spec.values.end(),
          [&](const core::ParamValue& v) { return Same(*cell, v); });
      if (value == spec.values.end()) return std::nullopt;
      params.emplace_back(spec.name, *value);
      continue;
    }
    if (!cell->is_number()) return std::nullopt;
    double value = cell->get<double>();
    bool integral = spec.distribution == core::Distribution::kRandInt ||
                    spec.distribution == core::Distribution::kLogRandInt;
    if (integral) value = std::round(value);
    // Outside the space (NaN included): not a configuration it holds.
    if (!(value >= spec.low && value <= spec.high)) return std::nullopt;
    if (integral) {
      params.emplace_back(spec.name, static_cast<int64_t>(value));
    } else {
      params.emplace_back(spec.name, value);
    }
  }
  return params;
}

std::vector<core::Params> RowPicker::Candidates() {
  std::vector<core::Params> candidates;
  free_rows_.clear();
  for (size_t i = 0; i < table_->rows.size(); ++i) {
    auto params = ParamsOf(table_->rows[i]);
    if (!params) continue;
    free_rows_[*params].push_back(i);
    candidates.push_back(std::move(*params));
  }
  return candidates;
}

core::Result<size_t> RowPicker::Pick(int64_t index,
                                     const core::Params& params) {
  if (auto it = picked_.find(index); it != picked_.end()) return it->second;
  if (auto it = free_rows_.find(params);
      it != free_rows_.end() && !it->second.empty()) {
    size_t row = it->second.front();
    it->second.pop_front();
    return picked_[index] = row;
  }
  auto row = Nearest(index, params);
  if (row.ok()) picked_[index] = row.value();
  return row;
}

core::Result<size_t> RowPicker::Nearest(int64_t index,
                                        const core::Params& params) const {
  if (!permutation_.empty()) {
    if (index < 0 || index >= static_cast<int64_t>(permutation_.size())) {
      return core::InvalidArgument("trial index " + std::to_string(index) +
                                   " past the table's rows");
    }
    return permutation_[index];
  }
  std::vector<size_t> nearest;
  double best = 0;
  for (size_t i = 0; i < table_->rows.size(); ++i) {
    double d = Distance(table_->rows[i], params);
    if (d < 0) continue;
    if (nearest.empty() || d < best - 1e-12 * std::max(1.0, best)) {
      nearest.assign(1, i);
      best = d;
    } else if (d <= best + 1e-12 * std::max(1.0, best)) {
      nearest.push_back(i);
    }
  }
  if (nearest.empty()) {
    return core::NotFound("no row of " + table_->source +
                          " matches the trial's choice parameters");
  }
  std::mt19937_64 random(seed_ ^ (0x9E3779B97F4A7C15ull * (index + 1)));
  std::uniform_int_distribution<size_t> pick(0, nearest.size() - 1);
  return nearest[pick(random)];
}

}  // namespace tuner::sim

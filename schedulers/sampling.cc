#include "schedulers/sampling.h"

#include <algorithm>
#include <cmath>

namespace tuner::schedulers {

namespace {

uint64_t Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

int64_t SampleInt(double low, double high, double unit) {
  double span = high - low + 1;
  return static_cast<int64_t>(std::min(high, low + std::floor(unit * span)));
}

}  // namespace

Rng Rng::ForIndex(uint64_t seed, uint64_t index) {
  return Rng(Mix(seed ^ Mix(index + 0x9e3779b97f4a7c15ULL)));
}

uint64_t Rng::Next() {
  state_ += 0x9e3779b97f4a7c15ULL;
  return Mix(state_);
}

double Rng::NextUnit() { return (Next() >> 11) * 0x1.0p-53; }

core::ParamValue Sample(const core::ParamSpec& spec, Rng& rng) {
  return FromUnit(spec, rng.NextUnit());
}

namespace {

double AsDouble(const core::ParamValue& value) {
  if (auto* d = std::get_if<double>(&value)) return *d;
  if (auto* i = std::get_if<int64_t>(&value)) return static_cast<double>(*i);
  return 0;
}

}  // namespace

double ToUnit(const core::ParamSpec& spec, const core::ParamValue& value) {
  using core::Distribution;
  double x = AsDouble(value);
  double u = 0;
  switch (spec.distribution) {
    case Distribution::kLogUniform:
      u = std::log(x / spec.low) / std::log(spec.high / spec.low);
      break;
    case Distribution::kRandInt:
      u = (x - spec.low + 0.5) / (spec.high - spec.low + 1);
      break;
    case Distribution::kLogRandInt:
      u = std::log((x + 0.5) / spec.low) / std::log((spec.high + 1) / spec.low);
      break;
    default:
      u = (x - spec.low) / (spec.high - spec.low);
  }
  return std::clamp(u, 0.0, std::nextafter(1.0, 0.0));
}

const core::ParamValue* FindParam(const core::Params& params,
                                  const std::string& name) {
  for (const auto& [n, v] : params)
    if (n == name) return &v;
  return nullptr;
}

core::ParamValue FromUnit(const core::ParamSpec& spec, double u) {
  using core::Distribution;
  switch (spec.distribution) {
    case Distribution::kUniform:
      return spec.low + u * (spec.high - spec.low);
    case Distribution::kLogUniform:
      return std::exp(std::log(spec.low) +
                      u * (std::log(spec.high) - std::log(spec.low)));
    case Distribution::kQUniform: {
      double raw = spec.low + u * (spec.high - spec.low);
      double rounded = std::round(raw / spec.q) * spec.q;
      return std::clamp(rounded, spec.low, spec.high);
    }
    case Distribution::kRandInt:
      return SampleInt(spec.low, spec.high, u);
    case Distribution::kLogRandInt: {
      double log_value = std::log(spec.low) +
                         u * (std::log(spec.high + 1) - std::log(spec.low));
      double value = std::floor(std::exp(log_value));
      return static_cast<int64_t>(std::clamp(value, spec.low, spec.high));
    }
    case Distribution::kChoice:
    case Distribution::kGrid: {
      auto n = static_cast<double>(spec.values.size());
      auto i = static_cast<size_t>(std::min(n - 1, std::floor(u * n)));
      return spec.values[i];
    }
  }
  return 0.0;
}

}  // namespace tuner::schedulers

namespace tuner::schedulers {

core::Params InDeclarationOrder(const core::SearchSpace& space,
                                core::Params params) {
  core::Params ordered;
  ordered.reserve(params.size());
  for (const auto& spec : space.params) {
    for (auto& [name, value] : params) {
      if (name == spec.name) ordered.emplace_back(name, std::move(value));
    }
  }
  return ordered;
}

bool IsActive(const core::ParamSpec& spec, const core::Params& chosen) {
  if (!spec.when) return true;
  for (const auto& [name, value] : chosen) {
    if (name != spec.when->param) continue;
    for (const auto& allowed : spec.when->values) {
      if (value == allowed) return true;
    }
    return false;
  }
  return false;  // the parameter it depends on is inactive itself
}

void DropInactive(const core::SearchSpace& space, core::Params& params) {
  core::Params kept;
  kept.reserve(params.size());
  for (const auto& spec : space.params) {
    for (auto& entry : params) {
      if (entry.first == spec.name && IsActive(spec, kept)) {
        kept.push_back(std::move(entry));
        break;
      }
    }
  }
  params = std::move(kept);
}

}  // namespace tuner::schedulers

// Seeded, platform-independent sampling of single parameters.
#ifndef TUNER_SCHEDULERS_SAMPLING_H_
#define TUNER_SCHEDULERS_SAMPLING_H_

#include <cstdint>
#include <string>

#include "core/search_space.h"

namespace tuner::schedulers {

// A splitmix64 stream. Unlike the std distributions, its output (and every
// value derived from it here) is identical on every compiler and platform.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  // A stream for item `index` of a run seeded with `seed`: independent of
  // how many values earlier items drew.
  static Rng ForIndex(uint64_t seed, uint64_t index);

  uint64_t Next();
  // Uniform in [0, 1), 53 bits.
  double NextUnit();

 private:
  uint64_t state_;
};

// Draws a value of `spec` (any distribution but kGrid) from `rng`.
core::ParamValue Sample(const core::ParamSpec& spec, Rng& rng);

// The value of `spec` at quantile `u` in [0, 1) of its distribution (for a
// choice or grid: value floor(u * size)).
core::ParamValue FromUnit(const core::ParamSpec& spec, double u);

// The inverse of FromUnit for numeric params: where `value` sits in
// [0, 1) under the prior (log-scaled where the param is).
double ToUnit(const core::ParamSpec& spec, const core::ParamValue& value);

// The value of param `name` in `params`; nullptr where it is absent.
const core::ParamValue* FindParam(const core::Params& params,
                                  const std::string& name);

// `params` reordered as `space` declares its params.
core::Params InDeclarationOrder(const core::SearchSpace& space,
                                core::Params params);

// Whether conditional `spec` is sampled, given the params chosen before it.
bool IsActive(const core::ParamSpec& spec, const core::Params& chosen);

// Removes the params whose condition does not hold, in declaration order
// (a param whose parent was removed goes too); keeps declaration order.
void DropInactive(const core::SearchSpace& space, core::Params& params);

}  // namespace tuner::schedulers

#endif  // TUNER_SCHEDULERS_SAMPLING_H_

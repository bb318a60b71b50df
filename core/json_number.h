// The one rule for a measured number in the JSON (and YAML) the tuner writes:
// the CLI's listings, the HTTP API and the dashboard's data all follow it.
#ifndef TUNER_CORE_JSON_NUMBER_H_
#define TUNER_CORE_JSON_NUMBER_H_

#include <cmath>
#include <optional>

#include "core/param_value.h"

namespace tuner::core {

// `Json` is a JSON value type (nlohmann's) built from nullptr, a double or a
// string. Absent is null; a finite value is the number; nan, inf and -inf,
// which JSON has no number for, are the strings "nan", "inf" and "-inf"
// (FormatDouble's names), so a trial that diverged is told apart from one
// that did not report. A reader that wants numbers only drops the strings.
template <class Json>
Json JsonNumber(const std::optional<double>& value) {
  if (!value) return Json(nullptr);
  if (!std::isfinite(*value)) return Json(FormatDouble(*value));
  return Json(*value);
}

}  // namespace tuner::core

#endif  // TUNER_CORE_JSON_NUMBER_H_

// JSON text for metrics and params as stored in the database.
#ifndef TUNER_STORAGE_JSON_CODEC_H_
#define TUNER_STORAGE_JSON_CODEC_H_

#include <string>

#include "core/metrics.h"

namespace tuner::storage {

// A JSON object; non-finite values are written as the strings "nan", "inf"
// and "-inf" (JSON has no such numbers).
std::string MetricsToJson(const core::Metrics& metrics);
// The inverse of MetricsToJson; an empty list for text that is not an object.
core::Metrics MetricsFromJson(const std::string& text);

}  // namespace tuner::storage

#endif  // TUNER_STORAGE_JSON_CODEC_H_

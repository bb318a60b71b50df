// PrometheusText: writes the Prometheus text exposition format (0.0.4):
// HELP and TYPE lines, samples with escaped label values.
#ifndef TUNER_TUNER_SERVER_PROMETHEUS_TEXT_H_
#define TUNER_TUNER_SERVER_PROMETHEUS_TEXT_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tuner::server {

using Labels = std::vector<std::pair<std::string, std::string>>;

// Builds one exposition. The caller writes each family's Family() line
// once, before its samples, and never mixes families; names and label
// names must match [a-zA-Z_:][a-zA-Z0-9_:]* (they are the code's, never
// input). Not thread-safe.
class PrometheusText {
 public:
  // "# HELP name help" and "# TYPE name type" (counter, gauge, histogram).
  void Family(std::string_view name, std::string_view type,
              std::string_view help);
  // "name{label="value",...} value"; any label value is accepted.
  void Sample(std::string_view name, const Labels& labels, double value);
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

// A label value as the format wants it: backslash, double quote and line
// feed escaped, and bytes that are not UTF-8 replaced by U+FFFD (a scraper
// rejects the whole exposition otherwise).
std::string EscapeLabelValue(std::string_view value);
// A sample value: integers without a fraction, "NaN", "+Inf", "-Inf".
std::string FormatSampleValue(double value);

}  // namespace tuner::server

#endif  // TUNER_TUNER_SERVER_PROMETHEUS_TEXT_H_

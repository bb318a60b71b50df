#include "tuner/server/prometheus_text.h"

#include <fmt/format.h>

#include <cmath>

#include "util/utf8_text.h"

namespace tuner::server {

std::string EscapeLabelValue(std::string_view value) {
  std::string out;
  for (char c : util::ValidUtf8(value)) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '\\' || c == '"') out += '\\';
    out += c;
  }
  return out;
}

std::string FormatSampleValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  if (value == std::floor(value) && std::fabs(value) < 1e15)
    return fmt::format("{}", static_cast<long long>(value));
  return fmt::format("{}", value);
}

void PrometheusText::Family(std::string_view name, std::string_view type,
                            std::string_view help) {
  text_ += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

void PrometheusText::Sample(std::string_view name, const Labels& labels,
                            double value) {
  text_ += name;
  if (!labels.empty()) {
    text_ += '{';
    for (size_t i = 0; i < labels.size(); ++i) {
      if (i > 0) text_ += ',';
      text_ += fmt::format("{}=\"{}\"", labels[i].first,
                           EscapeLabelValue(labels[i].second));
    }
    text_ += '}';
  }
  text_ += ' ';
  text_ += FormatSampleValue(value);
  text_ += '\n';
}

}  // namespace tuner::server

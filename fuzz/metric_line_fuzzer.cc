// Fuzz target: a trial's stdout through MetricStream (every line form, the
// metrics blocks, Katib pairs) and trainer_state.json-style values.
// The first byte picks the extra format; the rest is the output, split into
// lines.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "trial_runner/metric_parser.h"
#include "trial_runner/metric_stream.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using tuner::runner::MetricFormat;
  using tuner::runner::MetricStream;
  if (size == 0) return 0;
  // Built once (a regex compiles slowly); Finish() below ends each input's
  // state, as it ends a trial's.
  static MetricStream* streams[3] = {
      new MetricStream(MetricFormat{}),
      new MetricStream(MetricFormat{MetricFormat::Extra::kKatib, "", "score"}),
      new MetricStream(MetricFormat{MetricFormat::Extra::kRegex,
                                    R"((\w+): ([0-9.e+-]+))", "score"})};
  MetricStream& stream = *streams[data[0] % 3];
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  size_t reports = 0;
  auto emit = [&reports](tuner::core::Metrics metrics) {
    reports += metrics.size();
  };
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    stream.Feed(line, emit);
    (void)tuner::runner::ParseBlockValue(line);
    start = end + 1;
  }
  stream.Finish(emit);
  return 0;
}

// Fuzz target: a trial's stdout through MetricStream (every line form, the
// metrics blocks, Katib pairs, a user regex), the JSON encoding of each
// report and its store (SQLite in memory), as the sweep takes reports in.
// The first byte picks the extra format; the rest is the output, split into
// lines. Crashes on a metric name that is not valid UTF-8.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string_view>

#include "storage/json_codec.h"
#include "storage/trial_store.h"
#include "trial_runner/output/metric_parser.h"
#include "trial_runner/output/metric_stream.h"
#include "util/utf8_text.h"

namespace {

using tuner::runner::MetricFormat;
using tuner::runner::MetricStream;

// One in-memory store, opened again every so many inputs (it only grows).
struct Store {
  std::unique_ptr<tuner::storage::TrialStore> store;
  tuner::core::TrialId trial = 0;
  int64_t seq = 0;
  int inputs = 0;

  void Reopen() {
    store = tuner::storage::TrialStore::Open(":memory:").value();
    tuner::storage::ExperimentRecord e;
    e.name = "fuzz";
    e.status = tuner::core::ExperimentStatus::kRunning;
    e.metric = "score";
    e.time_attr = "epoch";
    e.config_json = "{}";
    auto id = store->experiments().Create(e).value();
    trial = store->trials().Add(id, 0, {}).value();
    seq = 0;
  }

  void Append(const tuner::core::Metrics& metrics) {
    std::string json = tuner::storage::MetricsToJson(metrics);
    (void)tuner::storage::MetricsFromJson(json);
    tuner::storage::ReportRecord report{
        trial, ++seq, tuner::core::FindMetric(metrics, "epoch"),
        tuner::core::FindMetric(metrics, "score"), metrics};
    if (!store->reports().Append(report, tuner::core::Mode::kMax).ok())
      __builtin_trap();
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // Built once (a regex compiles slowly); Finish() below ends each input's
  // state, as it ends a trial's.
  static MetricStream* streams[3] = {
      new MetricStream(MetricFormat{}),
      new MetricStream(MetricFormat{MetricFormat::Extra::kKatib, "", "score"}),
      new MetricStream(MetricFormat{MetricFormat::Extra::kRegex,
                                    R"((\w+): ([0-9.e+-]+))", "score"})};
  static Store store;
  if (store.inputs++ % 10000 == 0) store.Reopen();
  MetricStream& stream = *streams[data[0] % 3];
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  auto emit = [](tuner::core::Metrics metrics) {
    for (const auto& [name, value] : metrics) {
      if (!tuner::util::IsValidUtf8(name)) __builtin_trap();
      (void)nlohmann::json(name).dump();  // strict: throws on invalid UTF-8
    }
    store.Append(metrics);
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
  (void)store.store->Commit();
  return 0;
}

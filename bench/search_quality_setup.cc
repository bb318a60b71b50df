#include "bench/search_quality_setup.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/metrics.h"

namespace tuner::bench {

namespace {

using sim::CurveTable;
constexpr double kInf = std::numeric_limits<double>::infinity();

// Defaults chosen by the table's file name.
struct Profile {
  const char* name_part;
  const char* space;  // under bench/spaces
  const char* metric;
  const char* mode;
};

constexpr Profile kProfiles[] = {
    {"nasbench-nlp", "nasbench-nlp.yaml", "val_loss", "min"},
    {"lcbench", "lcbench.yaml", "val_accuracy", "max"},
};

std::string BaseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Runs `xz -dc path` with its stdout on `fd`; whether it exited 0.
bool Decompress(const std::string& path, int fd) {
  pid_t child = fork();
  if (child < 0) return false;
  if (child == 0) {
    dup2(fd, STDOUT_FILENO);
    execlp("xz", "xz", "-dc", "--", path.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) return false;
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// Reads a table; a .xz one is decompressed to a temporary file (removed
// before this returns), since ReadCurveTableFile reads plain files only.
CurveTable ReadTable(const std::string& path, const std::string& time_attr) {
  if (!EndsWith(path, ".xz")) {
    auto table = tuner::sim::ReadCurveTableFile(path, time_attr);
    if (!table.ok()) Fail(table.message());
    return std::move(table.value());
  }
  const char* tmpdir = getenv("TMPDIR");
  std::string temp = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") +
                     "/search_quality-XXXXXX.jsonl";
  int fd = mkstemps(temp.data(), 6);
  if (fd < 0) Fail("cannot create a temporary file for " + path);
  bool ok = Decompress(path, fd);
  close(fd);
  auto table = ok ? tuner::sim::ReadCurveTableFile(temp, time_attr)
                  : tuner::core::Result<CurveTable>(
                        tuner::core::IoError("xz -dc " + path + " failed"));
  unlink(temp.c_str());
  if (!table.ok()) {
    std::string message = table.message();
    for (size_t at; (at = message.find(temp)) != std::string::npos;)
      message.replace(at, temp.size(), path + " (decompressed)");
    Fail(message);
  }
  table.value().source = path;
  return std::move(table.value());
}

// The k = 64 entry of the summary's expected random search: the list at
// the top (LCBench) or under random_search's pool "all" (NAS-Bench-NLP).
const nlohmann::json& K64(const nlohmann::json& summary) {
  const nlohmann::json* list = nullptr;
  if (summary.contains("expected_random_search")) {
    list = &summary.at("expected_random_search");
  } else {
    for (const auto& pool : summary.at("random_search"))
      if (pool.at("pool") == "all") list = &pool.at("expected_random_search");
  }
  if (list) {
    for (const auto& k : *list)
      if (k.at("k") == 64) return k;
  }
  throw std::out_of_range("no expected_random_search entry with k = 64");
}

// The mean whole-run seconds: seconds_per_config_total[_...].mean.
double MeanSeconds(const nlohmann::json& summary) {
  for (const auto& [key, value] : summary.items()) {
    if (key.rfind("seconds_per_config_total", 0) == 0)
      return value.at("mean").get<double>();
  }
  throw std::out_of_range("no seconds_per_config_total");
}

// The target (expected best final metric of random search, k = 64) and
// the mean run seconds from the table's summary.
void ReadSummary(const std::string& path, Setup& setup) {
  std::ifstream in(path);
  if (!in) Fail("cannot read summary " + path);
  auto summary = nlohmann::json::parse(in, nullptr, false);
  if (summary.is_discarded()) Fail(path + ": not valid JSON");
  std::string key = "expected_best_final_" + setup.metric;
  try {
    const auto& k64 = K64(summary);
    if (!k64.contains(key)) Fail(path + ": k = 64 has no " + key);
    setup.target = k64.at(key).get<double>();
    setup.mean_s = MeanSeconds(summary);
  } catch (const std::exception& e) {
    Fail(path + ": " + e.what());
  }
  if (!std::isfinite(setup.target) || !(setup.mean_s > 0))
    Fail(path + ": the target or the mean run seconds is not usable");
}

// The space file's text: a YAML mapping whose only key is search_space.
std::string ReadSpace(const std::string& path) {
  std::ifstream in(path);
  if (!in) Fail("cannot read space " + path);
  std::stringstream text;
  text << in.rdbuf();
  try {
    YAML::Node root = YAML::Load(text.str());
    if (!root.IsMap() || root.size() != 1 || !root["search_space"] ||
        !root["search_space"].IsMap())
      Fail(path + ": expected one key, search_space, holding a mapping");
  } catch (const YAML::Exception& e) {
    Fail(path + ": " + e.what());
  }
  return text.str();
}

// Fails unless some step of the table reports `metric`.
void CheckMetric(const CurveTable& table, const std::string& metric) {
  for (const auto& row : table.rows) {
    for (const auto& step : row.steps)
      if (tuner::core::FindMetric(step.metrics, metric)) return;
  }
  Fail(table.source + ": no step has the metric '" + metric + "'");
}

// The largest time_attr value the table's rows end at.
double TableMaxT(const CurveTable& table, const std::string& time_attr) {
  double max_t = 0;
  for (const auto& row : table.rows) {
    auto t = tuner::core::FindMetric(row.steps.back().metrics, time_attr);
    if (t) max_t = std::max(max_t, *t);
  }
  if (!(max_t > 1)) Fail(table.source + ": its last " + time_attr + " <= 1");
  return max_t;
}

// See Setup::fastest_target_s; infinity where no row reaches the target.
double FastestToTarget(const Setup& setup) {
  double fastest = kInf;
  for (const auto& row : setup.table.rows) {
    const auto& last = row.steps.back().metrics;
    auto t = tuner::core::FindMetric(last, setup.time_attr);
    auto value = tuner::core::FindMetric(last, setup.metric);
    if (row.diverged || !t || *t < setup.max_t || !value) continue;
    if (setup.maximise ? *value < setup.target : *value > setup.target)
      continue;
    double seconds = 0;
    for (const auto& step : row.steps) seconds += step.seconds;
    fastest = std::min(fastest, seconds);
  }
  return fastest;
}

}  // namespace

[[noreturn]] void Fail(const std::string& message) {
  std::fprintf(stderr, "search_quality: %s\n", message.c_str());
  std::exit(2);
}

// Fills the space, metric and mode left unset from the table's file name
// (kProfiles), and the summary from the table's path (X.jsonl[.xz] ->
// X.summary.json). Fails when one stays unset.
void ApplyDefaults(Options& o) {
  if (access(o.table.c_str(), R_OK) != 0)
    Fail("benchmark table not found or unreadable: " + o.table);
  std::string name = BaseName(o.table);
  for (const auto& p : kProfiles) {
    if (name.find(p.name_part) == std::string::npos) continue;
    if (o.space.empty())
      o.space = std::string(SOURCE_DIR) + "/bench/spaces/" + p.space;
    if (o.metric.empty()) o.metric = p.metric;
    if (o.mode.empty()) o.mode = p.mode;
  }
  if (o.summary.empty()) {
    std::string stem = o.table;
    if (EndsWith(stem, ".xz")) stem.resize(stem.size() - 3);
    if (EndsWith(stem, ".jsonl")) stem.resize(stem.size() - 6);
    o.summary = stem + ".summary.json";
  }
  for (auto [value, flag] : {std::pair{&o.space, "--space"},
                             {&o.metric, "--metric"},
                             {&o.mode, "--mode"}}) {
    if (value->empty())
      Fail(name + ": no default " + flag + " for this table; give one");
  }
}

Setup ReadSetup(const Options& o) {
  Setup setup;
  setup.metric = o.metric;
  setup.time_attr = o.time_attr;
  setup.maximise = o.mode == "max";
  setup.table = ReadTable(o.table, o.time_attr);
  if (setup.table.rows.empty()) Fail(o.table + ": no rows");
  CheckMetric(setup.table, o.metric);
  setup.max_t = TableMaxT(setup.table, o.time_attr);
  ReadSummary(o.summary, setup);
  setup.space_text = ReadSpace(o.space);
  setup.e64_s = 64 * setup.mean_s / o.workers;
  setup.horizon_s = o.horizon_factor * setup.e64_s;
  setup.fastest_target_s = FastestToTarget(setup);
  return setup;
}

}  // namespace tuner::bench

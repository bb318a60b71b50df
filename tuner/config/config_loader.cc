#include "tuner/config/config_loader.h"

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <unordered_set>

#include "tuner/base/one_line.h"
#include "tuner/base/small_file.h"
#include "tuner/config/config_overrides.h"
#include "tuner/config/config_sections.h"
#include "tuner/config/config_values.h"
#include "util/utf8_text.h"

namespace tuner {

namespace {

namespace fs = std::filesystem;
using config::Fail;
using config::Path;

// Bounds of numbers that size loops and allocations (docs/config.md).
constexpr int64_t kMaxNumTrials = 10'000'000;
constexpr int64_t kMaxLogCapMb = 1 << 20;  // 1 TiB per log
constexpr int64_t kMaxFailures = 1000;

const std::vector<std::string> kTopKeys = {
    "name",           "command",       "shell",        "metric",
    "mode",           "time_attr",     "search_space", "searcher",
    "num_trials",     "scheduler",     "devices",      "env",
    "workdir",        "trial",         "storage",      "checkpoints",
    "metrics_format", "metrics_regex", "priority",     "preempt",
    "cluster"};

void ReadTrialPolicy(const config::Reader& r, const YAML::Node& node,
                     ExperimentConfig& c) {
  Path path("trial");
  r.Map(node, path);
  r.Keys(node, path,
         {"timeout", "max_failures", "stop_grace", "idle_timeout", "log_cap_mb",
          "orphan_timeout", "fail_fast"});
  if (node["fail_fast"]) {
    c.trial.fail_fast = static_cast<int>(
        r.Int(node["fail_fast"], path / "fail_fast", 0, kMaxNumTrials));
  }
  if (node["idle_timeout"])
    c.trial.idle_timeout =
        r.Duration(node["idle_timeout"], path / "idle_timeout");
  if (node["orphan_timeout"]) {
    c.trial.orphan_timeout =
        r.Duration(node["orphan_timeout"], path / "orphan_timeout");
  }
  if (node["log_cap_mb"]) {
    int64_t mb =
        r.Int(node["log_cap_mb"], path / "log_cap_mb", 1, kMaxLogCapMb);
    c.trial.log_cap = mb << 20;
  }
  if (node["timeout"])
    c.trial.timeout = r.Duration(node["timeout"], path / "timeout");
  if (node["stop_grace"]) {
    c.trial.stop_grace = r.Duration(node["stop_grace"], path / "stop_grace");
  }
  if (node["max_failures"]) {
    c.trial.max_failures = static_cast<int>(
        r.Int(node["max_failures"], path / "max_failures", 0, kMaxFailures));
  }
}

std::string ReadCommand(const config::Reader& r, const YAML::Node& node) {
  if (node.IsScalar()) return r.String(node, Path("command"));
  if (!node.IsSequence() || node.size() == 0) {
    Fail(node, Path("command"), "expected a command line or a list of words");
  }
  std::string joined;  // re-quoted, so that splitting gives the same words
  for (size_t i = 0; i < node.size(); ++i) {
    if (i) joined += ' ';
    joined += ShellQuoteWord(r.String(node[i], Path("command")));
  }
  return joined;
}

void ReadOptional(const config::Reader& r, const YAML::Node& root,
                  ExperimentConfig& c) {
  if (auto n = root["shell"]) c.shell = r.Bool(n, Path("shell"));
  if (auto n = root["time_attr"]) c.time_attr = r.Label(n, Path("time_attr"));
  if (auto n = root["searcher"]) config::ReadSearcher(r, n, c);
  if (auto n = root["scheduler"]) {
    config::ReadScheduler(r, n, c);
  } else {
    c.scheduler.type = core::SchedulerType::kFifo;
  }
  if (auto n = root["devices"]) config::ReadDevices(r, n, c);
  if (auto n = root["cluster"]) config::ReadCluster(r, n, c);
  if (auto n = root["checkpoints"]) config::ReadCheckpoints(r, n, c);
  config::ReadMetricsFormat(r, root, c);
  if (auto n = root["trial"]) ReadTrialPolicy(r, n, c);
  if (auto n = root["storage"]) c.storage = r.String(n, Path("storage"));
  if (auto n = root["priority"]) {
    c.priority = r.Number(n, Path("priority"));
    if (!(c.priority > 0 && c.priority <= 1e6)) {
      Fail(n, Path("priority"), "must be > 0 and <= 1000000");
    }
  }
  if (auto n = root["preempt"]) c.preempt = r.Bool(n, Path("preempt"));
  if (auto n = root["env"]) {
    r.Map(n, Path("env"));
    for (const auto& entry : n) {
      std::string key = entry.first.Scalar();
      if (!config::IsIdentifier(key)) {
        Fail(entry.first, Path("env") / key,
             "environment variable names use letters, digits and '_'");
      }
      c.env.emplace_back(key, r.String(entry.second, Path("env") / key));
      config::CheckPlaceholders(entry.second, Path("env") / key,
                                c.env.back().second, c);
    }
  }
}

void ReadNumTrials(const config::Reader& r, const YAML::Node& root,
                   ExperimentConfig& c) {
  int64_t grid_size = GridSize(c);
  if (auto n = root["num_trials"]) {
    c.num_trials = r.Int(n, Path("num_trials"), 1, kMaxNumTrials);
    if (c.searcher.type == core::SearcherType::kGrid &&
        c.num_trials > grid_size) {
      Fail(n, Path("num_trials"),
           "the grid has only " + std::to_string(grid_size) + " combinations");
    }
  } else if (c.searcher.type == core::SearcherType::kGrid) {
    if (grid_size > kMaxNumTrials) {
      Fail(root["search_space"], Path("num_trials"),
           "the grid has more than " + std::to_string(kMaxNumTrials) +
               " combinations; give num_trials");
    }
    c.num_trials = grid_size;
  } else {
    Fail(root, Path("num_trials"),
         "required with searcher " +
             std::string(core::ToString(c.searcher.type)));
  }
}

std::string ResolveWorkdir(const config::Reader& r, const YAML::Node& root,
                           const std::string& base_dir,
                           const std::string& default_workdir) {
  fs::path workdir = default_workdir;
  auto n = root["workdir"];
  if (n) workdir = fs::path(base_dir) / r.String(n, Path("workdir"));
  std::error_code ec;  // e.g. a component longer than NAME_MAX
  fs::path resolved = fs::absolute(workdir, ec);
  if (!ec) resolved = fs::weakly_canonical(resolved, ec);
  if (ec) {
    Fail(n, Path("workdir"),
         "cannot resolve '" + workdir.string() + "': " + ec.message());
  }
  return resolved.string();
}

ExperimentConfig ReadConfig(const config::Reader& r, const YAML::Node& root,
                            const std::string& base_dir,
                            const std::string& default_workdir) {
  if (!root.IsMap()) Fail(root, Path(""), "expected a mapping of keys");
  r.Map(root, Path(""));
  r.Keys(root, Path(""), kTopKeys);
  ExperimentConfig c;
  c.name = r.String(r.Required(root, Path(""), "name"), Path("name"));
  if (!config::IsName(c.name)) {
    Fail(root["name"], Path("name"), config::kNameRule);
  }
  const YAML::Node& command = r.Required(root, Path(""), "command");
  c.command = ReadCommand(r, command);
  c.metric = r.Label(r.Required(root, Path(""), "metric"), Path("metric"));
  c.mode = r.Enum<core::Mode>(
      r.Required(root, Path(""), "mode"), Path("mode"),
      {{"max", core::Mode::kMax}, {"min", core::Mode::kMin}});
  c.space = config::ReadSpace(r, r.Required(root, Path(""), "search_space"),
                              Path("search_space"));
  // The default searcher; a `searcher.type` replaces it.
  c.searcher.type = config::DefaultSearcherType(c.space);
  ReadOptional(r, root, c);
  // No parameter: every trial runs the same command (repeats; `tuner
  // simulate` draws table rows). Only random search has nothing to model.
  if (c.space.params.empty() && c.searcher.type != core::SearcherType::kRandom)
    Fail(root["search_space"], Path("search_space"),
         "is empty: give parameters, or use searcher random");
  c.scheduler.mode = c.mode;
  ReadNumTrials(r, root, c);
  auto words = SplitCommand(c.command);
  if (!words.ok()) Fail(command, Path("command"), words.message());
  if (words.value().empty()) Fail(command, Path("command"), "is empty");
  config::CheckPlaceholders(command, Path("command"), c.command, c);
  c.workdir = ResolveWorkdir(r, root, base_dir, default_workdir);
  if (!c.seed_given) c.searcher.seed = std::random_device{}();
  c.scheduler.seed = c.searcher.seed;
  return c;
}

}  // namespace

std::string DidYouMean(const std::string& word,
                       const std::vector<std::string>& candidates) {
  // The edit distance is quadratic: a 1 MB unknown name would take minutes.
  constexpr size_t kMaxLength = 64;
  std::string best;
  if (word.size() > kMaxLength) return best;
  size_t best_distance = std::max<size_t>(2, word.size() / 3) + 1;
  for (const auto& candidate : candidates) {
    if (candidate.size() > kMaxLength) continue;
    size_t d = config::EditDistance(word, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

namespace {

// The first line (from 1) holding bytes that are not UTF-8; 0 if none. The
// text is stored as JSON with the experiment, whose encoder throws on them.
size_t FirstNonUtf8Line(const std::string& text) {
  if (util::IsValidUtf8(text)) return 0;
  size_t line = 1;
  for (size_t start = 0; start < text.size(); ++line) {
    size_t end = std::min(text.find('\n', start), text.size());
    if (!util::IsValidUtf8(std::string_view(text).substr(start, end - start)))
      return line;
    start = end + 1;
  }
  return line;
}

// The first line (from 1) holding a control byte other than tab, CR and
// LF; 0 if none. yaml-cpp reads a raw NUL in a plain scalar as an escape
// ("\0e" became ESC), so no check of the parsed text would see it.
size_t FirstControlLine(const std::string& text) {
  size_t line = 1;
  for (unsigned char c : text) {
    if (c == '\n') ++line;
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f)
      return line;
  }
  return 0;
}

// Records where the documents of a YAML stream start; ignores the rest.
class DocumentStarts : public YAML::EventHandler {
 public:
  int line = 0;  // of the last document started, from 1; 0: none
  void OnDocumentStart(const YAML::Mark& mark) override {
    line = mark.line + 1;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

// The line where a second document starts; 0 if there is none. Two parser
// steps at most: YAML::LoadAll of yaml-cpp 0.7 (Debian 12's) loops without
// end on some inputs, adding a null document each turn (its #1319).
int SecondDocumentLine(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStarts starts;
  if (!parser.HandleNextDocument(starts)) return 0;
  starts.line = 0;
  if (!parser.HandleNextDocument(starts)) return 0;
  return starts.line;
}

}  // namespace

core::Result<ExperimentConfig> LoadConfigText(
    const std::string& text, const std::string& origin,
    const std::string& base_dir, const std::string& default_workdir,
    const std::vector<std::string>& overrides) {
  if (size_t line = FirstNonUtf8Line(text)) {
    return core::InvalidArgument(origin + ":" + std::to_string(line) +
                                 ": not UTF-8 text");
  }
  if (size_t line = FirstControlLine(text)) {
    return core::InvalidArgument(
        origin + ":" + std::to_string(line) +
        ": a control character (write it as an escape in a quoted string)");
  }
  try {
    // Valid UTF-8 (checked above): its scalars become names, paths and
    // stored JSON.
    YAML::Node root = YAML::Load(text);
    if (auto status = config::ApplyOverrides(root, overrides); !status.ok())
      return status.error();
    ExperimentConfig config =
        ReadConfig(config::Reader(), root, base_dir, default_workdir);
    if (int line = SecondDocumentLine(text)) {
      return core::InvalidArgument(
          origin + ":" + std::to_string(line) +
          ": a second YAML document ('---'): a config is one document");
    }
    return config;
  } catch (const config::LoadError& e) {
    std::string blamed = config::BlameOverride(e.what(), overrides);
    if (!blamed.empty()) return core::InvalidArgument(OneLine(blamed));
    return core::InvalidArgument(OneLine(origin + ":" + e.what()));
  } catch (const YAML::Exception& e) {
    return core::InvalidArgument(OneLine(origin + ":" +
                                         std::to_string(e.mark.line + 1) +
                                         ": invalid YAML: " + e.msg));
  } catch (const std::exception& e) {
    // A case no check above foresaw: still one line, never an abort.
    return core::InvalidArgument(
        OneLine(origin + ": cannot be loaded: " + e.what()));
  }
}

core::Status CheckWorkdir(const ExperimentConfig& c,
                          const std::string& origin) {
  std::error_code ec;
  if (fs::is_directory(c.workdir, ec)) return core::Status::Ok();
  return core::InvalidArgument(
      OneLine(origin + ": workdir: '" + c.workdir +
              "' is not a directory (trials run there)"));
}

core::Result<ExperimentConfig> LoadConfigFile(
    const std::string& path, const std::string& invocation_dir,
    const std::vector<std::string>& overrides) {
  auto text = ReadSmallFile(path, kMaxConfigBytes);
  if (!text.ok()) return text.error();
  return LoadConfigText(text.value(), path, invocation_dir, invocation_dir,
                        overrides);
}

namespace config {

void CheckPlaceholders(const YAML::Node& node, const Path& path,
                       const std::string& text, const ExperimentConfig& c,
                       const std::vector<std::string>& extra) {
  auto names = Placeholders(text);
  if (!names.ok()) Fail(node, path, names.message());
  std::vector<std::string> known(std::begin(kBuiltinPlaceholders),
                                 std::end(kBuiltinPlaceholders));
  for (const auto& spec : c.space.params) known.push_back(spec.name);
  known.insert(known.end(), extra.begin(), extra.end());
  std::unordered_set<std::string> lookup(known.begin(), known.end());
  for (const auto& name : names.value()) {
    if (name == "max_t" && !c.scheduler.max_t) {
      Fail(node, path, "{max_t} needs scheduler.max_t");
    }
    if (!lookup.count(name)) {
      std::string hint = DidYouMean(name, known);
      Fail(node, path,
           "placeholder {" + name + "} names no parameter" +
               (hint.empty() ? "" : " (did you mean {" + hint + "}?)"));
    }
  }
}

}  // namespace config

int64_t GridSize(const ExperimentConfig& c) {
  // Saturates: 64 two-value axes have 2^64 combinations.
  int64_t grid_size = 1;
  for (const auto& spec : c.space.params) {
    bool axis = spec.distribution == core::Distribution::kGrid ||
                (c.searcher.type == core::SearcherType::kGrid &&
                 spec.distribution == core::Distribution::kChoice);
    auto count = static_cast<int64_t>(spec.values.size());
    if (axis && __builtin_mul_overflow(grid_size, count, &grid_size)) {
      grid_size = std::numeric_limits<int64_t>::max();
    }
  }
  return grid_size;
}

}  // namespace tuner

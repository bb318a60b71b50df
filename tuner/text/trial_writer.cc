#include "tuner/text/trial_writer.h"

#include "tuner/base/clock.h"
#include "tuner/base/one_line.h"
#include "tuner/config/launch_spec.h"
#include "tuner/config/stored_config.h"
#include "tuner/config/trials_root.h"
#include "tuner/text/number_text.h"
#include "tuner/text/trial_command.h"
#include "tuner/text/trial_format.h"

namespace tuner {

namespace {

using storage::ExperimentRecord;
using storage::TrialRecord;

class TableWriter : public TrialWriter {
 public:
  TableWriter(const ExperimentRecord& e, double now)
      : experiment_(e), now_(now) {}
  void Begin(std::ostream& out) override {
    out << TrialsTableHeader(experiment_);
  }
  core::Status Row(const TrialRecord& t, std::ostream& out) override {
    out << TrialsTableRow(t, now_);
    non_finite_ = non_finite_ || NonFinite(t.last_time) ||
                  NonFinite(t.last_value) || NonFinite(t.best_value);
    return core::Status::Ok();
  }
  void End(std::ostream& out, int64_t) override {
    if (non_finite_) out << kNonFiniteFootnote;
    if (!experiment_.reason.empty()) {
      out << "experiment failed because: " << OneLine(experiment_.reason)
          << "\n";
    }
  }

 private:
  ExperimentRecord experiment_;
  double now_;
  bool non_finite_ = false;  // a row showed nan or inf
};

// A JSON array of TrialJson objects, laid out as dump(2) lays out the
// whole array.
class JsonWriter : public TrialWriter {
 public:
  explicit JsonWriter(double now) : now_(now) {}
  void Begin(std::ostream&) override {}
  core::Status Row(const TrialRecord& t, std::ostream& out) override {
    // Text stored by older versions may not be UTF-8: U+FFFD, not a throw.
    std::string item = TrialJson(t, now_).dump(
        2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    std::string text = first_ ? "[\n  " : ",\n  ";
    first_ = false;
    for (char c : item) {
      text += c;
      if (c == '\n') text += "  ";
    }
    out << text;  // one write a row
    return core::Status::Ok();
  }
  void End(std::ostream& out, int64_t rows) override {
    out << (rows == 0 ? "[]\n" : "\n]\n");
  }

 private:
  double now_;
  bool first_ = true;
};

class YamlWriter : public TrialWriter {
 public:
  explicit YamlWriter(double now) : now_(now) {}
  void Begin(std::ostream&) override {}
  core::Status Row(const TrialRecord& t, std::ostream& out) override {
    out << TrialYamlItem(t, now_);
    return core::Status::Ok();
  }
  void End(std::ostream& out, int64_t rows) override {
    if (rows == 0) out << "[]\n";
  }

 private:
  double now_;
};

class CsvWriter : public TrialWriter {
 public:
  CsvWriter(std::vector<std::string> params, double now)
      : params_(std::move(params)), now_(now) {}
  void Begin(std::ostream& out) override { out << TrialsCsvHeader(params_); }
  core::Status Row(const TrialRecord& t, std::ostream& out) override {
    out << TrialCsvRow(t, params_, now_);
    return core::Status::Ok();
  }
  void End(std::ostream&, int64_t) override {}

 private:
  std::vector<std::string> params_;
  double now_;
};

// args: the flags that carry each trial's params; command: its whole
// command line.
class CommandWriter : public TrialWriter {
 public:
  CommandWriter(ExperimentConfig config, std::string trials_root, bool whole)
      : config_(std::move(config)),
        trials_root_(std::move(trials_root)),
        whole_(whole) {}
  void Begin(std::ostream&) override {}
  core::Status Row(const TrialRecord& t, std::ostream& out) override {
    if (!whole_) {
      out << FlagsFor(config_, t.params) << "\n";
      return core::Status::Ok();
    }
    auto line =
        TrialCommandLine(config_, t, trials_root_ + "/" + std::to_string(t.id));
    if (!line.ok()) return line.error();
    out << line.value() << "\n";
    return core::Status::Ok();
  }
  void End(std::ostream&, int64_t) override {}

 private:
  ExperimentConfig config_;
  std::string trials_root_;
  bool whole_;
};

}  // namespace

core::Result<std::unique_ptr<TrialWriter>> MakeTrialWriter(
    storage::TrialStore& store, const ExperimentRecord& e,
    const TrialListing& listing) {
  using Made = std::unique_ptr<TrialWriter>;
  const std::string& format = listing.format;
  double now = listing.now.value_or(UnixNow());
  if (format == "table") return Made(std::make_unique<TableWriter>(e, now));
  if (format == "json") return Made(std::make_unique<JsonWriter>(now));
  if (format == "yaml") return Made(std::make_unique<YamlWriter>(now));
  if (format == "csv") {
    auto names = store.trials().ParamNames(e.id);
    if (!names.ok()) return names.error();
    return Made(std::make_unique<CsvWriter>(std::move(names).value(), now));
  }
  if (format == "args" || format == "command") {
    auto config = LoadStoredConfig(e.config_json, listing.db_path);
    if (!config.ok()) {
      return core::InvalidArgument("experiment '" + e.name +
                                   "': its stored config cannot be read (" +
                                   config.message() + ")");
    }
    auto root = NamedTrialsRoot(e.config_json, listing.db_path, e.name);
    if (!root.ok()) return root.error();
    return Made(std::make_unique<CommandWriter>(
        std::move(config).value(), root.value(), format == "command"));
  }
  return core::InvalidArgument("unknown format '" + format +
                               "' (table, json, yaml, csv, args or command)");
}

}  // namespace tuner

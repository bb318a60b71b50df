// The query verbs' formats: CSV that parses back to the stored values
// whatever text a trial left, JSON written a row at a time with the layout
// of one dump, status as JSON and CSV, best by either rule, and the best
// trial's command line.
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "storage/trial_store.h"
#include "tests/catch.h"
#include "tests/support/csv_reader.h"
#include "tuner/config/config_loader.h"
#include "tuner/config/stored_config.h"
#include "tuner/text/csv.h"
#include "tuner/text/query_text.h"
#include "tuner/text/reports_text.h"
#include "tuner/text/time_text.h"
#include "tuner/text/trial_format.h"

namespace tuner {
namespace {

using storage::ExperimentRecord;
using storage::TrialStore;
using testing::ParseCsv;

const char* kHostile = "a,b \"quoted\"\r\nnext line, \x1b[2J";
// kHostile as CSV shows it: its ESC is U+FFFD, the rest as stored.
const char* kHostileInCsv = "a,b \"quoted\"\r\nnext line, \xEF\xBF\xBD[2J";

const char* kYaml = R"(name: formats
command: python3 train.py --lr {lr} --opt {opt} --out {trial_dir}
metric: acc
mode: max
time_attr: epoch
search_space:
  lr: {type: loguniform, low: 1.0e-4, high: 1.0}
  opt: {type: choice, values: ["sgd", "a b's"]}
num_trials: 3
scheduler: {type: fifo, max_t: 3}
)";

// Three trials: 1 with hostile text in a param and its reason, reports
// with extra metrics; 2 better at the end; 3 pending, no value.
struct Fixture {
  std::unique_ptr<TrialStore> store = TrialStore::Open(":memory:").value();
  ExperimentRecord e;
  std::vector<core::TrialId> ids;

  Fixture() {
    auto config = LoadConfigText(kYaml, "x.yaml", "/base", "/work");
    INFO((config.ok() ? "" : config.message()));
    REQUIRE(config.ok());
    ExperimentRecord record;
    record.name = "formats";
    record.status = core::ExperimentStatus::kRunning;
    record.metric = "acc";
    record.time_attr = "epoch";
    record.config_json = StoredConfigJson(config.value(), kYaml, "/base/x.yaml",
                                          "/base", "/db/tuner.db");
    auto id = store->experiments().Create(record);
    REQUIRE(id.ok());
    ids.push_back(store->trials()
                      .Add(id.value(), 0, {{"lr", 0.1}, {"opt", kHostile}})
                      .value());
    ids.push_back(store->trials()
                      .Add(id.value(), 1, {{"lr", 1.0 / 3}, {"opt", "a b's"}})
                      .value());
    ids.push_back(store->trials().Add(id.value(), 2, {{"lr", 0.5}}).value());
    Report(ids[0], 1, 0.9, {{"loss", 0.25}});
    Report(ids[0], 2, 0.4, {{"grad,norm", 1e300}});
    Report(ids[1], 1, 0.3, {});
    Report(ids[1], 2, 0.8, {});
    REQUIRE(store->trials().MarkRunning(ids[0]).ok());
    REQUIRE(store->trials()
                .Finish(ids[0],
                        {core::TrialStatus::kFailed, 3, kHostile, std::nullopt})
                .ok());
    REQUIRE(store->Commit().ok());
    e = *store->experiments().Find("formats").value();
  }

  void Report(core::TrialId t, int64_t seq, double acc, core::Metrics more) {
    core::Metrics metrics = {{"epoch", double(seq)}, {"acc", acc}};
    metrics.insert(metrics.end(), more.begin(), more.end());
    REQUIRE(store->reports()
                .Append({t, seq, double(seq), acc, metrics}, core::Mode::kMax)
                .ok());
  }

  std::string Trials(const std::string& format) {
    auto text = TrialsText(*store, e, TrialListing{format, "/db/tuner.db"});
    REQUIRE(text.ok());
    return text.value();
  }
};

TEST_CASE("trials as CSV parse back to the stored values, hostile text too",
          "[tuner][query]") {
  Fixture f;
  auto rows = ParseCsv(f.Trials("csv"));
  REQUIRE(rows.size() == 4);
  CHECK(rows[0] == std::vector<std::string>{
                       "id", "status", "params.lr", "params.opt", "last_time",
                       "last_value", "best_value", "attempts", "exit_code",
                       "start", "end", "duration", "reason"});
  auto stored = f.store->trials().List(f.e.id).value();
  for (size_t i = 0; i < stored.size(); ++i) {
    const auto& row = rows[i + 1];
    const auto& t = stored[i];
    REQUIRE(row.size() == rows[0].size());
    CHECK(std::stoll(row[0]) == t.id);
    CHECK(row[1] == core::ToString(t.status));
    CHECK(std::stod(row[2]) == std::get<double>(t.params[0].second));
    CHECK(row[3] == CsvShown(t.params.size() > 1
                                 ? std::get<std::string>(t.params[1].second)
                                 : ""));
    CHECK(row[5] == (t.last_value ? core::FormatDouble(*t.last_value) : ""));
    CHECK(row[12] == CsvShown(t.reason));
  }
  CHECK(rows[1][3] == kHostileInCsv);
  CHECK(rows[1][8] == "3");
  CHECK(rows[1][12] == kHostileInCsv);
  CHECK(rows[1][6] == "0.9");  // best_value: the peak
}

// Viewing a CSV file must not drive the terminal: every control character
// but TAB, CR and LF (C0, DEL, C1 in UTF-8) is U+FFFD; other text stays.
TEST_CASE("CSV fields show control characters as U+FFFD", "[tuner][query]") {
  const std::string fffd = "\xEF\xBF\xBD";
  CHECK(CsvField("key\x1b[2J") == "key" + fffd + "[2J");
  CHECK(CsvField(std::string("a\0b\x07\x7f", 5)) ==
        "a" + fffd + "b" + fffd + fffd);
  CHECK(CsvField("c1 \xC2\x9B"
                 "31m \xC2\x80") == "c1 " + fffd + "31m " + fffd);
  CHECK(CsvField("tab\tok") == "tab\tok");
  CHECK(CsvField("caf\xC3\xA9 \xC2\xA0") == "caf\xC3\xA9 \xC2\xA0");
  CHECK(CsvField("l1\r\nl2,\x1b") == "\"l1\r\nl2," + fffd + "\"");
  CHECK(CsvRecord({"\x1b]0;title\x07", "x"}) ==
        fffd + "]0;title" + fffd + ",x\r\n");
}

TEST_CASE("reports as CSV: every report a row, every metric a column",
          "[tuner][query]") {
  Fixture f;
  auto text = ReportsText(*f.store, f.e, "csv");
  REQUIRE(text.ok());
  auto rows = ParseCsv(text.value());
  REQUIRE(rows.size() == 5);
  CHECK(rows[0] == std::vector<std::string>{"trial", "seq", "attempt", "epoch",
                                            "acc", "loss", "grad,norm",
                                            "created_at"});
  CHECK(rows[1][0] == std::to_string(f.ids[0]));
  CHECK(rows[1][3] == "1");
  CHECK(rows[1][4] == "0.9");
  CHECK(rows[1][5] == "0.25");
  CHECK(rows[1][6] == "");
  CHECK(std::stod(rows[2][6]) == 1e300);
  CHECK(rows[4][0] == std::to_string(f.ids[1]));
  CHECK(rows[4][4] == "0.8");
  CHECK(std::stod(rows[4][7]) > 0);
}

TEST_CASE("reports as JSON: an array or lines of the same objects",
          "[tuner][query]") {
  Fixture f;
  auto array =
      nlohmann::json::parse(ReportsText(*f.store, f.e, "json").value());
  REQUIRE(array.size() == 4);
  CHECK(array[1]["metrics"]["grad,norm"] == 1e300);
  CHECK(array[0]["value"] == 0.9);
  std::string lines = ReportsText(*f.store, f.e, "jsonl").value();
  CHECK(std::count(lines.begin(), lines.end(), '\n') == 4);
  CHECK(nlohmann::json::parse(lines.substr(0, lines.find('\n'))) == array[0]);
  CHECK_FALSE(ReportsText(*f.store, f.e, "xml").ok());
}

TEST_CASE("trials as JSON, a row at a time, lay out as one dump",
          "[tuner][query]") {
  Fixture f;
  nlohmann::ordered_json array = nlohmann::ordered_json::array();
  auto trials = f.store->trials().List(f.e.id).value();
  for (const auto& t : trials) array.push_back(TrialJson(t, 5000));
  auto json = TrialsText(*f.store, f.e, TrialListing{"json", "db", 5000});
  CHECK(json.value() == array.dump(2) + "\n");
  std::string yaml = f.Trials("yaml");
  CHECK(yaml.rfind("- id: ", 0) == 0);
  // Strings stay strings for a YAML 1.1 reader: quoted, as are param names.
  CHECK(yaml.find("  status: \"failed\"\n") != std::string::npos);
  CHECK(yaml.find("    \"opt\": \"a b's\"\n") != std::string::npos);

  TrialStore& store = *f.store;
  ExperimentRecord empty = f.e;
  empty.id = 999;
  CHECK(TrialsText(store, empty, TrialListing{"json"}).value() == "[]\n");
  CHECK(TrialsText(store, empty, TrialListing{"yaml"}).value() == "[]\n");
}

// Trials of "timed" on a store whose clock the test sets: 1 ran from 1000
// to 1100 (a 100 s attempt), 2 runs since 1050, 3 is pending.
struct TimedFixture {
  double clock = 1000;
  std::unique_ptr<TrialStore> store = TrialStore::Open(":memory:").value();
  ExperimentRecord e;
  std::vector<core::TrialId> ids;

  TimedFixture() {
    store->SetTimeSource([this] { return clock; });
    ExperimentRecord record;
    record.name = "timed";
    record.status = core::ExperimentStatus::kRunning;
    record.metric = "acc";
    record.time_attr = "epoch";
    record.config_json = "{}";
    auto id = store->experiments().Create(record).value();
    for (int i = 0; i < 3; ++i)
      ids.push_back(
          store->trials().Add(id, i, {{"lr", 0.1 * (i + 1)}}).value());
    REQUIRE(store->trials().MarkRunning(ids[0]).ok());
    REQUIRE(store->reports()
                .Append({ids[0], 1, 1.0, 0.5, {{"acc", 0.5}}}, core::Mode::kMax)
                .ok());
    clock = 1050;
    REQUIRE(store->trials().MarkRunning(ids[1]).ok());
    REQUIRE(
        store->reports()
            .Append({ids[1], 1, 1.0, 0.25, {{"acc", 0.25}}}, core::Mode::kMax)
            .ok());
    clock = 1100;
    REQUIRE(store->trials()
                .Finish(ids[0],
                        {core::TrialStatus::kCompleted, 0, "", std::nullopt})
                .ok());
    REQUIRE(store->Commit().ok());
    e = *store->experiments().Find("timed").value();
  }

  std::string Trials(const std::string& format) {
    auto text = TrialsText(*store, e, TrialListing{format, "db", 1200});
    REQUIRE(text.ok());
    return text.value();
  }
};

TEST_CASE("trials and best show start, end and duration in every format",
          "[tuner][query]") {
  TimedFixture f;
  auto json = nlohmann::json::parse(f.Trials("json"));
  REQUIRE(json.size() == 3);
  CHECK(json[0]["start"] == 1000);
  CHECK(json[0]["end"] == 1100);
  CHECK(json[0]["duration"] == 100);
  CHECK(json[1]["start"] == 1050);  // running: no end, 150 s so far
  CHECK(json[1]["end"].is_null());
  CHECK(json[1]["duration"] == 150);
  CHECK(json[2]["start"].is_null());  // pending
  CHECK(json[2]["duration"].is_null());

  auto csv = ParseCsv(f.Trials("csv"));
  REQUIRE(csv.size() == 4);
  CHECK(std::vector<std::string>(csv[0].begin() + 8, csv[0].begin() + 11) ==
        std::vector<std::string>{"start", "end", "duration"});
  CHECK(std::vector<std::string>(csv[1].begin() + 8, csv[1].begin() + 11) ==
        std::vector<std::string>{"1000", "1100", "100"});
  CHECK(std::vector<std::string>(csv[2].begin() + 8, csv[2].begin() + 11) ==
        std::vector<std::string>{"1050", "", "150"});

  std::string yaml = f.Trials("yaml");
  CHECK(yaml.find("  start: 1000\n  end: 1100\n  duration: 100\n") !=
        std::string::npos);
  CHECK(yaml.find("  start: 1050\n  end: ~\n  duration: 150\n") !=
        std::string::npos);

  std::string table = f.Trials("table");
  CHECK(table.find("start (UTC)") != std::string::npos);
  // start and end 19 characters wide, the duration right-aligned in 9.
  CHECK(table.find("1970-01-01 00:16:40  1970-01-01 00:18:20  " +
                   std::string(4, ' ') + "1m40s") != std::string::npos);
  CHECK(table.find("1970-01-01 00:17:30  -" + std::string(18 + 2 + 4, ' ') +
                   "2m30s") != std::string::npos);

  BestQuery best;
  best.listing = {"json", "db", 1200};
  auto top = nlohmann::json::parse(BestText(*f.store, f.e, best).value());
  REQUIRE(top.size() == 1);
  CHECK(top[0]["id"] == f.ids[0]);
  CHECK(top[0]["duration"] == 100);
}

TEST_CASE("durations and times read as people write them", "[tuner][query]") {
  CHECK(FormatDuration(0) == "0s");
  CHECK(FormatDuration(59.9) == "59s");
  CHECK(FormatDuration(725) == "12m05s");
  CHECK(FormatDuration(3 * 3600 + 125) == "3h02m05s");
  CHECK(FormatDuration(2 * 86400 + 3 * 3600 + 4 * 60 + 5) == "2d03h04m");
  CHECK(FormatDuration(std::nullopt) == "-");
  CHECK(FormatDuration(-1) == "-");
  CHECK(FormatDuration(1e300) == "-");
  CHECK(FormatUtc(0) == "1970-01-01 00:00:00");
  CHECK(FormatUtc(1e300) == "-");
  CHECK(FormatUtc(std::nullopt) == "-");
}

TEST_CASE("best ranks by the last value or by the best any report reached",
          "[tuner][query]") {
  Fixture f;
  BestQuery query;
  query.listing.format = "csv";
  auto last = ParseCsv(BestText(*f.store, f.e, query).value());
  REQUIRE(last.size() == 2);
  CHECK(last[1][0] == std::to_string(f.ids[1]));  // 0.8 at epoch 2
  query.by = storage::BestBy::kBest;
  auto best = ParseCsv(BestText(*f.store, f.e, query).value());
  REQUIRE(best.size() == 2);
  CHECK(best[1][0] == std::to_string(f.ids[0]));  // 0.9 at epoch 1
}

TEST_CASE("a report table that shows inf or nan says so in a footnote",
          "[tuner][query]") {
  TimedFixture f;
  const std::string note =
      "nan, inf, -inf: the trial reported a non-finite value\n";
  CHECK(f.Trials("table").find(note) == std::string::npos);
  REQUIRE(f.store->reports()
              .Append({f.ids[1], 2, 2.0, -HUGE_VAL, {{"acc", -HUGE_VAL}}},
                      core::Mode::kMax)
              .ok());
  REQUIRE(f.store->Commit().ok());
  // Never a trial's value: trials and best show none, and say nothing.
  std::string trials = f.Trials("table");
  INFO(trials);
  CHECK(trials.find("inf") == std::string::npos);
  CHECK(trials.find(note) == std::string::npos);
  BestQuery query;
  query.top = 3;
  query.listing = TrialListing{"table", "db", 1200};
  CHECK(BestText(*f.store, f.e, query).value().find(note) == std::string::npos);

  std::string reports = ReportsText(*f.store, f.e, "table").value();
  CHECK(reports.find(note) != std::string::npos);
  CHECK(ReportsText(*f.store, f.e, "jsonl").value().find(note) ==
        std::string::npos);
}

TEST_CASE("best as a command line: the template filled and shell-quoted",
          "[tuner][query]") {
  Fixture f;
  BestQuery query;
  query.top = 2;
  query.listing = {"command", "/db/tuner.db"};
  auto text = BestText(*f.store, f.e, query);
  REQUIRE(text.ok());
  CHECK(text.value() ==
        "cd /work && python3 train.py --lr 0.3333333333333333 --opt "
        "'a b'\\''s' --out /db/tuner.db.trials/formats/" +
            std::to_string(f.ids[1]) +
            "\n"
            "cd /work && python3 train.py --lr 0.1 --opt "
            "'a,b \"quoted\"\r\nnext line, \x1b[2J' --out "
            "/db/tuner.db.trials/formats/" +
            std::to_string(f.ids[0]) + "\n");
  ExperimentRecord unreadable = f.e;
  unreadable.config_json = "{}";
  auto refused = BestText(*f.store, unreadable, query);
  CHECK(refused.error().code == core::ErrorCode::kInvalidArgument);
  // A crafted name reaches no folder: no command into "/db/x/<id>".
  ExperimentRecord crafted = f.e;
  crafted.name = "../x";
  auto unsafe = BestText(*f.store, crafted, query);
  REQUIRE_FALSE(unsafe.ok());
  CHECK(unsafe.error().code == core::ErrorCode::kInvalidArgument);
}

TEST_CASE("status as JSON and CSV, a missing experiment is not found",
          "[tuner][query]") {
  Fixture f;
  auto json =
      nlohmann::json::parse(StatusText(*f.store, "", "json", "db").value());
  REQUIRE(json.size() == 1);
  CHECK(json[0]["name"] == "formats");
  CHECK(json[0]["counts"]["pending"] == 2);
  CHECK(json[0]["counts"]["failed"] == 1);
  CHECK(json[0]["best"]["trial"] == f.ids[1]);
  auto csv = ParseCsv(StatusText(*f.store, "formats", "csv", "db").value());
  REQUIRE(csv.size() == 2);
  CHECK(csv[0][0] == "experiment");
  CHECK(csv[1][0] == "formats");
  CHECK(csv[1][4] == "2");  // pending
  auto missing = StatusText(*f.store, "nosuch", "table", "x.db");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == core::ErrorCode::kNotFound);
  CHECK(missing.message() ==
        "no experiment 'nosuch' in x.db (it has: formats)");
}

}  // namespace
}  // namespace tuner

namespace tuner {
namespace {

using testing::ParseCsv;

// Reports whose metric names take the tuner's own column names, start with
// NUL, or start as spreadsheet formulas.
TEST_CASE("reports as CSV: every column named once, none a formula",
          "[tuner][query]") {
  auto store = TrialStore::Open(":memory:").value();
  ExperimentRecord record;
  record.name = "clash";
  record.status = core::ExperimentStatus::kFinished;
  record.metric = "trial";
  record.time_attr = "seq";
  record.config_json = "{}";
  auto id = store->experiments().Create(record).value();
  auto trial = store->trials().Add(id, 0, {{"lr", 0.5}}).value();
  core::Metrics metrics = {{"seq", 3},
                           {"trial", 0.75},
                           {"attempt", 7},
                           {"created_at", 8},
                           {"metrics.attempt", 9},
                           {std::string("\0x", 2), 10},
                           {"=HYPERLINK(\"http://x\")", -0.5},
                           {"+1", 11},
                           {"@SUM(A1)", 12},
                           {"-loss", 13}};
  REQUIRE(store->reports()
              .Append({trial, 1, 3, 0.75, metrics}, core::Mode::kMax)
              .ok());
  REQUIRE(store->Commit().ok());
  auto e = *store->experiments().Find("clash").value();
  auto rows = ParseCsv(ReportsText(*store, e, "csv").value());
  REQUIRE(rows.size() == 2);
  const auto& header = rows[0];
  std::set<std::string> unique(header.begin(), header.end());
  CHECK(unique.size() == header.size());
  for (const auto& name : header) {
    INFO(name);
    CHECK_FALSE(name.empty());
    CHECK(std::string("=+-@").find(name.front()) == std::string::npos);
  }
  // What csv.DictReader gives for each column.
  std::map<std::string, std::string> row;
  for (size_t i = 0; i < header.size(); ++i) row[header[i]] = rows[1][i];
  CHECK(row["trial"] == std::to_string(trial));
  CHECK(row["seq"] == "1");
  CHECK(row["attempt"] == "1");
  CHECK(row["metrics.seq"] == "3");
  CHECK(row["metrics.trial"] == "0.75");
  CHECK(row["metrics.attempt"] == "7");
  CHECK(row["metrics.created_at"] == "8");
  CHECK(row["metrics.metrics.attempt"] == "9");
  CHECK(row["'=HYPERLINK(\"http://x\")"] == "-0.5");  // a number stays one
  CHECK(row["'+1"] == "11");
  CHECK(row["'@SUM(A1)"] == "12");
  CHECK(row["'-loss"] == "13");
  CHECK(std::stod(row["created_at"]) > 0);
}

TEST_CASE("CSV cells: text that starts a formula gets a leading quote",
          "[tuner][query]") {
  CHECK(CsvField("=1+1") == "'=1+1");
  CHECK(CsvField("@cmd") == "'@cmd");
  CHECK(CsvField("+x") == "'+x");
  CHECK(CsvField("-x,y") == "\"'-x,y\"");
  CHECK(CsvField("\tx") == "'\tx");
  CHECK(CsvField("-0.5") == "-0.5");
  CHECK(CsvField("-inf") == "-inf");
  CHECK(CsvField("+1e3") == "'+1e3");  // never a number the tuner writes
  CHECK(CsvField("a=b") == "a=b");
  CHECK(CsvRecord({"-3", "=A1"}) == "-3,'=A1\r\n");
}

}  // namespace
}  // namespace tuner

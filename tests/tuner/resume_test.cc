// Resume loses nothing: every piece of a live trial's state is rebuilt when
// a tuner takes an experiment up again. Each case leaves a sweep the way a
// killed tuner does (its trials go on under their shims: Detach()), or
// stops it gracefully, or writes the state a crash leaves by hand, then
// resumes it in a fresh Sweep and runs it to its end.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include "tests/support/wait_for.h"
#include "tests/tuner/sweep_harness.h"
#include "tuner/config/launch_spec.h"
#include "tuner/sweep/sweep_site.h"

namespace tuner {
namespace {

namespace fs = std::filesystem;
using core::TrialStatus;

constexpr auto kDeadline = std::chrono::seconds(60);

// One experiment's database and trials, and the sweeps run on it.
class Session {
 public:
  explicit Session(std::string yaml) {
    static int counter = 0;
    dir_ = fs::temp_directory_path() /
           ("tuner-resume-" + std::to_string(getpid()) + "-" +
            std::to_string(counter++));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    for (size_t at; (at = yaml.find("TOY")) != std::string::npos;)
      yaml.replace(at, 3, TOY_TRAINER);
    auto config = LoadConfigText(yaml, "test.yaml", dir_, dir_);
    INFO(config.status().message());
    REQUIRE(config.ok());
    config_ = std::move(config).value();
    auto store = storage::TrialStore::Open((dir_ / "tuner.db").string());
    REQUIRE(store.ok());
    store_ = std::move(store).value();
  }
  ~Session() { fs::remove_all(dir_); }

  storage::TrialStore& store() { return *store_; }
  const fs::path& dir() const { return dir_; }
  const ExperimentConfig& config() const { return config_; }

  // Runs a sweep on the experiment (Start() if the database has none, else
  // Resume()) until `until` holds or the sweep ends. If it still runs then,
  // it is left as a SIGKILL leaves it (`interrupt`: stopped gracefully).
  SweepOutcome Run(const std::function<bool()>& until = {},
                   bool interrupt = false) {
    auto pool = SetUpDevices(config_.devices, config_.workdir);
    REQUIRE(pool.ok());
    boost::asio::io_context io;
    NullProgress progress;
    Sweep::Options options =
        SweepSite::Unlocked(config_, "{}", (dir_ / "trials").string())
            .Options(pool.value(), 2, TUNER_SHIM);
    Sweep sweep(io, config_, *store_, progress, options);
    auto experiment = store_->experiments().Find(config_.name).value();
    REQUIRE((experiment ? sweep.Resume(*experiment) : sweep.Start()).ok());
    // Runs the loop until `stop` holds or the sweep has ended.
    auto run_until = [&](const std::string& what,
                         const std::function<bool()>& stop) {
      testing::WaitFor(
          what, kDeadline,
          [&] {
            if (sweep.outcome() != SweepOutcome::kRunning || stop()) {
              return true;
            }
            io.restart();
            io.run_for(std::chrono::milliseconds(10));
            return false;
          },
          std::chrono::milliseconds(0));
    };
    run_until("the sweep to end or the session's condition",
              [&] { return until && until(); });
    if (sweep.outcome() != SweepOutcome::kRunning) return sweep.outcome();
    if (!interrupt) {
      sweep.Detach();
      return SweepOutcome::kRunning;  // as far as the database knows
    }
    sweep.Interrupt(false);
    run_until("the interrupted sweep to end", [] { return false; });
    return sweep.outcome();
  }

  std::vector<storage::TrialRecord> Trials() {
    auto experiment = store_->experiments().Find(config_.name).value();
    REQUIRE(experiment);
    return store_->trials().List(experiment->id).value();
  }
  // Objective reports stored for the only trial.
  std::vector<storage::ReportRecord> Reports() {
    auto trials = Trials();
    REQUIRE(trials.size() == 1);
    auto all = store_->reports().List(trials[0].id).value();
    std::vector<storage::ReportRecord> out;
    for (auto& r : all)
      if (r.value) out.push_back(std::move(r));
    return out;
  }
  // The trial's stdout so far ("" before it has one).
  std::string Stdout() {
    std::error_code ec;
    for (const auto& e : fs::recursive_directory_iterator(dir_ / "trials", ec))
      if (e.path().filename() == "stdout.log") {
        std::ifstream in(e.path());
        std::stringstream text;
        text << in.rdbuf();
        return text.str();
      }
    return "";
  }

 private:
  fs::path dir_;
  ExperimentConfig config_;
  std::unique_ptr<storage::TrialStore> store_;
};

double EpochOf(const storage::ReportRecord& report) {
  return core::FindMetric(report.metrics, "epoch").value_or(-1);
}

TEST_CASE(
    "adopted under time_attr report, each report is stored and judged "
    "once, at its own number",
    "[tuner][resume][process]") {
  Session session(R"(name: count
command: TOY --lr {lr} --epochs 6 --sleep-ms 200
metric: score
mode: max
search_space: {lr: {type: grid, values: [0.01]}}
searcher: {type: grid}
num_trials: 1
scheduler: {type: asha, max_t: 6, grace_period: 2, reduction_factor: 2}
devices: {kind: cpu, slots: 1}
)");
  session.Run([&] { return session.Reports().size() >= 2; });
  REQUIRE(session.Run() == SweepOutcome::kFinished);
  auto trial = session.Trials().at(0);
  CHECK(trial.status == TrialStatus::kCompleted);
  CHECK(trial.attempts == 1);  // adopted, not restarted
  auto reports = session.Reports();
  REQUIRE(reports.size() == 6);
  for (size_t i = 0; i < reports.size(); ++i) {
    CHECK(reports[i].time == static_cast<double>(i + 1));
    CHECK(EpochOf(reports[i]) == static_cast<double>(i + 1));
  }
  auto experiment = session.store().experiments().Find("count").value();
  auto decisions =
      session.store().reports().ListDecisions(experiment->id).value();
  REQUIRE(decisions.size() == 2);  // rungs 2 and 4, on those reports
  for (const auto& d : decisions) {
    INFO("rung " << d.decision.milestone);
    CHECK(d.decision.value ==
          reports.at(static_cast<size_t>(d.decision.milestone) - 1).value);
  }
}

TEST_CASE("a trial that reaches max_t while adopted may exit by itself",
          "[tuner][resume][process]") {
  Session session(R"(name: grace
command: TOY --lr {lr} --epochs 3 --sleep-ms 1000
metric: score
mode: max
time_attr: epoch
search_space: {lr: {type: grid, values: [0.01]}}
searcher: {type: grid}
num_trials: 1
scheduler: {type: fifo, max_t: 2}
devices: {kind: cpu, slots: 1}
trial: {stop_grace: 60s}
)");
  session.Run([&] { return !session.Reports().empty(); });
  // Its max_t report is written while no tuner runs; the next one reads it
  // when it adopts the trial.
  testing::WaitFor("the trial's epoch 2 report", kDeadline, [&] {
    return session.Stdout().find("\"epoch\": 2") != std::string::npos;
  });
  REQUIRE(session.Run() == SweepOutcome::kFinished);
  auto trial = session.Trials().at(0);
  CHECK(trial.status == TrialStatus::kCompleted);
  CHECK(trial.exit_code == 0);  // not SIGTERMed at once
  CHECK(session.Stdout().find("\"epoch\": 3") != std::string::npos);
}

TEST_CASE(
    "a trial that ended while no tuner ran is recorded as ended when it "
    "exited, not when a tuner came back",
    "[tuner][resume][process]") {
  Session session(R"(name: gap
command: TOY --lr {lr} --epochs 2 --sleep-ms 100
metric: score
mode: max
time_attr: epoch
search_space: {lr: {type: grid, values: [0.01]}}
searcher: {type: grid}
num_trials: 1
scheduler: {type: fifo, max_t: 2}
devices: {kind: cpu, slots: 1}
)");
  double offset = 0;  // the store's clock: the system's, then 1000 s on
  session.store().SetTimeSource([&offset] {
    auto now = std::chrono::system_clock::now().time_since_epoch();
    return std::chrono::duration<double>(now).count() + offset;
  });
  session.Run([&] { return !session.Reports().empty(); });
  auto status = AttemptStatusPath(
      (session.dir() / "trials" / std::to_string(session.Trials()[0].id))
          .string(),
      1);
  REQUIRE(
      testing::WaitFor(status, kDeadline, [&] { return fs::exists(status); }));
  REQUIRE(fs::exists(status));
  offset = 1000;  // the next tuner comes back much later
  REQUIRE(session.Run() == SweepOutcome::kFinished);
  auto trial = session.Trials().at(0);
  CHECK(trial.status == TrialStatus::kCompleted);
  REQUIRE(trial.started_at);
  REQUIRE(trial.ended_at);
  CHECK(*trial.ended_at - *trial.started_at < 500);
  CHECK(*trial.ended_at >= *trial.started_at);
}

TEST_CASE("a trial a graceful stop ended runs again on resume",
          "[tuner][resume][process]") {
  Session session(R"(name: again
command: TOY --lr {lr} --epochs 4 --sleep-ms 200
metric: score
mode: max
time_attr: epoch
search_space: {lr: {type: grid, values: [0.01]}}
searcher: {type: grid}
num_trials: 1
scheduler: {type: fifo, max_t: 4}
devices: {kind: cpu, slots: 1}
)");
  CHECK(session.Run([&] { return !session.Reports().empty(); }, true) ==
        SweepOutcome::kInterrupted);
  auto stopped = session.Trials().at(0);
  CHECK(stopped.status == TrialStatus::kPending);
  CHECK(stopped.reason == "interrupted");
  REQUIRE(session.Run() == SweepOutcome::kFinished);
  auto trial = session.Trials().at(0);
  CHECK(trial.status == TrialStatus::kCompleted);
  CHECK(trial.attempts == 2);
  auto reports = session.Reports();
  REQUIRE(reports.size() == 4);  // the repeated ones skipped
  for (size_t i = 0; i < reports.size(); ++i)
    CHECK(reports[i].time == static_cast<double>(i + 1));
}

TEST_CASE("the retries a trial used stay used after a resume",
          "[tuner][resume][process]") {
  Session session(R"(name: retries
command: TOY --lr {lr} --epochs 3 --sleep-ms 200 --crash-at 2
metric: score
mode: max
time_attr: epoch
search_space: {lr: {type: grid, values: [0.01]}}
searcher: {type: grid}
num_trials: 1
scheduler: {type: fifo, max_t: 3}
devices: {kind: cpu, slots: 1}
trial: {max_failures: 1}
)");
  session.Run([&] { return session.Trials().at(0).attempts >= 2; });
  REQUIRE(session.Run() == SweepOutcome::kFinished);
  auto trial = session.Trials().at(0);
  CHECK(trial.status == TrialStatus::kFailed);
  CHECK(trial.attempts == 2);  // one retry, as max_failures says
}

// What a tuner killed between committing a promotion and relaunching the
// promoted trial leaves: two trials paused at rung 1, the better promoted.
// Two trials under promotion ASHA (grace 1, rf 2) that train `max_t`
// epochs, one at a time: the experiment PausedAndPromoted() stores.
std::string PromotedConfig(int max_t) {
  std::string n = std::to_string(max_t);
  return "name: promoted\n"
         "command: TOY --lr {lr} --epochs " +
         n +
         "\n"
         "metric: score\nmode: max\ntime_attr: epoch\n"
         "search_space: {lr: {type: grid, values: [0.01, 1.0]}}\n"
         "searcher: {type: grid}\nnum_trials: 2\n"
         "scheduler: {type: asha, max_t: " +
         n +
         ", grace_period: 1, reduction_factor: 2, mode: promotion}\n"
         "devices: {kind: cpu, slots: 1}\n";
}

void PausedAndPromoted(storage::TrialStore& store) {
  storage::ExperimentRecord record;
  record.name = "promoted";
  record.status = core::ExperimentStatus::kRunning;
  record.metric = "score";
  record.time_attr = "epoch";
  record.max_t = 2;
  record.config_json = "{}";
  auto experiment = store.experiments().Create(record).value();
  double values[] = {0.5, 0.2};
  for (int i = 0; i < 2; ++i) {
    core::Params params = {{"lr", i == 0 ? 0.01 : 1.0}};
    core::TrialId id = store.trials().Add(experiment, i, params).value();
    REQUIRE(store.trials().MarkRunning(id).ok());
    storage::ReportRecord report{
        id, 1, 1.0, values[i], {{"epoch", 1}, {"score", values[i]}}, 1, 30};
    REQUIRE(store.reports().Append(report, core::Mode::kMax).ok());
    core::RungDecision pause;
    pause.milestone = 1;
    pause.value = values[i];
    pause.rank = i + 1;
    pause.n = i + 1;
    pause.verdict = core::RungVerdict::kPause;
    REQUIRE(store.reports().AppendDecision({id, pause}).ok());
    storage::TrialEnd end{TrialStatus::kPaused, 0, "paused at rung 1", 1.0};
    REQUIRE(store.trials().Finish(id, end).ok());
  }
  core::RungDecision promote;
  promote.milestone = 1;
  promote.value = values[0];
  promote.rank = 1;
  promote.n = 2;
  promote.verdict = core::RungVerdict::kPromote;
  auto trials = store.trials().List(experiment).value();
  REQUIRE(store.reports().AppendDecision({trials.at(0).id, promote}).ok());
  REQUIRE(store.Commit().ok());
}

TEST_CASE("a promotion committed before its relaunch survives a crash",
          "[tuner][resume][process]") {
  Session session(PromotedConfig(2));
  PausedAndPromoted(session.store());
  REQUIRE(session.Run() == SweepOutcome::kFinished);
  auto trials = session.Trials();
  REQUIRE(trials.size() == 2);
  INFO(trials[0].reason);
  CHECK(trials[0].status == TrialStatus::kCompleted);
  CHECK(trials[0].attempts == 2);
  CHECK(trials[0].last_time == 2);
  CHECK(trials[1].status == TrialStatus::kStopped);  // never promoted
}

// A tuner recorded a promoted trial's relaunch (attempt 2 running) and died
// before starting it. The next tuner finds no shim, and the status attempt
// 1's shim left (exit 143, from its pause) is not attempt 2's end: the trial
// runs again and completes.
TEST_CASE(
    "a relaunch recorded but never started runs, attempt 1's end is "
    "not its end",
    "[tuner][resume][process]") {
  Session session(PromotedConfig(2));
  PausedAndPromoted(session.store());
  auto first = session.Trials().at(0);
  REQUIRE(session.store().trials().MarkRunning(first.id).ok());  // attempt 2
  REQUIRE(session.store().Commit().ok());
  fs::path trial_dir = session.dir() / "trials" / std::to_string(first.id);
  fs::create_directories(trial_dir);
  std::ofstream(AttemptStatusPath(trial_dir.string(), 1))
      << R"({"exit_code": 143})";
  REQUIRE(session.Run() == SweepOutcome::kFinished);
  auto trials = session.Trials();
  REQUIRE(trials.size() == 2);
  INFO(trials[0].reason);
  CHECK(trials[0].status == TrialStatus::kCompleted);
  CHECK(trials[0].last_time == 2);
}

// Attempt 2 of a promoted trial paused at rung 2, was promoted again while
// that pause was under way, and the tuner died before the attempt's exit.
// The next tuner sees that the pausing attempt was attempt 2 (the reports'
// attempt numbers, read back from the store) and runs the trial again: the
// SIGTERM's exit 143 is the pause's, not a crash that fails the trial.
TEST_CASE(
    "promoted while attempt 2's pause was under way, a crash later it runs "
    "again",
    "[tuner][resume][process]") {
  Session session(PromotedConfig(4));
  PausedAndPromoted(session.store());
  auto& store = session.store();
  auto first = session.Trials().at(0);
  REQUIRE(store.trials().MarkRunning(first.id).ok());  // attempt 2
  storage::ReportRecord report{
      first.id, 2, 2.0, 0.6, {{"epoch", 2}, {"score", 0.6}}, 2, 30};
  REQUIRE(store.reports().Append(report, core::Mode::kMax).ok());
  core::RungDecision rung2{0, 1, 2.0, 0.6, 1, 1, core::RungVerdict::kPause};
  REQUIRE(store.reports().AppendDecision({first.id, rung2}).ok());
  rung2.verdict = core::RungVerdict::kPromote;
  REQUIRE(store.reports().AppendDecision({first.id, rung2}).ok());
  REQUIRE(store.Commit().ok());
  fs::path trial_dir = session.dir() / "trials" / std::to_string(first.id);
  fs::create_directories(trial_dir);
  std::ofstream(AttemptStatusPath(trial_dir.string(), 2))
      << R"({"exit_code": 143, "stop_requested": true})";
  REQUIRE(session.Run() == SweepOutcome::kFinished);
  auto trials = session.Trials();
  REQUIRE(trials.size() == 2);
  INFO(trials[0].reason);
  CHECK(trials[0].status == TrialStatus::kCompleted);
  CHECK(trials[0].attempts == 3);
  CHECK(trials[0].last_time == 4);
}

}  // namespace
}  // namespace tuner

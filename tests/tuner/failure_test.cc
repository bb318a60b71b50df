// Trials that fail in the ways accelerators fail, that hang, that flood
// their output; a database that fills up. Scripted trials (no process, a
// manual clock) but for the flood, which is about the runner's log cap.
#include "tests/catch.h"
#include "tests/tuner/sweep_harness.h"
#include "trial_runner/output/failure_class.h"

namespace tuner::testing {
namespace {

using core::TrialStatus;

TEST_CASE("failures are classified by what the stacks print", "[failure]") {
  using runner::ClassifyFailure;
  using runner::FailureClass;
  CHECK(ClassifyFailure("Traceback ...\nRuntimeError: synStatus=8 [Device "
                        "not found] Device acquire failed.\n")
            .kind == FailureClass::kDeviceAcquire);
  CHECK(ClassifyFailure("2025-Jan-01 ERROR  NRT:nrt_allocate_neuron_cores  "
                        "NeuronCore(s) not available - Requested:nc1-nc1 "
                        "Available:0")
            .kind == FailureClass::kDeviceAcquire);
  CHECK(ClassifyFailure("RuntimeError: CUDA error: all CUDA-capable devices "
                        "are busy or unavailable")
            .kind == FailureClass::kDeviceAcquire);
  auto oom = ClassifyFailure(
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 "
      "GiB. GPU 0 has a total capacity of 39.39 GiB\n");
  CHECK(oom.kind == FailureClass::kOutOfMemory);
  CHECK(oom.line.find("Tried to allocate") != std::string::npos);
  CHECK(ClassifyFailure("ValueError: bad learning rate\n").kind ==
        FailureClass::kOther);
}

const char* kTrial = R"(name: NAME
command: COMMAND
metric: score
mode: max
time_attr: epoch
search_space: {lr: {type: uniform, low: 0.1, high: 0.9}}
num_trials: TRIALS
)";

// `trials` trials of `command` (a YAML value), then the `extra` lines.
std::string SweepYaml(const std::string& name, const std::string& command,
                      int trials, const std::string& extra) {
  std::string yaml = kTrial;
  yaml.replace(yaml.find("NAME"), 4, name);
  yaml.replace(yaml.find("COMMAND"), 7, command);
  yaml.replace(yaml.find("TRIALS"), 6, std::to_string(trials));
  return yaml + extra;
}

// A shell trial: `body` is one line of sh.
std::string Config(const std::string& name, const std::string& body, int trials,
                   const std::string& extra) {
  std::string escaped;  // {{ and }}: literal braces in a command
  for (char c : body) {
    escaped += c;
    if (c == '{' || c == '}') escaped += c;
  }
  return SweepYaml(name, "|\n  " + escaped + "\nshell: true", trials, extra);
}

// A scripted trial (ScriptedRunner): the command is never run.
std::string Scripted(const std::string& name, int trials,
                     const std::string& extra) {
  return SweepYaml(name, "/bin/true --lr {lr}", trials, extra);
}

// Exits 1 at once with `stderr_text`.
TrialScript Failing(std::string stderr_text) {
  TrialScript script;
  script.exit_code = 1;
  script.stderr_text = std::move(stderr_text);
  return script;
}

TrialScript OneReport(double score) {
  TrialScript script;
  script.reports = {{{"epoch", 1}, {"score", score}}};
  return script;
}

TEST_CASE("a busy device is retried on another one, not counted", "[failure]") {
  auto result = RunScripted(
      Scripted("busy-device", 1,
               "devices: {kind: cpu, slots: 2}\ntrial: {max_failures: 0}\n"),
      [](const runner::TrialLaunch&, int attempt) {
        if (attempt > 1) return OneReport(0.5);
        return Failing(
            "RuntimeError: synStatus=8 [Device not found] Device acquire "
            "failed.\n");
      });
  REQUIRE(result.trials.size() == 1);
  CHECK(result.trials[0].status == TrialStatus::kCompleted);
  CHECK(result.trials[0].attempts == 2);
  auto leases = result.store->leases().List(result.experiment.id).value();
  REQUIRE(leases.size() == 2);
  CHECK(leases[0].devices != leases[1].devices);
}

TEST_CASE("out of memory fails at once, with the message", "[failure]") {
  int starts = 0;
  auto result = RunScripted(
      Scripted("oom", 1,
               "devices: {kind: cpu, slots: 1}\ntrial: {max_failures: 3}\n"),
      [&starts](const runner::TrialLaunch&, int) {
        ++starts;
        return Failing(
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
            "2.00 GiB\n");
      });
  REQUIRE(result.trials.size() == 1);
  CHECK(result.trials[0].status == TrialStatus::kFailed);
  CHECK(result.trials[0].attempts == 1);
  CHECK(starts == 1);
  CHECK(result.trials[0].reason ==
        "exit code 1, out of memory: torch.OutOfMemoryError: CUDA out of "
        "memory. Tried to allocate 2.00 GiB");
}

TEST_CASE(
    "a trial that reports up to max_t and then exits non-zero fails, its "
    "reports kept, without a retry",
    "[failure]") {
  auto result = RunScripted(
      Scripted("fails-at-end", 1,
               "devices: {kind: cpu, slots: 1}\ntrial: {max_failures: 2}\n"
               "scheduler: {type: asha, max_t: 2, grace_period: 1}\n"),
      [](const runner::TrialLaunch&, int) {
        TrialScript script;
        script.reports = {{{"epoch", 1}, {"score", 0.25}},
                          {{"epoch", 2}, {"score", 0.5}}};
        script.exit_code = 3;
        script.stderr_text = "RuntimeError: could not save the model\n";
        return script;
      });
  REQUIRE(result.trials.size() == 1);
  const auto& trial = result.trials[0];
  CHECK(trial.status == TrialStatus::kFailed);
  CHECK(trial.exit_code == 3);
  CHECK(trial.reason == "exit code 3: RuntimeError: could not save the model");
  CHECK(trial.attempts == 1);
  CHECK(trial.last_time == 2);
  CHECK(trial.last_value == 0.5);
}

TEST_CASE("a failed trial's reason quotes its last meaningful stderr line",
          "[failure]") {
  auto result = RunScripted(
      Scripted("last-line", 1, "devices: {kind: cpu, slots: 1}\n"),
      [](const runner::TrialLaunch&, int) {
        return Failing(
            "Traceback (most recent call last):\n  File \"t.py\", line 3, "
            "in <module>\n    s.bind((\"\", 29500))\nOSError: [Errno 98] "
            "Address already in use\n\n");
      });
  REQUIRE(result.trials.size() == 1);
  CHECK(result.trials[0].status == TrialStatus::kFailed);
  CHECK(result.trials[0].reason ==
        "exit code 1: OSError: [Errno 98] Address already in use");
}

TEST_CASE("a trial silent for idle_timeout is stopped", "[failure]") {
  auto result = RunScripted(
      Scripted("idle", 1,
               "devices: {kind: cpu, slots: 1}\ntrial: {idle_timeout: 300ms, "
               "stop_grace: 200ms}\n"),
      [](const runner::TrialLaunch&, int) {
        TrialScript script = OneReport(0.5);
        script.step = std::chrono::milliseconds(100);
        script.exit_code.reset();  // then silent, for ever
        return script;
      });
  REQUIRE(result.trials.size() == 1);
  CHECK(result.trials[0].status == TrialStatus::kFailed);
  CHECK(result.trials[0].reason == "no output for 0.3 s");
  CHECK(result.trials[0].last_time == 1);
  // Ended 0.3 s after its one report (at 0.1 s), not waited for.
  CHECK(result.seconds == Approx(0.4));
}

// The same through a real shim, which is what enforces idle_timeout.
TEST_CASE("a real trial silent for idle_timeout is stopped by its shim",
          "[failure][process]") {
  auto result = RunSweep(
      Config("idle-shim", "echo '{\"epoch\": 1, \"score\": 0.5}'; sleep 30", 1,
             "devices: {kind: cpu, slots: 1}\ntrial: {idle_timeout: 300ms, "
             "stop_grace: 200ms}\n"));
  REQUIRE(result.trials.size() == 1);
  CHECK(result.trials[0].status == TrialStatus::kFailed);
  CHECK(result.trials[0].reason == "no output for 0.3 s");
}

long PeakRssKb() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  }
  return 0;
}

TEST_CASE("1 GB of output: bounded memory, capped logs, metrics kept",
          "[failure][process]") {
  long before = PeakRssKb();
  auto result = RunSweep(
      Config("flood",
             "yes 'loss going down, all good, nothing to parse here' | head -c "
             "1000000000; echo; echo '{\"epoch\": 1, \"score\": 0.75}'",
             1, "devices: {kind: cpu, slots: 1}\ntrial: {log_cap_mb: 1}\n"));
  REQUIRE(result.trials.size() == 1);
  CHECK(result.trials[0].status == TrialStatus::kCompleted);
  CHECK(result.trials[0].last_value == 0.75);
  auto log = result.dir / "trials" / std::to_string(result.trials[0].id) /
             "stdout.log";
  CHECK(std::filesystem::file_size(log) < (2u << 20));
  CHECK(PeakRssKb() - before < 64 * 1024);  // the tuner's own memory
}

TEST_CASE("a full database stops the sweep cleanly, the file stays sound",
          "[failure]") {
  // The disk fills at some write of a trial's life: whichever it is, every
  // trial's end is recorded (from the pages set aside for it).
  int limit = GENERATE(range(30, 54, 2));
  INFO("pages: " << limit);
  // random: any searcher does here, and gp's fits over 200 trials would
  // triple the test's time.
  auto result = RunScripted(
      Scripted("full", 200,
               "devices: {kind: cpu, slots: 2}\nsearcher: {type: random}\n"),
      [](const runner::TrialLaunch&, int) {
        TrialScript script;
        for (int i = 1; i <= 8; ++i)
          script.reports.push_back({{"epoch", i}, {"score", i / 10.0}});
        return script;
      },
      {},
      [limit](storage::TrialStore& store) {
        REQUIRE(store.LimitPages(limit).ok());
      });
  CHECK(result.outcome == SweepOutcome::kFailed);
  CHECK(result.trials.size() < 200);
  CHECK(result.store->IntegrityCheck().value() == "ok");
  for (const auto& trial : result.trials) {
    INFO("trial " << trial.id << " index " << trial.index << " reason "
                  << trial.reason << " attempts " << trial.attempts << " of "
                  << result.trials.size());
    CHECK(trial.status != TrialStatus::kRunning);
  }
}

}  // namespace
}  // namespace tuner::testing

#include "trial_runner/processes/local_runner.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "tests/catch.h"
#include "tests/support/wait_for.h"
#include "trial_runner/processes/shim_launch.h"
#include "util/lock_file.h"

namespace tuner::runner {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

// Collects what the runner reports; stops the loop after `expected` exits.
class Recorder : public RunnerObserver {
 public:
  Recorder(boost::asio::io_context& io, int expected)
      : io_(io), expected_(expected) {}
  void OnMetrics(core::TrialId trial, core::Metrics metrics, int64_t) override {
    metrics_[trial].push_back(std::move(metrics));
  }
  void OnExit(core::TrialId trial, const TrialExit& exit) override {
    exits_[trial] = exit;
    if (static_cast<int>(exits_.size()) == expected_) io_.stop();
  }
  std::map<core::TrialId, std::vector<core::Metrics>> metrics_;
  std::map<core::TrialId, TrialExit> exits_;

 private:
  boost::asio::io_context& io_;
  int expected_;
};

struct Fixture {
  Fixture()
      : dir(fs::temp_directory_path() /
            ("tuner-runner-" + std::to_string(getpid()))) {
    fs::create_directories(dir);
  }
  ~Fixture() { fs::remove_all(dir); }

  TrialLaunch Launch(core::TrialId id, std::vector<std::string> args) {
    TrialLaunch launch;
    launch.trial = id;
    launch.spawn.argv = {TOY_TRAINER};
    launch.spawn.argv.insert(launch.spawn.argv.end(), args.begin(), args.end());
    launch.spawn.stdout_path = dir / (std::to_string(id) + ".out");
    launch.spawn.stderr_path = dir / (std::to_string(id) + ".err");
    launch.stop_grace = milliseconds(200);
    return launch;
  }
  fs::path dir;
};

TEST_CASE("runner delivers the metrics of every output format",
          "[runner][process]") {
  Fixture f;
  boost::asio::io_context io;
  Recorder recorder(io, 4);
  LocalRunner runner(io, recorder, {TUNER_SHIM, "", {}});
  const char* formats[] = {"json", "hf", "hf-quoted", "tune"};
  for (int i = 0; i < 4; ++i) {
    REQUIRE(runner
                .Start(f.Launch(i, {"--epochs", "3", "--format", formats[i],
                                    "--quality", "0.8"}))
                .ok());
  }
  CHECK(runner.running() == 4);
  io.run_for(std::chrono::seconds(20));
  REQUIRE(recorder.exits_.size() == 4);
  CHECK(recorder.metrics_[0].size() == 3);
  CHECK(recorder.metrics_[1].size() == 6);  // a loss line and an eval line
  CHECK(core::FindMetric(recorder.metrics_[1][1], "eval_score") == 0.4);
  CHECK(core::FindMetric(recorder.metrics_[2][2], "eval_score") == 0.6);
  CHECK(core::FindMetric(recorder.metrics_[3][0], "score") == 0.4);
  for (auto& [id, exit] : recorder.exits_) CHECK(exit.exit_code == 0);
  CHECK(runner.running() == 0);
}

TEST_CASE("runner passes env and cwd and reports crashes",
          "[runner][process]") {
  Fixture f;
  boost::asio::io_context io;
  Recorder recorder(io, 1);
  LocalRunner runner(io, recorder, {TUNER_SHIM, "", {}});
  auto launch = f.Launch(1, {"--crash-at", "2", "--env-file", "env.txt"});
  launch.spawn.env = {{"TUNER_TEST_VAR", "a b;$c"}};
  launch.spawn.cwd = f.dir;
  REQUIRE(runner.Start(launch).ok());
  io.run_for(std::chrono::seconds(20));
  REQUIRE(recorder.exits_.count(1));
  CHECK(recorder.exits_[1].exit_code == 3);
  CHECK(recorder.metrics_[1].size() == 2);
  std::ifstream env(f.dir / "env.txt");
  std::stringstream text;
  text << env.rdbuf();
  CHECK(text.str().find("\nTUNER_TEST_VAR=a b;$c\n") != std::string::npos);
}

// `tuner` ignores SIGPIPE (main.cc); its shim does too. A trial must not
// inherit that: `python train.py | head` inside it must end as it would in
// a shell. The trial prints its ignored-signal mask.
TEST_CASE(
    "a trial starts with SIGPIPE at its default though the tuner "
    "ignores it",
    "[runner][process]") {
  struct sigaction ignore {
  }, saved{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &saved);
  Fixture f;
  boost::asio::io_context io;
  Recorder recorder(io, 1);
  LocalRunner runner(io, recorder, {TUNER_SHIM, "", {}});
  TrialLaunch launch = f.Launch(1, {});
  launch.spawn.argv = {"sh", "-c", "grep SigIgn /proc/self/status"};
  REQUIRE(runner.Start(launch).ok());
  io.run_for(std::chrono::seconds(20));
  sigaction(SIGPIPE, &saved, nullptr);
  REQUIRE(recorder.exits_.count(1));
  std::ifstream out(launch.spawn.stdout_path);
  std::string label, mask;
  out >> label >> mask;
  REQUIRE(label == "SigIgn:");
  unsigned long long ignored = std::stoull(mask, nullptr, 16);
  CHECK((ignored & (1ULL << (SIGPIPE - 1))) == 0);
}

TEST_CASE("a trial whose status.json is lost is not said to be killed",
          "[runner][process]") {
  Fixture f;
  boost::asio::io_context io;
  Recorder recorder(io, 1);
  LocalRunner runner(io, recorder, {TUNER_SHIM, "", {}});
  // The trial exits 0, but its status cannot be written: its directory is
  // gone (as after a full disk, the file is not there to read).
  auto gone = f.Launch(1, {"--epochs", "1"});
  gone.status_path = (f.dir / "removed" / "status.json").string();
  REQUIRE(runner.Start(gone).ok());
  io.run_for(std::chrono::seconds(60));
  REQUIRE(recorder.exits_.count(1));
  const TrialExit& exit = recorder.exits_[1];
  INFO(exit.lost_why);
  CHECK(exit.cause == EndCause::kLost);
  CHECK(exit.signal == 0);  // no cause invented
  CHECK_FALSE(exit.exit_code.has_value());
  CHECK(exit.lost_why.find("no " + gone.status_path) == 0);
}

TEST_CASE(
    "a status file says how the trial ended only as a shim writes it, and "
    "never after its shim was killed",
    "[runner]") {
  Fixture f;
  std::string path = (f.dir / "status.json").string();
  auto read = [&path](const std::string& text, int shim_status = -1) {
    std::ofstream(path) << text;
    return ReadShimStatus(path, shim_status);
  };
  // Neither an exit code 0-255 nor a signal 1-64: what ended is unknown.
  for (const char* text :
       {R"({"exit_code": "0", "signal": 1e99})", R"({"exit_code": -5})",
        R"({"exit_code": 4294967296})", R"({"signal": 999999999999})",
        R"({"timed_out": true})"}) {
    INFO(text);
    TrialExit exit = read(text);
    CHECK(exit.cause == EndCause::kLost);
    CHECK_FALSE(exit.exit_code);
    CHECK(exit.signal == 0);
  }
  // Other fields of another type are ignored, never thrown on.
  TrialExit odd = read(
      R"({"exit_code": 0, "timed_out": 1, "idle": "yes",
          "stop_requested": [true], "ended_at": "soon"})");
  CHECK(odd.cause == EndCause::kExited);
  CHECK(odd.exit_code == 0);
  CHECK_FALSE(odd.stop_requested);
  CHECK_FALSE(odd.ended_at);
  TrialExit fine = read(
      R"({"exit_code": 3, "stop_requested": true, "ended_at": 1700000000.5})");
  CHECK(fine.exit_code == 3);
  CHECK(fine.stop_requested);
  CHECK(fine.ended_at == 1700000000.5);
  // The shim died by SIGKILL: a status there was written by the trial.
  TrialExit planted = read(R"({"exit_code": 0})", SIGKILL);
  CHECK(planted.cause == EndCause::kLost);
  CHECK_FALSE(planted.exit_code);
  CHECK(planted.lost_why == "its shim was killed by signal 9");
}

TEST_CASE("runner stops and escalates to SIGKILL and times out",
          "[runner][process]") {
  Fixture f;
  boost::asio::io_context io;
  Recorder recorder(io, 3);
  LocalRunner runner(io, recorder, {TUNER_SHIM, "", {}});
  REQUIRE(runner.Start(f.Launch(1, {"--hang-at", "1"})).ok());
  REQUIRE(
      runner.Start(f.Launch(2, {"--hang-at", "1", "--ignore-sigterm"})).ok());
  auto timed = f.Launch(3, {"--hang-at", "1"});
  timed.timeout = milliseconds(300);
  REQUIRE(runner.Start(timed).ok());
  // Stop the first two once each has reported its first epoch.
  boost::asio::steady_timer poll_timer(io);
  std::function<void()> stop_when_ready = [&] {
    if (recorder.metrics_[1].size() && recorder.metrics_[2].size()) {
      runner.Stop(1);
      runner.Stop(2);
      return;
    }
    poll_timer.expires_after(milliseconds(10));
    poll_timer.async_wait([&](auto) { stop_when_ready(); });
  };
  stop_when_ready();
  auto start = std::chrono::steady_clock::now();
  io.run_for(std::chrono::seconds(20));
  REQUIRE(recorder.exits_.size() == 3);
  CHECK(recorder.exits_[1].signal == SIGTERM);
  CHECK(recorder.exits_[1].stop_requested);
  CHECK(recorder.exits_[2].signal == SIGKILL);  // after the 200 ms grace
  CHECK(recorder.exits_[3].cause == EndCause::kTimedOut);
  CHECK(recorder.exits_[3].signal == SIGTERM);
  // Well within io.run_for's 20 s: the grace and the timeout were enforced.
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(15));
}

TEST_CASE("runner kills what a trial leaves in its process group",
          "[runner][process]") {
  Fixture f;
  boost::asio::io_context io;
  Recorder recorder(io, 1);
  LocalRunner runner(io, recorder, {TUNER_SHIM, "", {}});
  TrialLaunch launch = f.Launch(1, {});
  std::string pid_file = f.dir / "child.pid";
  launch.spawn.argv = {"/bin/sh", "-c",
                       "sleep 100 & echo $! > " + pid_file + "; exit 0"};
  REQUIRE(runner.Start(launch).ok());
  io.run_for(std::chrono::seconds(20));
  REQUIRE(recorder.exits_.count(1));
  int pid = 0;
  std::ifstream(pid_file) >> pid;
  REQUIRE(pid > 0);
  // SIGKILL is asynchronous: within 2 s the child is gone, or a zombie
  // waiting for init to reap it; never still running.
  auto running = [pid] {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string pid_text, comm, state;
    return static_cast<bool>(stat >> pid_text >> comm >> state) && state != "Z";
  };
  testing::WaitFor(
      "the SIGKILLed child to end", std::chrono::seconds(2),
      [&] { return !running(); }, milliseconds(5));
  CHECK_FALSE(running());
}

TEST_CASE("runner refuses a command it cannot execute", "[runner][process]") {
  Fixture f;
  boost::asio::io_context io;
  Recorder recorder(io, 1);
  LocalRunner runner(io, recorder, {TUNER_SHIM, "", {}});
  TrialLaunch launch = f.Launch(1, {});
  launch.spawn.argv = {"/nonexistent/train.py"};
  core::Status status = runner.Start(launch);
  REQUIRE_FALSE(status.ok());
  CHECK(status.message().find("cannot execute '/nonexistent/train.py'") !=
        std::string::npos);
  CHECK(runner.running() == 0);
}

TEST_CASE("a shim whose tuner is gone stops its trial after orphan_timeout",
          "[runner][process]") {
  Fixture f;
  boost::asio::io_context io;
  Recorder recorder(io, 1);
  // Nobody holds this lock: the tuner that started the shim "died".
  std::string lock = (f.dir / "tuner.lock").string();
  LocalRunner runner(io, recorder,
                     {TUNER_SHIM, lock, std::chrono::milliseconds(300)});
  auto launch = f.Launch(1, {"--hang-at", "1"});
  REQUIRE(runner.Start(launch).ok());
  auto start = std::chrono::steady_clock::now();
  io.run_for(std::chrono::seconds(20));
  REQUIRE(recorder.exits_.count(1));
  CHECK(recorder.exits_[1].cause == EndCause::kOrphaned);
  CHECK(recorder.exits_[1].signal == SIGTERM);
  // The trial hangs forever: only the 300 ms orphan stop ends it.
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(15));
}

TEST_CASE("a detached trial keeps running and can be adopted",
          "[runner][process]") {
  Fixture f;
  auto launch = f.Launch(1, {"--epochs", "4", "--sleep-ms", "150"});
  launch.status_path = (f.dir / "1.status").string();
  pid_t shim = -1;
  {
    boost::asio::io_context io;
    Recorder recorder(io, 1);
    LocalRunner runner(io, recorder, {TUNER_SHIM, "", {}});
    REQUIRE(runner.Start(launch).ok());
    io.run_for(std::chrono::milliseconds(200));
    shim = runner.ShimPid(1);
    runner.Detach();  // as a tuner that exits with --detach, or dies
  }
  REQUIRE(shim > 0);
  CHECK(ProcessStartTime(shim).has_value());  // it outlived its runner
  boost::asio::io_context io;
  Recorder recorder(io, 1);
  LocalRunner runner(io, recorder, {TUNER_SHIM, "", {}});
  Adoption adoption;
  adoption.trial = 1;
  adoption.shim_pid = shim;
  adoption.launch = launch;
  REQUIRE(runner.Adopt(adoption).ok());
  io.run_for(std::chrono::seconds(20));
  REQUIRE(recorder.exits_.count(1));
  CHECK(recorder.exits_[1].exit_code == 0);
  CHECK(recorder.metrics_[1].size() == 4);  // read from the start: offset 0
  waitpid(shim, nullptr, 0);                // it is this test's child: reap it
}

// A tuner SIGKILLed, its project folder moved (`mv A D`), resumed in D: the
// shim writes its status into D and sees D's tuner holding the lock, so the
// trial ends as it exited, neither "status lost" nor orphaned.
TEST_CASE(
    "a trial whose folder is moved while it runs is adopted there, and a "
    "copy's runner leaves it alone",
    "[runner][process]") {
  Fixture f;
  fs::path before = f.dir / "A", after = f.dir / "D";
  fs::create_directories(before);
  auto tuner_lock =
      util::LockFile::TryAcquire((before / "tuner.lock").string());
  REQUIRE(tuner_lock);
  auto launch = f.Launch(1, {"--epochs", "8", "--sleep-ms", "200"});
  auto place = [&launch](const fs::path& folder) {
    launch.spawn.stdout_path = folder / "1.out";
    launch.spawn.stderr_path = folder / "1.err";
    launch.status_path = (folder / "1.status").string();
  };
  place(before);
  pid_t shim = -1;
  {
    boost::asio::io_context io;
    Recorder recorder(io, 1);
    LocalRunner runner(io, recorder,
                       {TUNER_SHIM, (before / "tuner.lock").string(),
                        std::chrono::milliseconds(300)});
    REQUIRE(runner.Start(launch).ok());
    io.run_for(std::chrono::milliseconds(200));
    shim = runner.ShimPid(1);
    runner.Detach();
  }
  REQUIRE(shim > 0);
  // A copy of the project is another project: its runner never takes the
  // original's shim (stopping it would stop the original's trial).
  fs::path copy = f.dir / "B";
  fs::copy(before, copy, fs::copy_options::recursive);
  SupervisorId id{shim, *ProcessStartTime(shim)};
  boost::asio::io_context io;
  Recorder recorder(io, 1);
  LocalRunner runner(io, recorder,
                     {TUNER_SHIM, (after / "tuner.lock").string(),
                      std::chrono::milliseconds(300)});
  CHECK(runner.FindSupervisor(id, (copy / "1.status").string()) == -1);
  CHECK(runner.FindSupervisor(id, launch.status_path) == shim);
  fs::rename(before, after);
  place(after);
  CHECK(runner.FindSupervisor(id, launch.status_path) == shim);
  Adoption adoption;
  adoption.trial = 1;
  adoption.shim_pid = shim;
  adoption.launch = launch;
  REQUIRE(runner.Adopt(adoption).ok());
  io.run_for(std::chrono::seconds(30));
  REQUIRE(recorder.exits_.count(1));
  CHECK(recorder.exits_[1].exit_code == 0);
  CHECK(recorder.exits_[1].cause == EndCause::kExited);
  CHECK(recorder.metrics_[1].size() == 8);
  CHECK_FALSE(fs::exists(before));  // nothing written at the old place
  waitpid(shim, nullptr, 0);
}

}  // namespace
}  // namespace tuner::runner

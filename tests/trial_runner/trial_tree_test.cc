// A trial's whole process tree is the trial's: what it starts in a session
// of its own (a daemon, torch's elastic workers) is stopped with it, and
// nothing it starts holds its device lease.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include "tests/catch.h"
#include "tests/support/wait_for.h"
#include "trial_runner/devices/device_pool.h"
#include "trial_runner/processes/local_runner.h"

namespace tuner::runner {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

class ExitRecorder : public RunnerObserver {
 public:
  explicit ExitRecorder(boost::asio::io_context& io) : io_(io) {}
  void OnMetrics(core::TrialId, core::Metrics, int64_t) override {}
  void OnExit(core::TrialId, const TrialExit& exit) override {
    exit_ = exit;
    io_.stop();
  }
  std::optional<TrialExit> exit_;

 private:
  boost::asio::io_context& io_;
};

struct TreeFixture {
  TreeFixture()
      : dir(fs::temp_directory_path() /
            ("tuner-tree-" + std::to_string(getpid()) + "-" +
             std::to_string(counter++))) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~TreeFixture() { fs::remove_all(dir); }

  // `script` runs under /bin/sh in `dir`.
  TrialLaunch Launch(const std::string& script) {
    TrialLaunch launch;
    launch.trial = 1;
    launch.spawn.argv = {"/bin/sh", "-c", script};
    launch.spawn.env = {{"PATH", "/usr/bin:/bin"}};  // ls, setsid, sleep
    launch.spawn.cwd = dir.string();
    launch.spawn.stdout_path = dir / "out.log";
    launch.spawn.stderr_path = dir / "err.log";
    launch.stop_grace = milliseconds(200);
    return launch;
  }
  std::string Read(const std::string& name) const {
    std::ifstream in(dir / name);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  // The pid in `name` once the trial has written it (60 s at most).
  pid_t WaitForPid(const std::string& name, boost::asio::io_context& io) {
    std::string text;
    auto written = [&] {
      io.poll();
      text = Read(name);
      return !text.empty() && text.back() == '\n';
    };
    if (!testing::WaitFor(name, std::chrono::seconds(60), written,
                          milliseconds(5))) {
      return -1;
    }
    return std::stoi(text);
  }

  static inline int counter = 0;
  fs::path dir;
};

// Whether `pid` is a process that has not ended (a zombie has).
bool Running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)),
                   std::istreambuf_iterator<char>());
  size_t close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() &&
         text[close + 2] != 'Z';
}

// The session id of `pid` (field 6 of /proc/PID/stat).
pid_t SessionOf(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)),
                   std::istreambuf_iterator<char>());
  std::istringstream fields(text.substr(text.rfind(')') + 2));
  std::string state;
  pid_t ppid = 0, pgrp = 0, session = 0;
  fields >> state >> ppid >> pgrp >> session;
  return session;
}

void RunUntilExit(boost::asio::io_context& io, ExitRecorder& recorder) {
  io.restart();
  testing::WaitFor(
      "the trial's exit", std::chrono::seconds(60),
      [&] {
        if (recorder.exit_) return true;
        io.run_for(milliseconds(100));
        return false;
      },
      milliseconds(0));
}

TEST_CASE("a trial's daemon holds no lease and dies when the trial ends",
          "[runner][process]") {
  TreeFixture f;
  Inventory inventory;
  inventory.kind = DeviceKind::kHabana;
  inventory.devices.resize(1);
  PoolOptions options;
  options.lock_dir = (f.dir / "locks").string();
  auto pool = DevicePool::Create(inventory, options);
  REQUIRE(pool.ok());
  auto lease = pool.value().TryAcquire();
  REQUIRE(lease);
  std::string lock = options.lock_dir + "/" +
                     LockName(DeviceKind::kHabana, lease->devices[0]) + ".lock";

  boost::asio::io_context io;
  ExitRecorder recorder(io);
  LocalRunner runner(io, recorder, {TUNER_SHIM, "", {}});
  // Double fork: the daemon's parent exits, the daemon calls setsid() and
  // sleeps; the trial records its own and the daemon's descriptors, then
  // waits for `go` and exits 0.
  TrialLaunch launch = f.Launch(
      "ls -l /proc/$$/fd > trial.fds; "
      "(setsid sh -c 'ls -l /proc/$$/fd > daemon.fds; echo $$ > daemon.pid; "
      "exec sleep 1000' &) ; "
      "while [ ! -e go ]; do sleep 0.01; done; exit 0");
  launch.spawn.inherit_fds = lease->lock_fds();
  REQUIRE(runner.Start(launch).ok());
  pool.value().Release(std::move(*lease));
  lease.reset();  // only the shim holds the lock now

  pid_t daemon = f.WaitForPid("daemon.pid", io);
  REQUIRE(daemon > 0);
  CHECK(SessionOf(daemon) == daemon);  // it left the trial's session
  CHECK(util::ProbeLock(lock).held);   // the shim holds the lease
  INFO("trial: " << f.Read("trial.fds") << "daemon: " << f.Read("daemon.fds"));
  CHECK(f.Read("trial.fds").find(".lock") == std::string::npos);
  CHECK(f.Read("daemon.fds").find(".lock") == std::string::npos);

  std::ofstream(f.dir / "go").close();
  RunUntilExit(io, recorder);
  REQUIRE(recorder.exit_);
  CHECK(recorder.exit_->exit_code == 0);
  // Reported only once the whole tree is gone; then the lease is free.
  CHECK_FALSE(Running(daemon));
  CHECK_FALSE(util::ProbeLock(lock).held);
  CHECK(pool.value().TryAcquire());
}

TEST_CASE("Stop ends a trial's child that started its own session",
          "[runner][process]") {
  bool ignore_sigterm = GENERATE(false, true);
  INFO((ignore_sigterm ? "the tree ignores SIGTERM" : "plain SIGTERM"));
  TreeFixture f;
  boost::asio::io_context io;
  ExitRecorder recorder(io);
  LocalRunner runner(io, recorder, {TUNER_SHIM, "", {}});
  // An ignored signal stays ignored across fork and exec: with the trap,
  // nothing in the tree dies of SIGTERM.
  std::string trap = ignore_sigterm ? "trap '' TERM; " : "";
  TrialLaunch launch = f.Launch(
      trap +
      "setsid sh -c 'echo $$ > worker.pid; while :; do sleep 0.05; done' & "
      "echo $$ > main.pid; while :; do sleep 0.05; done");
  REQUIRE(runner.Start(launch).ok());
  pid_t worker = f.WaitForPid("worker.pid", io);
  pid_t main = f.WaitForPid("main.pid", io);
  REQUIRE(worker > 0);
  REQUIRE(main > 0);
  CHECK(SessionOf(worker) == worker);
  runner.Stop(1);
  RunUntilExit(io, recorder);
  REQUIRE(recorder.exit_);
  CHECK(recorder.exit_->stop_requested);
  CHECK(recorder.exit_->signal == (ignore_sigterm ? SIGKILL : SIGTERM));
  CHECK_FALSE(Running(main));
  CHECK_FALSE(Running(worker));
}

TEST_CASE("a trial's leftovers in other sessions end when its main exits",
          "[runner][process]") {
  TreeFixture f;
  boost::asio::io_context io;
  ExitRecorder recorder(io);
  LocalRunner runner(io, recorder, {TUNER_SHIM, "", {}});
  // The worker ignores SIGTERM: it dies of the SIGKILL after stop_grace.
  TrialLaunch launch = f.Launch(
      "setsid sh -c \"trap '' TERM; echo \\$\\$ > worker.pid; "
      "while :; do sleep 0.05; done\" & "
      "while [ ! -s worker.pid ]; do sleep 0.01; done; exit 3");
  REQUIRE(runner.Start(launch).ok());
  RunUntilExit(io, recorder);
  REQUIRE(recorder.exit_);
  CHECK(recorder.exit_->exit_code == 3);
  pid_t worker = std::stoi(f.Read("worker.pid"));
  CHECK_FALSE(Running(worker));
}

}  // namespace
}  // namespace tuner::runner
